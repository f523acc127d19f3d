// expect: does yours walk all of K?
// Known wrong: HOLES 1 and 2 done, HOLE 3 not: 16 slices, but each block
// walks all of K and stores its tile. Every block stores the same, right,
// tile, so C is right; but 16 times the work on 16 times the blocks takes
// as long as one slice did, and the goal is missed.
#pragma once
#include "tk/tk.h"
#include "lessons/12_split_k/lesson.cuh"

namespace lesson12::wrong_whole_k_each_slice {

using namespace tk;

constexpr int kSlices = 16;

__global__ void zero(gl<float> C) {
    rt_fl<32, 32> z;
    tk::zero(z);
    store(C, z, warp_tile());
}

__global__ void kernel(gl<bf16> A, gl<bf16> B, gl<float> C) {
    const int k_steps = A.cols / kBlock;
    const int first = 0, last = k_steps;  // should be this slice's k-steps only
    rt_fl<32, 32> acc;
    tk::zero(acc);
    multiply(acc, A, B, first, last);
    store(C, acc, warp_tile());
}

} // namespace lesson12::wrong_whole_k_each_slice
