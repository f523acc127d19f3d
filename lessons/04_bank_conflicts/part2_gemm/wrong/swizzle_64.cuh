// expect: st.shared: 1536 wavefronts where 768 would do (worst 2-way)
// Known wrong (lesson 4, part 2): the 64-byte swizzle. The tile is stored as
// two column blocks 64 bytes wide; ldmatrix has no conflicts, but the 16-byte
// stores of one row of the global tile land in both blocks, 4096 bytes apart:
// 2-way on every store. Only the 128-byte swizzle suits a 128-byte row.
#pragma once
#include "lessons/04_bank_conflicts/part2_gemm/solution.cuh"

namespace lesson04_gemm::wrong_swizzle_64 {
inline constexpr auto kernel = solution::gemm<tk::swizzle::b64>;
} // namespace lesson04_gemm::wrong_swizzle_64
