// expect: 16384 of 16384 elements differ from the CPU reference (largest error inf
// Known wrong: everything but the store. Each warp computes its warp tiles and
// never writes them back, so C keeps whatever was in memory (the simulator
// fills fresh memory with NaN).
#pragma once
#include "tk/tk.h"

namespace lesson06::wrong_empty {

using namespace tk;

__global__ void kernel(gl<bf16> a, gl<bf16> b, gl<float> c) {
    const int w = warpid();
    const int row0 = blockIdx.y * 128 + (w / 2) * 64;
    const int col0 = blockIdx.x * 128 + (w % 2) * 64;
    for (int pm = 0; pm < 2; ++pm)
        for (int pn = 0; pn < 2; ++pn) {
            const int tr = row0 / 32 + pm, tc = col0 / 32 + pn;
            rt_fl<32, 32> acc;
            zero(acc);
            for (int k = 0; k < a.cols / 16; ++k) {
                rt_bf<32, 16> at;
                rt_bf<16, 32, col_l> bt;
                load(at, a, {0, 0, tr, k});
                load(bt, b, {0, 0, k, tc});
                mma_AB(acc, at, bt, acc);
            }
            (void)c;  // no store(c, acc, {0, 0, tr, tc})
        }
}

} // namespace lesson06::wrong_empty
