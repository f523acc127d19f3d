// Lesson 5, the reference solution: C = A * B with the k-loop double-buffered.
// While the tensor cores work on stage k, the copies of stage k+1 are already
// in flight (cp.async), so the ~520 cycles a global load takes are hidden
// behind the mma work instead of being waited out every step.
#pragma once
#include "tk/tk.h"
#include "lessons/05_async_copies/lesson.cuh"

namespace lesson05::solution {

using namespace tk;

__global__ void kernel(gl<bf16> A, gl<bf16> B, gl<float> C) {
    // 1. Two stages of A and B tiles in shared memory: stage s is a_s[s], b_s[s] (arrays of tiles).
    shared_allocator al;
    auto& a_s = al.allocate<tile[2]>();
    auto& b_s = al.allocate<tile[2]>();

    // 2. This block's 64x64 tile of C, and this warp's 32x32 quarter of it.
    const int block_row = int(blockIdx.y), block_col = int(blockIdx.x);
    const int warp_row = warpid() / 2, warp_col = warpid() % 2;
    const int k_steps = A.cols / kBlock;

    rt_fl<32, 32> acc;
    zero(acc);

    // 3. Prologue: start the copies of k-step 0 into stage 0. load_async
    //    issues cp.async (global -> shared, not through registers) and commits
    //    them as one group per call: A's tile is one group, B's another. It
    //    returns at once; nothing has arrived yet.
    group<kWarps>::load_async(a_s[0], A, {0, 0, block_row, 0});
    group<kWarps>::load_async(b_s[0], B, {0, 0, 0, block_col});

    for (int k = 0; k < k_steps; ++k) {
        const int cur = k % 2;  // k-step k lives in stage k % 2

        // 4. Start k-step k+1 into the other stage *before* working on k-step
        //    k, then wait for k-step k only: of this thread's groups, the two
        //    just committed (k+1's A and B) may stay in flight. On the last
        //    k-step nothing new starts, so everything must have landed.
        if (k + 1 < k_steps) {
            group<kWarps>::load_async(a_s[1 - cur], A, {0, 0, block_row, k + 1});
            group<kWarps>::load_async(b_s[1 - cur], B, {0, 0, k + 1, block_col});
            load_async_wait<2>();
        } else {
            load_async_wait<0>();
        }

        // 5. A thread's wait covers only its own copies; the tiles were copied
        //    by all 128 threads. Once every thread is past its wait, the whole
        //    stage is in shared memory.
        __syncthreads();

        // 6. The math, as in lesson 3 but from shared memory: this warp's 32
        //    rows of A's tile and 32 columns of B's (ldmatrix), one mma_AB.
        rt_bf<32, kBlock> a;
        rt_bf<kBlock, 32, col_l> b;
        load(a, subtile<32, kBlock>(a_s[cur], warp_row, 0));
        load(b, subtile<kBlock, 32>(b_s[cur], 0, warp_col));
        mma_AB(acc, a, b, acc);

        // 7. The next iteration starts copies into the stage just read (k+2
        //    goes where k was): nobody may do that while another warp still
        //    reads it. (A copy may land at any moment after its issue; the
        //    race finder reports this barrier missing at the load_async line:
        //    wrong/no_second_sync.cuh.)
        __syncthreads();
    }

    // 8. This warp's 32x32 of C: 2 x 2 tiles of 16x16 in C's tile coordinates.
    store(C, acc, {0, 0, 2 * block_row + warp_row, 2 * block_col + warp_col});
}

} // namespace lesson05::solution
