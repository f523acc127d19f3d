// The committed timing fidelity reports (scripts/fidelity/timing.sh: the H200's,
// without and with the L1 model, and the H100's) against what sim/README.md,
// sim/arch/README.md and lesson 9's README say of them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "support/registers_table.h"

using registers_table::kRoot;
using registers_table::lines_of;
using registers_table::one_line;
using registers_table::words;

namespace {

// A launch's kernel-time error in a report's summary ("  one   layernorm  default  ...  +8%  hot lines ...").
std::string error_of(const std::string& report, const std::string& tag, const std::string& program, const std::string& variant) {
    for (const std::string& line : lines_of(kRoot / "results" / report)) {
        const std::vector<std::string> w = words(line);
        if (w.size() > 7 && w[0] == tag && w[1] == program && w[2] == variant && w[4] == "us") return w[7];
    }
    FAIL("results/" << report << " has no summary row for " << tag << " " << program << " " << variant);
    return {};
}

// The summary's mean error ("Kernel time: mean absolute error 13% over ...").
std::string mean_of(const std::string& report) {
    for (const std::string& line : lines_of(kRoot / "results" / report)) {
        const std::vector<std::string> w = words(line);
        if (w.size() > 5 && w[0] == "Kernel" && w[3] == "absolute") return w[5];
    }
    FAIL("results/" << report << " has no summary line");
    return {};
}

// A hot line's share of the GPU's samples in a launch's section ("== lesson01
// solution, one wave (...)", then "   53.9%  lessons/01_tiles/solution.cuh:23  GPU
// long_scoreboard  simulator ...  agrees"), rounded to a whole per cent, and
// whether the top reasons agree.
struct HotLine { std::string share; bool agrees = false; };
HotLine hot_line(const std::string& report, const std::string& program, const std::string& variant, const std::string& wave,
                 const std::string& where) {
    bool in = false;
    for (const std::string& line : lines_of(kRoot / "results" / report)) {
        const std::vector<std::string> w = words(line);
        if (!w.empty() && w[0] == "==") { in = w.size() > 3 && w[1] == program && w[2] == variant + "," && w[3] == wave; continue; }
        if (!in || w.size() < 6 || w[2] != "GPU") continue;
        const std::string& at = w[1];
        if (at.size() < where.size() || at.compare(at.size() - where.size(), where.size(), where) != 0) continue;
        char buf[16];
        std::snprintf(buf, sizeof buf, "%.0f%%", std::stod(w[0]));
        return {buf, w.back() == "agrees"};
    }
    FAIL("results/" << report << " has no hot line " << where << " for " << program << " " << variant << " " << wave);
    return {};
}

// A stall reason's shares in a launch's section ("      not_selected   41.1%   2.4%"),
// the simulator's and the GPU's, rounded to whole per cents.
std::pair<std::string, std::string> stall_shares(const std::string& report, const std::string& program, const std::string& variant,
                                                 const std::string& wave, const std::string& reason) {
    bool in = false;
    for (const std::string& line : lines_of(kRoot / "results" / report)) {
        const std::vector<std::string> w = words(line);
        if (!w.empty() && w[0] == "==") { in = w.size() > 3 && w[1] == program && w[2] == variant + "," && w[3] == wave; continue; }
        if (!in || w.size() != 3 || w[0] != reason) continue;
        char sim[16], gpu[16];
        std::snprintf(sim, sizeof sim, "%.0f%%", std::stod(w[1]));
        std::snprintf(gpu, sizeof gpu, "%.1f%%", std::stod(w[2]));
        return {sim, gpu};
    }
    FAIL("results/" << report << " has no " << reason << " row for " << program << " " << variant << " " << wave);
    return {};
}

} // namespace

TEST_CASE("fidelity results: sim/README.md's figures for the memory model and conversions are the H200 report's", "[sim][results]") {
    const std::string report = "fidelity_timing_h200.txt";
    const std::string readme = one_line(kRoot / "sim" / "README.md");
    // Waits at the line of a load that converts, and of layernorm's first map; the simulator's top reason agrees at both.
    const HotLine l1 = hot_line(report, "lesson01", "solution", "one", "01_tiles/solution.cuh:23");
    CHECK_THAT(readme, Catch::Contains("(`long_scoreboard`: " + l1.share + " of lesson 1's samples at one wave, at its `load`)"));
    CHECK(l1.agrees);
    const HotLine ln = hot_line(report, "layernorm", "default", "many", "layernorm/layernorm_kernel.cuh:51");
    CHECK_THAT(readme, Catch::Contains("where the H200 samples " + ln.share + " of its time at many waves"));
    CHECK(ln.agrees);
}

TEST_CASE("fidelity results: sim/README.md's error for gemm_hopper at many waves is the H100 report's", "[sim][results]") {
    int worst = 0;
    for (const char* variant : {"cluster", "bulk_store", "direct_store"})
        worst = std::max(worst, std::abs(std::stoi(error_of("fidelity_timing_h100.txt", "many", "gemm_hopper", variant))));
    CHECK_THAT(one_line(kRoot / "sim" / "README.md"), Catch::Contains("its three variants are within " + std::to_string(worst) + "% of it"));
}

TEST_CASE("fidelity results: sim/README.md's error for lesson 4 with a loop's loads together is the H100 report's", "[sim][results]") {
    const std::string e = error_of("fidelity_timing_h100.txt", "one", "lesson04", "solution");
    CHECK_THAT(one_line(kRoot / "sim" / "README.md"), Catch::Contains("it is " + e + " (results/fidelity_timing_h100.txt)"));
}

TEST_CASE("fidelity results: sim/README.md's figures for the L1 model are the H200 reports'", "[sim][results]") {
    const std::string off = "fidelity_timing_h200_no_l1.txt", on = "fidelity_timing_h200.txt";
    const std::string readme = one_line(kRoot / "sim" / "README.md");
    auto both = [&](const std::string& program, const std::string& variant) {
        return "from " + error_of(off, "one", program, variant) + " to " + error_of(on, "one", program, variant);
    };
    CHECK_THAT(readme, Catch::Contains("layernorm at one wave " + both("layernorm", "default")));
    CHECK_THAT(readme, Catch::Contains("lesson 1 " + both("lesson01", "solution")));
    auto tiles = [&](const std::string& report) {
        std::string s;
        for (const char* v : {"tile16", "tile32", "tile64"}) s += (s.empty() ? "" : "/") + error_of(report, "one", "lesson06", v);
        return s;
    };
    CHECK_THAT(readme, Catch::Contains("lesson 6's tiles at one wave from " + tiles(off) + " to " + tiles(on) + " (16x16, 32x32, 64x64)"));
    CHECK_THAT(readme, Catch::Contains("the mean error is " + mean_of(off) + " without it and " + mean_of(on) + " with it"));
}

TEST_CASE("fidelity results: sim/README.md's share of conflicted wavefronts at 4096^3 is the H200 run's", "[sim][results]") {
    // scripts/gpu/run.sh's counters section: "loads (LDS+LDSM)  N wavefronts, M bank conflicts (X% of wavefronts)".
    std::string share;
    for (const std::string& line : lines_of(kRoot / "results" / "gpu_h200.txt")) {
        const std::vector<std::string> w = words(line);
        if (w.size() > 7 && w[0] == "loads" && w[1] == "(LDS+LDSM)") share = w[7].substr(1);
    }
    REQUIRE(!share.empty());
    const std::string readme = one_line(kRoot / "sim" / "README.md");
    CHECK_THAT(readme, Catch::Contains("the demo GEMM at 4096^3 now has " + share + " of its shared-memory load wavefronts as conflicts on the H200"));
}

TEST_CASE("fidelity results: sim/README.md's stall figures are the H200 report's summary", "[sim][results]") {
    // "Hot lines: top stall reason agrees on A of B (..%); on A of the C that
    // hold simulator instructions ... Stall reasons: the distributions D% apart
    // on average, at most W% (PROGRAM VARIANT TAG)."
    std::vector<std::string> w;
    for (const std::string& line : lines_of(kRoot / "results" / "fidelity_timing_h200.txt"))
        if (line.rfind("Kernel time:", 0) == 0) w = words(line);
    REQUIRE(!w.empty());
    std::string agree, hot, modelled, mean, most;
    for (size_t i = 0; i + 4 < w.size(); ++i) {
        if (w[i] == "agrees" && w[i + 1] == "on" && agree.empty()) { agree = w[i + 2]; hot = w[i + 4]; }
        if (w[i] == "the" && w[i + 2] == "that" && w[i + 3] == "hold") modelled = w[i + 1];
        if (w[i] == "distributions") mean = w[i + 1];
        if (w[i] == "at" && w[i + 1] == "most") { most = w[i + 2]; CHECK(w[i + 3] == "(lesson04"); }
    }
    REQUIRE(!agree.empty());
    REQUIRE(!mean.empty());
    REQUIRE(!most.empty());
    const int plain = std::stoi(hot) - std::stoi(modelled);
    const std::string readme = one_line(kRoot / "sim" / "README.md");
    CHECK_THAT(readme, Catch::Contains("distributions are " + mean + " apart on average"));
    CHECK_THAT(readme, Catch::Contains("at most " + most + " (lesson 4's transpose"));
    CHECK_THAT(readme, Catch::Contains("the top reason agrees on " + agree + " of " + hot + " hot lines, " + std::to_string(plain) +
                                       " of them plain code"));
}

TEST_CASE("fidelity results: sim/README.md's figures for the dispatcher's dealing are the H200 report's", "[sim][results]") {
    const std::string report = "fidelity_timing_h200.txt";
    const std::string readme = one_line(kRoot / "sim" / "README.md");
    CHECK_THAT(readme, Catch::Contains("lessons 5 and 9 are now " + error_of(report, "many", "lesson05", "solution") + " and " +
                                       error_of(report, "many", "lesson09", "solution") + " against the H200"));
}

TEST_CASE("fidelity results: sim/README.md's figures for issuing in clock order are the H200 report's", "[sim][results]") {
    // The report is of the simulator before the change (its header names the commit): what the change mends.
    const std::string readme = one_line(kRoot / "sim" / "README.md");
    const auto [sim, gpu] = stall_shares("fidelity_timing_h200.txt", "layernorm", "default", "many", "not_selected");
    CHECK_THAT(readme, Catch::Contains("layernorm at many waves showed " + sim + " of its warp time `not_selected` where the H200 samples " + gpu));
}

TEST_CASE("fidelity results: sim/README.md's LDSM placements are ptxas's, and the stall shares beside them the H100 report's", "[sim][results]") {
    const std::string readme = one_line(kRoot / "sim" / "README.md");
    // results/ldsm_lead_sm90a.txt: "_ZN8lesson058solution6kernel...  16  16  0.0  0.6" (its mean last).
    auto mean_lead = [](const std::string& kernel) {
        for (const std::string& line : lines_of(kRoot / "results" / "ldsm_lead_sm90a.txt")) {
            const std::vector<std::string> w = words(line);
            if (w.size() == 5 && w[0].rfind(kernel, 0) == 0) return w[4];
        }
        FAIL("results/ldsm_lead_sm90a.txt has no row for " << kernel);
        return std::string();
    };
    const std::string l5 = mean_lead("_ZN8lesson058solution6kernel"), l9 = mean_lead("_ZN8lesson098solution6kernel");
    const auto s5 = stall_shares("fidelity_timing_h100.txt", "lesson05", "solution", "one", "short_scoreboard");
    const auto s9 = stall_shares("fidelity_timing_h100.txt", "lesson09", "solution", "one", "short_scoreboard");
    CHECK_THAT(readme, Catch::Contains("a mean of " + l5 + " in lesson 5's solution and " + l9 + " in lesson 9's"));
    CHECK_THAT(readme, Catch::Contains("`short_scoreboard` " + s5.second + " and " + s9.second + " of the time in them (results/fidelity_timing_h100.txt)"));
}

TEST_CASE("fidelity results: sim/arch/README.md's lg_throttle shares for lesson 6 are the H200 report's", "[sim][results]") {
    // The GPU's share is the row's last word, whether the simulator's column
    // has a figure or says "not modelled" (the report's simulator before the queue).
    auto gpu_share = [](const std::string& variant) {
        bool in = false;
        for (const std::string& line : lines_of(kRoot / "results" / "fidelity_timing_h200.txt")) {
            const std::vector<std::string> w = words(line);
            if (!w.empty() && w[0] == "==") { in = w.size() > 3 && w[1] == "lesson06" && w[2] == variant + "," && w[3] == "many"; continue; }
            if (in && w.size() >= 3 && w[0] == "lg_throttle") return std::stod(w.back());
        }
        FAIL("results/fidelity_timing_h200.txt has no lg_throttle row for lesson06 " << variant << " many");
        return 0.0;
    };
    double lo = 100, hi = 0;
    for (const char* v : {"tile16", "tile32", "tile64"}) {
        lo = std::min(lo, gpu_share(v));
        hi = std::max(hi, gpu_share(v));
    }
    char range[32];
    std::snprintf(range, sizeof range, "%.0f-%.0f%%", lo, hi);
    CHECK_THAT(one_line(kRoot / "sim" / "arch" / "README.md"), Catch::Contains(std::string("(the H200: ") + range + ")"));
}

TEST_CASE("fidelity results: lesson 9's README quotes the H100 report's time in no region", "[sim][results]") {
    // The region table's last row ("      (in no region)   4.4%   8.0%"): the simulator's share and the GPU's.
    auto outside = [](const std::string& wave) {
        bool in = false;
        for (const std::string& line : lines_of(kRoot / "results" / "fidelity_timing_h100.txt")) {
            const std::vector<std::string> w = words(line);
            if (!w.empty() && w[0] == "==") { in = w.size() > 3 && w[1] == "lesson09" && w[2] == "solution," && w[3] == wave; continue; }
            if (in && w.size() == 5 && w[0] == "(in" && w[2] == "region)") return std::pair{w[3], w[4]};
        }
        FAIL("results/fidelity_timing_h100.txt has no (in no region) row for lesson09 solution " << wave);
        return std::pair<std::string, std::string>{};
    };
    const auto [sim_one, gpu_one] = outside("one");
    const auto [sim_many, gpu_many] = outside("many");
    const std::string readme = one_line(kRoot / "lessons" / "09_gpu_profiling" / "README.md");
    CHECK_THAT(readme, Catch::Contains("results/fidelity_timing_h100.txt has " + gpu_one + " at one wave (the simulator " + sim_one + ","));
    CHECK_THAT(readme, Catch::Contains("and " + gpu_many + " at many waves"));
}

TEST_CASE("fidelity results: the READMEs' instruction-gap ratios are results/instruction_gap_h100.txt's", "[sim][results]") {
    // Its rows: "program variant GPU sim ratio +overhead ratio local" ("lesson09 solution 1604 506 3.2x 1440 1.1x 0").
    struct Gap { double plain, with_overhead; };
    std::vector<std::pair<std::string, Gap>> rows;
    for (const std::string& line : lines_of(kRoot / "results" / "instruction_gap_h100.txt")) {
        const std::vector<std::string> w = words(line);
        if (w.size() == 8 && !w[4].empty() && w[4].back() == 'x' && w[0] != "program")
            rows.push_back({w[0] + " " + w[1], {std::stod(w[4]), std::stod(w[6])}});
    }
    REQUIRE(rows.size() >= 20);
    auto gap = [&](const std::string& launch) {
        for (const auto& [name, g] : rows)
            if (name == launch) return g;
        FAIL("results/instruction_gap_h100.txt has no row for " << launch);
        return Gap{};
    };
    // The range of the ratio with overhead over a group of launches, "%.*f-%.*f".
    auto range = [&](const std::vector<std::string>& launches, int digits) {
        double lo = 1e9, hi = 0;
        for (const std::string& l : launches) {
            lo = std::min(lo, gap(l).with_overhead);
            hi = std::max(hi, gap(l).with_overhead);
        }
        char s[32];
        std::snprintf(s, sizeof s, "%.*f-%.*f", digits, lo, digits, hi);
        return std::string(s);
    };
    const std::string sim = one_line(kRoot / "sim" / "README.md");
    const std::string mma = range({"gemm swizzled", "gemm unswizzled", "lesson04_gemm solution", "lesson04_gemm unswizzled", "lesson01 solution",
                                   "lesson03 solution", "lesson05 solution", "lesson06 tile16", "lesson06 tile32", "lesson06 tile64",
                                   "lesson07 solution", "lesson07 one_stage", "lesson09 solution", "rotary default"},
                                  1);
    CHECK_THAT(sim, Catch::Contains("the GPU runs " + mma + " times the simulator's count for the `mma.sync` GEMMs, lessons 1, 3, 5-7 and 9 and rotary"));
    const std::string elementwise = range({"layernorm default", "lesson02 solution", "lesson08 solution", "lesson10 solution", "lesson10 one_stage"}, 1);
    CHECK_THAT(sim, Catch::Contains("and lesson 10 it runs " + elementwise + " times"));
    const std::string charged = range({"gemm_hopper cluster", "gemm_hopper bulk_store", "gemm_hopper direct_store", "attention noncausal",
                                       "attention causal", "lesson04 solution", "lesson04 unpadded"},
                                      0);
    CHECK_THAT(sim, Catch::Contains("lesson 4's transpose " + charged + " times"));
    // Lesson 9: "about 3 times as many instructions ... runs 1.1 times that count".
    char plain[16], with[16];
    std::snprintf(plain, sizeof plain, "%.0f", gap("lesson09 solution").plain);
    std::snprintf(with, sizeof with, "%.1f", gap("lesson09 solution").with_overhead);
    const std::string l9 = one_line(kRoot / "lessons" / "09_gpu_profiling" / "README.md");
    CHECK_THAT(l9, Catch::Contains(std::string("The GPU runs about ") + plain + " times as many instructions per warp"));
    CHECK_THAT(l9, Catch::Contains(std::string("runs ") + with + " times that count (results/instruction_gap_h100.txt)"));
}

TEST_CASE("fidelity results: sim/README.md's stall distance with the constant cache is the H100 report's", "[sim][results]") {
    // The summary: "... Stall reasons: the distributions 28% apart on average, ...".
    std::string apart;
    for (const std::string& line : lines_of(kRoot / "results" / "fidelity_timing_h100.txt")) {
        const size_t at = line.find("the distributions ");
        if (line.rfind("Kernel time:", 0) == 0 && at != std::string::npos)
            apart = line.substr(at + std::strlen("the distributions "), line.find(' ', at + std::strlen("the distributions ")) - at - std::strlen("the distributions "));
    }
    REQUIRE_FALSE(apart.empty());
    CHECK_THAT(one_line(kRoot / "sim" / "README.md"), Catch::Contains("the stall distributions are " + apart + " apart on average"));
}
