// expect: 4096 of 4096 elements differ from the CPU reference (largest error inf
// Known wrong (lesson 4, part 2): an empty kernel. C is never written (the
// simulator fills fresh device memory with NaN, so every element is wrong).
#pragma once
#include "tk/tk.h"

namespace lesson04_gemm::wrong_empty {

__global__ void kernel(tk::gl<tk::bf16>, tk::gl<tk::bf16>, tk::gl<float>) {}

} // namespace lesson04_gemm::wrong_empty
