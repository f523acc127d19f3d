// Warp-scope causal mask on a register tile (attention scores).
//
//   make_causal(dst, src)                  dst[r][c] = c > r ? -inf : src[r][c]
//   make_causal(dst, src, fill)            ... fill instead of -inf
//   make_causal(dst, src, row_tile, col_tile[, fill])
//       the tile is tile (row_tile, col_tile) of a larger matrix, counted in
//       tiles as tk::coord counts them: its element (r, c) is element
//       (row_tile*R + r, col_tile*C + c) of the matrix, and the mask compares
//       those. So for a Q block i against a K block j of the same size, pass
//       (i, j): blocks below the diagonal pass through unchanged, blocks above
//       it are all fill.
//
// Strictly above the diagonal (col > row) is masked; the diagonal is kept.
// Element types may differ (converted once, as tk::copy does). dst may be src.
#pragma once
#include "tk/ops/warp/register/maps.h"

namespace tk {
namespace detail {

template <typename Dst, typename Src>
TK_DEVICE void causal_zip(Dst& dst, const Src& src, int row0, int col0, float fill) {
    using DT = typename Dst::dtype;
    using B = typename Src::base;
    const int lane = laneid();
    const DT f = round_to<DT>(fill);
    TK_UNROLL
    for (int i = 0; i < Dst::height; ++i)
        TK_UNROLL
        for (int j = 0; j < Dst::width; ++j)
            TK_UNROLL
            for (int k = 0; k < 4; ++k) {
                const auto& s = src.tiles[i][j].data[k];
                auto& d = dst.tiles[i][j].data[k];
                const int r0 = row0 + 16 * i + B::row_of(lane, k, 0), c0 = col0 + 16 * j + B::col_of(lane, k, 0);
                const int r1 = row0 + 16 * i + B::row_of(lane, k, 1), c1 = col0 + 16 * j + B::col_of(lane, k, 1);
                d.x = c0 > r0 ? f : round_to<DT>(s.x);
                d.y = c1 > r1 ? f : round_to<DT>(s.y);
            }
}

} // namespace detail

#define TK_CAUSAL_CHECKS(Dst, Src)                                                                         \
    static_assert(is_rt_v<Src>, "tk::make_causal: src must be a register tile (tk::rt)");                 \
    static_assert(::tk::detail::same_dims_v<Dst, Src> && ::tk::detail::same_layout_v<Dst, Src>,            \
                  "tk::make_causal: dst and src must have the same rows x cols and layout")

template <typename Dst, typename Src> requires is_rt_v<Dst>
TK_DEVICE void make_causal(Dst& dst, const Src& src, float fill = detail::neg_inf(), TK_LOC) {
    TK_OP("make_causal");
    TK_CAUSAL_CHECKS(Dst, Src);
    detail::causal_zip(dst, src, 0, 0, fill);
}

template <typename Dst, typename Src> requires is_rt_v<Dst>
TK_DEVICE void make_causal(Dst& dst, const Src& src, int row_tile, int col_tile, float fill = detail::neg_inf(), TK_LOC) {
    TK_OP("make_causal");
    TK_CAUSAL_CHECKS(Dst, Src);
    detail::causal_zip(dst, src, row_tile * Dst::rows, col_tile * Dst::cols, fill);
}

} // namespace tk
