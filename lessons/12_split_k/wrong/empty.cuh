// expect: 4096 of 4096 elements differ from the CPU reference
// Known wrong: kernels that do nothing. C is never written; the check must
// fail, never pass on whatever C held.
#pragma once
#include "tk/tk.h"
#include "lessons/12_split_k/lesson.cuh"

namespace lesson12::wrong_empty {

using namespace tk;

constexpr int kSlices = 16;

__global__ void zero(gl<float>) {}
__global__ void kernel(gl<bf16>, gl<bf16>, gl<float>) {}

} // namespace lesson12::wrong_empty
