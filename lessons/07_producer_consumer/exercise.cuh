// Lesson 7, the exercise: C = A * B with one producer warp (warp 4: it only
// copies tiles) and four consumer warps (warps 0-3: they only compute),
// passing 64x64 tiles of A and B through a ring of kStages shared stages.
// Everything is written except the synchronisation: the phase of a round and
// the four waits and arrivals on the semaphores "full" and "empty". It builds
// as it is, and `tklab lesson check 7` fails until the holes are right (the
// consumers read tiles that have not landed yet). Stuck? `tklab lesson hint 7`.
#pragma once
#include "tk/tk.h"
#include "lessons/07_producer_consumer/lesson.cuh"

namespace lesson07::exercise {

using namespace tk;

// HOLE 1: the phase (0 or 1) that k-step k waits for. K-step k uses slot
// k % kStages; every kStages k-steps the ring wraps and each slot starts a new
// round. Each round completes one more phase of the slot's semaphores, and
// wait() names a phase by its parity: rounds 0, 1, 2, 3, ... are phases
// 0, 1, 0, 1, ... Replace the 0.
__device__ inline int phase_of(int k) {
    (void)k;
    return 0;
}

__global__ void kernel(gl<bf16> a, gl<bf16> b, gl<float> c) {
    // The ring: kStages slots, each a tile of A, a tile of B and the
    // semaphores "full" and "empty" (lesson.cuh, struct Stage).
    shared_allocator al;
    // the ring's slots one after the other, an array: ring[k % kStages] is address arithmetic
    auto& ring = al.allocate<Stage[kStages]>();

    // One thread sets the semaphores' arrival counts: "full" completes a phase
    // when the producer warp's 32 threads have arrived, "empty" when the 128
    // consumer threads have. Then the block syncs, once.
    if (threadIdx.x == 0)
        for (int s = 0; s < kStages; ++s) {
            init_semaphore(ring[s].full, kProducerThreads);
            init_semaphore(ring[s].empty, kConsumerThreads);
        }
    __syncthreads();

    const int block_row = int(blockIdx.y), block_col = int(blockIdx.x);
    const int k_steps = a.cols / kBlock;

    if (warpid() == kProducerWarp) {
        // The producer: fills slot k % kStages with the tiles of k-step k.
        for (int k = 0; k < k_steps; ++k) {
            Stage& st = ring[k % kStages];
            const int phase = phase_of(k);
            (void)phase;

            // HOLE 2: wait until the consumers have released this slot's
            // previous round: wait(semaphore, parity). Which semaphore, and
            // which parity? In round 0 there is nothing to wait for (see the
            // README: what a fresh mbarrier says about parity 1).

            group<1>::load_async(st.a, a, {0, 0, block_row, k});
            group<1>::load_async(st.b, b, {0, 0, k, block_col});
            load_async_wait<0>();

            // HOLE 3: tell the consumers the slot is full: arrive(semaphore).
        }
        return;
    }

    // The consumers: warp w computes the 32x32 piece (w / 2, w % 2) of the
    // block's 64x64 tile of C.
    const int warp_row = warpid() / 2, warp_col = warpid() % 2;
    rt_fl<32, 32> acc;
    zero(acc);

    for (int k = 0; k < k_steps; ++k) {
        Stage& st = ring[k % kStages];
        const int phase = phase_of(k);
        (void)phase;

        // HOLE 4: wait until the producer has filled this slot for this round.

        rt_bf<32, kBlock> at;
        rt_bf<kBlock, 32, col_l> bt;
        load(at, subtile<32, kBlock>(st.a, warp_row, 0));
        load(bt, subtile<kBlock, 32>(st.b, 0, warp_col));

        mma_AB(acc, at, bt, acc);

        // HOLE 5: this warp is done with the slot: give it back to the
        // producer, so that it can refill it for the next round.
    }

    snapshot(acc, "acc after the main loop");
    store(c, acc, {0, 0, 2 * block_row + warp_row, 2 * block_col + warp_col});
}

} // namespace lesson07::exercise
