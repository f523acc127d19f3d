// Lesson 1, the reference solution: OUT = X + the lane holding each element.
#pragma once
#include "tk/tk.h"

namespace lesson01::solution {

using namespace tk;

__global__ void kernel(gl<bf16> x, gl<float> out) {
    // 1. Which strip of 16 rows is this warp's? Blocks have 4 warps, and warp w
    //    of block b takes strip 4b + w.
    const int strip = blockIdx.x * 4 + warpid();

    // 2. The grid is rounded up to whole blocks, so the last block may have
    //    warps with no strip left. They stop here (the whole warp together:
    //    every lane of a warp computes the same strip).
    if (strip >= x.rows / 16) return;

    // 3. Load the strip: 16 x 64 elements over the warp's 32 lanes, so each
    //    lane holds 32 of them, in registers. The bf16 values become floats
    //    on the way in.
    rt_fl<16, 64> t;
    load(t, x, {0, 0, strip, 0});

    // 4. Add this lane's number to every element it holds. The tile is four
    //    16x16 sub-tiles side by side (tiles[0][0..3]); in each, a lane holds
    //    4 pairs of neighbouring elements (data[0..3], each with .x and .y).
    const int lane = laneid();
    for (int j = 0; j < t.width; ++j)
        for (int k = 0; k < 4; ++k) {
            t.tiles[0][j].data[k].x += lane;
            t.tiles[0][j].data[k].y += lane;
        }

    // 5. Record the tile for the visualizer (`--snapshots`), then store it.
    snapshot(t, "strip after adding the lane");
    store(out, t, {0, 0, strip, 0});
}

} // namespace lesson01::solution
