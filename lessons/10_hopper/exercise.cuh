// Lesson 10, the exercise: lesson 7's GEMM the Hopper way. The producer
// warpgroup's first thread moves tiles with bulk tensor copies; the consumer
// warpgroup multiplies them with wgmma. Three holes: what "full" must expect,
// the multiply, and the wait before a slot is released. It builds as it is,
// and `tklab lesson check 10` fails until the holes are right. Stuck?
// `tklab lesson hint 10`.
#pragma once
#include "tk/tk.h"
#include "lessons/10_hopper/lesson.cuh"

namespace lesson10::exercise {

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
                wait(st.empty, phase ^ 1);          // round 0: a fresh barrier's "previous" phase counts as done
                // HOLE 1: arrive on "full" AND tell it how many bytes this
                // round's copies will bring: tma::expect_bytes(st.full, BYTES)
                // (or tma::expect<TileTypes...>(st.full), which adds them up).
                // Without it the phase completes on the arrival alone.
                tma::expect_bytes(st.full, 0);
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
        // HOLE 2: acc += st.a * st.b with the warpgroup's wgmma:
        // warpgroup::mma_AB(accumulator, a tile, b tile).

        // HOLE 3: wgmma runs asynchronously. Wait until it has finished
        // reading the slot (warpgroup::mma_async_wait<N>(): at most N groups
        // still in flight) before releasing it.

        if (laneid() == 0) arrive(st.empty);
    }
    store(g.C, acc, {0, 0, block_row * 4 + warpgroup::warpid(), block_col});
}

} // namespace lesson10::exercise
