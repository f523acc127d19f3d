// CUPTI kernel records on the CPU: decoding CUPTI's fields (names demangled,
// impossible values refused), the gpu_kernel record in both trace encodings,
// the loader's errors for a malformed one, and the report's GPU section.
#include <catch2/catch.hpp>

#include "profiler/decode/kernel_record.h"
#include "trace/codec.h"
#include "trace/report.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using tklab::profiler::KernelRecord;
using tklab::profiler::RawKernelActivity;
using tklab::trace::json;
using Catch::Matchers::Contains;

std::string temp_path(const std::string& name) {
    return (fs::temp_directory_path() / ("tklab_test_" + std::to_string(::getpid()) + "_" + name)).string();
}

// CUPTI's fields for the demo GEMM (swizzled, 4096^3): the symbol and the
// registers are what nvcc 13.0 gives gemm_kernel<swizzle::automatic> for
// sm_90a (ptxas -v: 80 registers), the shared memory its launch asks for.
constexpr const char* kGemmSymbol = "_ZN4gemm11gemm_kernelILin1EEEvN2tk2glI13__nv_bfloat16EES4_NS2_IfEE";
constexpr const char* kGemmName = "void gemm::gemm_kernel<-1>(tk::gl<__nv_bfloat16>, tk::gl<__nv_bfloat16>, tk::gl<float>)";
RawKernelActivity gemm_raw(uint64_t start, uint64_t end, uint32_t correlation) {
    RawKernelActivity r;
    r.name = kGemmSymbol;
    r.start = start, r.end = end;
    r.registers_per_thread = 80;
    r.static_shared = 0, r.dynamic_shared = 33792;
    r.grid_x = 64, r.grid_y = 64, r.grid_z = 1;
    r.block_x = 128, r.block_y = 1, r.block_z = 1;
    r.device_id = 0, r.stream_id = 7, r.correlation_id = correlation;
    return r;
}

RawKernelActivity fill_raw() {
    RawKernelActivity r;
    r.name = "fill_ones";  // an extern "C" kernel: nothing to demangle
    r.start = 1'003'600'000, r.end = 1'003'604'250;
    r.registers_per_thread = 16;
    r.static_shared = 1024, r.dynamic_shared = 0;
    r.grid_x = 3, r.grid_y = 2, r.grid_z = 1;
    r.block_x = 32, r.block_y = 4, r.block_z = 2;
    r.device_id = 1, r.stream_id = 13, r.correlation_id = 42;
    return r;
}

tklab::trace::Trace gpu_trace() {
    tklab::trace::Trace t;
    t.producer = "tklab profiler";
    t.program = "gemm";
    t.variant = "swizzled";
    t.problem = {{"M", 4096}, {"N", 4096}, {"K", 4096}};
    t.seed = 5;
    t.stalls = {"none"};
    t.files = {{}};
    t.locations = {{}};
    t.op_names = {""};
    // Delivered out of order, as CUPTI's buffers may be: add_to_trace sorts.
    tklab::profiler::add_to_trace(t, {tklab::profiler::decode_kernel(fill_raw()),
                                      tklab::profiler::decode_kernel(gemm_raw(1'000'000'000, 1'001'712'345, 40)),
                                      tklab::profiler::decode_kernel(gemm_raw(1'001'800'000, 1'003'500'000, 41))});
    t.checks.push_back({"C", 1e-3, 1e-2, true, "swizzled"});
    t.complete = true;
    return t;
}

std::string report_of(const tklab::trace::Trace& t) {
    std::ostringstream out;
    tklab::trace::write_report(out, t);
    return out.str();
}

} // namespace

TEST_CASE("kernel record: CUPTI's names are demangled where they can be", "[profiler][cupti]") {
    using tklab::profiler::demangle;
    CHECK(demangle("_Z4axpyfPfi") == "axpy(float, float*, int)");
    CHECK(demangle(kGemmSymbol) == kGemmName);
    CHECK(demangle("fill_ones") == "fill_ones");
    CHECK(demangle("_Znot a symbol") == "_Znot a symbol");
    CHECK(demangle("") == "");
}

TEST_CASE("kernel record: decoding CUPTI's fields", "[profiler][cupti]") {
    const KernelRecord k = tklab::profiler::decode_kernel(gemm_raw(100, 1'712'445, 40));
    CHECK(k.name == kGemmName);
    CHECK(k.mangled == kGemmSymbol);
    CHECK(k.start_ns == 100);
    CHECK(k.end_ns == 1'712'445);
    CHECK(k.duration_ns() == 1'712'345);
    CHECK(k.registers == 80);
    CHECK(k.static_smem == 0);
    CHECK(k.dynamic_smem == 33792);
    CHECK(k.smem_bytes() == 33792);
    CHECK(k.grid == tklab::trace::Dim3{64, 64, 1});
    CHECK(k.block == tklab::trace::Dim3{128, 1, 1});
    CHECK(k.device == 0);
    CHECK(k.stream == 7);
    CHECK(k.correlation == 40);

    const KernelRecord f = tklab::profiler::decode_kernel(fill_raw());
    CHECK(f.name == "fill_ones");
    CHECK(f.mangled.empty());  // the same as the name
    CHECK(f.block == tklab::trace::Dim3{32, 4, 2});

    RawKernelActivity nameless = fill_raw();
    nameless.name = nullptr;
    CHECK(tklab::profiler::decode_kernel(nameless).name == "?");

    SECTION("what no real kernel has is refused, naming CUPTI's field") {
        RawKernelActivity r = fill_raw();
        r.dynamic_shared = -4;
        CHECK_THROWS_WITH(tklab::profiler::decode_kernel(r), Contains("dynamicSharedMemory = -4") && Contains("libcupti"));
        r = fill_raw();
        r.grid_y = 0;
        CHECK_THROWS_WITH(tklab::profiler::decode_kernel(r), Contains("gridY = 0"));
        r = fill_raw();
        r.block_z = -1;
        CHECK_THROWS_WITH(tklab::profiler::decode_kernel(r), Contains("blockZ = -1"));
        r = fill_raw();
        r.end = r.start - 1;
        CHECK_THROWS_WITH(tklab::profiler::decode_kernel(r), Contains("fill_ones") && Contains("before start"));
    }
    SECTION("a kernel CUPTI could not time is recognised") {
        RawKernelActivity r = fill_raw();
        CHECK_FALSE(tklab::profiler::untimed(r));
        r.start = r.end = 0;
        CHECK(tklab::profiler::untimed(r));
    }
}

TEST_CASE("kernel record: JSON round trip", "[profiler][cupti]") {
    const KernelRecord k = tklab::profiler::decode_kernel(gemm_raw(5, 1'712'350, 40));
    const json j = tklab::profiler::to_json(k);
    CHECK(j["type"] == "gpu_kernel");
    CHECK(j["grid"] == json::array({64, 64, 1}));
    CHECK(j["dynamic_smem"] == 33792);
    CHECK(tklab::profiler::kernel_from_json(j) == k);
    // Through text and CBOR too: the same values come back.
    CHECK(tklab::profiler::kernel_from_json(json::parse(j.dump())) == k);
    CHECK(tklab::profiler::kernel_from_json(json::from_cbor(json::to_cbor(j))) == k);

    json other = j;
    other["type"] = "check";
    CHECK_THROWS_WITH(tklab::profiler::kernel_from_json(other, "x"), Contains("x: not a gpu_kernel record"));
    json bad = j;
    bad["registers"] = -1;
    CHECK_THROWS_WITH(tklab::profiler::kernel_from_json(bad, "k"), Contains("k.registers") && Contains("negative"));
}

TEST_CASE("kernel record: GPU kernels survive the trace file in both encodings", "[profiler][cupti][trace]") {
    const tklab::trace::Trace t = gpu_trace();
    REQUIRE(t.gpu_kernels.size() == 3);
    CHECK(t.gpu_kernels[0].correlation == 40);  // sorted by start
    CHECK(t.gpu_kernels[1].correlation == 41);
    CHECK(t.gpu_kernels[2].name == "fill_ones");
    for (const char* ext : {".json", ".cbor"}) {
        const std::string path = temp_path(std::string("gpu_kernels") + ext);
        tklab::trace::write_trace(path, t);
        const tklab::trace::Loaded back = tklab::trace::load_trace(path);
        CHECK(back.warning.empty());
        CHECK(back.trace.gpu_kernels == t.gpu_kernels);
        CHECK(back.trace == t);
        fs::remove(path);
    }
}

TEST_CASE("kernel record: a trace without GPU kernels (any older file) still loads", "[profiler][cupti][trace]") {
    // Written by hand as version 1 files were before gpu_kernel records existed.
    const std::string old = R"({"format":"tklab-trace","version":1,
"header":{"producer":"tklab simulator","program":"","variant":"","problem":{},"seed":1,"arch":{},
"recording":{"timeline_blocks":"first-wave","all_lane_addresses":false,"snapshots":false},"ops":[],"stalls":["none"]},
"records":[
{"type":"check","output":"C","variant":"","max_error":0.0,"tolerance":0.01,"passed":true},
{"type":"end"}
]})";
    const auto loaded = tklab::trace::load_trace_bytes(old, tklab::trace::Encoding::json, "old.json");
    CHECK(loaded.trace.gpu_kernels.empty());
    CHECK(loaded.trace.checks.size() == 1);
    CHECK(loaded.trace.complete);
}

TEST_CASE("kernel record: a malformed gpu_kernel record is an error with its path", "[profiler][cupti][trace]") {
    const std::string path = temp_path("gpu_bad.json");
    tklab::trace::write_trace(path, gpu_trace());
    std::ifstream in(path);
    const json doc = json::parse(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
    in.close();
    fs::remove(path);
    REQUIRE(doc["records"][0]["type"] == "gpu_kernel");
    auto load = [](const json& d) { return tklab::trace::load_trace_bytes(d.dump(), tklab::trace::Encoding::json, "g.json"); };
    auto load_cbor = [](const json& d) {
        const auto bytes = json::to_cbor(d);
        return tklab::trace::load_trace_bytes(std::string(bytes.begin(), bytes.end()), tklab::trace::Encoding::cbor, "g.cbor");
    };
    CHECK_NOTHROW(load(doc));

    json bad = doc;
    bad["records"][1]["registers"] = "many";
    CHECK_THROWS_WITH(load(bad), Contains("g.json: records[1].registers") && Contains("expected an integer, found a string"));
    CHECK_THROWS_WITH(load_cbor(bad), Contains("g.cbor: records[1].registers"));
    bad = doc;
    bad["records"][0]["grid"][1] = 0;
    CHECK_THROWS_WITH(load(bad), Contains("records[0].grid[1]") && Contains("out of range"));
    bad = doc;
    bad["records"][2]["block"] = json::array({32, 32, 2});
    CHECK_THROWS_WITH(load(bad), Contains("records[2].block") && Contains("1024 threads"));
    bad = doc;
    bad["records"][0].erase("end_ns");
    CHECK_THROWS_WITH(load(bad), Contains("records[0]") && Contains("missing field \"end_ns\""));
    bad = doc;
    bad["records"][1]["end_ns"] = 3;
    CHECK_THROWS_WITH(load(bad), Contains("records[1].end_ns") && Contains("before start_ns"));
    bad = doc;
    bad["records"][0]["name"] = 12;
    CHECK_THROWS_WITH(load(bad), Contains("records[0].name") && Contains("expected a string, found an integer"));
    bad = doc;
    bad["records"][0]["static_smem"] = 5000000000ull;
    CHECK_THROWS_WITH(load(bad), Contains("records[0].static_smem") && Contains("out of range"));
}

TEST_CASE("kernel record: the report lists GPU kernels, and only when there are some", "[profiler][cupti][report]") {
    tklab::trace::Trace t = gpu_trace();
    const std::string r = report_of(t);
    CHECK_THAT(r, Contains("GPU kernels (CUPTI)"));
    CHECK_THAT(r, Contains("3 kernel runs, 3.417 ms in kernels over 3.604 ms from the first start to the last end"));
    CHECK_THAT(r, Contains("1. " + std::string(kGemmName) + "\n"
                           "     ran 2 times, mean 1.706 ms (1.700 ms to 1.712 ms)\n"
                           "     grid 64x64x1  block 128x1x1  80 registers/thread  shared 33792 B (0 static + 33792 dynamic)\n"));
    CHECK_THAT(r, Contains("2. fill_ones\n     4.25 us\n     grid 3x2x1  block 32x4x2  16 registers/thread  shared 1024 B"));
    CHECK(r.find("no launches") == std::string::npos);

    t.gpu_kernels[2].name = std::string(300, 'k');  // a long template name stays within 100 columns
    std::istringstream lines(report_of(t));
    for (std::string line; std::getline(lines, line);) CHECK(line.size() <= 100);

    t.gpu_kernels.clear();
    const std::string none = report_of(t);
    CHECK(none.find("GPU kernels") == std::string::npos);
    CHECK_THAT(none, Contains("no launches"));
}
