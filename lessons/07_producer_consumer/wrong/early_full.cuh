// expect: early_full.cuh:60: error: read of shared memory nothing wrote
// Known wrong: the producer says "full" as soon as its copies are issued,
// before they have landed (arrive, then load_async_wait). The consumers wake
// up and read shared memory that cp.async has not written yet: the warps that
// get there first compute with garbage (the simulator's fresh shared memory
// reads as NaN), so half of C is wrong. On a GPU it would be wrong only now
// and then, which is worse.
#pragma once
#include "tk/tk.h"
#include "lessons/07_producer_consumer/lesson.cuh"

namespace lesson07::wrong_early_full {

using namespace tk;

__device__ inline int phase_of(int k) { return (k / kStages) % 2; }

__global__ void kernel(gl<bf16> a, gl<bf16> b, gl<float> c) {
    shared_allocator al;
    // the ring's slots one after the other, an array: ring[k % kStages] is address arithmetic
    auto& ring = al.allocate<Stage[kStages]>();

    if (threadIdx.x == 0)
        for (int s = 0; s < kStages; ++s) {
            init_semaphore(ring[s].full, kProducerThreads);
            init_semaphore(ring[s].empty, kConsumerThreads);
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
            arrive(st.full);       // too early: the copies are still in flight
            load_async_wait<0>();  // should come before the arrive
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

} // namespace lesson07::wrong_early_full
