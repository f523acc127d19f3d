// Lesson 4, the other accepted fix: pad each row of the shared tile to 33
// floats. Run it with `tklab run lesson04 --variant padded`.
#pragma once
#include "tk/tk.h"

namespace lesson04::padded {

using namespace tk;

// Rows 33 floats apart: element (r, c) is in bank (r + c) % 32, so a column's
// 32 rows are in 32 different banks. One unused float per row (4224 bytes
// where 4096 would hold the tile).
__device__ inline int at(int r, int c) { return r * 33 + c; }

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
        arch::st_global<1>(out.ptr(0, 0, col0 + r, row0 + tx), v);
    }
}

} // namespace lesson04::padded
