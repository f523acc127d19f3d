// Lesson 3, the exercise: fill in the four holes so that C = A * B, each warp
// (one per block) computing one 16x16 tile of C on the tensor cores. Every
// hole is a line or two. It builds as it is, and `tklab lesson check 3` fails
// until all four are right. Stuck? `tklab lesson hint 3`.
#pragma once
#include "tk/tk.h"

namespace lesson03::exercise {

using namespace tk;

__global__ void kernel(gl<bf16> a, gl<bf16> b, gl<float> c) {
    // This warp's tile of C, in tile coordinates: rows 16*row..16*row+15,
    // columns 16*col..16*col+15. (The grid is N/16 x M/16 blocks.)
    const int row = blockIdx.y, col = blockIdx.x;

    rt_fl<16, 16> acc;  // the accumulator: this warp's 16x16 of C, in fp32
    // HOLE 1: a register tile is not set to anything when declared. Make the
    // accumulator start at zero.

    // K is walked 16 at a time: a.cols / 16 steps.
    for (int k = 0; k < a.cols / 16; ++k) {
        rt_bf<16, 16> at;          // A's tile for this step (row layout: an mma A operand)
        rt_bf<16, 16, col_l> bt;   // B's tile for this step (col layout: an mma B operand)
        // HOLE 2: load A's and B's tiles for this step from global memory:
        // load(tile, a or b, {0, 0, tile_row, tile_col}). Which tile of A,
        // and which of B, does C's tile (row, col) need at step k?

        // HOLE 3: multiply them on the tensor cores and add the product to
        // the accumulator (tk::mma_AB(d, a, b, c) computes d = a * b + c).

        (void)at, (void)bt;  // quiets "unused" warnings until the holes use them
    }

    snapshot(acc, "C tile");
    // HOLE 4: store the accumulator to C, at this warp's tile.

    (void)b, (void)c, (void)row, (void)col;  // quiets "unused" warnings until the holes use them
}

} // namespace lesson03::exercise
