// expect: the slowest block took 5247 cycles
// Known wrong, though its output is right: a ring of one slot. The producer
// cannot load k-step k+1 until the consumer has released k-step k, and the
// consumer cannot start k-step k+1 until it has landed: load, compute, load,
// compute, never both at once. It misses the lesson's goal.
#pragma once
#include "tk/tk.h"
#include "lessons/10_hopper/lesson.cuh"

namespace lesson10::wrong_one_stage {

using namespace tk;

__global__ void __launch_bounds__(kThreads) kernel(const __grid_constant__ globals g) {
    shared_allocator al;
    constexpr int kStages = 1;  // shadows the lesson's 2
    // the ring's slots one after the other, an array: ring[k % kStages] is address arithmetic
    auto& ring = al.allocate<Stage[kStages]>();

    // "full": one arrival (the producer's thread) plus the bytes it announces;
    // "empty": one arrival per consumer warp.
    if (threadIdx.x == 0)
        for (int s = 0; s < kStages; ++s) {
            init_semaphore(ring[s].full, 1);
            init_semaphore(ring[s].empty, kConsumerWarps);
        }
    __syncthreads();

    const int block_row = int(blockIdx.y), block_col = int(blockIdx.x);
    const int k_steps = g.A.cols / kBK;

    if (warpgroup::groupid() == kProducer) {
        // One thread moves every tile: a bulk copy is one instruction per box.
        if (warpgroup::laneid() == 0)
            for (int k = 0; k < k_steps; ++k) {
                Stage& st = ring[k % kStages];
                const int phase = (k / kStages) % 2;
                wait(st.empty, phase ^ 1);          // round 0: a fresh barrier's "previous" phase counts as done
                tma::expect<a_tile, b_tile>(st.full);  // arrive, and expect 8192 + 16384 bytes
                tma::load_async(st.a, g.A, {0, 0, block_row, k}, st.full);
                tma::load_async(st.b, g.B, {0, 0, k, block_col}, st.full);
            }
        return;
    }

    // The consumer warpgroup: warp w keeps rows 16w..16w+15 of the 64 x 128 tile.
    rt_fl<16, kBN> acc;
    zero(acc);
    for (int k = 0; k < k_steps; ++k) {
        Stage& st = ring[k % kStages];
        wait(st.full, (k / kStages) % 2);
        warpgroup::mma_AB(acc, st.a, st.b);   // four wgmma m64n128k16, both operands in shared memory
        warpgroup::mma_async_wait<0>();       // done reading the slot...
        if (laneid() == 0) arrive(st.empty);  // ...so it may be refilled
    }
    store(g.C, acc, {0, 0, block_row * 4 + warpgroup::warpid(), block_col});
}

} // namespace lesson10::wrong_one_stage
