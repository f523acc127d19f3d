// The report's sections for a GPU run's hardware counters and stall samples:
// what they say, what they leave out, and that every line fits 100 columns.
#include <catch2/catch.hpp>
#include <random>
#include <sstream>
#include "trace/gpu_metrics.h"
#include "trace/report.h"

namespace {

std::string report_of(const tklab::trace::Trace& t) {
    std::ostringstream out;
    tklab::trace::write_report(out, t, {false, 3});
    return out.str();
}

void check_widths(const std::string& text) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        INFO(line);
        CHECK(line.size() <= 100);
    }
}

} // namespace

TEST_CASE("report: hardware counters per launch, a missing metric as -", "[profiler][report]") {
    namespace m = tklab::trace::gpu_metrics;
    tklab::trace::Trace t;
    t.producer = "tklab profiler";
    tklab::trace::GpuCounters c;
    c.kernel = "void lesson04::solution::kernel(tk::gl<float>, tk::gl<float>) with a name long enough to be cut " + std::string(80, 'x');
    c.metrics = {{m::kInstructions, 123456}, {m::kLdsInstructions, 512}, {m::kLoadWavefronts, 2048}, {m::kLoadConflicts, 1024},
                 {m::kStoreWavefronts, 512}, {m::kStoreConflicts, 0}};
    t.gpu_counters.push_back(c);
    const std::string r = report_of(t);
    CHECK_THAT(r, Catch::Contains("Hardware counters"));
    CHECK_THAT(r, Catch::Contains("123456 warp instructions, of which shared memory:"));
    CHECK_THAT(r, Catch::Contains("LDS 512, LDSM -"));          // not measured: not 0
    CHECK_THAT(r, Catch::Contains("2048 wavefronts, 1024 bank conflicts (50.0% of wavefronts)"));
    CHECK_THAT(r, Catch::Contains("512 wavefronts, 0 bank conflicts (none)"));
    CHECK_THAT(r, !Catch::Contains("no launches"));
    check_widths(r);
}

TEST_CASE("report: stall samples by reason and by line", "[profiler][report]") {
    std::mt19937 rng(11);
    tklab::trace::Trace t;
    t.producer = "tklab profiler";
    tklab::trace::GpuStalls s;
    s.kernel = "chase";
    s.period_cycles = 2048;
    // Line 40 mostly long_scoreboard, line 41 barrier; seeded counts, long_scoreboard always ahead.
    const uint64_t ls = 1000 + rng() % 1000, bar = 100 + rng() % 500, sel = 10 + rng() % 50;
    s.sites = {{"/src/kernels/chase.cu", 40, "long_scoreboard", ls},
               {"/src/kernels/chase.cu", 41, "barrier", bar},
               {"/src/kernels/chase.cu", 40, "selected", sel},
               {"", 0, "no_instructions", 3}};
    s.samples = ls + bar + sel + 3 + 5;  // 5 samples with no site
    s.dropped = 7;
    t.gpu_stalls.push_back(s);
    const std::string r = report_of(t);
    CHECK_THAT(r, Catch::Contains("Stall sampling"));
    CHECK_THAT(r, Catch::Contains("every 2048 cycles; 7 dropped"));
    // Reasons in order of samples, the first being long_scoreboard.
    const size_t a = r.find("long_scoreboard "), b = r.find("barrier "), c = r.find("selected ");
    REQUIRE(a != std::string::npos);
    CHECK(a < b);
    CHECK(b < c);
    CHECK_THAT(r, Catch::Contains("chase.cu:40  (long_scoreboard, selected)"));
    CHECK_THAT(r, Catch::Contains("(no line: build with -lineinfo)"));
    check_widths(r);
}
