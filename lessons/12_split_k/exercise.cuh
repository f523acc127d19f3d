// Lesson 12, the exercise: C = A * B for a small C (four 64x64 tiles) and a
// long K (4096). As shipped it is the plain tiled GEMM, one block per tile of
// C walking all of K: right, and slow, since 4 blocks leave the other SMs
// of the GPU idle (`tklab lesson check 12` misses its goal). Split K into
// slices, one block per tile and slice, each adding its partial tile into
// C with atomics (HOLE 1-4). Stuck? `tklab lesson hint 12`.
#pragma once
#include "tk/tk.h"
#include "lessons/12_split_k/lesson.cuh"

namespace lesson12::exercise {

using namespace tk;

// HOLE 1: how many slices of K. The grid is N/64 x M/64 x kSlices blocks.
constexpr int kSlices = 1;

// Launched before the GEMM, one block of 4 warps per 64x64 tile of C.
// HOLE 2: as shipped it does nothing, which a GEMM that stores C needs.
// One that adds into C needs it to be zero: store a 32x32 tile of zeros per
// warp at warp_tile().
__global__ void zero(gl<float> /* C */) {}

__global__ void kernel(gl<bf16> A, gl<bf16> B, gl<float> C) {
    // HOLE 3: this block's slice of K, k-steps [first, last) of the
    // K / 64. Slice blockIdx.z of kSlices; when kSlices does not divide the
    // k-steps, the last slice is shorter (or empty).
    const int k_steps = A.cols / kBlock;
    const int first = 0, last = k_steps;

    rt_fl<32, 32> acc;
    tk::zero(acc);
    multiply(acc, A, B, first, last);

    // HOLE 4: kSlices blocks compute partial tiles of this same 64x64 of C.
    store(C, acc, warp_tile());
}

} // namespace lesson12::exercise
