// Lesson 7, the reference solution: C = A * B with one producer warp and four
// consumer warps passing 64x64 tiles through a ring of shared stages, each
// guarded by a "full" and an "empty" mbarrier semaphore.
#pragma once
#include "tk/tk.h"
#include "lessons/07_producer_consumer/lesson.cuh"

namespace lesson07::solution {

using namespace tk;

// K-step k uses slot k % kStages. Every kStages k-steps the ring wraps and
// each slot is used again: a new round, and each round completes one more
// phase of the slot's semaphores. wait() names a phase by its parity, so
// rounds 0, 1, 2, 3, ... wait for phases 0, 1, 0, 1, ...
__device__ inline int phase_of(int k) { return (k / kStages) % 2; }

__global__ void kernel(gl<bf16> a, gl<bf16> b, gl<float> c) {
    // 1. The ring: kStages slots, each a tile of A, a tile of B, and the
    //    semaphores "full" and "empty" (lesson.cuh, struct Stage).
    shared_allocator al;
    // the ring's slots one after the other, an array: ring[k % kStages] is address arithmetic
    auto& ring = al.allocate<Stage[kStages]>();

    // 2. One thread sets up the semaphores: how many arrivals complete a
    //    phase. "full" counts the producer warp's 32 threads (each arrives
    //    once its own copies have landed), "empty" the 128 consumer threads.
    //    Then the whole block syncs, so nobody uses a semaphore before it is
    //    initialised. This is the only __syncthreads: from here on, warps
    //    wait only for what they need.
    if (threadIdx.x == 0)
        for (int s = 0; s < kStages; ++s) {
            init_semaphore(ring[s].full, kProducerThreads);
            init_semaphore(ring[s].empty, kConsumerThreads);
        }
    __syncthreads();

    const int block_row = int(blockIdx.y), block_col = int(blockIdx.x);
    const int k_steps = a.cols / kBlock;

    if (warpid() == kProducerWarp) {
        // 3. The producer: k-step k goes to slot k % kStages, round
        //    k / kStages of that slot.
        for (int k = 0; k < k_steps; ++k) {
            Stage& st = ring[k % kStages];
            const int phase = phase_of(k);

            // Wait until the consumers have released this slot's previous
            // round (phase ^ 1: the round before). In round 0 there is no
            // previous round: a fresh mbarrier counts "the phase before the
            // first" (parity 1) as complete, so this returns at once, and
            // every slot starts empty.
            wait(st.empty, phase ^ 1);

            // Copy A's and B's tiles for k-step k, and wait until they have
            // landed in shared memory (cp.async: only the copying thread's
            // wait says they are there).
            group<1>::load_async(st.a, a, {0, 0, block_row, k});
            group<1>::load_async(st.b, b, {0, 0, k, block_col});
            load_async_wait<0>();

            // Only now: the slot is full. 32 arrivals complete the phase.
            arrive(st.full);
        }
        return;  // the producer is done; the consumers finish the tiles
    }

    // 4. The consumers: warp w computes the 32x32 piece (w / 2, w % 2) of the
    //    block's 64x64 tile of C, as in lesson 5.
    const int warp_row = warpid() / 2, warp_col = warpid() % 2;
    rt_fl<32, 32> acc;
    zero(acc);

    for (int k = 0; k < k_steps; ++k) {
        Stage& st = ring[k % kStages];
        const int phase = phase_of(k);

        // Wait until the producer has filled this slot for this round.
        wait(st.full, phase);

        rt_bf<32, kBlock> at;           // this warp's 32 rows of A's tile
        rt_bf<kBlock, 32, col_l> bt;    // this warp's 32 columns of B's tile
        load(at, subtile<32, kBlock>(st.a, warp_row, 0));
        load(bt, subtile<kBlock, 32>(st.b, 0, warp_col));

        mma_AB(acc, at, bt, acc);

        // This warp is done with the slot: release it. The 128th arrival
        // (the last consumer thread) completes the phase, and the producer
        // may refill the slot for round + 1. Meanwhile the other slots of
        // the ring are already full, or filling: the producer runs ahead by
        // up to kStages tiles, and its copies' latency hides behind our mmas.
        arrive(st.empty);
    }

    snapshot(acc, "acc after the main loop");  // with --snapshots: this warp's 32x32 of C
    store(c, acc, {0, 0, 2 * block_row + warp_row, 2 * block_col + warp_col});
}

} // namespace lesson07::solution
