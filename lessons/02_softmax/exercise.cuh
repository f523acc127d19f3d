// Lesson 2, the exercise: fill in the three holes so that each row of OUT is
// the softmax of the same row of X:
//   OUT[r][c] = exp(X[r][c]) / (the sum over the row of exp(X[r][c']))
// Every hole is a line or two of tk ops. It builds as it is, and
// `tklab lesson check 2` fails until all three are right. Stuck?
// `tklab lesson hint 2`.
#pragma once
#include "tk/tk.h"

namespace lesson02::exercise {

using namespace tk;

__global__ void kernel(gl<float> x, gl<float> out) {
    // This warp's strip of 16 rows, as in lesson 1.
    const int strip = blockIdx.x * 4 + warpid();
    if (strip >= x.rows / 16) return;

    // The strip: a 16x64 float register tile, 32 elements per lane.
    rt_fl<16, 64> t;
    load(t, x, {0, 0, strip, 0});

    // One float per row of t (16 values; each lane holds its own rows'
    // entries). Use it for the row max, then for the row sum.
    rt_fl<16, 64>::col_vec v;
    (void)v;  // (only so the unfinished exercise compiles without a warning)

    // HOLE 1: subtract each row's largest element from the row. Rows 4k+2
    // hold logits near 96, and exp(96) does not fit in a float. Ops: a
    // reduction tk::row_max(vec, tile) and a broadcast tk::sub_row(dst, src,
    // vec); dst may be the source.

    snapshot(t, "after subtracting the row max");

    // HOLE 2: exponentiate every element of t (a map: tk::exp(dst, src)).

    snapshot(t, "exponentials");

    // HOLE 3: divide each row by its sum (tk::row_sum, tk::div_row).

    snapshot(t, "probabilities");
    store(out, t, {0, 0, strip, 0});
}

} // namespace lesson02::exercise
