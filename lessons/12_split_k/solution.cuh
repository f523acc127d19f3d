// Lesson 12, the reference solution: a split-K GEMM. C is small (4 tiles of
// 64x64 at the default size) and K long, so one block per tile of C would
// leave all but 4 of the H100's 132 SMs idle, each of the 4 walking all 64
// k-steps. Instead K is cut into kSlices slices: one block per tile *and*
// slice, each walking its slice only and adding its partial tile into C
// with atomic adds, into a C zeroed by a kernel launched first.
#pragma once
#include "tk/tk.h"
#include "lessons/12_split_k/lesson.cuh"

namespace lesson12::solution {

using namespace tk;

// 1. How many slices. 4 tiles x 16 slices = 64 blocks, 4 k-steps each at
//    K = 4096: enough blocks to spread over the SMs, and each slice still
//    long enough for the double-buffered loop to hide its loads. (More
//    slices: more blocks, but more atomic traffic into C and a prologue
//    per block; `tklab run lesson12 --variant solution` and compare.)
constexpr int kSlices = 16;

// 2. The atomic adds read C's old value: it must be zero first, and every
//    element of it. One block of 4 warps per 64x64 tile, each warp storing
//    a 32x32 tile of zeros. A kernel launched before the GEMM finishes
//    before the GEMM starts (same stream), so no block adds too early.
__global__ void zero(gl<float> C) {
    rt_fl<32, 32> z;
    tk::zero(z);
    store(C, z, warp_tile());
}

__global__ void kernel(gl<bf16> A, gl<bf16> B, gl<float> C) {
    // 3. This block's slice of K: kSlices slices of `per` k-steps, the last
    //    one shorter when kSlices does not divide the k-steps (or empty, when
    //    there are fewer k-steps than slices: it adds zeros).
    const int k_steps = A.cols / kBlock;
    const int per = (k_steps + kSlices - 1) / kSlices;
    const int slice = int(blockIdx.z);
    const int first = slice * per < k_steps ? slice * per : k_steps;
    const int last = first + per < k_steps ? first + per : k_steps;

    // 4. The partial product of this slice: lesson 5's loop over it.
    rt_fl<32, 32> acc;
    tk::zero(acc);
    multiply(acc, A, B, first, last);

    // 5. kSlices blocks hold partial tiles of the same 64x64 of C. A plain
    //    store would leave whichever came last; red.global.add.f32 adds each
    //    into C, one element at a time, indivisibly: no add is lost, in
    //    whatever order they come.
    atomic_add(C, acc, warp_tile());
}

} // namespace lesson12::solution
