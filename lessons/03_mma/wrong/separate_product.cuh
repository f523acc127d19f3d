// expect: 24 registers per thread live at the peak
// Known wrong, though its output is right: each step multiplies into a fresh
// product tile and then adds it to the accumulator, as one would with a
// multiply that cannot accumulate. mma does accumulate (d = a * b + c), so
// the extra 8-register tile (and the zero and add around it) is waste: 24
// registers per thread where 16 do. It misses the lesson's goal.
#pragma once
#include "tk/tk.h"

namespace lesson03::wrong_separate_product {

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
        rt_fl<16, 16> prod;  // should be mma_AB(acc, at, bt, acc)
        zero(prod);
        mma_AB(prod, at, bt, prod);
        add(acc, acc, prod);
    }
    store(c, acc, {0, 0, row, col});
}

} // namespace lesson03::wrong_separate_product
