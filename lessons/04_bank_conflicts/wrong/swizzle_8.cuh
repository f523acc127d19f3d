// expect: ld.shared: 3072 wavefronts where 768 would do (worst 4-way)
// Known wrong, though its output is right: the swizzle XORs the column with
// r % 8, as the 128-byte swizzle of bf16 GEMM tiles does with its 16-byte
// chunks, instead of with r. Element (r, c) is in bank c ^ (r % 8), so rows
// r, r + 8, r + 16 and r + 24 of a column share a bank: a 4-way conflict on
// every column read. Here a row is 32 words, so the XOR needs all 5 bits of
// r. It misses the lesson's goal.
#pragma once
#include "tk/tk.h"

namespace lesson04::wrong_swizzle_8 {

using namespace tk;

__device__ inline int at(int r, int c) { return r * 32 + (c ^ (r % 8)); }  // should be c ^ r

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

} // namespace lesson04::wrong_swizzle_8
