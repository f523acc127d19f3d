// Warp-scope layout and shape changes of register tiles.
//
//   swap_layout(rt<T,R,C,col_l>& dst, const rt<U,R,C,row_l>& src)   and the reverse:
//       the same matrix in the other fragment layout (e.g. to turn an mma
//       result into a B operand). Needs shuffles: 8 shfl.idx per 16x16 tile.
//   transpose(rt<T,C,R,L2>& dst, const rt<U,R,C,L>& src):  dst = src^T.
//       L2 != L: free -- a fragment read in the other layout already holds the
//                transpose of its 16x16 tile (row_of and col_of trade places),
//                so it is a relabelling of registers, no data moves.
//       L2 == L: the relabelling plus the exchange of swap_layout, in one pass
//                (8 shfl.idx per 16x16 tile).
// Element types may differ (converted once, as tk::copy does).
//
// The exchange. Write g = lane/4, t = lane%4. Take swap_layout from row to col
// layout: dst lane (g, t), pair k, half h holds element (r, c) = (2t + h +
// 8(k%2), g + 8(k/2)) of its 16x16 tile; in the row-layout src that element is
// held by lane 4*(r%8) + (c%8)/2 = 4*(2t + h) + g/2, in pair k, half c%2 = g%2.
// (From col to row layout the formula comes out the same; for a transpose in
// the same layout, only the src pair changes: transposed_pair(k).) A shuffle
// moves one 32-bit value per lane, and a sender does not know the g of the
// lane reading from it -- but it knows that lane's h: its own lane/4 is
// 2t + h. So in round (k, p) every lane sends half p ^ (lane/4 % 2) of its
// pair k and receives into half p ^ (g % 2): each of the 8 rounds delivers one
// useful value to every lane.
#pragma once
#include "tk/ops/warp/register/maps.h"

namespace tk {
namespace detail {

// Pair k of a 16x16 fragment holds, read in the other layout, the transpose
// of pair transposed_pair(k): pairs 1 and 2 trade places.
TK_HOST_DEVICE constexpr int transposed_pair(int k) { return k == 1 ? 2 : k == 2 ? 1 : k; }

template <bool Transpose, typename DB, typename SB>
TK_DEVICE void exchange_fragment(DB& d, const SB& s, int lane, const src_loc& loc) {
    using DT = typename DB::dtype;
    using ST = typename SB::dtype;
    const int g = lane / 4, t = lane % 4;
    TK_UNROLL
    for (int k = 0; k < 4; ++k) {
        const auto& sp = s.data[Transpose ? transposed_pair(k) : k];
        TK_UNROLL
        for (int p = 0; p < 2; ++p) {
            const int h = p ^ (g & 1);  // the half this lane sends, and the half it receives
            const uint32_t v = arch::shfl_idx(0xffffffffu, bits_of(h ? sp.y : sp.x), 4 * (2 * t + h) + g / 2, loc);
            const DT got = round_to<DT>(value_of<ST>(v));
            if (h) d.data[k].y = got;
            else d.data[k].x = got;
        }
    }
}

} // namespace detail

// The same matrix in the other layout (row_l <-> col_l).
template <typename Dst, typename Src> requires is_rt_v<Dst>
TK_DEVICE void swap_layout(Dst& dst, const Src& src, TK_LOC) {
    TK_OP("swap_layout");
    static_assert(is_rt_v<Src>, "tk::swap_layout: src must be a register tile (tk::rt)");
    static_assert(Dst::rows == Src::rows && Dst::cols == Src::cols, "tk::swap_layout: dst and src must have the same rows x cols");
    static_assert(!std::is_same_v<typename Dst::layout, typename Src::layout>,
                  "tk::swap_layout: dst must have the other layout than src (row_l <-> col_l); to keep the layout, use tk::copy");
    const int lane = laneid();
    TK_UNROLL
    for (int i = 0; i < Dst::height; ++i)
        TK_UNROLL
        for (int j = 0; j < Dst::width; ++j) detail::exchange_fragment<false>(dst.tiles[i][j], src.tiles[i][j], lane, loc);
}

// dst = src^T: dst is C x R for an R x C src, in either layout.
template <typename Dst, typename Src> requires is_rt_v<Dst>
TK_DEVICE void transpose(Dst& dst, const Src& src, TK_LOC) {
    TK_OP("transpose");
    static_assert(is_rt_v<Src>, "tk::transpose: src must be a register tile (tk::rt)");
    static_assert(Dst::rows == Src::cols && Dst::cols == Src::rows,
                  "tk::transpose: dst must be C x R for an R x C src (rt<T, C, R, L> from rt<T, R, C, L>)");
    using DT = typename Dst::dtype;
    if constexpr (!std::is_same_v<typename Dst::layout, typename Src::layout>) {
        // Relabel registers: no data moves between lanes.
        TK_UNROLL
        for (int i = 0; i < Src::height; ++i)
            TK_UNROLL
            for (int j = 0; j < Src::width; ++j)
                TK_UNROLL
                for (int k = 0; k < 4; ++k) {
                    const auto& s = src.tiles[i][j].data[detail::transposed_pair(k)];
                    dst.tiles[j][i].data[k].x = detail::round_to<DT>(s.x);
                    dst.tiles[j][i].data[k].y = detail::round_to<DT>(s.y);
                }
    } else {
        const int lane = laneid();
        if constexpr (std::is_same_v<Dst, Src>) {
            if (static_cast<const void*>(&dst) == static_cast<const void*>(&src)) {  // in place: work from a copy
                const Src tmp = src;
                TK_UNROLL
                for (int i = 0; i < Src::height; ++i)
                    TK_UNROLL
                    for (int j = 0; j < Src::width; ++j) detail::exchange_fragment<true>(dst.tiles[j][i], tmp.tiles[i][j], lane, loc);
                return;
            }
        }
        TK_UNROLL
        for (int i = 0; i < Src::height; ++i)
            TK_UNROLL
            for (int j = 0; j < Src::width; ++j) detail::exchange_fragment<true>(dst.tiles[j][i], src.tiles[i][j], lane, loc);
    }
}

} // namespace tk
