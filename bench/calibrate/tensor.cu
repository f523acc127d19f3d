// Tensor cores: mma.sync m16n8k16 bf16 latency and per-SM throughput, and
// wgmma m64nNk16 bf16 (A and B in shared memory) per N: steady-state cycles
// per wgmma for one and two warpgroups, and latency.
#include "common.h"
#include "tk/arch/wgmma.h"

namespace cal {
namespace {

__device__ __forceinline__ void mma_bf16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// Each warp runs CHAINS independent accumulators, round robin, `iters`
// times. CHAINS = 1 and one warp: each mma waits for the last (latency).
// CHAINS = 8 and W warps: enough independent work to keep the tensor pipe of
// each sub-partition busy (throughput). Operands are small nonzero bf16, their
// own registers for every chain, and the accumulators start nonzero.
template <int CHAINS>
__global__ void __launch_bounds__(512) mma_bench(int iters, long long* out, uint32_t* sink) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    uint32_t a[CHAINS][4], b[CHAINS][2];
    float d[CHAINS][4];
    for (int c = 0; c < CHAINS; ++c) {
        const uint32_t h = threadIdx.x * 64 + c * 8;
        for (int i = 0; i < 4; ++i) a[c][i] = small_bf16(h + i) | uint32_t(small_bf16(h + i + 4)) << 16;
        for (int i = 0; i < 2; ++i) b[c][i] = small_bf16(h + 77 + i) | uint32_t(small_bf16(h * 3 + i)) << 16;
        for (int i = 0; i < 4; ++i) d[c][i] = 1e-3f * float(h + i);
    }
    __syncthreads();
    const long long t0 = clk();
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int c = 0; c < CHAINS; ++c) mma_bf16(d[c], a[c], b[c]);
    }
    const long long t1 = clk();
    if (lane == 0) out[2 * warp] = t0, out[2 * warp + 1] = t1;
    float s = 0;
    for (int c = 0; c < CHAINS; ++c) s += d[c][0] + d[c][1] + d[c][2] + d[c][3];
    sink[threadIdx.x] = __float_as_uint(s);
}

// wgmma m64nNk16, A (64 x 16) and B (N x 16) K-major in shared memory, no
// swizzle (core matrices 128 bytes apart along K, 256 along M/N); small
// nonzero bf16. Every warpgroup of the block accumulates into its own
// registers. After one warm-up round trip:
//   K > 0 (steady state): K wgmmas back to back into one accumulator, one
//     commit, one wait, as a GEMM's k-loop does; records (start, end) per
//     warpgroup. Fully unrolled, so no branch separates two wgmmas (ptxas
//     fences the accumulators at loop edges). Runs at two K and takes the
//     difference, which leaves out the pipeline's fill and the last one's
//     latency.
//   K = 0 (latency): `reps` times: one wgmma, commit, wait_group 0; records
//     each issue-to-wait time (warpgroup 0).
template <int N, int K>
__global__ void wgmma_bench(int reps, long long* out, uint32_t* sink) {
    __shared__ __align__(1024) uint16_t A[64 * 16];
    __shared__ __align__(1024) uint16_t B[256 * 16];
    for (int i = threadIdx.x; i < 64 * 16; i += blockDim.x) A[i] = small_bf16(uint32_t(i));
    for (int i = threadIdx.x; i < N * 16; i += blockDim.x) B[i] = small_bf16(uint32_t(i) + 99991u);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // generic writes, read by the tensor cores
    __syncthreads();
    using tk::arch::wgmma_swizzle;
    const uint64_t da = tk::arch::make_wgmma_descriptor(smem_u32(A), 128, 256, wgmma_swizzle::none);
    const uint64_t db = tk::arch::make_wgmma_descriptor(smem_u32(B), 128, 256, wgmma_swizzle::none);
    const int wg = threadIdx.x / 128;
    float d[N / 2];
#pragma unroll
    for (int i = 0; i < N / 2; ++i) d[i] = 0.f;
    tk::arch::wgmma_fence();
    tk::arch::wgmma_ss<N, 0, 0>(d, da, db, 1);
    tk::arch::wgmma_commit_group();
    tk::arch::wgmma_wait_group<0>();
    if constexpr (K > 0) {
        tk::arch::wgmma_fence();
        asm volatile("bar.sync 1, %0;" ::"r"(int(blockDim.x)) : "memory");  // warpgroups start together
        const long long t0 = clk();
#pragma unroll
        for (int k = 0; k < K; ++k) tk::arch::wgmma_ss<N, 0, 0>(d, da, db, 1);
        tk::arch::wgmma_commit_group();
        tk::arch::wgmma_wait_group<0>();
        const long long t1 = clk();
        if (threadIdx.x % 128 == 0) out[2 * wg] = t0, out[2 * wg + 1] = t1;
    } else {
        for (int r = 0; r < reps; ++r) {
            tk::arch::wgmma_fence();
            const long long t0 = clk();
            tk::arch::wgmma_ss<N, 0, 0>(d, da, db, 1);
            tk::arch::wgmma_commit_group();
            tk::arch::wgmma_wait_group<0>();
            const long long t1 = clk();
            if (threadIdx.x == 0) out[r] = t1 - t0;
        }
    }
    float s = 0;
#pragma unroll
    for (int i = 0; i < N / 2; ++i) s += d[i];
    sink[threadIdx.x] = __float_as_uint(s);
}

template <int N>
void wgmma_figures(Ctx& c) {
    constexpr int K1 = 32, K2 = 96;
    const double fma = 64.0 * N * 16;
    char name[96], m[256];
    for (int wgs = 1; wgs <= 2; ++wgs) {
        auto run = [&](auto kernel) {
            kernel<<<1, 128 * wgs>>>(0, c.d_out, c.d_sink);
            CK_LAUNCH();
            return span(c.fetch(2 * wgs), wgs);
        };
        const double cyc = median_runs(5, [&] { return (run(wgmma_bench<N, K2>) - run(wgmma_bench<N, K1>)) / (double(K2 - K1) * wgs); });
        std::snprintf(name, sizeof name, "wgmma.m64n%dk16_cycles_%dwg", N, wgs);
        std::snprintf(m, sizeof m, "%d warpgroup%s, each %d (then %d) wgmma (A, B in shared) into one accumulator, one commit and wait; "
                      "SM cycles per wgmma from the difference", wgs, wgs > 1 ? "s" : "", K2, K1);
        // the published dense bf16 peak: 989 TFLOP/s at 1830 MHz over 132 SMs = 2048 FMA/cycle/SM
        c.add(name, cyc, "cycles", m, fma / 2150, fma / 256);
        std::snprintf(name, sizeof name, "wgmma.m64n%dk16_fma_per_cycle_%dwg", N, wgs);
        std::snprintf(m, sizeof m, "64*%d*16 multiply-adds over wgmma.m64n%dk16_cycles_%dwg: dense bf16 FMA per cycle per SM", N, N, wgs);
        c.add(name, fma / cyc, "FMA/cycle/SM", m, 256, 2150);
    }
    const int reps = 32;
    const double lat = median_runs(5, [&] {
        wgmma_bench<N, 0><<<1, 128>>>(reps, c.d_out, c.d_sink);
        CK_LAUNCH();
        auto r = c.fetch(reps);
        return median(std::vector<double>(r.begin(), r.end()));
    });
    std::snprintf(name, sizeof name, "wgmma.m64n%dk16_latency", N);
    std::snprintf(m, sizeof m, "one warpgroup: clock, one wgmma, commit, wait_group 0, clock; median of %d", reps);
    c.add(name, lat, "cycles", m, fma / 2150, 2000);
}

} // namespace

void run_tensor(Ctx& c) {
    std::printf("tensor cores\n");
    const int iters = 1024;
    const double lat = median_runs(7, [&] {
        mma_bench<1><<<1, 32>>>(iters, c.d_out, c.d_sink);
        CK_LAUNCH();
        auto r = c.fetch(2);
        return double(r[1] - r[0]) / iters;
    });
    char m[256];
    std::snprintf(m, sizeof m, "dependent chain of %d mma.sync (D feeds C), one warp; cycles per mma", iters);
    c.add("mma_m16n8k16.latency", lat, "cycles", m, 8, 80);
    for (int per = 1; per <= 4; ++per) {
        const int warps = 4 * per, it = 256;
        const double cyc = median_runs(5, [&] {
            mma_bench<8><<<1, 32 * warps>>>(it, c.d_out, c.d_sink);
            CK_LAUNCH();
            return span(c.fetch(2 * warps), warps);
        });
        // cycles one mma occupies its sub-partition's pipe: SM cycles x 4 sub-partitions / mmas
        const double pipe = cyc * 4 / (double(warps) * it * 8);
        char name[96];
        std::snprintf(name, sizeof name, "mma_m16n8k16.pipe_cycles_%dw_per_smsp", per);
        std::snprintf(m, sizeof m, "%d warps (%d per sub-partition) x 8 independent accumulators x %d; SM cycles x 4 / mma count", warps, per, it);
        // 16*8*16 = 2048 FMA per mma; no faster than wgmma's 512 FMA/cycle per sub-partition
        c.add(name, pipe, "cycles", m, 4, 64);
    }
    wgmma_figures<64>(c);
    wgmma_figures<128>(c);
    wgmma_figures<256>(c);
}

} // namespace cal
