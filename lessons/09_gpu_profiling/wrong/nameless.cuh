// expect: the phases cover 9% of the warp
// Known wrong: the main loop's marker is a nameless temporary, `tk::region("main loop");`,
// which ends at the semicolon: the loop is not inside it.
#pragma once
#include "tk/tk.h"
#include "lessons/09_gpu_profiling/lesson.cuh"

namespace lesson09::wrong_nameless {

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

    // Phase 1: start k-step 0's copies. A region has a name, so it lives to
    // its closing brace (a nameless temporary would end at once).
    {
        tk::region r("prologue");
        group<kWarps>::load_async(a_s[0], A, {0, 0, block_row, 0});
        group<kWarps>::load_async(b_s[0], B, {0, 0, 0, block_col});
    }

    // Phase 2: the k-loop, one region around all of it. A marker inside the
    // loop would record once per k-step, and its clock reads and store would
    // be paid every step on the GPU.
    {
        tk::region("main loop");
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
    {
        tk::region r("store");
        store(C, acc, {0, 0, 2 * block_row + warp_row, 2 * block_col + warp_col});
    }
}

} // namespace lesson09::wrong_nameless
