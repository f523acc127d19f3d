// expect: added never
// Known wrong: slice z starts at k-step z, not z * per (the slice's index
// taken for its first k-step): the slices overlap, k-steps near the start
// are added many times and those past kSlices + per - 1 never.
#pragma once
#include "tk/tk.h"
#include "lessons/12_split_k/lesson.cuh"

namespace lesson12::wrong_slice_offset {

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
    const int first = int(blockIdx.z) < k_steps ? int(blockIdx.z) : k_steps;  // should be blockIdx.z * per
    const int last = first + per < k_steps ? first + per : k_steps;
    rt_fl<32, 32> acc;
    tk::zero(acc);
    multiply(acc, A, B, first, last);
    atomic_add(C, acc, warp_tile());
}

} // namespace lesson12::wrong_slice_offset
