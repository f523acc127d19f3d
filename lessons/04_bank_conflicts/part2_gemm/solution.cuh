// Lesson 4, part 2, the reference solution: the GEMM through shared tiles
// swizzled with the 128-byte pattern, so that the 8 rows each ldmatrix phase
// reads are in 8 different groups of 4 banks.
#pragma once
#include "tk/tk.h"
#include "lessons/04_bank_conflicts/part2_gemm/problem.cuh"

namespace lesson04_gemm::solution {

using namespace tk;

// The kernel for any swizzle of A's and B's tiles (the known-wrong ones try
// the narrower swizzles, and swizzling only A).
template <int SwizzleA, int SwizzleB = SwizzleA>
__global__ void gemm(gl<bf16> a, gl<bf16> b, gl<float> c) {
    // The 64x64 shared tiles of A and B. swizzle::b128: a row is 128 bytes,
    // eight 16-byte chunks, and chunk j of row r is stored in slot j ^ (r % 8).
    using a_tile = st_bf<kBlock, kBlock, SwizzleA>;
    using b_tile = st_bf<kBlock, kBlock, SwizzleB>;
    shared_allocator al;
    a_tile& a_s = al.allocate<a_tile>();
    b_tile& b_s = al.allocate<b_tile>();

    const int warp_row = warpid() / 2, warp_col = warpid() % 2;  // this warp's 32x32 quarter of C's tile
    rt_fl<32, 32> acc;
    zero(acc);

    for (int k = 0; k < a.cols / kBlock; ++k) {
        // The 4 warps copy A's tile (blockIdx.y, k) and B's tile (k, blockIdx.x)
        // into shared memory, 16 bytes per thread per step.
        group<kWarps>::load(a_s, a, {0, 0, int(blockIdx.y), k});
        group<kWarps>::load(b_s, b, {0, 0, k, int(blockIdx.x)});
        __syncthreads();  // every warp's part of both tiles is in place

        // Each warp loads its 32 rows of A and 32 columns of B into registers
        // (ldmatrix; B with .trans, as mma wants it), then multiplies.
        rt_bf<32, kBlock> at;
        rt_bf<kBlock, 32, col_l> bt;
        load(at, subtile<32, kBlock>(a_s, warp_row, 0));
        load(bt, subtile<kBlock, 32>(b_s, 0, warp_col));
        mma_AB(acc, at, bt, acc);
        __syncthreads();  // nobody overwrites the tiles while another warp still reads them
    }
    store(c, acc, {0, 0, 2 * int(blockIdx.y) + warp_row, 2 * int(blockIdx.x) + warp_col});
}

inline constexpr auto kernel = gemm<swizzle::b128>;

} // namespace lesson04_gemm::solution
