// Lesson 2, the reference solution: OUT = the softmax of each row of X.
#pragma once
#include "tk/tk.h"

namespace lesson02::solution {

using namespace tk;

__global__ void kernel(gl<float> x, gl<float> out) {
    // 1. This warp's strip of 16 rows, and nothing for warps past the last
    //    strip (lesson 1).
    const int strip = blockIdx.x * 4 + warpid();
    if (strip >= x.rows / 16) return;

    // 2. Load the strip: 16 rows of 64 logits, 32 floats per lane.
    rt_fl<16, 64> t;
    load(t, x, {0, 0, strip, 0});

    // 3. One float per row of the tile: a col_vec (a column of values, one
    //    for each row). Each lane holds the entries for its own two rows, so
    //    it costs 2 registers per lane.
    rt_fl<16, 64>::col_vec v;

    // 4. Subtract each row's max. row_max reduces across the 4 lanes that
    //    share a row (shuffles); sub_row then takes v[r] from every element
    //    of row r, in place (dst may be the source). Every row's largest
    //    element becomes 0 and the rest negative, so exp cannot overflow, and
    //    at least one exponential per row is exactly 1, so the sum cannot be
    //    0. The softmax is unchanged: exp(x - m) / sum exp(x - m) is
    //    exp(x) / sum exp(x) with e^-m cancelled.
    row_max(v, t);
    sub_row(t, t, v);
    snapshot(t, "after subtracting the row max");

    // 5. Exponentiate every element, in place and in float.
    exp(t, t);
    snapshot(t, "exponentials");

    // 6. Divide each row by its sum. v is free again, so it holds the sums.
    row_sum(v, t);
    div_row(t, t, v);
    snapshot(t, "probabilities");

    store(out, t, {0, 0, strip, 0});
}

} // namespace lesson02::solution
