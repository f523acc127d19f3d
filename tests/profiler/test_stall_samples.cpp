// PC stall sampling on the CPU: CUPTI's reason names, recorded PC samples
// summed per (file, line, reason), the GPU reasons beside the simulator's,
// and the gpu_stalls record in both trace encodings (and the loader refusing
// one whose sites add up to more than its samples).
#include <catch2/catch.hpp>

#include "profiler/decode/stall_samples.h"
#include "sim/events.h"
#include "trace/codec.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using tklab::profiler::KernelStallSamples;
using tklab::profiler::LineTable;
using tklab::profiler::PcKey;
using tklab::profiler::RawPcSample;
using tklab::profiler::SourceLine;
using tklab::profiler::StallReason;
using tklab::trace::GpuStallSite;
using tklab::trace::json;
using Catch::Matchers::Contains;

std::string temp_path(const std::string& name) {
    return (fs::temp_directory_path() / ("tklab_test_" + std::to_string(::getpid()) + "_" + name)).string();
}

const std::string P = "smsp__pcsamp_warps_issue_stalled_";  // CUPTI's prefix (CUDA 13, sm_90)

// What CUPTI reported for a pointer-chasing kernel and a reduction, as the GPU
// side copies it out (two cubins; PC offsets within each function).
constexpr uint64_t kCubinA = 0x9e3779b97f4a7c15ull, kCubinB = 0x0123456789abcdefull;
constexpr const char* kChase = "_ZN3pcs13pointer_chaseEPKjPjii";  // pcs::pointer_chase(unsigned const*, unsigned*, int, int)
constexpr const char* kReduce = "block_reduce";                  // extern "C": nothing to demangle

std::vector<RawPcSample> recorded_samples() {
    return {
        // Three instructions of the chasing line (address arithmetic, the load, the loop's use of it).
        {kCubinA, 0x1a0, kChase, {{P + "long_scoreboard", 900}, {P + "long_scoreboard_not_issued", 850}, {P + "selected", 12}}},
        {kCubinA, 0x1b0, kChase, {{P + "long_scoreboard", 300}, {P + "long_scoreboard_not_issued", 290}, {P + "wait", 20}}},
        {kCubinA, 0x1c0, kChase, {{P + "long_scoreboard", 100}, {P + "not_selected", 5}, {P + "branch_resolving", 0}}},
        // The loop counter on another line.
        {kCubinA, 0x200, kChase, {{P + "selected", 40}, {P + "selected_not_issued", 0}, {P + "wait", 8}}},
        // The kernel's prologue: CUPTI gave no line (a PC the line table lacks).
        {kCubinA, 0x010, kChase, {{P + "no_instructions", 15}, {P + "no_instructions_not_issued", 15}}},
        // A second kernel, in another cubin.
        {kCubinB, 0x080, kReduce, {{P + "barrier", 60}, {P + "barrier_not_issued", 58}, {P + "mio_throttle", 10}}},
        {kCubinB, 0x090, kReduce, {{P + "short_scoreboard", 30}}},
    };
}

LineTable recorded_lines() {
    const std::string test = "tests/profiler/test_pc_sampling.cu";
    return {
        {PcKey{kCubinA, kChase, 0x1a0}, {test, 41}},
        {PcKey{kCubinA, kChase, 0x1b0}, {test, 41}},
        {PcKey{kCubinA, kChase, 0x1c0}, {test, 41}},
        {PcKey{kCubinA, kChase, 0x200}, {test, 40}},
        {PcKey{kCubinB, kReduce, 0x080}, {"kernels/reduce.cu", 12}},
        {PcKey{kCubinB, kReduce, 0x090}, {"kernels/reduce.cu", 9}},
        // A line for offset 0x1a0 of the other kernel must not leak into pointer_chase.
        {PcKey{kCubinB, kChase, 0x010}, {"elsewhere.cu", 1}},
    };
}

uint64_t sum_of(const std::vector<GpuStallSite>& v) {
    uint64_t n = 0;
    for (const GpuStallSite& x : v) n += x.samples;
    return n;
}

tklab::trace::Trace stalls_trace(const std::vector<tklab::trace::GpuStalls>& stalls) {
    tklab::trace::Trace t;
    t.producer = "tklab profiler";
    t.program = "pointer_chase";
    t.stalls = {"none"};
    t.files = {{}};
    t.locations = {{}};
    t.op_names = {""};
    t.gpu_stalls = stalls;
    t.complete = true;
    return t;
}

} // namespace

TEST_CASE("stall samples: CUPTI's reason names lose their prefix and keep not-issued apart", "[profiler][stalls]") {
    using tklab::profiler::parse_stall_reason;
    CHECK(parse_stall_reason(P + "long_scoreboard") == StallReason{"long_scoreboard", false});
    CHECK(parse_stall_reason(P + "long_scoreboard_not_issued") == StallReason{"long_scoreboard", true});
    CHECK(parse_stall_reason(P + "not_selected") == StallReason{"not_selected", false});
    CHECK(parse_stall_reason(P + "not_selected_not_issued") == StallReason{"not_selected", true});
    CHECK(parse_stall_reason(P + "selected") == StallReason{"selected", false});
    CHECK(parse_stall_reason(P + "math_pipe_throttle") == StallReason{"math_pipe_throttle", false});
    CHECK(parse_stall_reason(P + "dispatch_stall_not_issued") == StallReason{"dispatch_stall", true});
    CHECK(parse_stall_reason("smsp__pcsamp_warps_issue_stalled_gmma") == StallReason{"gmma", false});  // a name tklab does not list
    CHECK(parse_stall_reason("smsp__pcsamp_sample_count") == StallReason{"sample_count", false});
    CHECK(parse_stall_reason("barrier") == StallReason{"barrier", false});  // already short
    CHECK(parse_stall_reason("something_else") == StallReason{"something_else", false});
    CHECK_FALSE(parse_stall_reason(P).name.empty());  // a bare prefix is not emptied
}

TEST_CASE("stall samples: recorded PC samples summed per kernel, line and reason", "[profiler][stalls]") {
    const auto kernels = tklab::profiler::aggregate_stall_samples(recorded_samples(), recorded_lines(), {4096, 0});
    REQUIRE(kernels.size() == 2);
    // Sorted by demangled name: "block_reduce" < "pcs::pointer_chase(...)".
    const KernelStallSamples& reduce = kernels[0];
    const KernelStallSamples& chase = kernels[1];
    CHECK(reduce.stalls.kernel == "block_reduce");
    CHECK(reduce.mangled == "block_reduce");
    CHECK(chase.stalls.kernel == "pcs::pointer_chase(unsigned int const*, unsigned int*, int, int)");
    CHECK(chase.mangled == kChase);

    // Every all-samples reason counts once; the not-issued ones are not added.
    CHECK(chase.stalls.samples == 900 + 12 + 300 + 20 + 100 + 5 + 40 + 8 + 15);
    CHECK(chase.stalls.period_cycles == 4096);
    CHECK(chase.stalls.dropped == 0);
    CHECK(chase.pcs == 5);
    CHECK(chase.samples_without_line == 15);
    const std::string test = "tests/profiler/test_pc_sampling.cu";
    const std::vector<GpuStallSite> want = {
        {"", 0, "no_instructions", 15},  // no line: file "" sorts first
        {test, 40, "selected", 40},
        {test, 40, "wait", 8},
        {test, 41, "long_scoreboard", 1300},  // three PCs on one line
        {test, 41, "not_selected", 5},
        {test, 41, "selected", 12},
        {test, 41, "wait", 20},
    };
    CHECK(chase.stalls.sites == want);  // zero counts (branch_resolving) leave no site
    CHECK(sum_of(chase.stalls.sites) == chase.stalls.samples);
    const std::vector<GpuStallSite> want_not_issued = {
        {"", 0, "no_instructions", 15},
        {test, 41, "long_scoreboard", 850 + 290},
    };
    CHECK(chase.not_issued == want_not_issued);

    CHECK(reduce.stalls.samples == 100);
    CHECK(reduce.pcs == 2);
    CHECK(reduce.samples_without_line == 0);
    const std::vector<GpuStallSite> want_reduce = {
        {"kernels/reduce.cu", 9, "short_scoreboard", 30},
        {"kernels/reduce.cu", 12, "barrier", 60},
        {"kernels/reduce.cu", 12, "mio_throttle", 10},
    };
    CHECK(reduce.stalls.sites == want_reduce);

    // What a report shows: samples per reason, and the heaviest sites.
    const auto by_reason = chase.stalls.by_reason();
    CHECK(by_reason.at("long_scoreboard") == 1300);
    CHECK(by_reason.at("selected") == 52);
    CHECK(by_reason.size() == 5);
    const auto top = tklab::profiler::top_sites(chase.stalls, 3);
    REQUIRE(top.size() == 3);
    CHECK(top[0] == GpuStallSite{test, 41, "long_scoreboard", 1300});
    CHECK(top[1] == GpuStallSite{test, 40, "selected", 40});
    CHECK(top[2] == GpuStallSite{test, 41, "wait", 20});
    CHECK(tklab::profiler::top_sites(chase.stalls, 100).size() == 7);

    // The same samples in another order give the same result.
    auto shuffled = recorded_samples();
    std::reverse(shuffled.begin(), shuffled.end());
    const auto again = tklab::profiler::aggregate_stall_samples(shuffled, recorded_lines(), {4096, 0});
    REQUIRE(again.size() == 2);
    CHECK(again[0].stalls == reduce.stalls);
    CHECK(again[1].stalls == chase.stalls);
    CHECK(again[1].not_issued == chase.not_issued);

    // Without any line table every sample keeps file "" and line 0, and still counts.
    const auto no_lines = tklab::profiler::aggregate_stall_samples(recorded_samples(), {}, {4096, 0});
    CHECK(no_lines[1].samples_without_line == no_lines[1].stalls.samples);
    CHECK(no_lines[1].stalls.sites.size() == 5);  // its five reasons, on one unknown line
    CHECK(sum_of(no_lines[1].stalls.sites) == chase.stalls.samples);
}

TEST_CASE("stall samples: a barrier sample counts on the line of the BAR before its PC", "[profiler][stalls]") {
    // The instruction after a BAR (0x100, line 20: the code after __syncthreads()
    // on line 19) holds the warps waiting at the barrier, and others.
    const std::string src = "kernels/reduce.cu";
    const std::vector<RawPcSample> samples = {
        {kCubinB, 0x110, kReduce, {{P + "barrier", 70}, {P + "barrier_not_issued", 65}, {P + "short_scoreboard", 9}}},
        {kCubinB, 0x100, kReduce, {{P + "selected", 4}}},
        // A barrier sample whose previous PC the line table lacks, or has as
        // something other than a CTA barrier (0x300 after 0x2f0), stays on its own line.
        {kCubinB, 0x300, kReduce, {{P + "barrier", 5}}},
        {kCubinB, 0x2f0, kReduce, {{P + "selected", 1}}},
        // At offset 0 there is no instruction before.
        {kCubinB, 0x000, kReduce, {{P + "barrier", 2}}},
        {kCubinB, 0x310, kReduce, {{P + "barrier", 3}}},
    };
    SourceLine bar{src, 19};
    bar.cta_barrier = true;
    const LineTable lines = {
        {PcKey{kCubinB, kReduce, 0x100}, bar},
        {PcKey{kCubinB, kReduce, 0x110}, {src, 20}},
        {PcKey{kCubinB, kReduce, 0x300}, {src, 30}},
        {PcKey{kCubinB, kReduce, 0x000}, {src, 1}},
        // A warpgroup's wait (no CTA barrier) before 0x310: its barrier samples stay.
        {PcKey{kCubinB, kReduce, 0x2f0}, {src, 29}},
        {PcKey{kCubinB, kReduce, 0x310}, {src, 31}},
    };
    const auto kernels = tklab::profiler::aggregate_stall_samples(samples, lines, {4096, 0});
    REQUIRE(kernels.size() == 1);
    const std::vector<GpuStallSite> want = {
        {src, 1, "barrier", 2},
        {src, 19, "barrier", 70},
        {src, 19, "selected", 4},
        {src, 20, "short_scoreboard", 9},
        {src, 29, "selected", 1},
        {src, 30, "barrier", 5},
        {src, 31, "barrier", 3},
    };
    CHECK(kernels[0].stalls.sites == want);
    CHECK(kernels[0].not_issued == std::vector<GpuStallSite>{{src, 19, "barrier", 65}});
    CHECK(sum_of(kernels[0].stalls.sites) == kernels[0].stalls.samples);
    CHECK(tklab::profiler::has_barrier_samples(samples[0]));
    CHECK_FALSE(tklab::profiler::has_barrier_samples(samples[1]));
}

TEST_CASE("stall samples: dropped samples are shared out in proportion, adding up", "[profiler][stalls]") {
    const auto samples = recorded_samples();  // pcs::pointer_chase 1400 samples, block_reduce 100
    auto dropped_of = [&](uint64_t dropped) {
        const auto k = tklab::profiler::aggregate_stall_samples(samples, recorded_lines(), {4096, dropped});
        return std::pair{k[0].stalls.dropped, k[1].stalls.dropped};  // block_reduce, pointer_chase
    };
    CHECK(dropped_of(0) == std::pair<uint64_t, uint64_t>{0, 0});
    CHECK(dropped_of(150) == std::pair<uint64_t, uint64_t>{10, 140});  // exactly 1:14
    CHECK(dropped_of(1) == std::pair<uint64_t, uint64_t>{0, 1});      // the larger share takes the remainder
    CHECK(dropped_of(16) == std::pair<uint64_t, uint64_t>{1, 15});    // 1.07 and 14.93
    // One kernel takes them all.
    const std::vector<RawPcSample> one(samples.begin(), samples.begin() + 2);
    const auto k = tklab::profiler::aggregate_stall_samples(one, {}, {1024, 77});
    REQUIRE(k.size() == 1);
    CHECK(k[0].stalls.dropped == 77);
    CHECK(k[0].stalls.period_cycles == 1024);
}

TEST_CASE("stall samples: a reason without a name is refused", "[profiler][stalls]") {
    const std::vector<RawPcSample> bad = {{kCubinA, 0x40, kChase, {{"", 3}}}};
    CHECK_THROWS_WITH(tklab::profiler::aggregate_stall_samples(bad, {}, {4096, 0}),
                      Contains(kChase) && Contains("offset 64") && Contains("without a name"));
}

TEST_CASE("stall samples: GPU reasons beside the simulator's", "[profiler][stalls][sim]") {
    using tklab::profiler::sim_stall_for;
    std::set<std::string> sim_names;
    for (int i = 0; i < int(tklab::sim::Stall::count_); ++i) sim_names.insert(tklab::sim::stall_name(tklab::sim::Stall(i)));

    // The same wait, the same name; with CUPTI's prefix or without, issued or not.
    for (const char* r : {"long_scoreboard", "short_scoreboard", "barrier", "mio_throttle", "math_pipe_throttle", "wait", "selected", "not_selected", "drain",
                          "lg_throttle", "imc_miss"}) {
        INFO(r);
        CHECK(sim_stall_for(r) == r);
        CHECK(sim_stall_for(P + r) == r);
        CHECK(sim_stall_for(P + r + "_not_issued") == r);
        CHECK(sim_names.count(r) == 1);  // a name the simulator really uses
    }
    // The hardware's own states, which the simulator does not model.
    for (const char* r : {"membar", "branch_resolving", "dispatch_stall",
                          "sleeping", "tex_throttle", "no_instructions", "misc", "none", "mbarrier", ""}) {
        INFO(r);
        CHECK(sim_stall_for(r).empty());
    }
    // Every simulator reason but "none" and "mbarrier" has its GPU counterpart.
    for (const std::string& s : sim_names) {
        INFO(s);
        if (s == "none" || s == "mbarrier") continue;
        CHECK(sim_stall_for(s) == s);
    }
}

TEST_CASE("stall samples: gpu_stalls records survive the trace file in both encodings", "[profiler][stalls][trace]") {
    const auto kernels = tklab::profiler::aggregate_stall_samples(recorded_samples(), recorded_lines(), {4096, 16});
    tklab::trace::Trace t = stalls_trace({});
    tklab::profiler::add_to_trace(t, kernels);
    REQUIRE(t.gpu_stalls.size() == 2);
    CHECK(t.gpu_stalls == tklab::profiler::to_gpu_stalls(kernels));
    for (const char* ext : {".json", ".cbor"}) {
        const std::string path = temp_path(std::string("gpu_stalls") + ext);
        tklab::trace::write_trace(path, t);
        const tklab::trace::Loaded back = tklab::trace::load_trace(path);
        CHECK(back.warning.empty());
        CHECK(back.trace.gpu_stalls == t.gpu_stalls);
        CHECK(back.trace == t);
        fs::remove(path);
    }
}

TEST_CASE("stall samples: a record whose sites add up to more than its samples is refused", "[profiler][stalls][trace]") {
    const auto kernels = tklab::profiler::aggregate_stall_samples(recorded_samples(), recorded_lines(), {4096, 0});
    const std::string path = temp_path("gpu_stalls_bad.json");
    tklab::trace::write_trace(path, stalls_trace(tklab::profiler::to_gpu_stalls(kernels)));
    std::ifstream in(path);
    const json doc = json::parse(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
    in.close();
    fs::remove(path);
    REQUIRE(doc["records"][1]["type"] == "gpu_stalls");
    REQUIRE(doc["records"][1]["samples"] == 1400);
    auto load = [](const json& d) { return tklab::trace::load_trace_bytes(d.dump(), tklab::trace::Encoding::json, "s.json"); };
    auto load_cbor = [](const json& d) {
        const auto bytes = json::to_cbor(d);
        return tklab::trace::load_trace_bytes(std::string(bytes.begin(), bytes.end()), tklab::trace::Encoding::cbor, "s.cbor");
    };
    CHECK_NOTHROW(load(doc));
    json bad = doc;
    bad["records"][1]["samples"] = 1399;  // one fewer than its sites hold
    CHECK_THROWS_WITH(load(bad), Contains("s.json: records[1].sites") && Contains("1400") && Contains("more than the kernel's 1399"));
    CHECK_THROWS_WITH(load_cbor(bad), Contains("s.cbor: records[1].sites"));
    bad = doc;
    bad["records"][1]["sites"][3]["samples"] = 1301;
    CHECK_THROWS_WITH(load(bad), Contains("records[1].sites") && Contains("1401"));
}
