// Warp-scope broadcasts: combine a register tile with a register vector
// stretched along one axis.
//
//   add_row(dst, src, col_vec)   dst[r][c] = src[r][c] + vec[r]   (each ROW r gets vec[r])
//   sub_row, mul_row, div_row
//   add_col(dst, src, row_vec)   dst[r][c] = src[r][c] + vec[c]   (each COLUMN c gets vec[c])
//   sub_col, mul_col, div_col
//   row_map(dst, src, col_vec, f)   dst[r][c] = f(src[r][c], vec[r])   (f takes two floats)
//   col_map(dst, src, row_vec, f)   dst[r][c] = f(src[r][c], vec[c])
//   broadcast_row(dst, col_vec)  dst[r][c] = vec[r]
//   broadcast_col(dst, row_vec)  dst[r][c] = vec[c]
//
// The vector is the tile's col_vec (one value per row, length R) or row_vec
// (one per column, length C), in the layout that matches the tile's (see
// reductions.h): every lane already holds the entries for the rows/columns of
// its own elements, so no data moves between lanes. Element types may differ;
// each lane computes in float and rounds once to dst's type. dst may be src.
#pragma once
#include "tk/ops/warp/register/reductions.h"

namespace tk {
namespace detail {

// dst element = f(src element, vec entry of its row/column); without UseSrc, f(vec entry).
template <bool PerRow, bool UseSrc, typename Dst, typename Src, typename V, typename F>
TK_DEVICE void broadcast_zip(Dst& dst, const Src& src, const V& vec, F f) {
    using L = typename Dst::layout;
    using DT = typename Dst::dtype;
    TK_UNROLL
    for (int i = 0; i < Dst::height; ++i)
        TK_UNROLL
        for (int j = 0; j < Dst::width; ++j)
            TK_UNROLL
            for (int k = 0; k < 4; ++k) {
                const int c = PerRow ? i : j;
                const float v0 = to_float(vec.data[c][vec_slot<PerRow, L>(k, 0)]);
                const float v1 = to_float(vec.data[c][vec_slot<PerRow, L>(k, 1)]);
                auto& d = dst.tiles[i][j].data[k];
                if constexpr (UseSrc) {
                    const auto& s = src.tiles[i][j].data[k];
                    d.x = round_to<DT>(f(to_float(s.x), v0));
                    d.y = round_to<DT>(f(to_float(s.y), v1));
                } else {
                    d.x = round_to<DT>(f(v0));
                    d.y = round_to<DT>(f(v1));
                }
            }
    charge_alu<Dst>(alu_kind_of<F>());  // after f ran: its intrinsics are counted (tk/arch/alu.h)
}

} // namespace detail

#define TK_ROW_BROADCAST_CHECKS(OP, Dst, Src, V)                                                                            \
    static_assert(is_rt_v<Dst> && is_rt_v<Src>, OP ": dst and src must be register tiles (tk::rt)");                      \
    static_assert(::tk::detail::same_dims_v<Dst, Src> && ::tk::detail::same_layout_v<Dst, Src>,                            \
                  OP ": dst and src must have the same rows x cols and layout");                                          \
    static_assert(::tk::detail::is_axis_vec_v<true, V, Dst>,                                                                \
                  OP ": the vector must be the tile's col_vec -- one value per row: length == the tile's rows, vec_ortho " \
                  "for a row-layout tile, vec_align for a col-layout tile (tk::copy converts a vector's layout)")
#define TK_COL_BROADCAST_CHECKS(OP, Dst, Src, V)                                                                            \
    static_assert(is_rt_v<Dst> && is_rt_v<Src>, OP ": dst and src must be register tiles (tk::rt)");                      \
    static_assert(::tk::detail::same_dims_v<Dst, Src> && ::tk::detail::same_layout_v<Dst, Src>,                            \
                  OP ": dst and src must have the same rows x cols and layout");                                          \
    static_assert(::tk::detail::is_axis_vec_v<false, V, Dst>,                                                               \
                  OP ": the vector must be the tile's row_vec -- one value per column: length == the tile's cols, "        \
                  "vec_align for a row-layout tile, vec_ortho for a col-layout tile (tk::copy converts a vector's layout)")

// ---- each row r combined with vec[r] ----------------------------------------------------------

template <typename Dst, typename Src, typename V, typename F> requires is_rt_v<Dst>
TK_DEVICE void row_map(Dst& dst, const Src& src, const V& vec, F f, TK_LOC) {
    TK_OP("row_map"); TK_ROW_BROADCAST_CHECKS("tk::row_map", Dst, Src, V);
    detail::broadcast_zip<true, true>(dst, src, vec, f);
}
template <typename Dst, typename Src, typename V> requires is_rt_v<Dst>
TK_DEVICE void add_row(Dst& dst, const Src& src, const V& vec, TK_LOC) {
    TK_OP("add_row"); TK_ROW_BROADCAST_CHECKS("tk::add_row", Dst, Src, V);
    detail::broadcast_zip<true, true>(dst, src, vec, detail::op_add{});
}
template <typename Dst, typename Src, typename V> requires is_rt_v<Dst>
TK_DEVICE void sub_row(Dst& dst, const Src& src, const V& vec, TK_LOC) {
    TK_OP("sub_row"); TK_ROW_BROADCAST_CHECKS("tk::sub_row", Dst, Src, V);
    detail::broadcast_zip<true, true>(dst, src, vec, detail::op_sub{});
}
template <typename Dst, typename Src, typename V> requires is_rt_v<Dst>
TK_DEVICE void mul_row(Dst& dst, const Src& src, const V& vec, TK_LOC) {
    TK_OP("mul_row"); TK_ROW_BROADCAST_CHECKS("tk::mul_row", Dst, Src, V);
    detail::broadcast_zip<true, true>(dst, src, vec, detail::op_mul{});
}
template <typename Dst, typename Src, typename V> requires is_rt_v<Dst>
TK_DEVICE void div_row(Dst& dst, const Src& src, const V& vec, TK_LOC) {
    TK_OP("div_row"); TK_ROW_BROADCAST_CHECKS("tk::div_row", Dst, Src, V);
    detail::broadcast_zip<true, true>(dst, src, vec, detail::op_div{});
}
template <typename Dst, typename V> requires is_rt_v<Dst>
TK_DEVICE void broadcast_row(Dst& dst, const V& vec, TK_LOC) {
    TK_OP("broadcast_row"); TK_ROW_BROADCAST_CHECKS("tk::broadcast_row", Dst, Dst, V);
    detail::broadcast_zip<true, false>(dst, dst, vec, [](float v) { return v; });
}

// ---- each column c combined with vec[c] -------------------------------------------------------

template <typename Dst, typename Src, typename V, typename F> requires is_rt_v<Dst>
TK_DEVICE void col_map(Dst& dst, const Src& src, const V& vec, F f, TK_LOC) {
    TK_OP("col_map"); TK_COL_BROADCAST_CHECKS("tk::col_map", Dst, Src, V);
    detail::broadcast_zip<false, true>(dst, src, vec, f);
}
template <typename Dst, typename Src, typename V> requires is_rt_v<Dst>
TK_DEVICE void add_col(Dst& dst, const Src& src, const V& vec, TK_LOC) {
    TK_OP("add_col"); TK_COL_BROADCAST_CHECKS("tk::add_col", Dst, Src, V);
    detail::broadcast_zip<false, true>(dst, src, vec, detail::op_add{});
}
template <typename Dst, typename Src, typename V> requires is_rt_v<Dst>
TK_DEVICE void sub_col(Dst& dst, const Src& src, const V& vec, TK_LOC) {
    TK_OP("sub_col"); TK_COL_BROADCAST_CHECKS("tk::sub_col", Dst, Src, V);
    detail::broadcast_zip<false, true>(dst, src, vec, detail::op_sub{});
}
template <typename Dst, typename Src, typename V> requires is_rt_v<Dst>
TK_DEVICE void mul_col(Dst& dst, const Src& src, const V& vec, TK_LOC) {
    TK_OP("mul_col"); TK_COL_BROADCAST_CHECKS("tk::mul_col", Dst, Src, V);
    detail::broadcast_zip<false, true>(dst, src, vec, detail::op_mul{});
}
template <typename Dst, typename Src, typename V> requires is_rt_v<Dst>
TK_DEVICE void div_col(Dst& dst, const Src& src, const V& vec, TK_LOC) {
    TK_OP("div_col"); TK_COL_BROADCAST_CHECKS("tk::div_col", Dst, Src, V);
    detail::broadcast_zip<false, true>(dst, src, vec, detail::op_div{});
}
template <typename Dst, typename V> requires is_rt_v<Dst>
TK_DEVICE void broadcast_col(Dst& dst, const V& vec, TK_LOC) {
    TK_OP("broadcast_col"); TK_COL_BROADCAST_CHECKS("tk::broadcast_col", Dst, Dst, V);
    detail::broadcast_zip<false, false>(dst, dst, vec, [](float v) { return v; });
}

} // namespace tk
