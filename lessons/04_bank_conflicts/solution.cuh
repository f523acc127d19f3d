// Lesson 4, the reference solution: OUT = X transposed, through a 32x32 shared
// tile whose columns are swizzled so that no access has a bank conflict.
#pragma once
#include "tk/tk.h"

namespace lesson04::solution {

using namespace tk;

// Where element (r, c) of the 32x32 tile lives in shared memory, in floats.
// Shared memory has 32 banks, one 4-byte word wide: the float at index i is
// in bank i % 32. Row r is stored with its columns permuted by XOR with r
// (c ^ r is again 0..31, every column once), so column c of the 32 rows lands
// in 32 different banks, and a row still covers all 32.
__device__ inline int at(int r, int c) { return r * 32 + (c ^ r); }

__global__ void kernel(gl<float> x, gl<float> out) {
    // 1. This block's tile: rows 32*by.. and cols 32*bx.. of X. The tile lives
    //    at the start of the block's dynamic shared memory; ld/st.shared take
    //    its 32-bit shared-window address, in bytes.
    const uint32_t tile = arch::smem_addr(dynamic_shared_memory());
    const int tx = threadIdx.x, ty = threadIdx.y;  // 32 x 8 threads: warp ty, lane tx
    const int row0 = blockIdx.y * 32, col0 = blockIdx.x * 32;

    // 2. Read the tile a row at a time: warp ty reads rows ty, ty+8, ty+16,
    //    ty+24; lane tx takes column tx (32 neighbouring floats of X: one
    //    coalesced load) and stores it at (r, tx) of the tile.
    for (int r = ty; r < 32; r += 8) {
        uint32_t v[1];
        arch::ld_global<1>(v, x.ptr(0, 0, row0 + r, col0 + tx));
        arch::st_shared<1>(tile + 4 * at(r, tx), v);
    }

    // 3. Every warp reads rows that other warps wrote: wait until all have.
    __syncthreads();

    // 4. Write the transposed tile a row of OUT at a time: row r of OUT's tile
    //    is column r of the shared tile, so lane tx loads element (tx, r). Its
    //    32 lanes read 32 different rows of one column: the column read. With
    //    the swizzle they are in 32 different banks, one wavefront.
    for (int r = ty; r < 32; r += 8) {
        uint32_t v[1];
        arch::ld_shared<1>(v, tile + 4 * at(tx, r));
        arch::st_global<1>(out.ptr(0, 0, col0 + r, row0 + tx), v);  // OUT's tile: rows 32*bx.., cols 32*by..
    }
}

} // namespace lesson04::solution
