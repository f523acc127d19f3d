// The trace writer when the disk says no: the first failed write is one
// TraceError naming the file and the bytes written, after which the writer
// writes and throws nothing more (so an error handler may still record a
// failure into it); a regular file is written under a temporary name and
// renamed when closed, so two runs writing one path leave one run's whole
// file; what a failed write left keeps the trace's name, for --salvage.
#include <catch2/catch.hpp>

#include "trace/codec.h"

#include <unistd.h>

#include <filesystem>
#include <random>
#include <string>

namespace {

namespace fs = std::filesystem;
using tklab::trace::json;
using tklab::trace::TraceError;
using Catch::Matchers::Contains;

std::string temp_path(const std::string& name) {
    return (fs::temp_directory_path() / ("tklab_writer_" + std::to_string(::getpid()) + "_" + name)).string();
}

tklab::trace::Trace small_trace(uint64_t seed) {
    tklab::trace::Trace t;
    t.producer = "test";
    t.seed = seed;
    t.stalls = {"none"};
    t.files = {tklab::trace::SourceFile{}};
    t.locations = {tklab::trace::Location{}};
    t.op_names = {std::string{}};
    return t;
}

// A record of `n` random words (seeded), a few hundred bytes each.
json record(std::mt19937& rng, int n) {
    json words = json::array();
    for (int i = 0; i < n; ++i) words.push_back(uint32_t(rng()));
    return {{"type", "check"}, {"output", "C"}, {"max_error", 0.0}, {"tolerance", 0.0}, {"passed", true}, {"variant", ""},
            {"words", words}};
}

} // namespace

TEST_CASE("trace writer: a regular file takes its name only when closed", "[trace][file]") {
    for (const char* ext : {".json", ".cbor"}) {
        const std::string path = temp_path(std::string("renamed") + ext);
        fs::remove(path);
        std::mt19937 rng(5);
        {
            tklab::trace::Writer w(path);
            w.begin(small_trace(17));
            for (int i = 0; i < 20; ++i) w.record(record(rng, 50));
            CHECK_FALSE(fs::exists(path));  // still under its temporary name
            w.close();
            CHECK_FALSE(w.failed());
        }
        REQUIRE(fs::exists(path));
        const auto loaded = tklab::trace::load_trace(path, {});
        CHECK(loaded.trace.complete);
        CHECK(loaded.trace.seed == 17);
        // Nothing is left under a temporary name.
        for (const auto& e : fs::directory_iterator(fs::path(path).parent_path()))
            CHECK(e.path().string().find(fs::path(path).filename().string() + ".partial-") == std::string::npos);
        fs::remove(path);
    }
}

TEST_CASE("trace writer: a full disk is one error, and the writer stays quiet after it", "[trace][file]") {
    REQUIRE(fs::exists("/dev/full"));  // Linux has it
    const std::string link = temp_path("full.cbor");
    fs::remove(link);
    fs::create_symlink("/dev/full", link);  // a device is written in place, not under a temporary name
    std::mt19937 rng(6);
    tklab::trace::Writer w(link);
    bool threw = false;
    try {
        w.begin(small_trace(1));
        for (int i = 0; i < 200 && !threw; ++i) w.record(record(rng, 100));
    } catch (const TraceError& e) {
        threw = true;
        CHECK_THAT(std::string(e.what()), Contains(link) && Contains("write failed after") && Contains("No space left on device"));
    }
    REQUIRE(threw);
    CHECK(w.failed());
    CHECK_THAT(w.error(), Contains("No space left on device"));
    // An error handler records the failure and closes: neither throws again.
    CHECK_NOTHROW(w.record(record(rng, 10)));
    CHECK_NOTHROW(w.close());
    CHECK(fs::is_symlink(link));  // the link is still a link to the device
    fs::remove(link);
}

TEST_CASE("trace writer: two writers of one path leave one whole file", "[trace][file]") {
    const std::string path = temp_path("two.json");
    fs::remove(path);
    std::mt19937 rng(7);
    tklab::trace::Writer a(path), b(path);
    a.begin(small_trace(1));
    b.begin(small_trace(2));
    for (int i = 0; i < 10; ++i) {
        a.record(record(rng, 20));
        b.record(record(rng, 20));
    }
    b.close();
    a.close();  // the last to close wins, whole
    const auto loaded = tklab::trace::load_trace(path, {});
    CHECK(loaded.trace.complete);
    CHECK(loaded.trace.checks.size() == 10);
    fs::remove(path);
}
