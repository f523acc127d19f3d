// Hardware counters on the CPU: the metric list, the shared-memory view of a
// launch's counters (missing metrics stay missing), the simulator's view in
// the same shape, CUPTI's ranges into trace records, and gpu_counters records
// through the trace file in both encodings.
#include <catch2/catch.hpp>

#include "profiler/decode/counter_metrics.h"
#include "trace/codec.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
namespace metric = tklab::profiler::metric;
using tklab::profiler::SharedCounters;
using tklab::trace::GpuCounters;
using tklab::trace::json;
using Catch::Matchers::Contains;

std::string temp_path(const std::string& name) {
    return (fs::temp_directory_path() / ("tklab_test_" + std::to_string(::getpid()) + "_" + name)).string();
}

constexpr const char* kGemmSymbol = "_ZN4gemm11gemm_kernelILin1EEEvN2tk2glI13__nv_bfloat16EES4_NS2_IfEE";
constexpr const char* kGemmName = "void gemm::gemm_kernel<-1>(tk::gl<__nv_bfloat16>, tk::gl<__nv_bfloat16>, tk::gl<float>)";

// One launch's counters as CUPTI evaluates them (doubles), for a kernel with
// plain stores, 8-way ldmatrix and a few plain loads: 1152 LDSM at 8
// wavefronts each (9216, ideal 1152) + 256 LDS at 1 = 9472 load wavefronts.
// One value carries the representation noise a double sum may have.
GpuCounters unswizzled_launch() {
    GpuCounters c;
    c.kernel = kGemmName;
    c.launch = 3;
    c.metrics = {
        {metric::shared_ld_wavefronts, 9472.0},
        {metric::shared_ld_conflicts, 8063.999999999},
        {metric::shared_st_wavefronts, 2048.0},
        {metric::shared_st_conflicts, 1024.0},
        {metric::shared_wavefronts, 13568.0},  // + 4048 of cp.async
        {metric::instructions, 61440.0},
        {metric::lds_instructions, 256.0},
        {metric::sts_instructions, 1024.0},
        {metric::ldsm_instructions, 1152.0},
        {metric::stsm_instructions, 0.0},
        {metric::ldgsts_instructions, 512.0},
    };
    return c;
}

tklab::trace::Trace counters_trace() {
    tklab::trace::Trace t;
    t.producer = "tklab profiler";
    t.program = "gemm";
    t.variant = "unswizzled";
    t.problem = {{"M", 256}, {"N", 256}, {"K", 256}};
    t.seed = 9;
    t.stalls = {"none"};
    t.files = {{}};
    t.locations = {{}};
    t.op_names = {""};
    t.gpu_counters.push_back(unswizzled_launch());
    GpuCounters partial;  // a second launch measured with a shorter metric list
    partial.kernel = "fill(float*, int)";
    partial.launch = 4;
    partial.metrics = {{metric::instructions, 4096.0}, {"sm__cycles_elapsed.max", 1234.5}};
    t.gpu_counters.push_back(partial);
    t.checks.push_back({"C", 1e-3, 1e-2, true, "unswizzled"});
    t.complete = true;
    return t;
}

} // namespace

TEST_CASE("counter metrics: the default list", "[profiler][counters]") {
    const auto names = tklab::profiler::default_metric_names();
    REQUIRE(names.size() == 11);
    CHECK(std::set<std::string>(names.begin(), names.end()).size() == names.size());
    for (const std::string& n : names) {
        INFO(n);
        CHECK(n.size() > 4);
        CHECK(n.substr(n.size() - 4) == ".sum");  // the whole launch, not an average per unit
        CHECK_FALSE(tklab::profiler::metric_meaning(n).empty());
    }
    CHECK(names[0] == "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum");
    CHECK_THAT(std::string(tklab::profiler::metric_meaning(metric::shared_ld_wavefronts)), Contains("LDSM"));
    CHECK(tklab::profiler::metric_meaning("sm__cycles_elapsed.max").empty());
}

TEST_CASE("counter metrics: the hardware's shared-memory view of a launch", "[profiler][counters]") {
    const SharedCounters hw = tklab::profiler::hardware_shared(unswizzled_launch());
    CHECK(hw.loads.plain == 256u);
    CHECK(hw.loads.matrix == 1152u);
    CHECK(hw.loads.instructions() == 1408u);
    CHECK(hw.loads.wavefronts == 9472u);
    CHECK(hw.loads.conflicts == 8064u);  // rounded, not truncated to 8063
    CHECK(hw.loads.ideal() == 1408u);
    CHECK(hw.stores.plain == 1024u);
    CHECK(hw.stores.matrix == 0u);  // measured zero is present, not absent
    CHECK(hw.stores.instructions() == 1024u);
    CHECK(hw.stores.wavefronts == 2048u);
    CHECK(hw.stores.conflicts == 1024u);
    CHECK(hw.stores.ideal() == 1024u);
    CHECK(hw.instructions == 61440u);
    CHECK(hw.all_wavefronts == 13568u);
    CHECK(hw.async_copies == 512u);

    SECTION("a missing metric is absent, and so is everything computed from it") {
        GpuCounters c = unswizzled_launch();
        c.metrics.erase(metric::ldsm_instructions);
        c.metrics.erase(metric::shared_st_conflicts);
        c.metrics.erase(metric::shared_wavefronts);
        const SharedCounters part = tklab::profiler::hardware_shared(c);
        CHECK_FALSE(part.loads.matrix.has_value());
        CHECK_FALSE(part.loads.instructions().has_value());
        CHECK(part.loads.plain == 256u);
        CHECK(part.loads.ideal() == 1408u);
        CHECK_FALSE(part.stores.conflicts.has_value());
        CHECK_FALSE(part.stores.ideal().has_value());
        CHECK(part.stores.wavefronts == 2048u);
        CHECK_FALSE(part.all_wavefronts.has_value());
        CHECK(part.instructions == 61440u);
    }
    SECTION("no counters at all: nothing is made up") {
        GpuCounters c;
        c.kernel = "k";
        const SharedCounters none = tklab::profiler::hardware_shared(c);
        CHECK(none == SharedCounters{});
        CHECK_FALSE(none.loads.wavefronts.has_value());
        CHECK_FALSE(none.instructions.has_value());
    }
    SECTION("a value no counter has is refused, naming the metric and the launch") {
        GpuCounters c = unswizzled_launch();
        c.metrics[metric::sts_instructions] = -2.0;
        CHECK_THROWS_WITH(tklab::profiler::hardware_shared(c),
                          Contains("launch 3") && Contains("smsp__inst_executed_op_shared_st_pred_on_any.sum = -2"));
        c = unswizzled_launch();
        c.metrics[metric::shared_ld_wavefronts] = std::numeric_limits<double>::infinity();
        CHECK_THROWS_WITH(tklab::profiler::hardware_shared(c), Contains("op_ld.sum"));
    }
    SECTION("conflicts above the wavefronts (a damaged reading): ideal is 0, not a wrapped number") {
        GpuCounters c = unswizzled_launch();
        c.metrics[metric::shared_st_conflicts] = 5000.0;
        CHECK(tklab::profiler::hardware_shared(c).stores.ideal() == 0u);
    }
}

TEST_CASE("counter metrics: the simulator's view puts LDS with LDSM and STS with STSM", "[profiler][counters]") {
    tklab::trace::Summary s;
    s.warp_instructions = 50000;
    s.ld_shared = {256, 256, 256, 1};             // instructions, wavefronts, ideal, max way
    s.ldmatrix = {1152, 9216, 1152, 8};
    s.st_shared = {1024, 2048, 1024, 2};
    s.stmatrix = {0, 0, 0, 0};
    const SharedCounters sim = tklab::profiler::simulated_shared(s);
    CHECK(sim.loads.plain == 256u);
    CHECK(sim.loads.matrix == 1152u);
    CHECK(sim.loads.wavefronts == 9472u);
    CHECK(sim.loads.conflicts == 8064u);
    CHECK(sim.loads.ideal() == 1408u);
    CHECK(sim.stores.wavefronts == 2048u);
    CHECK(sim.stores.conflicts == 1024u);
    CHECK(sim.stores.instructions() == 1024u);
    CHECK(sim.instructions == 50000u);
    CHECK_FALSE(sim.all_wavefronts.has_value());  // the simulator does not model cp.async's data path
    CHECK_FALSE(sim.async_copies.has_value());

}

TEST_CASE("counter metrics: CUPTI's ranges into trace records", "[profiler][counters][cupti]") {
    const std::vector<std::string> launched = {kGemmSymbol, "fill_ones"};
    const std::vector<std::string> metrics = {metric::instructions, metric::lds_instructions};
    std::vector<std::string> problems;

    // Auto-range mode: the range's name is its launch's position.
    GpuCounters c = tklab::profiler::counters_of_range(0, "0", launched, metrics, {100.0, 8.0}, &problems);
    CHECK(c.kernel == kGemmName);
    CHECK(c.launch == 0);
    CHECK(c.metrics == std::map<std::string, double>{{metric::instructions, 100.0}, {metric::lds_instructions, 8.0}});
    CHECK(problems.empty());
    c = tklab::profiler::counters_of_range(1, "1", launched, metrics, {5.0, 0.0}, &problems);
    CHECK(c.kernel == "fill_ones");
    CHECK(c.metrics.at(metric::lds_instructions) == 0.0);

    // A range named by a symbol is demangled; a launch no callback saw is "?".
    CHECK(tklab::profiler::counters_of_range(2, kGemmSymbol, {}, metrics, {1, 2}).kernel == kGemmName);
    CHECK(tklab::profiler::counters_of_range(2, "2", launched, metrics, {1, 2}).kernel == "?");
    CHECK(tklab::profiler::counters_of_range(2, "", launched, metrics, {1, 2}).kernel == "?");

    // A value CUPTI could not evaluate is left out and said, never stored as a number.
    c = tklab::profiler::counters_of_range(1, "1", launched, metrics, {std::nan(""), 3.0}, &problems);
    CHECK(c.metrics.count(metric::instructions) == 0);
    CHECK(c.metrics.at(metric::lds_instructions) == 3.0);
    REQUIRE(problems.size() == 1);
    CHECK_THAT(problems[0], Contains("launch 1 (fill_ones)") && Contains("smsp__inst_executed.sum"));

    CHECK_THROWS_WITH(tklab::profiler::counters_of_range(0, "0", launched, metrics, {1.0}),
                      Contains("1 values for 2 metrics"));
}

TEST_CASE("counter metrics: gpu_counters records survive the trace file in both encodings", "[profiler][counters][trace]") {
    const tklab::trace::Trace t = counters_trace();
    for (const char* ext : {".json", ".cbor"}) {
        const std::string path = temp_path(std::string("gpu_counters") + ext);
        tklab::trace::write_trace(path, t);
        const tklab::trace::Loaded back = tklab::trace::load_trace(path);
        fs::remove(path);
        CHECK(back.warning.empty());
        REQUIRE(back.trace.gpu_counters.size() == 2);
        CHECK(back.trace.gpu_counters == t.gpu_counters);
        CHECK(back.trace == t);
        // Values are kept as read, noise included: rounding is the view's business.
        CHECK(back.trace.gpu_counters[0].metrics.at(metric::shared_ld_conflicts) == 8063.999999999);
        CHECK(tklab::profiler::hardware_shared(back.trace.gpu_counters[0]) ==
              tklab::profiler::hardware_shared(t.gpu_counters[0]));
    }
    // A single record, both ways.
    const json r = tklab::trace::gpu_counters_record(t.gpu_counters[1]);
    CHECK(r["type"] == "gpu_counters");
    CHECK(tklab::trace::gpu_counters_of(r, "r") == t.gpu_counters[1]);
}

TEST_CASE("counter metrics: a malformed gpu_counters record is an error with its path", "[profiler][counters][trace]") {
    const std::string path = temp_path("gpu_counters_bad.json");
    tklab::trace::write_trace(path, counters_trace());
    std::ifstream in(path);
    const json doc = json::parse(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
    in.close();
    fs::remove(path);
    REQUIRE(doc["records"][0]["type"] == "gpu_counters");
    auto load = [](const json& d) { return tklab::trace::load_trace_bytes(d.dump(), tklab::trace::Encoding::json, "c.json"); };
    auto load_cbor = [](const json& d) {
        const auto bytes = json::to_cbor(d);
        return tklab::trace::load_trace_bytes(std::string(bytes.begin(), bytes.end()), tklab::trace::Encoding::cbor, "c.cbor");
    };
    CHECK_NOTHROW(load(doc));
    CHECK_NOTHROW(load_cbor(doc));

    json bad = doc;
    bad["records"][0]["metrics"][metric::lds_instructions] = "256";
    CHECK_THROWS_WITH(load(bad), Contains("c.json: records[0].metrics.smsp__inst_executed_op_shared_ld_pred_on_any.sum") &&
                                     Contains("expected a number, found a string"));
    CHECK_THROWS_WITH(load_cbor(bad), Contains("c.cbor: records[0].metrics.smsp__inst_executed_op_shared_ld_pred_on_any.sum"));
    bad = doc;
    bad["records"][1]["metrics"] = json::array({1, 2});
    CHECK_THROWS_WITH(load(bad), Contains("records[1].metrics") && Contains("expected an object"));
    bad = doc;
    bad["records"][0].erase("kernel");
    CHECK_THROWS_WITH(load(bad), Contains("records[0]") && Contains("missing field \"kernel\""));
    bad = doc;
    bad["records"][1]["launch"] = -1;
    CHECK_THROWS_AS(load(bad), tklab::trace::TraceError);
}
