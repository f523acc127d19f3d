// expect: correctness: wrong at C=64 R=48: 2048 of 3072 elements differ from the CPU reference (largest error inf
// Known wrong: the strip is blockIdx.x alone, as if a block had one warp. All
// 4 warps of a block do strip b, and strips not a multiple of 4 are never
// written. Right at R = 16 (one strip), wrong from row 16 on.
#pragma once
#include "tk/tk.h"

namespace lesson02::wrong_wrong_index {

using namespace tk;

__global__ void kernel(gl<float> x, gl<float> out) {
    const int strip = blockIdx.x;  // should be blockIdx.x * 4 + warpid()
    if (strip >= x.rows / 16) return;
    rt_fl<16, 64> t;
    load(t, x, {0, 0, strip, 0});
    rt_fl<16, 64>::col_vec v;
    row_max(v, t);
    sub_row(t, t, v);
    exp(t, t);
    row_sum(v, t);
    div_row(t, t, v);
    store(out, t, {0, 0, strip, 0});
}

} // namespace lesson02::wrong_wrong_index
