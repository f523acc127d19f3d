// Lesson 9, part 1, YOUR KERNEL: lesson 5's double-buffered GEMM, which
// already works. Mark its three phases with `tk::region` so that the
// simulator and the GPU time each, per warp:
//
//   { tk::region r("prologue"); ...  }   // from here to the closing brace
//
// HOLE 1-3 below say where. The names must be exactly "prologue",
// "main loop" and "store": part 2 looks them up. `tklab lesson check 9`
// tells you when each warp records each phase once, in order, and the
// three cover the block's time.
#pragma once
#include "tk/tk.h"
#include "lessons/09_gpu_profiling/lesson.cuh"

namespace lesson09::exercise {

using namespace tk;

__global__ void kernel(gl<bf16> A, gl<bf16> B, gl<float> C) {
    shared_allocator al;
    auto& a_s = al.allocate<tile[2]>();
    auto& b_s = al.allocate<tile[2]>();
    const int block_row = int(blockIdx.y), block_col = int(blockIdx.x);
    const int warp_row = warpid() / 2, warp_col = warpid() % 2;
    const int k_steps = A.cols / kBlock;

    rt_fl<32, 32> acc;
    zero(acc);

    // Phase 1: start k-step 0's copies.
    // HOLE 1: time these two lines as the region "prologue".
    {
        group<kWarps>::load_async(a_s[0], A, {0, 0, block_row, 0});
        group<kWarps>::load_async(b_s[0], B, {0, 0, 0, block_col});
    }

    // Phase 2: the k-loop.
    // HOLE 2: time the whole loop (not each k-step) as "main loop".
    {
        for (int k = 0; k < k_steps; ++k) {
            const int cur = k % 2;
            if (k + 1 < k_steps) {
                group<kWarps>::load_async(a_s[1 - cur], A, {0, 0, block_row, k + 1});
                group<kWarps>::load_async(b_s[1 - cur], B, {0, 0, k + 1, block_col});
                load_async_wait<2>();
            } else {
                load_async_wait<0>();
            }
            __syncthreads();
            rt_bf<32, kBlock> a;
            rt_bf<kBlock, 32, col_l> b;
            load(a, subtile<32, kBlock>(a_s[cur], warp_row, 0));
            load(b, subtile<kBlock, 32>(b_s[cur], 0, warp_col));
            mma_AB(acc, a, b, acc);
            __syncthreads();
        }
    }

    // Phase 3: this warp's 32x32 of C to global memory.
    // HOLE 3: time the store as "store".
    {
        store(C, acc, {0, 0, 2 * block_row + warp_row, 2 * block_col + warp_col});
    }
}

} // namespace lesson09::exercise
