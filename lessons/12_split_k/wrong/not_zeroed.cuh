// expect: not_zeroed.cuh:29: error: read of global memory nothing wrote: a reduction's read (red.global)
// Known wrong: HOLES 1, 3 and 4 done, HOLE 2 not: the slices add into C
// with atomics, but the zeroing kernel does nothing. An atomic add reads
// the word's old value; fresh device memory is garbage, so on a GPU C would
// be garbage plus the product. The simulator marks every byte nothing wrote
// and stops the run at the first atomic add that reads one, naming the line.
#pragma once
#include "tk/tk.h"
#include "lessons/12_split_k/lesson.cuh"

namespace lesson12::wrong_not_zeroed {

using namespace tk;

constexpr int kSlices = 16;

// Should store zeros over C: atomic adds add to what is there.
__global__ void zero(gl<float> /* C */) {}

__global__ void kernel(gl<bf16> A, gl<bf16> B, gl<float> C) {
    const int k_steps = A.cols / kBlock;
    const int per = (k_steps + kSlices - 1) / kSlices;
    const int first = int(blockIdx.z) * per < k_steps ? int(blockIdx.z) * per : k_steps;
    const int last = first + per < k_steps ? first + per : k_steps;
    rt_fl<32, 32> acc;
    tk::zero(acc);
    multiply(acc, A, B, first, last);
    // The first add into C reads a word nothing wrote.
    atomic_add(C, acc, warp_tile());
}

} // namespace lesson12::wrong_not_zeroed
