// expect: half_padded.cuh:25: error: read of shared memory nothing wrote
// Known wrong: the padding is in the column read but not in the row write.
// The tile is written with rows 32 floats apart and read as if they were 33
// apart, so (tx, r) is read from where (tx, r + tx) was written, or from the
// next row, or from past the tile's 1024 written floats.
#pragma once
#include "tk/tk.h"

namespace lesson04::wrong_half_padded {

using namespace tk;

__global__ void kernel(gl<float> x, gl<float> out) {
    const uint32_t tile = arch::smem_addr(dynamic_shared_memory());
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row0 = blockIdx.y * 32, col0 = blockIdx.x * 32;
    for (int r = ty; r < 32; r += 8) {
        uint32_t v[1];
        arch::ld_global<1>(v, x.ptr(0, 0, row0 + r, col0 + tx));
        arch::st_shared<1>(tile + 4 * (r * 32 + tx), v);  // unpadded
    }
    __syncthreads();
    for (int r = ty; r < 32; r += 8) {
        uint32_t v[1];
        arch::ld_shared<1>(v, tile + 4 * (tx * 33 + r));  // padded
        arch::st_global<1>(out.ptr(0, 0, col0 + r, row0 + tx), v);
    }
}

} // namespace lesson04::wrong_half_padded
