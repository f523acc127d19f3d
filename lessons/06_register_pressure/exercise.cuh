// Lesson 6, the exercise: the kernel below is already correct, for any warp
// tile that divides 64. What is wrong is the choice of warp tile at HOLE 1:
// 64x64 keeps 160 tile registers per thread alive, so only 2 blocks fit on an
// SM. Measure the choices (README.md, "What to look at"), then pick one that
// meets both halves of the goal. `tklab lesson check 6` fails until you do.
// Stuck? `tklab lesson hint 6`.
#pragma once
#include "tk/tk.h"

namespace lesson06::exercise {

using namespace tk;

// One warp's 64x64 region of C, cut into WM x WN warp tiles (WM and WN divide
// 64). For each warp tile the warp keeps, in registers, the fp32 accumulator
// (WM x WN) and one k-step's operands: A's WM x 16 and B's 16 x WN.
template <int WM, int WN>
__global__ void gemm(gl<bf16> a, gl<bf16> b, gl<float> c) {
    static_assert(64 % WM == 0 && 64 % WN == 0, "a warp tile must divide the warp's 64x64 region");

    // This warp's region: the block's 128x128 tile of C is split 2 x 2
    // between its 4 warps; warp w takes rows 64*(w/2).., cols 64*(w%2)...
    const int w = warpid();
    const int row0 = blockIdx.y * 128 + (w / 2) * 64;  // in elements of C
    const int col0 = blockIdx.x * 128 + (w % 2) * 64;

    // The region, one warp tile at a time. Tile coordinates count in tiles of
    // the tile's own size: for a WM x WN tile, row tile r covers rows WM*r...
    for (int pm = 0; pm < 64 / WM; ++pm)
        for (int pn = 0; pn < 64 / WN; ++pn) {
            const int tr = row0 / WM + pm, tc = col0 / WN + pn;

            rt_fl<WM, WN> acc;  // WM*WN/32 registers per thread, alive for the whole K loop
            zero(acc);
            for (int k = 0; k < a.cols / 16; ++k) {
                rt_bf<WM, 16> at;         // WM/4 registers per thread
                rt_bf<16, WN, col_l> bt;  // WN/4 registers per thread
                load(at, a, {0, 0, tr, k});
                load(bt, b, {0, 0, k, tc});
                mma_AB(acc, at, bt, acc);
            }
            store(c, acc, {0, 0, tr, tc});
        }
}

// HOLE 1: the warp tile, rows x columns. 64x64 is correct and misses the
// goal's occupancy half. Try the others first (`tklab run lesson06 --variant
// tile16|tile32|tile64`), write down what each costs, then choose here.
inline constexpr auto kernel = gemm<64, 64>;

} // namespace lesson06::exercise
