// expect: correctness: wrong at K=32 M=16 N=48
// Known wrong accumulator: zeroed at every k-step instead of once before the
// loop, so each step throws away the sum so far and C comes out as the last
// step's product alone. Right when K = 16 (one step), wrong from K = 32 on.
#pragma once
#include "tk/tk.h"

namespace lesson03::wrong_zero_in_loop {

using namespace tk;

__global__ void kernel(gl<bf16> a, gl<bf16> b, gl<float> c) {
    const int row = blockIdx.y, col = blockIdx.x;
    rt_fl<16, 16> acc;
    for (int k = 0; k < a.cols / 16; ++k) {
        zero(acc);  // should be once, before the loop
        rt_bf<16, 16> at;
        rt_bf<16, 16, col_l> bt;
        load(at, a, {0, 0, row, k});
        load(bt, b, {0, 0, k, col});
        mma_AB(acc, at, bt, acc);
    }
    store(c, acc, {0, 0, row, col});
}

} // namespace lesson03::wrong_zero_in_loop
