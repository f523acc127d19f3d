// expect: went on at once: that barrier had completed no phase yet
// Known wrong: the parity of k-step k as k % 2, counting k-steps where it
// should count rounds of the ring ((k / kStages) % 2). K-step 1 uses slot 1
// for the first time, in round 0, but waits for parity 1: on a fresh barrier
// "the phase before the first" counts as complete, so the consumers' wait on
// "full" goes on at once and they read the slot before its copies land.
#pragma once
#include "tk/tk.h"
#include "lessons/07_producer_consumer/lesson.cuh"

namespace lesson07::wrong_k_mod_2 {

using namespace tk;

__device__ inline int phase_of(int k) { return k % 2; }  // should be (k / kStages) % 2

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

} // namespace lesson07::wrong_k_mod_2
