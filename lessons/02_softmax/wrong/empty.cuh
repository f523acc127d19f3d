// expect: 1024 of 1024 elements differ from the CPU reference (largest error inf
// Known wrong: everything but the store. The kernel computes the right
// probabilities and never writes them back, so OUT keeps whatever was in
// memory (the simulator's NaN).
#pragma once
#include "tk/tk.h"

namespace lesson02::wrong_empty {

using namespace tk;

__global__ void kernel(gl<float> x, gl<float> out) {
    const int strip = blockIdx.x * 4 + warpid();
    if (strip >= x.rows / 16) return;
    rt_fl<16, 64> t;
    load(t, x, {0, 0, strip, 0});
    rt_fl<16, 64>::col_vec v;
    row_max(v, t);
    sub_row(t, t, v);
    exp(t, t);
    row_sum(v, t);
    div_row(t, t, v);
    (void)out;  // no store(out, t, ...)
}

} // namespace lesson02::wrong_empty
