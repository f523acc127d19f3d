// expect: the slowest block took 25383 cycles (goal: at most 13500)
// Known wrong, though its output is right: 16x16 warp tiles. Only 16 tile
// registers per thread, so 9 blocks fit on an SM, but each warp walks K
// sixteen times (once per 16x16 tile of its 64x64 region), and every k-step
// waits for its loads (from L1 or L2) for just 2 mma. It misses the cycle half
// of the goal.
#pragma once
#include "lessons/06_register_pressure/solution.cuh"

namespace lesson06::wrong_too_small {

inline constexpr auto kernel = lesson06::solution::gemm<16, 16>;

} // namespace lesson06::wrong_too_small
