// expect: st.shared: 3072 wavefronts where 768 would do (worst 4-way)
// Known wrong (lesson 4, part 2): the 32-byte swizzle. A 64-wide bf16 tile is
// then stored as four column blocks 32 bytes wide (64 rows each, what the
// hardware's copy engine does for a swizzle narrower than a row). ldmatrix is
// happy: 8 rows of a block are 256 bytes, all banks. But the group's 16-byte
// stores, 8 lanes along a 128-byte row of the global tile, now land in four
// blocks 2048 bytes apart, the same banks: 4-way on every store.
#pragma once
#include "lessons/04_bank_conflicts/part2_gemm/solution.cuh"

namespace lesson04_gemm::wrong_swizzle_32 {
inline constexpr auto kernel = solution::gemm<tk::swizzle::b32>;
} // namespace lesson04_gemm::wrong_swizzle_32
