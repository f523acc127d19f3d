// expect: 941 of 1024 elements differ from the CPU reference (largest error 0.965
// Known wrong: divides by the row max again instead of the row sum (row_max
// where row_sum belongs). After the max was subtracted, the largest
// exponential of every row is exactly 1, so this divides by 1: the rows are
// exp(x - max), not probabilities, and do not add up to 1. (Only elements
// whose exponential is itself below the check's 1e-5 pass.)
#pragma once
#include "tk/tk.h"

namespace lesson02::wrong_div_max {

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
    row_max(v, t);  // should be row_sum
    div_row(t, t, v);
    store(out, t, {0, 0, strip, 0});
}

} // namespace lesson02::wrong_div_max
