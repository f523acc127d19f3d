// Warp-scope reductions of a register tile to a register vector.
//
//   row_max(col_vec& dst, const rt& src)   dst[r] = max over c of src[r][c]
//   row_min, row_sum                        (one value per row)
//   col_max(row_vec& dst, const rt& src)   dst[c] = max over r of src[r][c]
//   col_min, col_sum                        (one value per column)
//   row_sum(dst, src, accum)                dst = accum + row_sum(src) (max/min: max/min(accum, ...))
//                                           -- the running max / running sum of online softmax.
//
// dst is the tile's matching vector: for rt<T, R, C, L>, typename rt::col_vec
// (length R) for row reductions, typename rt::row_vec (length C) for column
// reductions; its element type may differ from the tile's (e.g. a float sum of
// a bf16 tile). dst may be the accum vector.
//
// How: each lane first combines the elements it holds (all in float), then the
// lanes that hold other parts of the same row (or column) exchange partial
// results with shfl.xor, so every lane ends with the full result, replicated
// as the vector layout wants. In a 16x16 fragment the row of an element depends
// on g = lane/4 for a row-layout tile (the 4 lanes of a quad share a row: xor
// 1, 2) and on t = lane%4 for a col-layout tile (the 8 lanes with the same t
// share it: xor 4, 8, 16); for columns it is the other way round. The result
// is rounded once, at the end, to dst's type.
#pragma once
#include "tk/ops/warp/register/maps.h"

namespace tk {
namespace detail {

// In a 16x16 fragment of layout L, which slot of the per-row vector (PerRow)
// or per-column vector holds the row/column of pair k, element h. The same for
// every lane (checked below against rt_base::row_of/col_of and rv::index_of).
template <bool PerRow, typename L> TK_HOST_DEVICE constexpr int vec_slot(int k, int h) {
    if constexpr (PerRow) return L::is_row ? k % 2 : 2 * (k % 2) + h;
    else return L::is_row ? 2 * (k / 2) + h : k / 2;
}

// The vector layout that pairs with a tile of layout L along that axis.
template <bool PerRow, typename L>
using vec_layout_for = std::conditional_t<PerRow == L::is_row, vec_ortho, vec_align>;

template <bool PerRow, typename L> constexpr bool vec_slots_agree() {
    using V = rv<float, 16, vec_layout_for<PerRow, L>>;
    using B = rt_base<float, L>;
    TK_UNROLL
    for (int lane = 0; lane < 32; ++lane)
        TK_UNROLL
        for (int k = 0; k < 4; ++k)
            TK_UNROLL
            for (int h = 0; h < 2; ++h) {
                const int e = PerRow ? B::row_of(lane, k, h) : B::col_of(lane, k, h);
                if (V::index_of(lane, 0, vec_slot<PerRow, L>(k, h)) != e) return false;
            }
    return true;
}
static_assert(vec_slots_agree<true, row_l>() && vec_slots_agree<true, col_l>() && vec_slots_agree<false, row_l>() &&
                  vec_slots_agree<false, col_l>(),
              "tk internal: vec_slot disagrees with the rt fragment layout or the rv layout");

// The vector a reduction writes: one value per row (PerRow) or per column.
template <bool PerRow, typename V, typename RT>
inline constexpr bool is_axis_vec_v =
    is_rv_v<V> && is_rt_v<RT> && V::length == (PerRow ? RT::rows : RT::cols) &&
    std::is_same_v<typename V::layout, vec_layout_for<PerRow, typename RT::layout>>;

template <typename Op> TK_HOST_DEVICE float identity_of() {
    if constexpr (std::is_same_v<Op, op_max>) return neg_inf();
    else if constexpr (std::is_same_v<Op, op_min>) return pos_inf();
    else return 0.0f;
}

template <bool PerRow, typename Op, bool Accum, typename V, typename RT, typename A>
TK_DEVICE void reduce(V& dst, const RT& src, const A& accum, const src_loc& loc) {
    using L = typename RT::layout;
    using DT = typename V::dtype;
    constexpr bool ortho = std::is_same_v<vec_layout_for<PerRow, L>, vec_ortho>;
    constexpr int slots = V::per_chunk;
    constexpr int chunks = PerRow ? RT::height : RT::width;  // one chunk of 16 entries per tile row (col)
    constexpr int across = PerRow ? RT::width : RT::height;  // the 16x16 tiles each chunk reduces over
    const Op op{};
    arch::alu(alu_kind_of<Op>(), elements_per_lane<RT>(), loc);  // each lane's own elements (step 1 below)
    TK_UNROLL
    for (int c = 0; c < chunks; ++c) {
        float acc[slots];
        TK_UNROLL
        for (int s = 0; s < slots; ++s) acc[s] = identity_of<Op>();
        // 1. this lane's own elements
        TK_UNROLL
        for (int a = 0; a < across; ++a) {
            const auto& t = PerRow ? src.tiles[c][a] : src.tiles[a][c];
            TK_UNROLL
            for (int k = 0; k < 4; ++k) {
                acc[vec_slot<PerRow, L>(k, 0)] = op(acc[vec_slot<PerRow, L>(k, 0)], to_float(t.data[k].x));
                acc[vec_slot<PerRow, L>(k, 1)] = op(acc[vec_slot<PerRow, L>(k, 1)], to_float(t.data[k].y));
            }
        }
        // 2. the lanes sharing these rows/columns: a butterfly, so all of them end with the result
        TK_UNROLL
        for (int s = 0; s < slots; ++s) {
            if constexpr (ortho) {
                TK_UNROLL
                for (int m = 1; m <= 2; m *= 2)
                    acc[s] = op(acc[s], arch::u2f(arch::shfl_xor(0xffffffffu, arch::f2u(acc[s]), m, loc)));
            } else {
                TK_UNROLL
                for (int m = 4; m <= 16; m *= 2)
                    acc[s] = op(acc[s], arch::u2f(arch::shfl_xor(0xffffffffu, arch::f2u(acc[s]), m, loc)));
            }
        }
        // 3. round once
        TK_UNROLL
        for (int s = 0; s < slots; ++s) {
            if constexpr (Accum) dst.data[c][s] = round_to<DT>(op(to_float(accum.data[c][s]), acc[s]));
            else dst.data[c][s] = round_to<DT>(acc[s]);
        }
    }
}

} // namespace detail

#define TK_ROW_REDUCE_CHECKS(OP, V, RT)                                                                                 \
    static_assert(is_rt_v<RT>, OP ": src must be a register tile (tk::rt)");                                          \
    static_assert(::tk::detail::is_axis_vec_v<true, V, RT>,                                                             \
                  OP ": dst must be the tile's col_vec -- one value per row: length == the tile's rows, vec_ortho for a " \
                  "row-layout tile, vec_align for a col-layout tile (declare it as typename decltype(tile)::col_vec)")
#define TK_COL_REDUCE_CHECKS(OP, V, RT)                                                                                 \
    static_assert(is_rt_v<RT>, OP ": src must be a register tile (tk::rt)");                                          \
    static_assert(::tk::detail::is_axis_vec_v<false, V, RT>,                                                            \
                  OP ": dst must be the tile's row_vec -- one value per column: length == the tile's cols, vec_align "   \
                  "for a row-layout tile, vec_ortho for a col-layout tile (declare it as typename decltype(tile)::row_vec)")
#define TK_ACCUM_CHECKS(OP, V, A)                                                                                        \
    static_assert(is_rv_v<A> && ::tk::detail::same_dims_v<V, A> && ::tk::detail::same_layout_v<V, A>,                   \
                  OP ": accum must be a register vector of dst's length and layout")

// ---- one value per row --------------------------------------------------------------------

template <typename V, typename RT> requires is_rv_v<V>
TK_DEVICE void row_max(V& dst, const RT& src, TK_LOC) {
    TK_OP("row_max"); TK_ROW_REDUCE_CHECKS("tk::row_max", V, RT);
    detail::reduce<true, detail::op_max, false>(dst, src, dst, loc);
}
template <typename V, typename RT> requires is_rv_v<V>
TK_DEVICE void row_min(V& dst, const RT& src, TK_LOC) {
    TK_OP("row_min"); TK_ROW_REDUCE_CHECKS("tk::row_min", V, RT);
    detail::reduce<true, detail::op_min, false>(dst, src, dst, loc);
}
template <typename V, typename RT> requires is_rv_v<V>
TK_DEVICE void row_sum(V& dst, const RT& src, TK_LOC) {
    TK_OP("row_sum"); TK_ROW_REDUCE_CHECKS("tk::row_sum", V, RT);
    detail::reduce<true, detail::op_add, false>(dst, src, dst, loc);
}
// dst = max(accum, row_max(src)); and likewise for min and sum.
template <typename V, typename RT, typename A> requires is_rv_v<V>
TK_DEVICE void row_max(V& dst, const RT& src, const A& accum, TK_LOC) {
    TK_OP("row_max"); TK_ROW_REDUCE_CHECKS("tk::row_max", V, RT); TK_ACCUM_CHECKS("tk::row_max", V, A);
    detail::reduce<true, detail::op_max, true>(dst, src, accum, loc);
}
template <typename V, typename RT, typename A> requires is_rv_v<V>
TK_DEVICE void row_min(V& dst, const RT& src, const A& accum, TK_LOC) {
    TK_OP("row_min"); TK_ROW_REDUCE_CHECKS("tk::row_min", V, RT); TK_ACCUM_CHECKS("tk::row_min", V, A);
    detail::reduce<true, detail::op_min, true>(dst, src, accum, loc);
}
template <typename V, typename RT, typename A> requires is_rv_v<V>
TK_DEVICE void row_sum(V& dst, const RT& src, const A& accum, TK_LOC) {
    TK_OP("row_sum"); TK_ROW_REDUCE_CHECKS("tk::row_sum", V, RT); TK_ACCUM_CHECKS("tk::row_sum", V, A);
    detail::reduce<true, detail::op_add, true>(dst, src, accum, loc);
}

// ---- one value per column -----------------------------------------------------------------

template <typename V, typename RT> requires is_rv_v<V>
TK_DEVICE void col_max(V& dst, const RT& src, TK_LOC) {
    TK_OP("col_max"); TK_COL_REDUCE_CHECKS("tk::col_max", V, RT);
    detail::reduce<false, detail::op_max, false>(dst, src, dst, loc);
}
template <typename V, typename RT> requires is_rv_v<V>
TK_DEVICE void col_min(V& dst, const RT& src, TK_LOC) {
    TK_OP("col_min"); TK_COL_REDUCE_CHECKS("tk::col_min", V, RT);
    detail::reduce<false, detail::op_min, false>(dst, src, dst, loc);
}
template <typename V, typename RT> requires is_rv_v<V>
TK_DEVICE void col_sum(V& dst, const RT& src, TK_LOC) {
    TK_OP("col_sum"); TK_COL_REDUCE_CHECKS("tk::col_sum", V, RT);
    detail::reduce<false, detail::op_add, false>(dst, src, dst, loc);
}
template <typename V, typename RT, typename A> requires is_rv_v<V>
TK_DEVICE void col_max(V& dst, const RT& src, const A& accum, TK_LOC) {
    TK_OP("col_max"); TK_COL_REDUCE_CHECKS("tk::col_max", V, RT); TK_ACCUM_CHECKS("tk::col_max", V, A);
    detail::reduce<false, detail::op_max, true>(dst, src, accum, loc);
}
template <typename V, typename RT, typename A> requires is_rv_v<V>
TK_DEVICE void col_min(V& dst, const RT& src, const A& accum, TK_LOC) {
    TK_OP("col_min"); TK_COL_REDUCE_CHECKS("tk::col_min", V, RT); TK_ACCUM_CHECKS("tk::col_min", V, A);
    detail::reduce<false, detail::op_min, true>(dst, src, accum, loc);
}
template <typename V, typename RT, typename A> requires is_rv_v<V>
TK_DEVICE void col_sum(V& dst, const RT& src, const A& accum, TK_LOC) {
    TK_OP("col_sum"); TK_COL_REDUCE_CHECKS("tk::col_sum", V, RT); TK_ACCUM_CHECKS("tk::col_sum", V, A);
    detail::reduce<false, detail::op_add, true>(dst, src, accum, loc);
}

} // namespace tk
