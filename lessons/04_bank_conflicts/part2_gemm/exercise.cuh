// Lesson 4, part 2, the exercise: C = A * B through 64x64 shared tiles, loaded
// into registers with ldmatrix. As shipped it is right but every ldmatrix is
// an 8-way bank conflict, and `tklab lesson check 4` misses its goal (no bank
// conflicts). Change the one line of HOLE 1. Stuck? `tklab lesson hint 4`.
#pragma once
#include "tk/tk.h"
#include "lessons/04_bank_conflicts/part2_gemm/problem.cuh"

namespace lesson04_gemm::exercise {

using namespace tk;

// HOLE 1: the shared tiles' layout. A row of a 64-wide bf16 tile is 128
// bytes: 32 banks exactly, so row r starts in bank 0 for every r. ldmatrix
// has 8 lanes at a time each read one 16-byte piece (4 banks) of 8 different
// rows, the same piece of each: with swizzle::none all 8 are in the same 4
// banks. tk's shared tiles offer the hardware's swizzles, swizzle::b32, b64
// and b128 (see tk/types/shared/st.h); pick the one that removes every conflict.
using tile = st_bf<kBlock, kBlock, swizzle::none>;

__global__ void kernel(gl<bf16> a, gl<bf16> b, gl<float> c) {
    shared_allocator al;
    tile& a_s = al.allocate<tile>();
    tile& b_s = al.allocate<tile>();

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

} // namespace lesson04_gemm::exercise
