// Warp-scope: global tensor <-> register tile, at a tile coordinate.
#pragma once
#include "tk/ops/warp/memory/element_io.h"
#include "tk/types/register/rt.h"
#include "tk/types/global/gl.h"
#include "tk/common/check.h"
#include "tk/common/indices.h"
#include "tk/arch/atomic.h"

namespace tk {

namespace detail {
template <typename Tile, typename G>
TK_DEVICE void check_tile_in_bounds(const G& g, coord at, const src_loc& loc) {
    TK_CHECK(at.b >= 0 && at.b < g.batch && at.d >= 0 && at.d < g.depth && at.r >= 0 && at.c >= 0 &&
                 (at.r + 1) * Tile::rows <= g.rows && (at.c + 1) * Tile::cols <= g.cols,
             "tile coordinate is outside the global tensor",
             "the coordinate counts in tiles: row tile r covers rows r*TileRows..(r+1)*TileRows-1; keep it inside the tensor's dimensions");
    (void)g; (void)at; (void)loc;
}
} // namespace detail

template <typename RT, typename T>
TK_DEVICE void load(RT& dst, const gl<T>& src, coord at, TK_LOC) {
    static_assert(is_rt_v<RT>, "tk::load(register tile, global layout, coord): the destination must be a register tile");
    TK_OP("load");
    detail::check_tile_in_bounds<RT>(src, at, loc);
    using R = typename RT::dtype;
    const int lane = laneid();
    TK_UNROLL
    for (int i = 0; i < RT::height; ++i)
        TK_UNROLL
        for (int j = 0; j < RT::width; ++j)
            TK_UNROLL
            for (int k = 0; k < 4; ++k) {
                auto& p = dst.tiles[i][j].data[k];
                const int r = at.r * RT::rows + 16 * i, c = at.c * RT::cols + 16 * j;
                if constexpr (RT::layout::is_row) {
                    detail::ld_global_pair<R, T>(p.x, p.y, src.ptr(at.b, at.d, r + RT::base::row_of(lane, k, 0), c + RT::base::col_of(lane, k, 0)), loc);
                } else {
                    p.x = detail::ld_global_one<R, T>(src.ptr(at.b, at.d, r + RT::base::row_of(lane, k, 0), c + RT::base::col_of(lane, k, 0)), loc);
                    p.y = detail::ld_global_one<R, T>(src.ptr(at.b, at.d, r + RT::base::row_of(lane, k, 1), c + RT::base::col_of(lane, k, 1)), loc);
                }
            }
    detail::convert_loaded<R, T>(detail::elements_per_lane<RT>(), loc);
}

namespace detail {

// 2-byte elements from a row-layout tile with an even number of 16-column
// tiles can leave in 16-byte stores: in a 16x16 fragment the 4 lanes of a quad
// each hold 2 of every 8 consecutive elements of a row, so the quad swaps them
// (a 4x4 transpose of 32-bit words) until each lane holds 8 consecutive ones.
// A warp's store then writes 64 contiguous bytes in each of 8 rows instead of
// 16: 4x fewer store instructions and memory transactions for 2 shuffles per
// word. (H100: attention's epilogue, 32 KiB per block, took 2000-3300 cycles
// per work item in narrow stores; wide, attention at N = 1024 runs 4-10% faster.)
template <typename T, typename RT>
inline constexpr bool quad_wide_store = sizeof(T) == 2 && is_rt_v<RT> && RT::layout::is_row && RT::width % 2 == 0;

// Lane t of each quad holds x[i] = word t of 8-element run i; afterwards it
// holds word i of run t. Two butterfly steps (xor 1, then xor 2): in each, a
// lane keeps the words whose index bit matches its own lane bit and trades
// the other two with its partner.
TK_DEVICE void quad_transpose(uint32_t (&x)[4], int lane, const src_loc& loc) {
    TK_UNROLL
    for (int m = 1; m <= 2; m *= 2) {
        const bool high = (lane & m) != 0;
        const int lo0 = 0, lo1 = m == 1 ? 2 : 1;  // the two indices with bit m clear
        const uint32_t send0 = high ? x[lo0] : x[lo0 | m], send1 = high ? x[lo1] : x[lo1 | m];
        const uint32_t got0 = arch::shfl_xor(0xffffffffu, send0, m, loc), got1 = arch::shfl_xor(0xffffffffu, send1, m, loc);
        if (high) { x[lo0] = got0; x[lo1] = got1; }
        else { x[lo0 | m] = got0; x[lo1 | m] = got1; }
    }
}

template <typename RT, typename T>
TK_DEVICE void store_quad_wide(const gl<T>& dst, const RT& src, coord at, const src_loc& loc) {
    const int lane = laneid(), run = lane % 4;
    TK_UNROLL
    for (int i = 0; i < RT::height; ++i)
        TK_UNROLL
        for (int j = 0; j < RT::width; j += 2)
            TK_UNROLL
            for (int h = 0; h < 2; ++h) {  // rows lane/4, then lane/4 + 8, of the tile row
                // Runs 0-3: columns 0-7 and 8-15 of tile j, then of tile j + 1.
                uint32_t x[4];
                TK_UNROLL
                for (int q = 0; q < 4; ++q) {
                    const auto& p = src.tiles[i][j + q / 2].data[2 * (q % 2) + h];
                    x[q] = packed_pair<T>(p.x, p.y);
                }
                quad_transpose(x, lane, loc);
                const int r = at.r * RT::rows + 16 * i + lane / 4 + 8 * h, c = at.c * RT::cols + 16 * j + 8 * run;
                arch::st_global<4>(dst.ptr(at.b, at.d, r, c), x, loc);
            }
}

} // namespace detail

template <typename RT, typename T>
TK_DEVICE void store(const gl<T>& dst, const RT& src, coord at, TK_LOC) {
    static_assert(is_rt_v<RT>, "tk::store(global layout, register tile, coord): the source must be a register tile");
    TK_OP("store");
    detail::check_tile_in_bounds<RT>(dst, at, loc);
    if constexpr (detail::quad_wide_store<T, RT>) {
        // 16-byte stores need 16-byte aligned rows; other tensors take the narrow path below.
        if (dst.cols % 8 == 0 && reinterpret_cast<uintptr_t>(dst.raw) % 16 == 0) {
            detail::store_quad_wide(dst, src, at, loc);
            return;
        }
    }
    using R = typename RT::dtype;
    const int lane = laneid();
    TK_UNROLL
    for (int i = 0; i < RT::height; ++i)
        TK_UNROLL
        for (int j = 0; j < RT::width; ++j)
            TK_UNROLL
            for (int k = 0; k < 4; ++k) {
                const auto& p = src.tiles[i][j].data[k];
                const int r = at.r * RT::rows + 16 * i, c = at.c * RT::cols + 16 * j;
                if constexpr (RT::layout::is_row) {
                    detail::st_global_pair<T, R>(dst.ptr(at.b, at.d, r + RT::base::row_of(lane, k, 0), c + RT::base::col_of(lane, k, 0)), p.x, p.y, loc);
                } else {
                    detail::st_global_one<T, R>(dst.ptr(at.b, at.d, r + RT::base::row_of(lane, k, 0), c + RT::base::col_of(lane, k, 0)), p.x, loc);
                    detail::st_global_one<T, R>(dst.ptr(at.b, at.d, r + RT::base::row_of(lane, k, 1), c + RT::base::col_of(lane, k, 1)), p.y, loc);
                }
            }
}

// dst[tile at] += src, element by element, with red.global.add.f32: many
// warps (split-K's partial sums, one per slice of K) may add into the same
// tile at once. The destination must hold float and be written before (zeros,
// or the first partial stored); the order of the adds is the GPU's, so sums
// may differ from a fixed-order sum in their last bits.
template <typename RT>
TK_DEVICE void atomic_add(const gl<float>& dst, const RT& src, coord at, TK_LOC) {
    static_assert(is_rt_v<RT>, "tk::atomic_add(global layout, register tile, coord): the source must be a register tile");
    static_assert(std::is_same_v<typename RT::dtype, float>,
                  "tk::atomic_add(global layout, register tile, coord): the tile must hold float (red.global.add.f32); "
                  "accumulate in a float tile, as tk::mma does");
    TK_OP("atomic_add");
    detail::check_tile_in_bounds<RT>(dst, at, loc);
    const int lane = laneid();
    TK_UNROLL
    for (int i = 0; i < RT::height; ++i)
        TK_UNROLL
        for (int j = 0; j < RT::width; ++j)
            TK_UNROLL
            for (int k = 0; k < 4; ++k) {
                const auto& p = src.tiles[i][j].data[k];
                const int r = at.r * RT::rows + 16 * i, c = at.c * RT::cols + 16 * j;
                arch::red_global<arch::atomic_op::add>(dst.ptr(at.b, at.d, r + RT::base::row_of(lane, k, 0), c + RT::base::col_of(lane, k, 0)), p.x, loc);
                arch::red_global<arch::atomic_op::add>(dst.ptr(at.b, at.d, r + RT::base::row_of(lane, k, 1), c + RT::base::col_of(lane, k, 1)), p.y, loc);
            }
}

} // namespace tk
