// Warp-scope: global tensor <-> register tile, at a tile coordinate.
#pragma once
#include "tk/ops/warp/memory/element_io.h"
#include "tk/types/register/rt.h"
#include "tk/types/global/gl.h"
#include "tk/common/check.h"
#include "tk/common/indices.h"

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
    for (int i = 0; i < RT::height; ++i)
        for (int j = 0; j < RT::width; ++j)
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
}

template <typename RT, typename T>
TK_DEVICE void store(const gl<T>& dst, const RT& src, coord at, TK_LOC) {
    static_assert(is_rt_v<RT>, "tk::store(global layout, register tile, coord): the source must be a register tile");
    TK_OP("store");
    detail::check_tile_in_bounds<RT>(dst, at, loc);
    using R = typename RT::dtype;
    const int lane = laneid();
    for (int i = 0; i < RT::height; ++i)
        for (int j = 0; j < RT::width; ++j)
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

} // namespace tk
