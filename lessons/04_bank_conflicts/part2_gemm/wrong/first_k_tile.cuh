// expect: correctness: wrong at K=128 M=64 N=128
// Known wrong (lesson 4, part 2): every k-step loads A's and B's first tiles
// along K. Right with one k-step (K = 64), wrong from two on.
#pragma once
#include "tk/tk.h"
#include "lessons/04_bank_conflicts/part2_gemm/problem.cuh"

namespace lesson04_gemm::wrong_first_k_tile {

using namespace tk;

__global__ void kernel(gl<bf16> a, gl<bf16> b, gl<float> c) {
    using tile = st_bf<kBlock, kBlock, swizzle::b128>;
    shared_allocator al;
    tile& a_s = al.allocate<tile>();
    tile& b_s = al.allocate<tile>();
    const int warp_row = warpid() / 2, warp_col = warpid() % 2;
    rt_fl<32, 32> acc;
    zero(acc);
    for (int k = 0; k < a.cols / kBlock; ++k) {
        group<kWarps>::load(a_s, a, {0, 0, int(blockIdx.y), 0});  // wrong: k, not 0
        group<kWarps>::load(b_s, b, {0, 0, 0, int(blockIdx.x)});  // wrong: k, not 0
        __syncthreads();
        rt_bf<32, kBlock> at;
        rt_bf<kBlock, 32, col_l> bt;
        load(at, subtile<32, kBlock>(a_s, warp_row, 0));
        load(bt, subtile<kBlock, 32>(b_s, 0, warp_col));
        mma_AB(acc, at, bt, acc);
        __syncthreads();
    }
    store(c, acc, {0, 0, 2 * int(blockIdx.y) + warp_row, 2 * int(blockIdx.x) + warp_col});
}

} // namespace lesson04_gemm::wrong_first_k_tile
