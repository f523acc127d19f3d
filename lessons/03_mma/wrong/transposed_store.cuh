// expect: tile coordinate is outside the global tensor
// Known wrong indexing: the output tile's coordinates are swapped, as if
// blockIdx.x were the row. With a square C of one tile it happens to work;
// with C 16 x 48 (one row of three tiles) block 1 stores at tile row 1 of a
// C that has only one, and the simulator stops it at the store (on a GPU it
// would write past the end of C, or over another warp's tile when C is
// square).
#pragma once
#include "tk/tk.h"

namespace lesson03::wrong_transposed_store {

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
    store(c, acc, {0, 0, col, row});  // should be {0, 0, row, col}
}

} // namespace lesson03::wrong_transposed_store
