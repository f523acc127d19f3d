// Warp-scope: shared tile <-> register tile.
// 16-bit tiles load with ldmatrix.x4 (with .trans for col layout), one per
// 16x16 sub-tile; lane l points at row (l%8) + 8*((l/8)%2), column 8*(l/16)
// of the sub-tile, which is where matrix l/8 of the fragment begins.
#pragma once
#include "tk/ops/warp/memory/element_io.h"
#include "tk/types/register/rt.h"
#include "tk/types/shared/st.h"
#include "tk/common/indices.h"

namespace tk {

template <typename RT, typename ST>
TK_DEVICE void load(RT& dst, const ST& src, TK_LOC) {
    static_assert(is_rt_v<RT> && is_shared_tile_v<ST>, "tk::load(register tile, shared tile): wrong argument types");
    static_assert(RT::rows == ST::rows && RT::cols == ST::cols, "tk::load: register and shared tiles must have the same shape");
    TK_OP("load");
    using T = typename RT::dtype;
    using M = typename ST::dtype;
    const int lane = laneid();
    const uint32_t base = arch::smem_addr(src.base(), loc);
    TK_UNROLL
    for (int i = 0; i < RT::height; ++i)
        TK_UNROLL
        for (int j = 0; j < RT::width; ++j) {
            auto& t = dst.tiles[i][j];
            if constexpr (std::is_same_v<T, M> && sizeof(T) == 2) {
                const int r = 16 * i + lane % 8 + 8 * ((lane / 8) % 2), c = 16 * j + 8 * (lane / 16);
                uint32_t regs[4];
                arch::ldmatrix<4, !RT::layout::is_row>(regs, base + src.offset(r, c), loc, base, &t);
                TK_UNROLL
                for (int k = 0; k < 4; ++k) t.data[k] = unpack_bits<typename RT::T2>(regs[k]);
            } else if constexpr (RT::layout::is_row) {
                TK_UNROLL
                for (int k = 0; k < 4; ++k) {
                    const int r = 16 * i + RT::base::row_of(lane, k, 0), c = 16 * j + RT::base::col_of(lane, k, 0);
                    detail::ld_shared_pair<T, M>(t.data[k].x, t.data[k].y, base + src.offset(r, c), loc);
                }
            } else {
                TK_UNROLL
                for (int k = 0; k < 4; ++k) {
                    t.data[k].x = detail::ld_shared_one<T, M>(base + src.offset(16 * i + RT::base::row_of(lane, k, 0), 16 * j + RT::base::col_of(lane, k, 0)), loc);
                    t.data[k].y = detail::ld_shared_one<T, M>(base + src.offset(16 * i + RT::base::row_of(lane, k, 1), 16 * j + RT::base::col_of(lane, k, 1)), loc);
                }
            }
        }
    detail::convert_loaded<T, M>(detail::elements_per_lane<RT>(), loc);
#if defined(TK_SIM)
    if constexpr (std::is_same_v<T, M> && sizeof(T) == 2) tklab::sim::reg_from_shared(&dst);  // ldmatrix: an mma operand
#endif
}

template <typename ST, typename RT>
TK_DEVICE void store(const ST& dst, const RT& src, TK_LOC) {
    static_assert(is_rt_v<RT> && is_shared_tile_v<ST>, "tk::store(shared tile, register tile): wrong argument types");
    static_assert(RT::rows == ST::rows && RT::cols == ST::cols, "tk::store: register and shared tiles must have the same shape");
    TK_OP("store");
    using T = typename RT::dtype;
    using M = typename ST::dtype;
    const int lane = laneid();
    const uint32_t base = arch::smem_addr(dst.base(), loc);
    TK_UNROLL
    for (int i = 0; i < RT::height; ++i)
        TK_UNROLL
        for (int j = 0; j < RT::width; ++j) {
            const auto& t = src.tiles[i][j];
            TK_UNROLL
            for (int k = 0; k < 4; ++k) {
                if constexpr (RT::layout::is_row) {
                    const int r = 16 * i + RT::base::row_of(lane, k, 0), c = 16 * j + RT::base::col_of(lane, k, 0);
                    detail::st_shared_pair<M, T>(base + dst.offset(r, c), t.data[k].x, t.data[k].y, loc);
                } else {
                    detail::st_shared_one<M, T>(base + dst.offset(16 * i + RT::base::row_of(lane, k, 0), 16 * j + RT::base::col_of(lane, k, 0)), t.data[k].x, loc);
                    detail::st_shared_one<M, T>(base + dst.offset(16 * i + RT::base::row_of(lane, k, 1), 16 * j + RT::base::col_of(lane, k, 1)), t.data[k].y, loc);
                }
            }
        }
}

} // namespace tk
