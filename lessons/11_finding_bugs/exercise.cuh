// Lesson 11, the exercise: each row's sum of squared steps, the row walked
// 512 floats at a time through two cp.async stages, the warps' sums added
// through an mbarrier. It compiles, and it has three bugs: a read of shared
// memory nothing wrote, a race, and a wait that never ends. Don't hunt for
// them by reading: run it (`tklab lesson run 11`), and let the simulator's
// bug finders name each one's line. HOLE 1-3 mark the three places, in the
// order the finders report them. Stuck? `tklab lesson hint 11`.
#pragma once
#include "tk/tk.h"
#include "lessons/11_finding_bugs/lesson.cuh"

namespace lesson11::exercise {

using namespace tk;

// Starts the copies of chunk c of the row into a stage, one group: the
// chunk's 128 pieces and, when there is a next chunk, its first piece, the
// halo the chunk's last step reads.
__device__ inline void start_chunk(Stage& st, const float* row, int c, int chunks) {
    // HOLE 1: the finder that stops the first run names a read of this stage.
    const int pieces = kPieces + (c + 1 > chunks ? 1 : 0);
    for (int p = int(threadIdx.x); p < pieces; p += kThreads) copy_piece_async(st.x[4 * p], row + c * kChunk + 4 * p);
    arch::cp_async_commit();
}

__global__ void kernel(gl<float> X, gl<float> OUT) {
    // Two stages, the warps' sums, and the mbarrier that says they are in.
    shared_allocator al;
    auto& stage = al.allocate<Stage[2]>();
    Sums& sums = al.allocate<Sums>();
    semaphore& sums_ready = al.allocate<semaphore>();

    const int row = int(blockIdx.x), t = int(threadIdx.x);
    const int chunks = X.cols / kChunk;
    const float* x = X.ptr(0, 0, row, 0);

    // HOLE 3: the barrier's arrival count. (The first __syncthreads() below
    // orders the init before any arrival.)
    if (t == 0) init_semaphore(sums_ready, kThreads);

    // The row, chunk by chunk, double-buffered as in lesson 5: chunk c+1's
    // copies fly while the block works on chunk c.
    start_chunk(stage[0], x, 0, chunks);
    float acc = 0;
    for (int c = 0; c < chunks; ++c) {
        Stage& st = stage[c % 2];
        if (c + 1 < chunks) {
            start_chunk(stage[(c + 1) % 2], x, c + 1, chunks);
            load_async_wait<1>();  // chunk c has landed; c+1 may still fly
        } else {
            load_async_wait<0>();
        }
        __syncthreads();  // every thread's copies of chunk c (and its halo) are in

        // This thread's 4 floats and the one after them (the next thread's
        // first, or for thread 127 the halo): 4 steps. The row's very last
        // float has no step after it.
        float v[4];
        read4(v, st.x[4 * t]);
        const bool last_of_row = c + 1 == chunks && t == kThreads - 1;
        const float after = last_of_row ? v[3] : read1(st.x[4 * t + 4]);
        for (int j = 0; j < 3; ++j) acc += (v[j + 1] - v[j]) * (v[j + 1] - v[j]);
        acc += (after - v[3]) * (after - v[3]);

        // HOLE 2: the end of a step. What may happen to this stage next?
    }

    // The sum, in two stages: the warp's 32 lanes by shuffles, then the 4
    // warps' sums through shared memory. Warps 1-3 arrive and leave; warp 0
    // waits for the phase, adds the four sums and stores the row's.
    const float warp_total = warp_sum(acc);
    if (laneid() == 0) {
        write1(sums.partial[warpid()], warp_total);
        arrive(sums_ready);
    }
    __syncwarp();
    if (warpid() == 0) {
        wait(sums_ready, 0);
        const float total = warp_sum(laneid() < kWarps ? read1(sums.partial[laneid()]) : 0.f);
        if (laneid() == 0) store1(OUT, row, total);
    }
}

} // namespace lesson11::exercise
