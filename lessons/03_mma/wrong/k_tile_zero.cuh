// expect: correctness: wrong at K=32 M=16 N=48
// Known wrong indexing: every step loads K's first tiles (column tile 0 of
// A, row tile 0 of B) instead of step k's, so C comes out as K/16 times the
// first 16 products. Right when K = 16 (one step), wrong from K = 32 on.
#pragma once
#include "tk/tk.h"

namespace lesson03::wrong_k_tile_zero {

using namespace tk;

__global__ void kernel(gl<bf16> a, gl<bf16> b, gl<float> c) {
    const int row = blockIdx.y, col = blockIdx.x;
    rt_fl<16, 16> acc;
    zero(acc);
    for (int k = 0; k < a.cols / 16; ++k) {
        rt_bf<16, 16> at;
        rt_bf<16, 16, col_l> bt;
        load(at, a, {0, 0, row, 0});  // should be {0, 0, row, k}
        load(bt, b, {0, 0, 0, col});  // should be {0, 0, k, col}
        mma_AB(acc, at, bt, acc);
    }
    store(c, acc, {0, 0, row, col});
}

} // namespace lesson03::wrong_k_tile_zero
