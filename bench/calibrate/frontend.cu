// What a warp waits for around its own instructions rather than its data:
// fetching code the SM has not run yet (Nsight's imc_miss), and, at its end,
// the global stores it issued being acknowledged (drain).
#include "common.h"

namespace cal {
namespace {

// One warp runs the same N independent FADDs (8 chains) twice in one launch:
// the first pass fetches the code, the second finds it in the SM's caches.
// The difference over the code's 128-byte lines (8 SASS instructions of 16
// bytes each) is what a cold line costs.
template <int N>
__global__ void straight_code(long long* out, uint32_t* sink) {
    float f[8];
    for (int j = 0; j < 8; ++j) f[j] = 1.0f + 1e-3f * float(threadIdx.x + j);
    long long t[3];
    for (int pass = 0; pass < 2; ++pass) {
        t[pass] = clk();
#pragma unroll
        for (int i = 0; i < N; ++i) asm volatile("add.f32 %0, %0, %1;" : "+f"(f[i % 8]) : "f"(1e-4f));
    }
    t[2] = clk();
    if (threadIdx.x == 0) out[0] = t[1] - t[0], out[1] = t[2] - t[1];
    float s = 0;
    for (int j = 0; j < 8; ++j) s += f[j];
    sink[threadIdx.x] = __float_as_uint(s);
}

// One warp: S stores of 4 bytes per lane (S lines of 128 bytes), then a
// fence that waits for them to be acknowledged, against the fence alone.
__global__ void store_fence(int stores, uint32_t* dst, long long* out) {
    __syncwarp();
    const long long t0 = clk();
    for (int s = 0; s < stores; ++s) asm volatile("st.global.u32 [%0], %1;" ::"l"(dst + s * 32 + threadIdx.x), "r"(s) : "memory");
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
    const long long t1 = clk();
    if (threadIdx.x == 0) out[0] = t1 - t0;
}

// Constant memory a warp has not read yet in this launch (Nsight's
// imc_miss): kernel parameters and __constant__ data are read through the
// SM's constant caches. One warp reads 8 words of `probe_constants`, 256
// bytes apart (each its own line), each feeding an add the next waits for,
// twice: the first pass misses, the second hits.
__constant__ uint32_t probe_constants[8 * 64];

__global__ void constant_reads(long long* out, uint32_t* sink) {
    uint32_t x = uint32_t(threadIdx.x);
    long long t[3];
    for (int pass = 0; pass < 2; ++pass) {
        t[pass] = clk();
#pragma unroll
        for (int k = 0; k < 8; ++k) asm volatile("add.u32 %0, %0, %1;" : "+r"(x) : "r"(probe_constants[64 * k]));
    }
    t[2] = clk();
    if (threadIdx.x == 0) out[0] = t[1] - t[0], out[1] = t[2] - t[1];
    sink[threadIdx.x] = x;
}

// A kernel parameter's first use, timed from the kernel's first clock read.
__global__ void parameter_first_use(long long* out, uint32_t a, uint32_t b) {
    const long long t0 = clk();
    uint32_t x = uint32_t(t0);
    asm volatile("add.u32 %0, %0, %1;" : "+r"(x) : "r"(a));
    const long long t1 = clk();
    asm volatile("add.u32 %0, %0, %1;" : "+r"(x) : "r"(b));
    const long long t2 = clk();
    if (threadIdx.x == 0) out[0] = t1 - t0, out[1] = t2 - t1, out[2] = x;
}

template <int N>
void cold_code(Ctx& c) {
    std::vector<double> cold, warm;
    for (int r = 0; r < 7; ++r) {
        straight_code<N><<<1, 32>>>(c.d_out, c.d_sink);
        CK_LAUNCH();
        auto v = c.fetch(2);
        cold.push_back(double(v[0])), warm.push_back(double(v[1]));
    }
    const double lines = N * 16.0 / 128.0;
    char name[96], m[320];
    std::snprintf(name, sizeof name, "icache.cold_line_cycles_%dKiB", N * 16 / 1024);
    std::snprintf(m, sizeof m,
                  "one warp runs %d independent FADDs (%d KiB of code) twice in one launch; (first pass - second) / 128-byte lines, "
                  "median of 7 launches (first pass %.0f, second %.0f cycles)",
                  N, N * 16 / 1024, median(cold), median(warm));
    c.add(name, (median(cold) - median(warm)) / lines, "cycles/line", m, 0, 400);
}

} // namespace

void run_frontend(Ctx& c) {
    std::printf("instruction fetch and store drain\n");
    cold_code<512>(c);
    cold_code<2048>(c);
    cold_code<8192>(c);
    {
        std::vector<uint32_t> h(8 * 64, 1u);
        CK(cudaMemcpyToSymbol(probe_constants, h.data(), h.size() * sizeof(uint32_t)));
        std::vector<double> cold, warm, first, second;
        for (int r = 0; r < 7; ++r) {
            constant_reads<<<1, 32>>>(c.d_out, c.d_sink);
            CK_LAUNCH();
            auto v = c.fetch(2);
            cold.push_back(double(v[0])), warm.push_back(double(v[1]));
            parameter_first_use<<<1, 32>>>(c.d_out, 3u, 5u);
            CK_LAUNCH();
            auto p = c.fetch(2);
            first.push_back(double(p[0])), second.push_back(double(p[1]));
        }
        char cm[320];
        std::snprintf(cm, sizeof cm, "one warp reads 8 __constant__ words 256 bytes apart, each feeding an add, twice in one launch; "
                                     "(first pass - second) / 8, median of 7 launches (first pass %.0f, second %.0f cycles)",
                      median(cold), median(warm));
        c.add("constant.miss_cycles", (median(cold) - median(warm)) / 8, "cycles", cm, 0, 3000);
        std::snprintf(cm, sizeof cm, "one warp: %%clock64, an add of a kernel parameter, %%clock64, at the kernel's start; median of 7 "
                                     "launches (a second parameter right after: %.0f cycles)", median(second));
        c.add("constant.parameter_first_use_cycles", median(first), "cycles", cm, 0, 5000);
    }
    char m[256], name[96];
    for (int stores : {1, 8, 32}) {
        const double with = median_runs(7, [&] {
            store_fence<<<1, 32>>>(stores, reinterpret_cast<uint32_t*>(c.d_small), c.d_out);
            CK_LAUNCH();
            return double(c.fetch(1)[0]);
        });
        const double alone = median_runs(7, [&] {
            store_fence<<<1, 32>>>(0, reinterpret_cast<uint32_t*>(c.d_small), c.d_out);
            CK_LAUNCH();
            return double(c.fetch(1)[0]);
        });
        std::snprintf(name, sizeof name, "global.store_ack_cycles_%d_lines", stores);
        std::snprintf(m, sizeof m, "one warp: %d st.global.u32 per lane (one 128-byte line each, L2-resident) then fence.acq_rel.gpu, "
                                   "from the first store to the fence's end (the fence alone: %.0f cycles)", stores, alone);
        c.add(name, with, "cycles", m, 20, 5000);
    }
}

} // namespace cal
