// expect: 2 of 2 elements differ from the CPU reference (largest error inf
// Known wrong: everything but the store. The sums are right and never
// written back, so OUT keeps whatever was in memory.
#pragma once
#include "tk/tk.h"
#include "lessons/11_finding_bugs/lesson.cuh"

namespace lesson11::wrong_empty {

using namespace tk;

__device__ inline void start_chunk(Stage& st, const float* row, int c, int chunks) {
    const int pieces = kPieces + (c + 1 < chunks ? 1 : 0);
    for (int p = int(threadIdx.x); p < pieces; p += kThreads) copy_piece_async(st.x[4 * p], row + c * kChunk + 4 * p);
    arch::cp_async_commit();
}

__global__ void kernel(gl<float> X, gl<float> OUT) {
    shared_allocator al;
    auto& stage = al.allocate<Stage[2]>();
    Sums& sums = al.allocate<Sums>();
    semaphore& sums_ready = al.allocate<semaphore>();
    const int row = int(blockIdx.x), t = int(threadIdx.x);
    const int chunks = X.cols / kChunk;
    const float* x = X.ptr(0, 0, row, 0);
    if (t == 0) init_semaphore(sums_ready, kWarps);
    start_chunk(stage[0], x, 0, chunks);
    float acc = 0;
    for (int c = 0; c < chunks; ++c) {
        Stage& st = stage[c % 2];
        if (c + 1 < chunks) {
            start_chunk(stage[(c + 1) % 2], x, c + 1, chunks);
            load_async_wait<1>();
        } else {
            load_async_wait<0>();
        }
        __syncthreads();
        float v[4];
        read4(v, st.x[4 * t]);
        const bool last_of_row = c + 1 == chunks && t == kThreads - 1;
        const float after = last_of_row ? v[3] : read1(st.x[4 * t + 4]);
        for (int j = 0; j < 3; ++j) acc += (v[j + 1] - v[j]) * (v[j + 1] - v[j]);
        acc += (after - v[3]) * (after - v[3]);
        __syncthreads();
    }
    const float warp_total = warp_sum(acc);
    if (laneid() == 0) {
        write1(sums.partial[warpid()], warp_total);
        arrive(sums_ready);
    }
    __syncwarp();
    if (warpid() == 0) {
        wait(sums_ready, 0);
        const float total = warp_sum(laneid() < kWarps ? read1(sums.partial[laneid()]) : 0.f);
        (void)total, (void)OUT;  // no store1(OUT, row, total)
    }
}

} // namespace lesson11::wrong_empty
