// expect: 2048 of 3072 elements differ from the CPU reference (largest error 64,
// Known wrong: adds threadIdx.x instead of the lane. In warp 0 they are the
// same; warp 1's threads are 32..63, so its strip (rows 16..31) comes out 32
// too big, warp 2's 64, warp 3's 96.
#pragma once
#include "tk/tk.h"

namespace lesson01::wrong_thread_id {

using namespace tk;

__global__ void kernel(gl<bf16> x, gl<float> out) {
    const int strip = blockIdx.x * 4 + warpid();
    if (strip >= x.rows / 16) return;
    rt_fl<16, 64> t;
    load(t, x, {0, 0, strip, 0});
    const int lane = threadIdx.x;  // should be laneid() (threadIdx.x % 32)
    for (int j = 0; j < t.width; ++j)
        for (int k = 0; k < 4; ++k) {
            t.tiles[0][j].data[k].x += lane;
            t.tiles[0][j].data[k].y += lane;
        }
    store(out, t, {0, 0, strip, 0});
}

} // namespace lesson01::wrong_thread_id
