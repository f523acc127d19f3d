// expect: wrong_parity.cuh:37), 0 of 4 arrivals
// Known wrong: the producer waits for "empty"'s phase of THIS round (parity
// `phase`) instead of the previous round's (`phase ^ 1`). In round 0 nobody
// has released anything yet, so it waits for ever; the consumers wait for
// "full", which it never fills. The simulator reports the deadlock.
#pragma once
#include "tk/tk.h"
#include "lessons/10_hopper/lesson.cuh"

namespace lesson10::wrong_wrong_parity {

using namespace tk;

__global__ void __launch_bounds__(kThreads) kernel(const __grid_constant__ globals g) {
    shared_allocator al;
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
                wait(st.empty, phase);
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

} // namespace lesson10::wrong_wrong_parity
