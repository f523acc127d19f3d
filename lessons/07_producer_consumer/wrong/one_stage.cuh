// expect: warps spent 58.2% of their time waiting at barriers
// Known wrong, though its output is right: a ring of one slot. The producer
// cannot load k-step k+1 until every consumer has released k-step k, and the
// consumers cannot start k-step k+1 until it has landed: load, compute, load,
// compute, never both at once. It misses the lesson's goal.
#pragma once
#include "tk/tk.h"
#include "lessons/07_producer_consumer/lesson.cuh"

namespace lesson07::wrong_one_stage {

using namespace tk;

__device__ inline int phase_of(int k) { return k % 2; }  // every k-step is a new round of the one slot

__global__ void kernel(gl<bf16> a, gl<bf16> b, gl<float> c) {
    shared_allocator al;
    // the ring as an array of slots, as in the lesson, but of one
    auto& ring = al.allocate<Stage[1]>();  // one slot where the lesson has room for kStages

    if (threadIdx.x == 0)
        for (int s = 0; s < 1; ++s) {
            init_semaphore(ring[s].full, kProducerThreads);
            init_semaphore(ring[s].empty, kConsumerThreads);
        }
    __syncthreads();

    const int block_row = int(blockIdx.y), block_col = int(blockIdx.x);
    const int k_steps = a.cols / kBlock;

    if (warpid() == kProducerWarp) {
        for (int k = 0; k < k_steps; ++k) {
            Stage& st = ring[0];
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
        Stage& st = ring[0];
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

} // namespace lesson07::wrong_one_stage
