// expect: k-steps 16-18 (k 1024-1215) added never
// Known wrong: the k-steps per slice rounded down (k_steps / kSlices), so
// when kSlices does not divide them the last few are in no slice. Right
// where it divides (the check's first size, K = 2048: 32 k-steps, 8 slices
// of 4), wrong at its second, K = 1216: 19 k-steps, 8 slices of 2, and
// k-steps 16-18 never added.
#pragma once
#include "tk/tk.h"
#include "lessons/12_split_k/lesson.cuh"

namespace lesson12::wrong_remainder_missed {

using namespace tk;

constexpr int kSlices = 8;

__global__ void zero(gl<float> C) {
    rt_fl<32, 32> z;
    tk::zero(z);
    store(C, z, warp_tile());
}

__global__ void kernel(gl<bf16> A, gl<bf16> B, gl<float> C) {
    const int k_steps = A.cols / kBlock;
    const int per = k_steps / kSlices;  // should round up: (k_steps + kSlices - 1) / kSlices
    const int first = int(blockIdx.z) * per, last = first + per;
    rt_fl<32, 32> acc;
    tk::zero(acc);
    multiply(acc, A, B, first, last);
    atomic_add(C, acc, warp_tile());
}

} // namespace lesson12::wrong_remainder_missed
