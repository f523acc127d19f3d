// The instructions a tile op costs beyond the ones the simulator models: the
// address arithmetic, bounds checks and loop bookkeeping nvcc emits around
// each ldmatrix, cp.async or global load. One kernel per op, calling it
// `iters` times with coordinates that change every call, as a kernel's main
// loop does: at random (nvcc computes the addresses again each call), and
// for cp.async also one tile further each call (the loop probes: nvcc moves
// the addresses it has; Executor::addresses_hoisted). On the GPU, Nsight Compute counts the SASS instructions a warp
// executes (scripts/gpu/calibrate.sh --only overhead); the simulator's count
// for one call is kModelled (tests/sim/test_overhead_probes.cpp checks it).
// Shared by the GPU benchmark (overhead.cu) and the simulator's test.
#pragma once
#include <utility>

#include "tk/tk.h"

namespace cal::overhead {

// Each op at two sizes, so that what it costs per call (bounds checks, base
// addresses) and per instruction (each one's address) can be told apart.
// ptxas drops loads whose registers are never read, so every load's result
// is used: ldmatrix's by mma (the mma probes alone are subtracted), a global
// load's by storing it back (the store probes alone are subtracted). Stores
// and copies into shared memory stay by themselves.
enum Probe {
    mma, mma_small, ldmatrix_mma, ldmatrix_mma_small, st_shared, cp_async, cp_async_one_warp,
    st_global, st_global_large, ld_st_global, ld_st_global_large, group_load, group_load_one_warp,
    cp_async_loop, cp_async_loop_one_warp, probes
};
inline const char* const kNames[probes] = {
    "mma", "mma_small", "ldmatrix_mma", "ldmatrix_mma_small", "st_shared", "cp_async", "cp_async_one_warp",
    "st_global", "st_global_large", "ld_st_global", "ld_st_global_large", "group_load", "group_load_one_warp",
    "cp_async_loop", "cp_async_loop_one_warp"};
// What one call is in the instructions the simulator models, per warp.
inline constexpr int kModelled[probes] = {
    32,  // mma_AB(rt_fl<32,32>, rt_bf<32,64>, rt_bf<64,32,col_l>): 32 mma.sync m16n8k16
    8,   // mma_AB(rt_fl<16,16>, rt_bf<16,64>, rt_bf<64,16,col_l>): 8
    48,  // load(rt_bf<32,64>, ...), load(rt_bf<64,32,col_l>, ...) from a swizzled st_bf<64,64>: 16 ldmatrix.x4, then the 32 mma
    16,  // load(rt_bf<16,64>, ...), load(rt_bf<64,16,col_l>, ...): 8 ldmatrix.x4, then the 8 mma
    32,  // store(st_bf<32,64>, rt_bf<32,64>): 32 st.shared.b32
    6,   // group<4>::load_async(st_bf<64,64>, gl): 4 cp.async of 16 bytes a lane, commit, wait_group 0
    18,  // group<1>::load_async(st_bf<64,64>, gl), each warp the whole tile: 16 cp.async, commit, wait_group 0
    16,  // store(gl<float>, rt_fl<16,64>): 16 st.global.v2
    32,  // store(gl<float>, rt_fl<32,64>): 32 st.global.v2
    32,  // load(rt_fl<16,64>, gl<float>) then store it: 16 ld.global.v2, 16 st.global.v2
    64,  // the same with rt_fl<32,64>: 32 and 32
    8,   // group<4>::load(st_bf<64,64>, gl): 4 ld.global.v4 and 4 st.shared.v4
    32,  // group<1>::load(st_bf<64,64>, gl), each warp the whole tile: 16 and 16
    6,   // cp_async as a main loop walks K: the next 64 columns into the other of two stages
    18,  // the same, each warp the whole tile
};

constexpr int kThreads = 128;  // 4 warps, one per sub-partition
constexpr int kRows = 512, kCols = 512;  // A (bf16) and F (float): 512 x 512
// The probes' dynamic shared memory: the 64x64 tile, a 32x64 one, a second
// 64x64 (the loop probes' other stage), the allocator's alignment slack.
constexpr size_t kSharedBytes = 2 * sizeof(tk::st_bf<64, 64, tk::swizzle::b128>) + sizeof(tk::st_bf<32, 64>) + 1024;

// `cycles` (GPU only, may be null): each warp's cycles over the loop, for the
// probes' time per call (calibrate --overhead-timing).
template <int P>
__global__ void __launch_bounds__(kThreads) probe(tk::gl<tk::bf16> A, tk::gl<float> F, int iters, uint32_t* sink, long long* cycles) {
    using namespace tk;
    shared_allocator al;
    using tile = st_bf<64, 64, swizzle::b128>;
    tile& s = al.allocate<tile>();
    st_bf<32, 64>& mine = al.allocate<st_bf<32, 64>>();  // (warps overwrite each other's: only the count matters)
    tile& s2 = al.allocate<tile>();
    // A by 64 rows (the height of a tile), so that a loop of up to 64 calls
    // walks its columns one tile a call, as a GEMM's main loop walks K.
    const gl<bf16> wide(A.raw, 1, 1, 64, A.rows * A.cols / 64);
    const int w = warpid();
    if constexpr (P == ldmatrix_mma || P == ldmatrix_mma_small || P == st_shared || P == mma || P == mma_small) {
        // Every byte a later read touches is written first (the simulator checks).
        group<4>::load(s, A, {0, 0, 0, 0});
        __syncthreads();
    }
    rt_bf<32, 64> a;
    rt_bf<64, 32, col_l> b;
    rt_fl<32, 32> acc;
    rt_bf<16, 64> a16;
    rt_bf<64, 16, col_l> b16;
    rt_fl<16, 16> acc16;
    rt_fl<16, 64> f;
    rt_fl<32, 64> f32;
    zero(acc);
    zero(acc16);
    zero(f);
    zero(f32);
    if constexpr (P == mma || P == mma_small || P == st_shared) {
        load(a, subtile<32, 64>(s, 0, 0));
        load(b, subtile<64, 32>(s, 0, 0));
        load(a16, subtile<16, 64>(s, 0, 0));
        load(b16, subtile<64, 16>(s, 0, 0));
    }
#if defined(TK_GPU)
    __syncwarp();
    const long long t0 = clock64();
#endif
    for (int i = 0; i < iters; ++i) {
        const int k = (i + w) & 7;
        if constexpr (P == mma) {
            mma_AB(acc, a, b, acc);
        } else if constexpr (P == mma_small) {
            mma_AB(acc16, a16, b16, acc16);
        } else if constexpr (P == ldmatrix_mma) {
            load(a, subtile<32, 64>(s, k & 1, 0));
            load(b, subtile<64, 32>(s, 0, k >> 2));
            mma_AB(acc, a, b, acc);
        } else if constexpr (P == ldmatrix_mma_small) {
            load(a16, subtile<16, 64>(s, k & 3, 0));
            load(b16, subtile<64, 16>(s, 0, k >> 1));
            mma_AB(acc16, a16, b16, acc16);
        } else if constexpr (P == st_shared) {
            store(mine, a);
        } else if constexpr (P == cp_async) {
            group<4>::load_async(s, A, {0, 0, k, i & 7});
            load_async_wait<0>();
        } else if constexpr (P == cp_async_one_warp) {
            group<1>::load_async(s, A, {0, 0, k, i & 7});
            load_async_wait<0>();
        } else if constexpr (P == st_global) {
            store(F, f, {0, 0, k + 8 * w, i & 7});
        } else if constexpr (P == st_global_large) {
            store(F, f32, {0, 0, (k + 2 * w) & 15, i & 7});
        } else if constexpr (P == ld_st_global) {
            load(f, F, {0, 0, k + 8 * w, i & 7});
            store(F, f, {0, 0, k + 8 * w, (i + 1) & 7});
        } else if constexpr (P == ld_st_global_large) {
            load(f32, F, {0, 0, (k + 2 * w) & 15, i & 7});
            store(F, f32, {0, 0, (k + 2 * w) & 15, (i + 1) & 7});
        } else if constexpr (P == group_load) {
            group<4>::load(s, A, {0, 0, k, i & 7});
        } else if constexpr (P == group_load_one_warp) {
            group<1>::load(s, A, {0, 0, k, i & 7});
        } else if constexpr (P == cp_async_loop) {
            group<4>::load_async((i & 1) ? s2 : s, wide, {0, 0, 0, i});
            load_async_wait<0>();
        } else if constexpr (P == cp_async_loop_one_warp) {
            group<1>::load_async((i & 1) ? s2 : s, wide, {0, 0, 0, i});
            load_async_wait<0>();
        }
    }
#if defined(TK_GPU)
    __syncwarp();
    if (cycles && laneid() == 0) cycles[w] = clock64() - t0;
#else
    (void)cycles;
#endif
    // Every accumulator element is read once, after the loop: no mma is dead.
    float sum = 0;
    for (int r = 0; r < acc.height; ++r)
        for (int c = 0; c < acc.width; ++c)
            for (int q = 0; q < 4; ++q) sum += acc.tiles[r][c].data[q].x + acc.tiles[r][c].data[q].y;
    for (int c = 0; c < acc16.width; ++c)
        for (int q = 0; q < 4; ++q) sum += acc16.tiles[0][c].data[q].x + acc16.tiles[0][c].data[q].y;
    sink[threadIdx.x] = uint32_t(int(sum));
}

// f(probe<P>, P) for every probe, in Probe's order.
template <class F>
void for_each_probe(F&& f) {
    [&]<int... P>(std::integer_sequence<int, P...>) { (f(probe<P>, P), ...); }(std::make_integer_sequence<int, probes>{});
}

} // namespace cal::overhead
