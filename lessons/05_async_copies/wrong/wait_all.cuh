// expect: warps spent 27.2% of their time waiting for global memory
// Known wrong, though its output is right: it starts k-step k+1 first, as it
// should, and then waits for *everything*, load_async_wait<0>(), the copies
// it has just started included. Each k-step waits out a whole global-memory
// latency again, as the synchronous version did; the second stage only costs
// shared memory. It misses the lesson's goal.
#pragma once
#include "tk/tk.h"
#include "lessons/05_async_copies/lesson.cuh"

namespace lesson05::wrong_wait_all {

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
    group<kWarps>::load_async(a_s[0], A, {0, 0, block_row, 0});
    group<kWarps>::load_async(b_s[0], B, {0, 0, 0, block_col});
    for (int k = 0; k < k_steps; ++k) {
        const int cur = k % 2;
        if (k + 1 < k_steps) {
            group<kWarps>::load_async(a_s[1 - cur], A, {0, 0, block_row, k + 1});
            group<kWarps>::load_async(b_s[1 - cur], B, {0, 0, k + 1, block_col});
        }
        load_async_wait<0>();  // should be <2> while k+1 is in flight: this waits for k+1 too
        __syncthreads();
        rt_bf<32, kBlock> a;
        rt_bf<kBlock, 32, col_l> b;
        load(a, subtile<32, kBlock>(a_s[cur], warp_row, 0));
        load(b, subtile<kBlock, 32>(b_s[cur], 0, warp_col));
        mma_AB(acc, a, b, acc);
        __syncthreads();
    }
    store(C, acc, {0, 0, 2 * block_row + warp_row, 2 * block_col + warp_col});
}

} // namespace lesson05::wrong_wait_all
