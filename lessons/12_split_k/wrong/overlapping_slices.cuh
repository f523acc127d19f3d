// expect: added 2 times
// Known wrong: each slice runs one k-step too far (last = first + per + 1,
// not first + per), into the next slice's first k-step: every slice's
// first k-step but slice 0's is added twice. The check names the k-steps
// counted twice.
#pragma once
#include "tk/tk.h"
#include "lessons/12_split_k/lesson.cuh"

namespace lesson12::wrong_overlapping_slices {

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
    const int last = first + per + 1 < k_steps ? first + per + 1 : k_steps;  // should be first + per
    rt_fl<32, 32> acc;
    tk::zero(acc);
    multiply(acc, A, B, first, last);
    atomic_add(C, acc, warp_tile());
}

} // namespace lesson12::wrong_overlapping_slices
