// expect: elements of C hold one slice's partial product alone
// Known wrong: HOLES 1-3 done, HOLE 4 not: 16 slices, each block walks its
// slice only, and stores its partial tile with a plain store. 16 blocks
// write the same 64x64 of C and the last store wins: C holds one slice's
// partial product. The check names that (its "why" line) and the fix,
// tk::atomic_add. The simulator's race finder does not see it: it watches
// shared memory, and this race is in global memory.
#pragma once
#include "tk/tk.h"
#include "lessons/12_split_k/lesson.cuh"

namespace lesson12::wrong_plain_store {

using namespace tk;

constexpr int kSlices = 16;

__global__ void zero(gl<float> C) {
    rt_fl<32, 32> z;
    tk::zero(z);
    store(C, z, warp_tile());
}

__global__ void kernel(gl<bf16> A, gl<bf16> B, gl<float> C) {
    const int k_steps = A.cols / kBlock;
    const int per = (k_steps + kSlices - 1) / kSlices;
    const int first = int(blockIdx.z) * per < k_steps ? int(blockIdx.z) * per : k_steps;
    const int last = first + per < k_steps ? first + per : k_steps;
    rt_fl<32, 32> acc;
    tk::zero(acc);
    multiply(acc, A, B, first, last);
    store(C, acc, warp_tile());  // should be atomic_add: the slices' stores overwrite each other
}

} // namespace lesson12::wrong_plain_store
