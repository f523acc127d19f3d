// Calibration microbenchmarks (issue 23, item 1): shared helpers.
//
// Every figure is measured inside the kernel with the SM's own cycle counter
// (%clock64), so it is in SM cycles whatever the clock runs at. A figure is
// the median of several launches after a warm-up launch. Each figure carries
// a plausible range: a value outside it prints a warning (a broken benchmark
// or a surprising GPU, either worth a look before the figure is used).
#pragma once
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CK(call)                                                                                 \
    do {                                                                                         \
        cudaError_t e_ = (call);                                                                 \
        if (e_ != cudaSuccess) {                                                                 \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            std::exit(1);                                                                        \
        }                                                                                        \
    } while (0)
// After a launch: the launch itself, then the kernel's run.
#define CK_LAUNCH() do { CK(cudaGetLastError()); CK(cudaDeviceSynchronize()); } while (0)

namespace cal {

__device__ __forceinline__ long long clk() {
    long long c;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
    return c;
}
__device__ __forceinline__ unsigned long long gtime_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
    return t;
}
__device__ __forceinline__ uint32_t smem_u32(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

// A small bf16 value from a hash (never zero: the tensor cores' power, and so
// perhaps their clock, depends on the data).
__host__ __device__ inline uint16_t small_bf16(uint32_t h) {
    h = h * 2654435761u ^ (h >> 13);
    return uint16_t(0x3C00u | (h & 0x7Fu) | ((h >> 8) & 0x8000u));  // +-[2^-7, 2^-6)
}

struct Figure {
    std::string name, unit, method;
    double value;
    double lo, hi;  // plausible range
};

struct Ctx {
    cudaDeviceProp prop{};
    int sms = 0;
    double mhz = 0;              // SM clock measured at the start (cycles per microsecond)
    double dram_peak_gbps = 0;   // from the memory clock and bus width
    std::vector<Figure> figures;
    int warnings = 0;
    long long* d_out = nullptr;  // timing records (cap entries)
    size_t out_cap = 1 << 20;
    uint32_t* d_sink = nullptr;  // results nobody reads, so no load is dead code
    char* d_big = nullptr;       // 2 GiB, far larger than the L2
    size_t big_bytes = size_t(2) << 30;
    char* d_small = nullptr;     // 8 MiB, L2-resident
    size_t small_bytes = size_t(8) << 20;

    void add(const std::string& name, double v, const std::string& unit, const std::string& method, double lo, double hi) {
        figures.push_back({name, unit, method, v, lo, hi});
        std::printf("  %-44s %12.2f %-14s\n", name.c_str(), v, unit.c_str());
        if (!(v >= lo && v <= hi)) {
            ++warnings;
            std::printf("  WARNING: %s = %.3f %s is outside the plausible range [%g, %g]\n", name.c_str(), v, unit.c_str(), lo, hi);
        }
        std::fflush(stdout);
    }
    std::vector<long long> fetch(size_t n) const {
        std::vector<long long> h(n);
        CK(cudaMemcpy(h.data(), d_out, n * sizeof(long long), cudaMemcpyDeviceToHost));
        return h;
    }
};

inline double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
// One warm-up call, then the median of `reps` calls of f (each returns a figure).
template <class F>
double median_runs(int reps, F&& f) {
    f();
    std::vector<double> v;
    for (int i = 0; i < reps; ++i) v.push_back(f());
    return median(v);
}
// Records laid out as (start, end) pairs: from the earliest start to the latest end.
inline double span(const std::vector<long long>& rec, int pairs) {
    long long s = rec[0], e = rec[1];
    for (int i = 1; i < pairs; ++i) s = std::min(s, rec[2 * i]), e = std::max(e, rec[2 * i + 1]);
    return double(e - s);
}

double measure_clock_mhz(Ctx& c, int ms);
void run_issue(Ctx& c);
void run_shared(Ctx& c);
void run_mio_depth(Ctx& c);  // the shared-memory queue's depth for ldmatrix and ld.shared (shared.cu)
void run_tensor(Ctx& c);
void run_global(Ctx& c);
void run_async(Ctx& c);
void run_frontend(Ctx& c);
void run_alu(Ctx& c);
void run_stores(Ctx& c);  // global store bandwidth and the load/store unit's rate
void run_lsu_queue(Ctx& c);  // how deep the load/store unit's queue is (lsu_queue.cu)
int run_overhead_probes(int iters, bool timing);  // scripts/gpu/calibrate.sh --only overhead

} // namespace cal
