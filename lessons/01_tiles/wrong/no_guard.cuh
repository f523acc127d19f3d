// expect: tile coordinate is outside the global tensor
// Known wrong: no check for warps past the last strip. With R = 16 there is
// one strip and a block of 4 warps: warp 1 loads rows 16..31 of a 16-row X.
// The simulator stops it at the load (on a GPU it would read past the end of
// X, and warps 1..3 would store past the end of OUT).
#pragma once
#include "tk/tk.h"

namespace lesson01::wrong_no_guard {

using namespace tk;

__global__ void kernel(gl<bf16> x, gl<float> out) {
    const int strip = blockIdx.x * 4 + warpid();
    // missing: if (strip >= x.rows / 16) return;
    rt_fl<16, 64> t;
    load(t, x, {0, 0, strip, 0});
    const int lane = laneid();
    for (int j = 0; j < t.width; ++j)
        for (int k = 0; k < 4; ++k) {
            t.tiles[0][j].data[k].x += lane;
            t.tiles[0][j].data[k].y += lane;
        }
    store(out, t, {0, 0, strip, 0});
}

} // namespace lesson01::wrong_no_guard
