// The Hopper GEMM: C (bf16, M x N) = A (bf16, M x K) * B (bf16, K x N), fp32
// accumulation, all row-major. Written as a layout for tk's producer/consumer
// template (tk/templates/producer_consumer.h), readable top to bottom:
//
//   * a work item is one 128 x 256 tile of C; the grid is persistent, and
//     items are walked in bands of 16 row tiles so that the blocks running at
//     once share A and B tiles in L2;
//   * in the cluster layout (the default on the GPU), pairs of blocks take
//     vertically adjacent tiles and share B's: each loads half of it and
//     multicasts it to both, so a block reads 32 KiB of a 48 KiB stage from
//     L2, not all of it (in the simulator a cluster is one block);
//   * the producer warpgroup's one thread streams 128 x 64 tiles of A and
//     64 x 256 tiles of B into a 4-stage ring with bulk tensor copies;
//   * two consumer warpgroups each own 64 rows of the C tile: one wgmma group
//     (64 x 256 x 64: four m64n256k16) per stage, accumulating in registers
//     (128 floats per thread); a stage is released once the next is issued;
//   * the finished tile goes to global memory in bf16, either through shared
//     memory and bulk stores, 128 columns at a time through one 64 x 128 tile
//     per consumer (the stores run on while the next tile starts), or
//     straight from registers.
#pragma once
#include <stdexcept>
#include <string>
#include "tk/tk.h"
#include "tk/templates/producer_consumer.h"

namespace gemm_hopper {

constexpr int BM = 128, BN = 256, BK = 64, BAND = 16;

using a_tile = tk::st_bf<BM, BK>;   // 128-byte swizzle: K-major A for wgmma
using b_tile = tk::st_bf<BK, BN>;   // four 64-column blocks: N-major B
using c_tile = tk::st_bf<64, BN / 2>;  // half of one consumer warpgroup's part of the C tile
struct globals {
    tk::gl_tma<tk::bf16, a_tile> A;
    tk::gl_tma<tk::bf16, b_tile> B;
    tk::gl_tma<tk::bf16, c_tile> C;
};

template <bool BulkStore, int Cluster = 1>
struct layout_t {
    using globals = gemm_hopper::globals;
    // Blocks of a cluster take vertically adjacent tiles: they share B's tile,
    // each loading its part and multicasting it to all (A's they load alone).
    // On an H200 this took L2 throughput from 53% to 43% and ran 0-3% faster
    // (4096^3, 8192^3); clusters of 4 ran at 470 TFLOP/s, as not all 33 fit at once.
    static constexpr int cluster = tk::cluster_size<Cluster>;
    // 4 stages of 48 KiB keep the tensor cores fed; with 3, the consumers
    // waited for data in 48% of stall samples (CUPTI, H200, 4096^3).
    static constexpr int stages = 4, consumers = 2;
    static constexpr int producer_registers = 40, consumer_registers = 232;
    struct input_stage { a_tile a; b_tile b; };
    struct scratch { c_tile c[BulkStore ? consumers : 1]; };
    struct state { tk::rt_fl<16, BN> acc; };  // this warp's 16 rows of its warpgroup's 64

    static TK_HOST_DEVICE int row_tiles(const globals& g) { return g.C.rows / BM; }
    static TK_HOST_DEVICE int col_tiles(const globals& g) { return g.C.cols / BN; }
    static TK_HOST_DEVICE int work_items(const globals& g) { return row_tiles(g) / cluster * col_tiles(g); }
    static TK_DEVICE int iterations(const globals& g, int) { return g.A.cols / BK; }

    // Item -> (row tile, col tile): down a band of BAND row tiles, then
    // across; in clusters, the item is a column of `cluster` row tiles.
    static TK_DEVICE void tile_of(const globals& g, int item, int& row, int& col) {
        constexpr int band_items = BAND / cluster;
        const int rows = row_tiles(g) / cluster;
        const int per_band = band_items * col_tiles(g), band = item / per_band, in_band = item % per_band;
        const int band_rows = rows - band * band_items < band_items ? rows - band * band_items : band_items;
        row = (band * band_items + in_band % band_rows) * cluster + (cluster > 1 ? tk::cluster::rank() : 0);
        col = in_band / band_rows;
    }

    static TK_DEVICE void load(input_stage& s, tk::semaphore& full, const globals& g, int item, int k) {
        int row, col;
        tile_of(g, item, row, col);
        tk::tma::expect<a_tile, b_tile>(full);
        tk::tma::load_async(s.a, g.A, {0, 0, row, k}, full);
        if constexpr (cluster > 1)
            tk::tma::load_async_multicast(s.b, g.B, {0, 0, k, col}, full, uint16_t((1u << cluster) - 1), tk::cluster::rank(), cluster);
        else
            tk::tma::load_async(s.b, g.B, {0, 0, k, col}, full);
    }
    static TK_DEVICE void start(state& st, scratch&, const globals&, int, int) { tk::zero(st.acc); }
    // One wgmma group; the template waits for it a stage later.
    static TK_DEVICE void compute(state& st, input_stage& s, scratch&, const globals&, int, int, int c) {
        tk::warpgroup::mma_AB(st.acc, tk::subtile<64, BK>(s.a, c, 0), s.b);
    }
    static TK_DEVICE void finish(state& st, scratch& sc, const globals& g, int item, int c) {
        int row, col;
        tile_of(g, item, row, col);
        if constexpr (BulkStore) {
            const bool issuer = tk::warpgroup::laneid() == 0;
            for (int h = 0; h < 2; ++h) {  // columns [128h, 128h + 128) of the tile
                if (issuer) tk::tma::store_async_read_wait<0>();  // the last store has read sc.c[c]
                tk::warpgroup::sync(1 + c);
                tk::rt_fl<16, BN / 2> half;  // (a copy of registers: the compiler only renames them)
                for (int j = 0; j < half.width; ++j) half.tiles[0][j] = st.acc.tiles[0][h * half.width + j];
                tk::warpgroup::store(sc.c[c], half);
                tk::tma::store_fence();  // the copy engine must see these writes
                tk::warpgroup::sync(1 + c);
                if (issuer) {
                    tk::tma::store_async(g.C, sc.c[c], {0, 0, row * 2 + c, col * 2 + h});
                    tk::tma::store_commit_group();
                }
            }
        } else {
            // In 16-row units: this warp's 16 rows of its warpgroup's 64 of row tile `row`.
            tk::store(static_cast<const tk::gl<tk::bf16>&>(g.C), st.acc, {0, 0, row * (BM / 16) + c * 4 + tk::warpgroup::warpid(), col});
        }
    }
    // The last bulk store must be done before the block (and its shared memory) goes.
    static TK_DEVICE void drain(scratch&, const globals&, int) {
        if (BulkStore && tk::warpgroup::laneid() == 0) tk::tma::store_async_wait<0>();
    }
};

using layout = layout_t<true>;
using layout_direct = layout_t<false>;
using layout_cluster = layout_t<true, 2>;

// Whether a layout can compute this C: its clusters take whole columns of
// `cluster` row tiles (in the simulator, clusters are one block: always).
template <typename L>
bool fits(const globals& g) { return L::row_tiles(g) % L::cluster == 0; }

template <typename L = layout>
void run(const globals& g) {
    if (!fits<L>(g))
        throw std::invalid_argument("gemm_hopper: M = " + std::to_string(g.C.rows) + " is not a multiple of " + std::to_string(BM * L::cluster) +
                                    " rows, which this layout's clusters of " + std::to_string(L::cluster) +
                                    " blocks need; use gemm_hopper::layout (no clusters) for it");
    tk::producer_consumer::launch<L>("gemm_hopper", g);
}

} // namespace gemm_hopper
