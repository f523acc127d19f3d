// What the trace_loader fuzzer found (fuzz/README.md), each pinned down here
// by its meaning; fuzz/regressions/trace_loader/ replays the raw inputs.
#include <catch2/catch.hpp>

#include "trace/codec.h"
#include "trace/gpu_metrics.h"
#include "trace/report.h"

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using tklab::trace::Encoding;
using tklab::trace::load_trace_bytes;

// A small GPU-style trace with a few records of each simple kind, on seeded random values.
tklab::trace::Trace small_trace(unsigned seed) {
    std::mt19937 rng(seed);
    tklab::trace::Trace t;
    t.producer = "tklab profiler";
    t.program = "fuzzed";
    t.variant = "v";
    t.seed = seed;
    t.arch = {{"name", "test"}, {"gpu", true}};
    t.ops = {"ld.shared"};
    t.stalls = {"none"};
    t.files = {tklab::trace::SourceFile{}, {"k.cu", "", std::string("int x;\n")}};
    t.locations = {tklab::trace::Location{}, {1, 1}};
    t.op_names = {std::string{}};
    for (int i = 0; i < 3; ++i) {
        tklab::trace::GpuCounters c;
        c.kernel = "k" + std::to_string(i);
        c.launch = uint32_t(i);
        c.metrics[tklab::trace::gpu_metrics::kInstructions] = double(rng() % 100000);
        t.gpu_counters.push_back(c);
        t.checks.push_back({"out", double(rng() % 100) * 1e-6, 1e-3, true, "v"});
    }
    return t;
}

std::string encoded(const tklab::trace::Trace& t, const std::string& ext) {
    const auto path = fs::temp_directory_path() / ("tklab_fuzz_findings_" + std::to_string(::getpid()) + ext);
    tklab::trace::write_trace(path.string(), t);
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    fs::remove(path);
    return bytes;
}

} // namespace

TEST_CASE("trace fuzz findings: every record present but the document not closed is said so, and salvaged",
          "[trace][file][fuzz]") {
    const auto t = small_trace(11);
    // JSON without its closing "}" (or with only the records' "]"); CBOR with
    // bytes after the document. Either way all records are there.
    const std::string json = encoded(t, ".json"), cbor = encoded(t, ".cbor");
    REQUIRE(json.substr(json.size() - 4) == "\n]}\n");
    const std::vector<std::pair<std::string, Encoding>> damaged = {
        {json.substr(0, json.size() - 2), Encoding::json},
        {json.substr(0, json.size() - 2) + "]", Encoding::json},
        {cbor + "\x01", Encoding::cbor},
    };
    for (const auto& [bytes, enc] : damaged) {
        const std::string name = enc == Encoding::json ? "d.json" : "d.cbor";
        CHECK_THROWS_WITH(load_trace_bytes(bytes, enc, name),
                          Contains(name + ": ") && Contains("after all") && Contains("records") && Contains("--salvage") &&
                              !Contains("before any record"));
        const auto l = load_trace_bytes(bytes, enc, name, {true});
        CHECK_THAT(l.warning, Contains("after all"));
        CHECK(!l.trace.complete);
        CHECK(l.trace.gpu_counters == t.gpu_counters);
        CHECK(l.trace.checks == t.checks);
    }
    // The byte named is inside the file, also when the end came early.
    CHECK_THROWS_WITH(load_trace_bytes(json.substr(0, json.size() - 2), Encoding::json, "d.json"),
                      Contains("at byte " + std::to_string(json.size() - 2) + " of " + std::to_string(json.size() - 2)));
}

TEST_CASE("trace fuzz findings: a hardware counter no count can be prints as '-'", "[trace][report][fuzz]") {
    auto t = small_trace(12);
    const char* m = tklab::trace::gpu_metrics::kInstructions;
    t.gpu_counters[0].metrics[m] = 4.25e37;   // past 2^64: converting it was undefined behaviour
    t.gpu_counters[1].metrics[m] = -3;
    std::ostringstream out;
    tklab::trace::write_report(out, t, {false, 5});
    const std::string r = out.str();
    const auto first = r.find("launch 0:"), second = r.find("launch 1:"), third = r.find("launch 2:");
    REQUIRE(first != std::string::npos);
    REQUIRE(second != std::string::npos);
    REQUIRE(third != std::string::npos);
    CHECK_THAT(r.substr(first, second - first), Contains("     - warp instructions"));
    CHECK_THAT(r.substr(second, third - second), Contains("     - warp instructions"));
    CHECK_THAT(r.substr(third), !Contains("     - warp instructions"));
}
