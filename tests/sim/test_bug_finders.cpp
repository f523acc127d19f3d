// The bug finders against the planted bugs (tests/planted_bugs/): each bug is
// found, as its kind, at the lines its BUG markers name; switching a finder
// off makes it silent. (That nothing is reported on the lessons' solutions
// and the kernels is tested through the command line: "cli: no findings".)
#include <catch2/catch.hpp>

#include "planted_bugs/all.cuh"
#include "support/bug_finders_off.h"
#include "sim/simulator.h"

#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace {

using tklab::sim::ErrorKind;
using tklab::sim::SimError;

ErrorKind expected_kind(planted::Kind k) {
    switch (k) {
    case planted::Kind::memory: return ErrorKind::fault;
    case planted::Kind::race: return ErrorKind::race;
    case planted::Kind::uninit: return ErrorKind::uninitialized_read;
    case planted::Kind::sync: return ErrorKind::sync_misuse;
    case planted::Kind::deadlock: return ErrorKind::deadlock;
    }
    return ErrorKind::usage;
}

// The lines of `file` marked "// BUG <name>".
std::set<int> marked_lines(const std::string& file, const std::string& name) {
    std::ifstream in(file);
    REQUIRE(in.good());
    std::set<int> lines;
    std::string text;
    for (int n = 1; std::getline(in, text); ++n) {
        const size_t at = text.find("// BUG " + name);
        if (at == std::string::npos) continue;
        const size_t end = at + 7 + name.size();
        if (end == text.size() || text[end] == ' ' || text[end] == ':') lines.insert(n);
    }
    return lines;
}

using test_support::checks_as;

const planted::Bug& bug(const std::string& name) {
    for (const planted::Bug& b : planted::all_bugs())
        if (b.name == name) return b;
    FAIL("no planted bug " << name);
    throw 0;
}

} // namespace

TEST_CASE("bug finders: at least three planted bugs of every kind", "[sim][bug_finders]") {
    for (planted::Kind k : {planted::Kind::memory, planted::Kind::race, planted::Kind::uninit, planted::Kind::sync, planted::Kind::deadlock}) {
        int n = 0;
        for (const planted::Bug& b : planted::all_bugs()) n += b.kind == k;
        INFO(planted::kind_name(k));
        CHECK(n >= 3);
    }
}

TEST_CASE("bug finders: every planted bug is found, as its kind, at its lines", "[sim][bug_finders]") {
    const checks_as all{tklab::sim::Options::Checks{}};
    for (const planted::Bug& b : planted::all_bugs()) {
        INFO(b.name << ": " << b.what);
        const std::set<int> lines = marked_lines(b.file, b.name);
        REQUIRE(!lines.empty());
        try {
            b.run();
            FAIL("not reported");
        } catch (const SimError& e) {
            const std::string msg = e.what();
            INFO(msg);
            CHECK(e.kind == expected_kind(b.kind));
            CHECK(e.file == b.file);
            CHECK(lines.count(e.line) == 1);
            // The report names every marked line (both accesses of a race,
            // every warp's wait in a deadlock), and says how to fix it.
            for (int l : lines) CHECK_THAT(msg, Catch::Matchers::Contains(std::string(b.file) + ":" + std::to_string(l)));
            CHECK_THAT(msg, Catch::Matchers::Contains("fix:"));
            if (b.kind == planted::Kind::race) {
                CHECK_THAT(msg, Catch::Matchers::Contains("now:") && Catch::Matchers::Contains("earlier:") &&
                                    Catch::Matchers::Contains("nothing orders them"));
            }
            if (b.kind == planted::Kind::deadlock) {
                CHECK_THAT(msg, Catch::Matchers::Contains("wait-for") && Catch::Matchers::Contains("cycle: warp"));
            }
        }
    }
}

TEST_CASE("bug finders: the race report names the missing synchronisation", "[sim][bug_finders]") {
    auto message = [](const char* name) {
        try {
            bug(name).run();
        } catch (const SimError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    using Catch::Matchers::Contains;
    const std::string between_warps = message("missing_syncthreads");
    CHECK_THAT(between_warps, Contains("read after write") && Contains("different warps") && Contains("__syncthreads()") &&
                                  Contains("now:     warp 3 lane ") && Contains("earlier: warp 0 lane "));
    const std::string in_warp = message("missing_syncwarp");
    CHECK_THAT(in_warp, Contains("two lanes of one warp") && Contains("__syncwarp()") && Contains("earlier: warp 0 lane 0 writes"));
    const std::string reuse = message("buffer_reused_too_soon");
    CHECK_THAT(reuse, Contains("shared-memory race") && Contains("different warps"));
}

TEST_CASE("bug finders: the wait-for picture of a deadlock draws its cycle", "[sim][bug_finders]") {
    try {
        bug("crossed_signals").run();
        FAIL("not reported");
    } catch (const SimError& e) {
        const std::string msg = e.what();
        INFO(msg);
        using Catch::Matchers::Contains;
        CHECK_THAT(msg, Contains("warp 0: waits on mbarrier") && Contains("warp 1: waits on mbarrier"));
        CHECK_THAT(msg, Contains("cycle: warp 0 -> mbarrier ") && Contains(" -> warp 1 -> mbarrier ") && Contains(" -> warp 0"));
    }
}

TEST_CASE("bug finders: each finder can be switched off", "[sim][bug_finders]") {
    SECTION("races off: the missing __syncthreads() goes unreported (the simulator's order happens to be right)") {
        tklab::sim::Options::Checks c;
        c.races = false;
        const checks_as off{c};
        CHECK_NOTHROW(bug("missing_syncthreads").run());
        CHECK_NOTHROW(bug("missing_syncwarp").run());
    }
    SECTION("uninit off: the never-uploaded bias is read as whatever is there") {
        tklab::sim::Options::Checks c;
        c.uninit = false;
        const checks_as off{c};
        CHECK_NOTHROW(bug("bias_never_uploaded").run());
        CHECK_NOTHROW(bug("tile_row_never_written").run());
    }
    SECTION("sync off: a barrier part of the block skips is still stuck, reported as a plain deadlock") {
        tklab::sim::Options::Checks c;
        c.sync = false;
        const checks_as off{c};
        try {
            bug("syncthreads_after_early_return").run();
            FAIL("not reported");
        } catch (const SimError& e) {
            CHECK(e.kind == ErrorKind::deadlock);
        }
    }
    SECTION("the list parser") {
        tklab::sim::Options::Checks c;
        std::string error;
        REQUIRE(tklab::sim::parse_checks("races,sync", c, error));
        CHECK((c.races && !c.uninit && c.sync));
        REQUIRE(tklab::sim::parse_checks("none", c, error));
        CHECK((!c.races && !c.uninit && !c.sync));
        REQUIRE(tklab::sim::parse_checks("all", c, error));
        CHECK((c.races && c.uninit && c.sync));
        CHECK_FALSE(tklab::sim::parse_checks("races,leaks", c, error));
        CHECK_THAT(error, Catch::Matchers::Contains("unknown bug finder 'leaks'"));
    }
}
