// expect: 132 registers per thread live at the peak
// Known wrong, though its output is right: every step writes a new tile
// (shifted, exponentials, probabilities) instead of working in place, and the
// max and the sum get vectors of their own: 4 float tiles and 2 vectors,
// 4 x 32 + 2 x 2 = 132 registers per thread where one tile and one vector
// (34) are enough. It misses the lesson's goal.
#pragma once
#include "tk/tk.h"

namespace lesson02::wrong_register_hungry {

using namespace tk;

__global__ void kernel(gl<float> x, gl<float> out) {
    const int strip = blockIdx.x * 4 + warpid();
    if (strip >= x.rows / 16) return;
    rt_fl<16, 64> t;
    load(t, x, {0, 0, strip, 0});
    rt_fl<16, 64>::col_vec m;
    row_max(m, t);
    rt_fl<16, 64> shifted;
    sub_row(shifted, t, m);
    rt_fl<16, 64> e;
    exp(e, shifted);
    rt_fl<16, 64>::col_vec s;
    row_sum(s, e);
    rt_fl<16, 64> p;
    div_row(p, e, s);
    store(out, p, {0, 0, strip, 0});
}

} // namespace lesson02::wrong_register_hungry
