// expect: ld.shared: 24576 wavefronts where 768 would do (worst 32-way)
// Known wrong, though its output is right: the exercise as shipped, with the
// tile left unpadded. Rows are 32 floats, so column c of the tile is all
// in bank c: the column read (lane tx loads element (tx, r)) is a 32-way bank
// conflict, 32 wavefronts where 1 would do. It misses the lesson's goal.
// `tklab run lesson04 --variant unpadded` runs it.
#pragma once
#include "tk/tk.h"

namespace lesson04::wrong_conflicts {

using namespace tk;

__device__ inline int at(int r, int c) { return r * 32 + c; }  // no padding, no swizzle

__global__ void kernel(gl<float> x, gl<float> out) {
    const uint32_t tile = arch::smem_addr(dynamic_shared_memory());
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row0 = blockIdx.y * 32, col0 = blockIdx.x * 32;
    for (int r = ty; r < 32; r += 8) {
        uint32_t v[1];
        arch::ld_global<1>(v, x.ptr(0, 0, row0 + r, col0 + tx));
        arch::st_shared<1>(tile + 4 * at(r, tx), v);  // a row: banks 0..31, no conflict
    }
    __syncthreads();
    for (int r = ty; r < 32; r += 8) {
        uint32_t v[1];
        arch::ld_shared<1>(v, tile + 4 * at(tx, r));  // a column: all 32 lanes in bank r
        arch::st_global<1>(out.ptr(0, 0, col0 + r, row0 + tx), v);
    }
}

} // namespace lesson04::wrong_conflicts
