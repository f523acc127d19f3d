// expect: 1024 of 1024 elements differ from the CPU reference (largest error inf
// Known wrong: everything but the store. The kernel computes the right tile
// and never writes it back, so OUT keeps whatever was in memory.
#pragma once
#include "tk/tk.h"

namespace lesson01::wrong_empty {

using namespace tk;

__global__ void kernel(gl<bf16> x, gl<float> out) {
    const int strip = blockIdx.x * 4 + warpid();
    if (strip >= x.rows / 16) return;
    rt_fl<16, 64> t;
    load(t, x, {0, 0, strip, 0});
    const int lane = laneid();
    for (int j = 0; j < t.width; ++j)
        for (int k = 0; k < 4; ++k) {
            t.tiles[0][j].data[k].x += lane;
            t.tiles[0][j].data[k].y += lane;
        }
    (void)out;  // no store(out, t, ...)
}

} // namespace lesson01::wrong_empty
