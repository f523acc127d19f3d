// expect: 256 of 256 elements differ from the CPU reference (largest error inf
// Known wrong: everything but the store. The kernel computes the right tile
// and never writes it back, so C keeps whatever was in memory (the simulator
// fills fresh memory with NaN).
#pragma once
#include "tk/tk.h"

namespace lesson03::wrong_empty {

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
    (void)c;  // no store(c, acc, {0, 0, row, col})
}

} // namespace lesson03::wrong_empty
