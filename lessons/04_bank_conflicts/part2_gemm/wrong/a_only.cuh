// expect: ldmatrix: 6912 wavefronts where 1536 would do (worst 8-way)
// Known wrong (lesson 4, part 2): only A's tile swizzled. B's ldmatrix.trans
// reads 16-byte pieces of 8 rows of B's tile just as A's reads do: B's loads
// still conflict 8-way.
#pragma once
#include "lessons/04_bank_conflicts/part2_gemm/solution.cuh"

namespace lesson04_gemm::wrong_a_only {
inline constexpr auto kernel = solution::gemm<tk::swizzle::b128, tk::swizzle::none>;
} // namespace lesson04_gemm::wrong_a_only
