// Lesson 6, the reference solution: C = A * B, 4 warps per 128x128 tile of C,
// each warp's 64x64 region computed as 32x32 warp tiles: big enough that each
// loaded A and B tile feeds two mma outputs, small enough that 5 blocks of
// 128 threads fit on an SM.
#pragma once
#include "tk/tk.h"

namespace lesson06::solution {

using namespace tk;

// One warp's 64x64 region of C, cut into WM x WN warp tiles (WM and WN divide
// 64). For each warp tile the warp keeps, in registers, the fp32 accumulator
// (WM x WN) and one k-step's operands: A's WM x 16 and B's 16 x WN.
template <int WM, int WN>
__global__ void gemm(gl<bf16> a, gl<bf16> b, gl<float> c) {
    static_assert(64 % WM == 0 && 64 % WN == 0, "a warp tile must divide the warp's 64x64 region");

    // 1. This warp's region: the block's 128x128 tile of C is split 2 x 2
    //    between its 4 warps; warp w takes rows 64*(w/2).., cols 64*(w%2)...
    const int w = warpid();
    const int row0 = blockIdx.y * 128 + (w / 2) * 64;  // in elements of C
    const int col0 = blockIdx.x * 128 + (w % 2) * 64;

    // 2. The region, one warp tile at a time. Tile coordinates count in
    //    tiles of the tile's own size: for a WM x WN tile, row tile r covers
    //    rows WM*r.., column tile c columns WN*c...
    for (int pm = 0; pm < 64 / WM; ++pm)
        for (int pn = 0; pn < 64 / WN; ++pn) {
            const int tr = row0 / WM + pm, tc = col0 / WN + pn;

            // 3. The accumulator: WM x WN floats over 32 lanes, WM*WN/32
            //    registers per thread (32 for 32x32). It lives through the
            //    whole K loop.
            rt_fl<WM, WN> acc;
            zero(acc);

            // 4. Walk K, 16 at a time: A's WM x 16 strip of this step (row
            //    layout) times B's 16 x WN strip (col layout). Each A tile
            //    loaded serves WN/16 output tiles, each B tile WM/16: the
            //    bigger the warp tile, the fewer loads per mma.
            for (int k = 0; k < a.cols / 16; ++k) {
                rt_bf<WM, 16> at;         // WM/4 registers per thread
                rt_bf<16, WN, col_l> bt;  // WN/4 registers per thread
                load(at, a, {0, 0, tr, k});
                load(bt, b, {0, 0, k, tc});
                mma_AB(acc, at, bt, acc);  // (WM/16) x (WN/16) x 2 mma.sync
            }

            // 5. Store the warp tile to C.
            store(c, acc, {0, 0, tr, tc});
        }
}

// The balanced choice: 32x32 warp tiles, 32 + 8 + 8 = 48 tile registers per
// thread (96 with the K loop's 24 load addresses and the simulator's base of
// 24), 5 blocks per SM. Measured in the simulator at 256 x 256 x 64 (the
// check's last size; `tklab run lesson06 --variant tile16|tile32|tile64`):
//
//   warp tile  tile registers  estimate  blocks/SM (limit)  slowest block, cycles
//   16x16       16              52        9 (registers)     25383  (misses <= 13500)
//   32x32       48              96        5 (registers)     13225
//   64x64      160             232        2 (registers)     9883  (misses >= 4 blocks)
inline constexpr auto kernel = gemm<32, 32>;

} // namespace lesson06::solution
