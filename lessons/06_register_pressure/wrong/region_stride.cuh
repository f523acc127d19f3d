// expect: 4096 of 16384 elements differ from the CPU reference (largest error inf
// Known wrong indexing: the warp's region is placed with the warp tile's size
// (32) where the region's size (64) belongs, as after shrinking the tile from
// 64x64 without noticing that one 64 meant the region. Warps 2 and 3 start at
// row 32 instead of 64, so rows 32..63 are written twice and rows 96..127 of
// every block never: they keep the NaN of fresh memory.
#pragma once
#include "tk/tk.h"

namespace lesson06::wrong_region_stride {

using namespace tk;

__global__ void kernel(gl<bf16> a, gl<bf16> b, gl<float> c) {
    const int w = warpid();
    const int row0 = blockIdx.y * 128 + (w / 2) * 32;  // should be (w / 2) * 64: the region, not the tile
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
            store(c, acc, {0, 0, tr, tc});
        }
}

} // namespace lesson06::wrong_region_stride
