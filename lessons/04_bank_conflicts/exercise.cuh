// Lesson 4, the exercise: OUT = X transposed, through a 32x32 tile in shared
// memory. As shipped it is right but slow: the column read is a 32-way bank
// conflict, and `tklab lesson check 4` misses its goal (no bank conflicts).
// Change the one line of HOLE 1 so that it meets it. Stuck? `tklab lesson hint 4`.
#pragma once
#include "tk/tk.h"

namespace lesson04::exercise {

using namespace tk;

// HOLE 1: where element (r, c) of the 32x32 tile lives in shared memory, in
// floats. Shared memory has 32 banks, each one 4-byte word wide: the float at
// index i is in bank i % 32. As given, a row is 32 floats, so all of column c
// is in bank c. Change this line (only this line) so that the 32 elements of
// a column are in 32 different banks. The block has room for 32 x 33 floats.
__device__ inline int at(int r, int c) { return r * 32 + c; }

__global__ void kernel(gl<float> x, gl<float> out) {
    // The tile, at the start of the block's dynamic shared memory, as a 32-bit
    // shared-window address in bytes (what ld/st.shared take).
    const uint32_t tile = arch::smem_addr(dynamic_shared_memory());
    const int tx = threadIdx.x, ty = threadIdx.y;  // 32 x 8 threads: warp ty, lane tx
    const int row0 = blockIdx.y * 32, col0 = blockIdx.x * 32;

    // Read this block's tile of X a row at a time into shared memory: warp ty
    // does rows ty, ty+8, ty+16 and ty+24, lane tx column tx.
    for (int r = ty; r < 32; r += 8) {
        uint32_t v[1];
        arch::ld_global<1>(v, x.ptr(0, 0, row0 + r, col0 + tx));
        arch::st_shared<1>(tile + 4 * at(r, tx), v);
    }

    // Below, each warp reads elements that the other warps stored: wait until
    // every warp of the block has stored its rows.
    __syncthreads();

    // Write the transpose: row r of OUT's tile is column r of the shared tile,
    // so lane tx loads element (tx, r): 32 lanes, 32 rows, one column.
    for (int r = ty; r < 32; r += 8) {
        uint32_t v[1];
        arch::ld_shared<1>(v, tile + 4 * at(tx, r));
        arch::st_global<1>(out.ptr(0, 0, col0 + r, row0 + tx), v);
    }
}

} // namespace lesson04::exercise
