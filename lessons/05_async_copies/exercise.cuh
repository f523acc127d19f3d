// Lesson 5, the exercise: C = A * B, one 64x64 tile of C per block of 4 warps,
// K walked 64 at a time through shared memory. As shipped it is correct but
// synchronous: every k-step the block loads its A and B tiles, waits for
// them, computes, and only then loads the next ones, so each step waits out
// the full global-memory latency and `tklab lesson check 5` misses its goal.
// Turn it into a double-buffered loop with asynchronous copies (HOLE 1-4).
// Stuck? `tklab lesson hint 5`.
#pragma once
#include "tk/tk.h"
#include "lessons/05_async_copies/lesson.cuh"

namespace lesson05::exercise {

using namespace tk;

__global__ void kernel(gl<bf16> A, gl<bf16> B, gl<float> C) {
    // Two stages of A and B tiles in shared memory: stage s is a_s[s], b_s[s].
    // As shipped only stage 0 is used.
    shared_allocator al;
    auto& a_s = al.allocate<tile[2]>();
    auto& b_s = al.allocate<tile[2]>();

    // This block's 64x64 tile of C, and this warp's 32x32 quarter of it.
    const int block_row = int(blockIdx.y), block_col = int(blockIdx.x);
    const int warp_row = warpid() / 2, warp_col = warpid() % 2;
    const int k_steps = A.cols / kBlock;

    rt_fl<32, 32> acc;
    zero(acc);

    // HOLE 1: the prologue. Start the copies of k-step 0 into stage 0 here,
    // before the loop: group<kWarps>::load_async(shared tile, global, coord)
    // takes the same arguments as group<kWarps>::load below, returns at once,
    // and commits one group of copies per call.

    for (int k = 0; k < k_steps; ++k) {
        // HOLE 2: which stage holds k-step k? With two stages they alternate.
        const int cur = 0;

        // HOLE 3: replace these two synchronous loads. Start the copies of
        // k-step k+1 (if there is one) into the other stage, then wait for
        // k-step k with load_async_wait<N>(): it returns once at most N of
        // this thread's committed groups are still in flight. Which N lets the
        // next stage keep flying? And on the last k-step?
        group<kWarps>::load(a_s[cur], A, {0, 0, block_row, k});
        group<kWarps>::load(b_s[cur], B, {0, 0, k, block_col});

        // Every warp reads rows of the tiles that other warps copied.
        __syncthreads();

        // The math: this warp's 32 rows of A's tile and 32 columns of B's.
        rt_bf<32, kBlock> a;
        rt_bf<kBlock, 32, col_l> b;
        load(a, subtile<32, kBlock>(a_s[cur], warp_row, 0));
        load(b, subtile<kBlock, 32>(b_s[cur], 0, warp_col));
        mma_AB(acc, a, b, acc);

        // HOLE 4: this barrier keeps any warp from overwriting a stage that
        // others still read. Is it still needed once the loads of the next
        // k-step go into the *other* stage? (Think of k+2.)
        __syncthreads();
    }

    store(C, acc, {0, 0, 2 * block_row + warp_row, 2 * block_col + warp_col});
}

} // namespace lesson05::exercise
