// The timing fidelity report: the simulator's kernel time and stall reasons
// beside a GPU trace's kernel records and PC samples, paired per launch.
#include <catch2/catch.hpp>
#include <algorithm>
#include <optional>
#include <random>
#include <sstream>
#include "profiler/decode/fidelity_timing.h"

using tklab::profiler::compare_timing;
using tklab::profiler::TimingFidelity;
using tklab::profiler::TimingShare;

namespace {

struct Pair {
    tklab::trace::Trace sim, gpu;
};

// A simulator trace of `launches` launches and a GPU trace of `runs` runs of
// them (the checked one, then warm ones), with seeded random durations.
Pair make_pair(unsigned seed, size_t launches, size_t runs, std::vector<double>* warm_us = nullptr) {
    std::mt19937 rng(seed);
    Pair p;
    for (auto* t : {&p.sim, &p.gpu}) {
        t->program = "lesson07";
        t->variant = "solution";
        t->problem = {{"M", 128}};
        t->seed = 1;
        t->files = {{""}, {"lessons/07_producer_consumer/solution.cuh"}};
        t->locations = {{0, 0}, {1, 86}, {1, 79}};
    }
    p.sim.producer = "tklab simulator";
    p.gpu.producer = "tklab profiler";
    p.sim.arch = {{"clock_mhz", 2000}};
    p.sim.stalls = {"none", "barrier", "mbarrier", "long_scoreboard"};
    std::uniform_int_distribution<uint64_t> cycles(1000, 100000);
    for (size_t i = 0; i < launches; ++i) {
        tklab::trace::Launch l;
        l.kernel = "lesson07";
        l.grid = {4, 4, 1};
        tklab::trace::Summary s;
        s.est_kernel_cycles = cycles(rng);
        s.warp_cycles = 1000;
        s.stall_cycles = {0, 100, 300, 200};  // barrier 10%, mbarrier 30%, long_scoreboard 20%
        // Line 86 stalls mostly on the mbarrier (long_scoreboard on the GPU), line 79 on the barrier.
        s.line_stalls = {{1, 10, {0, 10, 250, 0}}, {2, 10, {0, 90, 50, 10}}};
        l.summary = s;
        p.sim.launches.push_back(l);
    }
    std::uniform_int_distribution<uint64_t> ns(2000, 90000);
    std::vector<std::vector<double>> per_launch(launches);
    uint64_t t = 0;
    for (size_t r = 0; r < runs; ++r)
        for (size_t i = 0; i < launches; ++i) {
            tklab::trace::GpuKernel k;
            k.name = "lesson07::solution::kernel";
            k.grid = {4, 4, 1};
            k.start_ns = t;
            k.end_ns = t + ns(rng);
            t = k.end_ns + 100;
            if (r > 0) per_launch[i].push_back(double(k.end_ns - k.start_ns) / 1000.0);
            p.gpu.gpu_kernels.push_back(k);
        }
    if (warm_us)
        for (auto& v : per_launch) {
            std::sort(v.begin(), v.end());
            warm_us->push_back(v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2);
        }
    for (size_t i = 0; i < launches; ++i) {
        tklab::trace::GpuStalls s;
        s.kernel = "lesson07::solution::kernel";
        s.samples = 1000;
        s.sites = {{"lessons/07_producer_consumer/solution.cuh", 86, "long_scoreboard", 600},
                   {"lessons/07_producer_consumer/solution.cuh", 86, "wait", 100},
                   {"lessons/07_producer_consumer/solution.cuh", 79, "selected", 200},
                   {"lessons/07_producer_consumer/solution.cuh", 79, "barrier", 60},
                   {"lessons/07_producer_consumer/solution.cuh", 40, "barrier", 40}};  // under 5%: not hot
        p.gpu.gpu_stalls.push_back(s);
    }
    return p;
}

// The report's tables and its one-line summaries, as text.
std::string table_of(const TimingFidelity& f) {
    std::ostringstream out;
    tklab::profiler::write_timing(out, f);
    return out.str();
}
std::string summary_of(const TimingFidelity& f) {
    std::ostringstream out;
    tklab::profiler::write_timing_summary(out, f);
    return out.str();
}

} // namespace

TEST_CASE("timing fidelity: the GPU's time is the median of the warm runs, per launch", "[fidelity]") {
    for (unsigned seed = 1; seed <= 20; ++seed) {
        const size_t launches = 1 + seed % 3, runs = 2 + seed % 5;
        std::vector<double> warm;
        const Pair p = make_pair(seed, launches, runs, &warm);
        const TimingFidelity f = compare_timing(p.sim, p.gpu);
        REQUIRE(f.warnings.empty());
        REQUIRE(f.launches.size() == launches);
        for (size_t i = 0; i < launches; ++i) {
            const auto& l = f.launches[i];
            CHECK(l.gpu_runs == int(runs - 1));  // the checked (cold) run is left out
            CHECK(*l.gpu_us == Approx(warm[i]));
            CHECK(*l.sim_us == Approx(double(p.sim.launches[i].summary->est_kernel_cycles) / 2000.0));
            CHECK(*l.time_error() == Approx(*l.sim_us / *l.gpu_us - 1.0));
        }
    }
}

TEST_CASE("timing fidelity: one run alone is used as it is", "[fidelity]") {
    const Pair p = make_pair(3, 2, 1);
    const TimingFidelity f = compare_timing(p.sim, p.gpu);
    REQUIRE(f.launches.size() == 2);
    for (size_t i = 0; i < 2; ++i) {
        CHECK(f.launches[i].gpu_runs == 1);
        CHECK(*f.launches[i].gpu_us == Approx(double(p.gpu.gpu_kernels[i].duration_ns()) / 1000.0));
    }
}

TEST_CASE("timing fidelity: records that are not whole runs, other grids and sizes are warned about", "[fidelity]") {
    Pair p = make_pair(5, 2, 3);
    p.gpu.gpu_kernels.pop_back();
    p.gpu.gpu_kernels[0].grid = {8, 1, 1};
    p.gpu.problem = {{"M", 256}};
    const TimingFidelity f = compare_timing(p.sim, p.gpu);
    std::string all;
    for (const auto& w : f.warnings) all += w + "\n";
    CHECK_THAT(all, Catch::Contains("not a whole number of runs"));
    CHECK_THAT(all, Catch::Contains("8x1x1 on the GPU"));
    CHECK_THAT(all, Catch::Contains("different sizes"));
    CHECK(f.launches[0].gpu_runs == 1);  // first run only
}

TEST_CASE("timing fidelity: stall shares and hot lines, with the mbarrier wait under the GPU's name", "[fidelity]") {
    const Pair p = make_pair(7, 1, 3);
    const TimingFidelity f = compare_timing(p.sim, p.gpu);
    REQUIRE(f.launches.size() == 1);
    const auto& l = f.launches[0];
    auto share = [&](const std::string& name) {
        for (const auto& s : l.stalls)
            if (s.name == name) return s;
        FAIL("no stall row " << name);
        return l.stalls.front();
    };
    // The simulator's mbarrier (30%) and long_scoreboard (20%) are one reason on the GPU.
    CHECK(*share("long_scoreboard").sim == Approx(0.5));
    CHECK(*share("long_scoreboard").gpu == Approx(0.6));
    CHECK(*share("barrier").sim == Approx(0.1));
    CHECK(*share("barrier").gpu == Approx(0.1));
    CHECK_FALSE(share("wait").sim.has_value());  // not modelled
    // Hot lines: 86 (70%) and 79 (26%); line 40 (4%) is not hot.
    REQUIRE(l.hot_lines.size() == 2);
    CHECK(l.hot_lines[0].line == 86);
    CHECK(l.hot_lines[0].gpu_reason == "long_scoreboard");
    CHECK(l.hot_lines[0].sim_reason == "long_scoreboard");
    CHECK(l.hot_lines[0].agrees());
    CHECK(l.hot_lines[1].line == 79);
    CHECK(l.hot_lines[1].gpu_reason == "selected");
    CHECK(l.hot_lines[1].sim_reason == "barrier");
    CHECK_FALSE(l.hot_lines[1].agrees());
    CHECK_THAT(summary_of(f), Catch::Contains("timing: lesson07 solution launch 0 sim_us"));
    REQUIRE(l.stall_distance());
    CHECK_THAT(summary_of(f), Catch::EndsWith("hot_lines 1/2 modelled_lines 1/2 stall_distance " + std::to_string(*l.stall_distance()) + "\n"));
    CHECK_THAT(table_of(f), Catch::Contains("top reason agrees on 1 of 2"));
    CHECK_THAT(table_of(f), Catch::Contains("not modelled"));
}

TEST_CASE("timing fidelity: a reason the simulator models and did not see is 0%, one it does not model says so", "[fidelity]") {
    Pair p = make_pair(13, 1, 3);
    p.sim.stalls.push_back("lg_throttle");  // modelled: in the simulator's table, with no cycles in this launch
    p.sim.launches[0].summary->stall_cycles.push_back(0);
    p.gpu.gpu_stalls[0].sites.push_back({"lessons/07_producer_consumer/solution.cuh", 86, "lg_throttle", 30});
    const TimingFidelity f = compare_timing(p.sim, p.gpu);
    REQUIRE(f.launches.size() == 1);
    std::optional<TimingShare> lg, wait;
    for (const auto& s : f.launches[0].stalls) {
        if (s.name == "lg_throttle") lg = s;
        if (s.name == "wait") wait = s;
    }
    REQUIRE(lg);
    REQUIRE(wait);
    CHECK(lg->sim == 0.0);
    CHECK(*lg->gpu == Approx(0.03));
    CHECK_FALSE(wait->sim.has_value());  // no "wait" in the simulator's table
    const std::string table = table_of(f);
    auto row = [&](const std::string& name) {
        const size_t at = table.find("      " + name + " ");
        REQUIRE(at != std::string::npos);
        return table.substr(at, table.find('\n', at) - at);
    };
    CHECK_THAT(row("lg_throttle"), Catch::Contains("0.0%") && !Catch::Contains("not modelled"));
    CHECK_THAT(row("wait"), Catch::Contains("not modelled"));
}

TEST_CASE("timing fidelity: the simulator's issue cycles are PC sampling's 'selected'", "[fidelity]") {
    Pair p = make_pair(11, 1, 3);
    tklab::trace::Summary& s = *p.sim.launches[0].summary;
    s.warp_instructions = 250;  // of 1000 warp-cycles
    // Line 79 issues 200 instructions and stalls 150 cycles: issuing is its largest share.
    s.line_stalls = {{1, 10, {0, 10, 250, 0}}, {2, 200, {0, 90, 50, 10}}};
    p.sim.arch = {{"clock_mhz", 2000}, {"issue_cycles", 1}};
    const TimingFidelity f = compare_timing(p.sim, p.gpu);
    const auto& l = f.launches.at(0);
    bool found = false;
    for (const auto& r : l.stalls)
        if (r.name == "selected") {
            found = true;
            CHECK(*r.sim == Approx(0.25));
            CHECK(*r.gpu == Approx(0.2));
        }
    CHECK(found);
    REQUIRE(l.hot_lines.size() == 2);
    CHECK(l.hot_lines[1].line == 79);
    CHECK(l.hot_lines[1].sim_reason == "selected");
    CHECK(l.hot_lines[1].agrees());
    CHECK(l.hot_lines[0].sim_reason == "long_scoreboard");  // 250 stalled cycles outweigh 10 issued
}

TEST_CASE("timing fidelity: a hot line the simulator issues nothing on is plain code, counted apart", "[fidelity]") {
    Pair p = make_pair(13, 1, 3);
    tklab::trace::Summary& s = *p.sim.launches[0].summary;
    s.line_stalls = {{1, 10, {0, 10, 250, 0}}};  // line 86 only: line 79 (loop control, say) has no instruction
    const TimingFidelity f = compare_timing(p.sim, p.gpu);
    const auto& l = f.launches.at(0);
    REQUIRE(l.hot_lines.size() == 2);
    CHECK(l.hot_lines[1].line == 79);
    CHECK_FALSE(l.hot_lines[1].modelled());
    CHECK_FALSE(l.hot_lines[1].agrees());
    CHECK(l.hot_lines[0].modelled());
    CHECK_THAT(table_of(f), Catch::Contains("top reason agrees on 1 of 2; 1 is plain code (no instruction)"));
    CHECK_THAT(table_of(f), Catch::Contains("simulator (no instruction)"));
    CHECK_THAT(summary_of(f), Catch::Contains("hot_lines 1/2 modelled_lines 1/1 stall_distance "));
}

TEST_CASE("timing fidelity: the GPU's drain samples are at the kernel function's closing brace, where the simulator's exit is", "[fidelity]") {
    std::mt19937 rng(29);
    for (int round = 0; round < 5; ++round) {
        // A kernel from line `first` to its closing brace at `last`, a helper after it.
        const int first = 2 + int(rng() % 20), last = first + 10 + int(rng() % 80);
        std::string text;
        for (int line = 1; line <= last + 4; ++line)
            text += line == first          ? "__global__ void kernel(float* p) {  // }\n"
                    : line == first + 1    ? "    for (int i = 0; i < 4; ++i) { p[i] = 1.f; }\n"
                    : line == last         ? "}\n"
                    : line == last + 2     ? "void helper() { }\n"
                                           : "    p[0] += 1.f;\n";
        int exit_line = 79;  // where ptxas put EXIT: any line inside, but not one the other samples are hot on
        while (exit_line == 79 || exit_line == 86) exit_line = first + 1 + int(rng() % (last - first - 1));
        for (bool embedded : {true, false}) {
            INFO("round " << round << ", kernel lines " << first << ".." << last << ", EXIT at " << exit_line << ", text embedded " << embedded);
            Pair p = make_pair(31 + unsigned(round), 1, 3);
            p.sim.files[1].text = embedded ? std::optional<std::string>(text) : std::nullopt;
            p.sim.stalls.push_back("drain");
            p.sim.locations.push_back({1, last});  // the simulator's exit event
            tklab::trace::Summary& s = *p.sim.launches[0].summary;
            s.stall_cycles.push_back(0);
            for (auto& ls : s.line_stalls) ls.cycles.push_back(0);
            s.line_stalls.push_back({3, 0, {0, 0, 0, 0, 150}});
            const uint64_t drained = 100 + rng() % 200;
            p.gpu.gpu_stalls[0].sites.push_back({"lessons/07_producer_consumer/solution.cuh", uint32_t(exit_line), "drain", drained});
            p.gpu.gpu_stalls[0].samples += drained;
            const TimingFidelity f = compare_timing(p.sim, p.gpu);
            const auto& hot = f.launches.at(0).hot_lines;
            auto at = [&](int line) -> const tklab::profiler::HotLine* {
                for (const auto& h : hot)
                    if (h.line == line) return &h;
                return nullptr;
            };
            const int want = embedded ? last : exit_line;  // without the source, the line stays ptxas's
            REQUIRE(at(want));
            CHECK(at(want)->gpu_reason == "drain");
            if (embedded) {
                CHECK(at(want)->agrees());
                CHECK_FALSE(at(exit_line));
            } else {
                CHECK_FALSE(at(want)->modelled());
            }
        }
    }
}

TEST_CASE("timing fidelity: the stall distributions' distance", "[fidelity]") {
    using tklab::profiler::TimingLaunch;
    using tklab::profiler::TimingShare;
    // Each side's shares are scaled to sum to 1: the simulator's 0.6 and 0.2
    // are 0.75 and 0.25; against the GPU's 0.5 and 0.5 (one reason shared),
    // |0.75 - 0.5| + 0.25 + 0.5 = 1, halved.
    TimingLaunch l;
    l.stalls = {{"a", 0.6, 0.5}, {"b", 0.2, std::nullopt}, {"c", std::nullopt, 0.5}};
    CHECK(*l.stall_distance() == Approx(0.5));
    // Random shares: the same on both sides (scaled) is 0, none in common 1.
    std::mt19937 rng(41);
    for (int round = 0; round < 20; ++round) {
        TimingLaunch same, apart;
        const int n = 1 + int(rng() % 8);
        const double scale = 0.2 + double(rng() % 80) / 100.0;
        for (int k = 0; k < n; ++k) {
            const double x = double(1 + rng() % 100) / 100.0;
            same.stalls.push_back({"r" + std::to_string(k), x * scale, x});
            apart.stalls.push_back({"s" + std::to_string(k), x, std::nullopt});
            apart.stalls.push_back({"g" + std::to_string(k), std::nullopt, x});
        }
        CHECK(*same.stall_distance() == Approx(0).margin(1e-12));
        CHECK(*apart.stall_distance() == Approx(1));
    }
    CHECK_FALSE(TimingLaunch{}.stall_distance());
}

TEST_CASE("timing fidelity: regions' shares, and the time in no region last, on both sides", "[fidelity]") {
    Pair p = make_pair(17, 1, 3);
    p.gpu.arch = {{"gpu", true}};
    for (auto* t : {&p.sim, &p.gpu}) t->op_names = {"", "main loop", "store"};
    // The simulator: one block of one warp, 1000 cycles: main loop 100..600, store 800..900.
    // Both sides' shares are of the span from the first region's begin to the
    // last one's end: what is before 100 (a first-wave block's wait for its
    // parameters) and after 900 (the stores' drain) is in none of them.
    tklab::trace::Launch& sl = p.sim.launches[0];
    sl.block = {32, 1, 1};
    sl.blocks.resize(1);
    sl.blocks[0].cycles = 1000;
    sl.blocks[0].regions = {{100, 600, 1, 1, 0, 0, false}, {800, 900, 2, 2, 0, 0, false}};
    // The GPU: one block of one warp: main loop 0..600, store 700..800 (100 cycles between them).
    tklab::trace::Launch gl;
    gl.kernel = "lesson07";
    gl.grid = {4, 4, 1};
    gl.block = {32, 1, 1};
    gl.blocks.resize(1);
    tklab::trace::Event main_loop, store;
    main_loop.issue = 0, main_loop.done = 600, main_loop.op_name = 1;
    store.issue = 700, store.done = 800, store.op_name = 2;
    gl.blocks[0].events = {main_loop, store};
    p.gpu.launches.push_back(gl);
    const TimingFidelity f = compare_timing(p.sim, p.gpu);
    REQUIRE(f.launches.size() == 1);
    const auto& r = f.launches[0].regions;
    REQUIRE(r.size() == 3);
    CHECK(r[0].name == "main loop");
    CHECK(*r[0].sim == Approx(0.625));
    CHECK(*r[0].gpu == Approx(0.75));
    CHECK(r[1].name == "store");
    CHECK(*r[1].sim == Approx(0.125));
    CHECK(*r[1].gpu == Approx(0.125));
    CHECK(r[2].name == "(in no region)");
    CHECK(*r[2].sim == Approx(0.25));   // between 600 and 800
    CHECK(*r[2].gpu == Approx(0.125));  // between 600 and 700
    CHECK_THAT(table_of(f), Catch::Contains("(in no region)"));
}
