// Warp-scope matrix multiply-accumulate on register tiles, built from
// mma.sync m16n8k16 (bf16 or half in, fp32 accumulate).
//   mma_AB  : D = A   * B   + C   A: M x K row,  B: K x N col
//   mma_ABt : D = A   * B^T + C   A: M x K row,  B: N x K row
//   mma_AtB : D = A^T * B   + C   A: K x M col,  B: K x N col
//   mma_AtBt: D = A^T * B^T + C   A: K x M col,  B: N x K row
// D and C are fp32 row-layout M x N tiles (D may be C).
#pragma once
#include "tk/arch/mma.h"
#include "tk/types/register/rt.h"

namespace tk {
namespace detail {

template <bool ATrans, bool BTrans, typename D, typename A, typename B, typename C>
TK_DEVICE void mma_tiles(D& d, const A& a, const B& b, const C& c, const src_loc& loc) {
    static_assert(is_rt_v<D> && is_rt_v<A> && is_rt_v<B> && is_rt_v<C>, "tk::mma: all operands must be register tiles");
    using T = typename A::dtype;
    constexpr int M = ATrans ? A::cols : A::rows, K = ATrans ? A::rows : A::cols;
    constexpr int N = BTrans ? B::rows : B::cols, KB = BTrans ? B::cols : B::rows;
    constexpr bool inputs_16bit = std::is_same_v<T, bf16> || std::is_same_v<T, half>;
    constexpr bool inputs_same = std::is_same_v<typename B::dtype, T>;
    constexpr bool acc_float = std::is_same_v<typename D::dtype, float> && std::is_same_v<typename C::dtype, float>;
    constexpr bool acc_row = D::layout::is_row && C::layout::is_row;
    constexpr bool a_layout = A::layout::is_row != ATrans, b_layout = B::layout::is_row == BTrans;
    constexpr bool k_match = K == KB;
    constexpr bool out_shape = D::rows == M && D::cols == N && C::rows == M && C::cols == N;
    static_assert(inputs_16bit, "tk::mma: A and B must be tk::bf16 or tk::half tiles");
    static_assert(inputs_same, "tk::mma: A and B must have the same element type");
    static_assert(acc_float, "tk::mma: C and D must be float (fp32 accumulator) tiles");
    static_assert(acc_row, "tk::mma: C and D must be row-layout tiles");
    static_assert(a_layout, "tk::mma: A's layout is wrong -- mma_AB/mma_ABt take A as a row-layout M x K tile, mma_AtB/mma_AtBt as a col-layout K x M tile");
    static_assert(b_layout, "tk::mma: B's layout is wrong -- mma_AB/mma_AtB take B as a col-layout K x N tile, mma_ABt/mma_AtBt as a row-layout N x K tile");
    static_assert(k_match, "tk::mma: the inner (K) dimensions of A and B differ");
    static_assert(out_shape, "tk::mma: D and C must be M x N, matching A and B");
    // After a failed static_assert, compile nothing more: the student sees one message.
    if constexpr (inputs_16bit && inputs_same && acc_float && acc_row && a_layout && b_layout && k_match && out_shape) {
        constexpr int KT = K / 16, MT = M / 16, NT = N / 16;
        // Each 16x8 half of an output tile is a chain of KT dependent mma
        // (each adds into the last one's result). The chains are independent:
        // issuing k outermost puts MT x NT x 2 other mma between two links of
        // a chain, as ptxas schedules them, so the tensor pipe, not the chain's
        // latency, sets the pace when there are enough (the simulator keeps
        // the order it is given).
        float acc[MT][NT][2][4];
        TK_UNROLL
        for (int m = 0; m < MT; ++m)
            TK_UNROLL
            for (int n = 0; n < NT; ++n)
                TK_UNROLL
                for (int h = 0; h < 2; ++h) {
                    const auto& cin = c.tiles[m][n];
                    acc[m][n][h][0] = cin.data[2 * h].x; acc[m][n][h][1] = cin.data[2 * h].y;
                    acc[m][n][h][2] = cin.data[2 * h + 1].x; acc[m][n][h][3] = cin.data[2 * h + 1].y;
                }
        TK_UNROLL
        for (int k = 0; k < KT; ++k)
            TK_UNROLL
            for (int m = 0; m < MT; ++m)
                TK_UNROLL
                for (int n = 0; n < NT; ++n)
                    TK_UNROLL
                    for (int h = 0; h < 2; ++h) {  // the two 16x8 halves of a 16x16 output tile
                        const auto& at = ATrans ? a.tiles[k][m] : a.tiles[m][k];
                        const auto& bt = BTrans ? b.tiles[n][k] : b.tiles[k][n];
                        uint32_t ar[4];
                        if constexpr (!ATrans) { for (int i = 0; i < 4; ++i) ar[i] = pack_bits(at.data[i]); }
                        else { ar[0] = pack_bits(at.data[0]); ar[1] = pack_bits(at.data[2]); ar[2] = pack_bits(at.data[1]); ar[3] = pack_bits(at.data[3]); }
                        uint32_t br[2];
                        if constexpr (!BTrans) { br[0] = pack_bits(bt.data[2 * h]); br[1] = pack_bits(bt.data[2 * h + 1]); }
                        else { br[0] = pack_bits(bt.data[h]); br[1] = pack_bits(bt.data[h + 2]); }
                        arch::mma_m16n8k16<std::is_same_v<T, half>>(acc[m][n][h], ar, br, acc[m][n][h], loc, &at, &bt);
                    }
        TK_UNROLL
        for (int m = 0; m < MT; ++m)
            TK_UNROLL
            for (int n = 0; n < NT; ++n)
                TK_UNROLL
                for (int h = 0; h < 2; ++h) {
                    auto& dout = d.tiles[m][n];
                    dout.data[2 * h].x = acc[m][n][h][0]; dout.data[2 * h].y = acc[m][n][h][1];
                    dout.data[2 * h + 1].x = acc[m][n][h][2]; dout.data[2 * h + 1].y = acc[m][n][h][3];
                }
    }
}

} // namespace detail

template <typename D, typename A, typename B, typename C>
TK_DEVICE void mma_AB(D& d, const A& a, const B& b, const C& c, TK_LOC) { TK_OP("mma_AB"); detail::mma_tiles<false, false>(d, a, b, c, loc); }
template <typename D, typename A, typename B, typename C>
TK_DEVICE void mma_ABt(D& d, const A& a, const B& b, const C& c, TK_LOC) { TK_OP("mma_ABt"); detail::mma_tiles<false, true>(d, a, b, c, loc); }
template <typename D, typename A, typename B, typename C>
TK_DEVICE void mma_AtB(D& d, const A& a, const B& b, const C& c, TK_LOC) { TK_OP("mma_AtB"); detail::mma_tiles<true, false>(d, a, b, c, loc); }
template <typename D, typename A, typename B, typename C>
TK_DEVICE void mma_AtBt(D& d, const A& a, const B& b, const C& c, TK_LOC) { TK_OP("mma_AtBt"); detail::mma_tiles<true, true>(d, a, b, c, loc); }

} // namespace tk
