// Lesson 1, the exercise: fill in the three holes so that
//   OUT[r][c] = X[r][c] + (the lane of the warp that holds element (r, c)).
// Every hole is a line or two. It builds as it is, and `tklab lesson check 1`
// fails until all three are right. Stuck? `tklab lesson hint 1`.
#pragma once
#include "tk/tk.h"

namespace lesson01::exercise {

using namespace tk;

__global__ void kernel(gl<bf16> x, gl<float> out) {
    // HOLE 1: which strip of 16 rows is this warp's? A block has 4 warps
    // (tk::warpid() is 0..3 within the block) and blockIdx.x numbers the
    // blocks. Replace the 0.
    const int strip = 0;

    // HOLE 2: the last block may have warps with no strip left (R = 48 has 3
    // strips, but a block has 4 warps). Make those warps stop here. x.rows is
    // the number of rows of X.

    // Load this warp's strip: a 16x64 float register tile, 32 elements per lane.
    rt_fl<16, 64> t;
    load(t, x, {0, 0, strip, 0});

    // HOLE 3: add this lane's number (tk::laneid()) to every element the lane
    // holds. The tile is four 16x16 sub-tiles, t.tiles[0][j] for j = 0..3;
    // each holds 4 pairs per lane, t.tiles[0][j].data[k] for k = 0..3, and a
    // pair is two floats, .x and .y.
    for (int j = 0; j < t.width; ++j)
        for (int k = 0; k < 4; ++k) {
        }

    snapshot(t, "strip after adding the lane");
    store(out, t, {0, 0, strip, 0});
}

} // namespace lesson01::exercise
