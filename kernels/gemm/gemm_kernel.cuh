// The demonstration GEMM: C (fp32, M x N) = A (bf16, M x K) * B (bf16, K x N),
// all row-major. Readable top to bottom; the same source runs on the GPU and
// in the simulator.
//
//   * each block computes a 64x64 tile of C with 4 warps (2 x 2), each warp a 32x32 piece;
//   * K is walked 64 at a time; A and B tiles go global -> shared with cp.async,
//     double-buffered: while the tensor cores work on stage k, stage k+1 is in flight;
//   * shared -> registers with ldmatrix (B with .trans, as mma wants it column-major);
//   * mma.sync m16n8k16 accumulates in fp32 registers.
//
// Two variants differ only in the shared tiles' swizzle. A 64-column bf16 row
// is 128 bytes, so without swizzle the 8 rows one ldmatrix phase reads all
// start in bank 0: 8-way conflicts. The 128-byte swizzle spreads them.
#pragma once
#include "tk/tk.h"

namespace gemm {

constexpr int BLOCK = 64;  // block tile: BLOCK x BLOCK of C, BLOCK of K per step
constexpr int WARPS = 4;
constexpr int THREADS = WARPS * 32;

template <int Swizzle>
using smem_tile = tk::st_bf<BLOCK, BLOCK, Swizzle>;

// Two stages of A and B tiles, plus the 1024-byte alignment slack.
template <int Swizzle>
constexpr size_t shared_bytes() { return 4 * sizeof(smem_tile<Swizzle>) + 1024; }

template <int Swizzle>
__global__ void __launch_bounds__(THREADS) gemm_kernel(tk::gl<tk::bf16> A, tk::gl<tk::bf16> B, tk::gl<float> C) {
    using namespace tk;
    using tile = smem_tile<Swizzle>;
    shared_allocator al;
    auto& a_s = al.allocate<tile[2]>();
    auto& b_s = al.allocate<tile[2]>();

    const int warp_row = warpid() / 2, warp_col = warpid() % 2;
    const int block_row = int(blockIdx.y), block_col = int(blockIdx.x);
    const int k_steps = A.cols / BLOCK;

    rt_fl<32, 32> acc;
    zero(acc);
    {   tk::region prologue("prologue");  // timeline markers: the GPU's (--profile regions) and the trace's
    // Prologue: stage 0 in flight.
    group<WARPS>::load_async(a_s[0], A, {0, 0, block_row, 0});
    group<WARPS>::load_async(b_s[0], B, {0, 0, 0, block_col}); }
    {   tk::region main_loop("main loop");
    for (int k = 0; k < k_steps; ++k) {
        const int cur = k % 2;
        if (k + 1 < k_steps) {
            // Start the next stage, then wait for all but its two groups (A and B).
            group<WARPS>::load_async(a_s[1 - cur], A, {0, 0, block_row, k + 1});
            group<WARPS>::load_async(b_s[1 - cur], B, {0, 0, k + 1, block_col});
            load_async_wait<2>();
        } else {
            load_async_wait<0>();
        }
        __syncthreads();  // every thread's copies of stage `cur` have landed
        if (k == 0 && warpid() == 0) snapshot(a_s[0], "A tile, k-step 0");  // with --snapshots: the values as they landed
        rt_bf<32, BLOCK> a;            // this warp's 32 rows of A's stage
        rt_bf<BLOCK, 32, col_l> b;     // this warp's 32 columns of B's stage
        load(a, subtile<32, BLOCK>(a_s[cur], warp_row, 0));
        load(b, subtile<BLOCK, 32>(b_s[cur], 0, warp_col));
        mma_AB(acc, a, b, acc);

        __syncthreads();  // nobody overwrites stage `cur` while others still read it
    }}  // ends the main loop and its region
    snapshot(acc, "acc after the main loop");  // with --snapshots: this warp's 32x32 of C
    {   tk::region r("store"); store(C, acc, {0, 0, 2 * block_row + warp_row, 2 * block_col + warp_col}); }
}

// Launches the kernel for M x N x K (multiples of 64).
template <int Swizzle>
void run(tk::gl<tk::bf16> A, tk::gl<tk::bf16> B, tk::gl<float> C) {
    tk::launch(Swizzle == tk::swizzle::none ? "gemm_unswizzled" : "gemm_swizzled", gemm_kernel<Swizzle>,
               dim3(unsigned(C.cols / BLOCK), unsigned(C.rows / BLOCK)), dim3(THREADS), shared_bytes<Swizzle>(), A, B, C);
}

#if defined(TK_GPU)
// Mean kernel time of back-to-back launches (tk::mean_launch_ms; GPU only).
template <int Swizzle>
float time_ms(tk::gl<tk::bf16> A, tk::gl<tk::bf16> B, tk::gl<float> C) {
    const dim3 grid(unsigned(C.cols / BLOCK), unsigned(C.rows / BLOCK));
    run<Swizzle>(A, B, C);  // raises the shared-memory limit
    return float(tk::mean_launch_ms([&] { gemm_kernel<Swizzle><<<grid, THREADS, shared_bytes<Swizzle>()>>>(A, B, C); }, "gemm timing"));
}
#endif

} // namespace gemm
