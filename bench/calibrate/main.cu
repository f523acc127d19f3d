// Calibration microbenchmarks for the simulator's cost model (issue 23,
// item 1). Measures, on the GPU it runs on, each figure sim/arch/h100.json
// uses, in SM cycles, and writes them as JSON. scripts/gpu/calibrate.sh
// builds and runs it, adds the machine's details, and prints the comparison
// with the model's figures.
//   calibrate OUT.json [--only issue,shared,mio_depth,tensor,global,async,frontend,alu,stores,lsu_queue]
#include <cmath>
#include <cstring>
#include <ctime>
#include "common.h"

namespace {
// The launch overhead: a kernel that does nothing, timed from outside by
// Nsight Compute (scripts/gpu/calibrate.sh): the cycles an SM sees a launch
// last beyond its blocks' own work.
__global__ void empty_kernel(int* never) {
    if (never && threadIdx.x == 0xffff) *never = 1;
}

std::string esc(const std::string& s) {
    std::string o;
    for (char ch : s) {
        if (ch == '"' || ch == '\\') o += '\\';
        o += ch;
    }
    return o;
}
} // namespace

int main(int argc, char** argv) {
    std::string out_path = "calibration_raw.json", only;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--empty-kernel")) {  // 10 launches of one block, for ncu
            for (int k = 0; k < 10; ++k) empty_kernel<<<1, 128>>>(nullptr);
            return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
        }
        if (!std::strcmp(argv[i], "--overhead-probes") && i + 1 < argc) return cal::run_overhead_probes(std::atoi(argv[i + 1]), false);
        if (!std::strcmp(argv[i], "--overhead-timing")) return cal::run_overhead_probes(0, true);
        if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
        else if (!std::strcmp(argv[i], "-h") || !std::strcmp(argv[i], "--help")) {
            std::printf("usage: calibrate OUT.json [--only issue,shared,mio_depth,tensor,global,async,frontend,alu,stores,lsu_queue]\n"
                        "       calibrate --empty-kernel   (10 launches of an empty kernel, for ncu)\n"
                        "       calibrate --overhead-probes ITERS   (each tile-op probe once, ITERS calls, for ncu)\n"
                        "       calibrate --overhead-timing   (each tile-op probe's cycles per call, one warp per sub-partition)\n");
            return 0;
        } else out_path = argv[i];
    }
    auto want = [&](const char* f) { return only.empty() || only.find(f) != std::string::npos; };

    cal::Ctx c;
    CK(cudaSetDevice(0));
    CK(cudaGetDeviceProperties(&c.prop, 0));
    if (c.prop.major != 9) {
        std::fprintf(stderr, "calibrate: needs a Hopper GPU (sm_90), found %s (sm_%d%d)\n", c.prop.name, c.prop.major, c.prop.minor);
        return 2;
    }
    c.sms = c.prop.multiProcessorCount;
    int mem_khz = 0, bus_bits = 0;
    if (cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, 0) == cudaSuccess &&
        cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0) == cudaSuccess && mem_khz > 0 && bus_bits > 0)
        c.dram_peak_gbps = 2.0 * mem_khz * 1e3 * (bus_bits / 8) / 1e9;  // double data rate
    else
        c.dram_peak_gbps = 5000, (void)cudaGetLastError();
    CK(cudaMalloc(&c.d_out, c.out_cap * sizeof(long long)));
    CK(cudaMalloc(&c.d_sink, 1 << 20));
    CK(cudaMalloc(&c.d_big, c.big_bytes));
    CK(cudaMalloc(&c.d_small, c.small_bytes));
    CK(cudaMemset(c.d_big, 0x3c, c.big_bytes));  // small nonzero bf16 (0x3c3c)
    CK(cudaMemset(c.d_small, 0x3c, c.small_bytes));
    std::printf("calibrate on %s: %d SMs, %d MB L2, DRAM peak %.0f GB/s\n", c.prop.name, c.sms, c.prop.l2CacheSize >> 20, c.dram_peak_gbps);

    cal::measure_clock_mhz(c, 200);  // warm-up: the clock ramps up under load
    const double mhz0 = cal::measure_clock_mhz(c, 50);
    c.mhz = mhz0;
    std::printf("SM clock at the start: %.0f MHz\n", mhz0);
    if (want("issue")) cal::run_issue(c);
    if (want("shared")) cal::run_shared(c);
    if (want("mio_depth")) cal::run_mio_depth(c);
    if (want("tensor")) cal::run_tensor(c);
    if (want("async")) cal::run_async(c);
    if (want("global")) cal::run_global(c);
    if (want("frontend")) cal::run_frontend(c);
    if (want("alu")) cal::run_alu(c);
    if (want("stores")) cal::run_stores(c);
    if (want("lsu_queue")) cal::run_lsu_queue(c);
    const double mhz1 = cal::measure_clock_mhz(c, 50);
    std::printf("SM clock at the end: %.0f MHz\n", mhz1);
    c.add("sm_clock_mhz", 0.5 * (mhz0 + mhz1), "MHz",
          "one thread reads %clock64 over 50 ms of %globaltimer, at the start and at the end of the run; their mean", 800, 2100);

    FILE* f = std::fopen(out_path.c_str(), "w");
    if (!f) { std::perror(out_path.c_str()); return 1; }
    std::fprintf(f, "{\n  \"gpu\": \"%s\",\n  \"sms\": %d,\n  \"dram_peak_GBps\": %.0f,\n  \"l2_bytes\": %d,\n  \"sm_clock_mhz_start\": %.1f,\n  \"sm_clock_mhz_end\": %.1f,\n",
                 esc(c.prop.name).c_str(), c.sms, c.dram_peak_gbps, c.prop.l2CacheSize, mhz0, mhz1);
    std::fprintf(f, "  \"warnings\": %d,\n  \"figures\": [\n", c.warnings);
    for (size_t i = 0; i < c.figures.size(); ++i) {
        const auto& g = c.figures[i];
        char val[32];
        if (std::isfinite(g.value)) std::snprintf(val, sizeof val, "%.4g", g.value);
        else std::snprintf(val, sizeof val, "null");
        std::fprintf(f, "    {\"name\": \"%s\", \"value\": %s, \"unit\": \"%s\", \"method\": \"%s\", \"plausible\": [%g, %g]}%s\n",
                     esc(g.name).c_str(), val, esc(g.unit).c_str(), esc(g.method).c_str(), g.lo, g.hi, i + 1 < c.figures.size() ? "," : "");
    }
    std::fprintf(f, "  ]\n}\n");
    std::fclose(f);
    std::printf("%zu figures, %d warning%s; written to %s\n", c.figures.size(), c.warnings, c.warnings == 1 ? "" : "s", out_path.c_str());
    return 0;
}
