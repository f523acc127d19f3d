// expect: correctness: wrong at C=64 R=16
// Known wrong, a precision mistake: the lane is added while the strip is still
// bf16, and only the rounded sum becomes float. bf16 keeps 8 significant bits,
// so X + 17 is rounded to a multiple of 1/8: off by up to 0.0625.
#pragma once
#include "tk/tk.h"

namespace lesson01::wrong_bf16_sum {

using namespace tk;

__global__ void kernel(gl<bf16> x, gl<float> out) {
    const int strip = blockIdx.x * 4 + warpid();
    if (strip >= x.rows / 16) return;
    rt_bf<16, 64> b;  // the sum is made in bf16...
    load(b, x, {0, 0, strip, 0});
    const int lane = laneid();
    for (int j = 0; j < b.width; ++j)
        for (int k = 0; k < 4; ++k) {
            b.tiles[0][j].data[k].x = from_float<bf16>(to_float(b.tiles[0][j].data[k].x) + lane);
            b.tiles[0][j].data[k].y = from_float<bf16>(to_float(b.tiles[0][j].data[k].y) + lane);
        }
    rt_fl<16, 64> t;  // ...and only then converted to float
    copy(t, b);
    store(out, t, {0, 0, strip, 0});
}

} // namespace lesson01::wrong_bf16_sum
