// expect: correctness: wrong at K=16 M=16 N=16
// Known wrong, a precision mistake: the fp32 accumulator is rounded to a bf16
// tile before the store. bf16 keeps 8 significant bits, so an element of C
// near 2 can be off by up to 1/128: far over the check's 1e-3.
#pragma once
#include "tk/tk.h"

namespace lesson03::wrong_bf16_output {

using namespace tk;

__global__ void kernel(gl<bf16> a, gl<bf16> b, gl<float> c) {
    const int row = blockIdx.y, col = blockIdx.x;
    rt_fl<16, 16> acc;
    zero(acc);
    for (int k = 0; k < a.cols / 16; ++k) {
        rt_bf<16, 16> at;
        rt_bf<16, 16, col_l> bt;
        load(at, a, {0, 0, row, k});
        load(bt, b, {0, 0, k, col});
        mma_AB(acc, at, bt, acc);
    }
    rt_bf<16, 16> out;  // rounds every element to bf16...
    copy(out, acc);
    store(c, out, {0, 0, row, col});  // ...and only then widens it back to float
}

} // namespace lesson03::wrong_bf16_output
