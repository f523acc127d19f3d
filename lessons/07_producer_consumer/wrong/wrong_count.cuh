// expect: wrong_count.cuh:66: error: 32 lanes arrived at once on mbarrier
// Known wrong: "empty" is initialised for one arrival per consumer warp (4),
// but every consumer thread arrives (128), so one round of the slot completes
// 32 phases instead of one. 32 is even: the parity ends where it started, and
// the producer, waiting for the round to complete, waits for ever (with an
// odd overshoot it would instead refill a slot the consumers still read).
// The clue, where the simulator stops: "32 lanes arrived at once". Count threads.
#pragma once
#include "tk/tk.h"
#include "lessons/07_producer_consumer/lesson.cuh"

namespace lesson07::wrong_wrong_count {

using namespace tk;

__device__ inline int phase_of(int k) { return (k / kStages) % 2; }

__global__ void kernel(gl<bf16> a, gl<bf16> b, gl<float> c) {
    shared_allocator al;
    // the ring's slots one after the other, an array: ring[k % kStages] is address arithmetic
    auto& ring = al.allocate<Stage[kStages]>();

    if (threadIdx.x == 0)
        for (int s = 0; s < kStages; ++s) {
            init_semaphore(ring[s].full, kProducerThreads);
            init_semaphore(ring[s].empty, kConsumerWarps);  // should count threads: kConsumerThreads
        }
    __syncthreads();

    const int block_row = int(blockIdx.y), block_col = int(blockIdx.x);
    const int k_steps = a.cols / kBlock;

    if (warpid() == kProducerWarp) {
        for (int k = 0; k < k_steps; ++k) {
            Stage& st = ring[k % kStages];
            const int phase = phase_of(k);

            wait(st.empty, phase ^ 1);

            group<1>::load_async(st.a, a, {0, 0, block_row, k});
            group<1>::load_async(st.b, b, {0, 0, k, block_col});
            load_async_wait<0>();

            arrive(st.full);
        }
        return;  // the producer is done; the consumers finish the tiles
    }

    const int warp_row = warpid() / 2, warp_col = warpid() % 2;
    rt_fl<32, 32> acc;
    zero(acc);

    for (int k = 0; k < k_steps; ++k) {
        Stage& st = ring[k % kStages];
        const int phase = phase_of(k);

        wait(st.full, phase);

        rt_bf<32, kBlock> at;           // this warp's 32 rows of A's tile
        rt_bf<kBlock, 32, col_l> bt;    // this warp's 32 columns of B's tile
        load(at, subtile<32, kBlock>(st.a, warp_row, 0));
        load(bt, subtile<kBlock, 32>(st.b, 0, warp_col));

        mma_AB(acc, at, bt, acc);

        arrive(st.empty);
    }

    snapshot(acc, "acc after the main loop");  // with --snapshots: this warp's 32x32 of C
    store(c, acc, {0, 0, 2 * block_row + warp_row, 2 * block_col + warp_col});
}

} // namespace lesson07::wrong_wrong_count
