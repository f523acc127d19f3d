// expect: correctness: wrong at C=64 R=16
// Known wrong, a precision mistake: to save registers the exponentials are
// kept in a bf16 tile (16 registers instead of 32). bf16 keeps 8 significant
// bits, so each exponential is off by up to 1/512 (0.2%) of itself, and so
// are the probabilities: at R = 16, 385 of 1024 are off by more than the
// check's 1e-5, the worst by 3.4e-4.
#pragma once
#include "tk/tk.h"

namespace lesson02::wrong_bf16_exp {

using namespace tk;

__global__ void kernel(gl<float> x, gl<float> out) {
    const int strip = blockIdx.x * 4 + warpid();
    if (strip >= x.rows / 16) return;
    rt_fl<16, 64> t;
    load(t, x, {0, 0, strip, 0});
    rt_fl<16, 64>::col_vec v;
    row_max(v, t);
    sub_row(t, t, v);
    rt_bf<16, 64> e;
    exp(e, t);  // rounded to bf16 here...
    copy(t, e);  // ...and back to float too late
    row_sum(v, t);
    div_row(t, t, v);
    store(out, t, {0, 0, strip, 0});
}

} // namespace lesson02::wrong_bf16_exp
