// expect: ldmatrix: 12288 wavefronts where 1536 would do (worst 8-way)
// Known wrong (lesson 4, part 2): the exercise as shipped, unswizzled. Right,
// but each ldmatrix phase's 8 rows start in bank 0: 8-way conflicts.
#pragma once
#include "lessons/04_bank_conflicts/part2_gemm/solution.cuh"

namespace lesson04_gemm::wrong_unswizzled {
inline constexpr auto kernel = solution::gemm<tk::swizzle::none>;
} // namespace lesson04_gemm::wrong_unswizzled
