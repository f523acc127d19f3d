// Lesson 3, the reference solution: C = A * B, one warp per 16x16 tile of C,
// straight from global memory (shared memory comes in lesson 4).
#pragma once
#include "tk/tk.h"

namespace lesson03::solution {

using namespace tk;

__global__ void kernel(gl<bf16> a, gl<bf16> b, gl<float> c) {
    // 1. Which tile of C is this warp's? Tile coordinates count in 16x16
    //    tiles: tile (row, col) covers rows 16*row.. and columns 16*col.. of C.
    const int row = blockIdx.y, col = blockIdx.x;

    // 2. The accumulator: 16x16 floats spread over the warp, 8 per lane. It
    //    starts at zero; every k-step adds one product into it.
    rt_fl<16, 16> acc;
    zero(acc);

    // 3. Walk K, 16 at a time. C's tile (row, col) is the sum over k of
    //    A's tile (row, k) times B's tile (k, col).
    for (int k = 0; k < a.cols / 16; ++k) {
        rt_bf<16, 16> at;           // A's tile: row layout, an mma A operand
        rt_bf<16, 16, col_l> bt;    // B's tile: col layout, an mma B operand
        load(at, a, {0, 0, row, k});
        load(bt, b, {0, 0, k, col});
        // 4. acc = at * bt + acc on the tensor cores: two mma.sync.m16n8k16
        //    instructions (each makes a 16x8 half of the 16x16 output).
        mma_AB(acc, at, bt, acc);
    }

    // 5. Record the tile for the visualizer (`--snapshots`), then store it.
    snapshot(acc, "C tile");
    store(c, acc, {0, 0, row, col});
}

} // namespace lesson03::solution
