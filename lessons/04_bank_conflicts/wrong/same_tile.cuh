// expect: correctness: wrong at M=32 N=96: 3040 of 3072 elements differ
// Known wrong: the tile is transposed but written back to the same tile
// coordinates it came from (rows 32*by.., cols 32*bx.. of OUT) instead of the
// mirrored ones (rows 32*bx.., cols 32*by..). Right with one tile, and for the
// tiles on the diagonal of a square matrix; wrong everywhere else.
#pragma once
#include "tk/tk.h"

namespace lesson04::wrong_same_tile {

using namespace tk;

__device__ inline int at(int r, int c) { return r * 32 + (c ^ r); }

__global__ void kernel(gl<float> x, gl<float> out) {
    const uint32_t tile = arch::smem_addr(dynamic_shared_memory());
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row0 = blockIdx.y * 32, col0 = blockIdx.x * 32;
    for (int r = ty; r < 32; r += 8) {
        uint32_t v[1];
        arch::ld_global<1>(v, x.ptr(0, 0, row0 + r, col0 + tx));
        arch::st_shared<1>(tile + 4 * at(r, tx), v);
    }
    __syncthreads();
    for (int r = ty; r < 32; r += 8) {
        uint32_t v[1];
        arch::ld_shared<1>(v, tile + 4 * at(tx, r));
        arch::st_global<1>(out.ptr(0, 0, row0 + r, col0 + tx), v);  // should be (col0 + r, row0 + tx)
    }
}

} // namespace lesson04::wrong_same_tile
