// Warp rows: one row of N values spread over a warp's 32 lanes in 16-byte
// pieces, for memory-bound row kernels (layernorm, softmax over long rows, ...).
//
//   warp_row<T, N>   T = float, bf16 or half; N a multiple of 256. Lane l holds
//                    piece p (p = 0 .. N/256-1): columns 256p + 8l .. 256p + 8l + 7.
//                    So piece p of all 32 lanes is 256 adjacent columns: one
//                    ld/st.global.v4 warp instruction moves 512 contiguous bytes
//                    of a 16-bit row.
//
//   load(dst, const gl<U>& src, coord)    global row -> registers (U = bf16 or half),
//   store(const gl<U>& dst, src, coord)   one 16-byte access per lane and piece; the
//                                         element type converts once on the way
//   map(dst, f, a[, b[, c]])              dst = f(a, b, c) element by element: f takes
//                                         floats; the result rounds once to dst's type
//   sum(row) / sum(row, f)                the sum over all N values (of f(value)), in
//                                         float, in every lane: a shfl.xor butterfly
//
// In global memory a row lies along the last dimension, as a register vector's
// does (vectors.h): coord {b, d, r, c} is row r of (batch b, depth d), columns
// c*N .. c*N+N-1. Unlike tk::rv, whose layouts match the mma fragments, a
// warp_row's layout is chosen for the widest coalesced accesses; it does not
// combine with tiles.
#pragma once
#include "tk/arch/alu.h"
#include "tk/arch/arch.h"
#include "tk/common/check.h"
#include "tk/common/dtypes.h"
#include "tk/common/indices.h"
#include "tk/ops/warp/memory/piece_io.h"
#include "tk/types/global/gl.h"

namespace tk {

template <typename T, int N>
struct warp_row {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, bf16> || std::is_same_v<T, half>,
                  "tk::warp_row<T, N>: T must be float, tk::bf16 or tk::half");
    static_assert(N > 0 && N % 256 == 0,
                  "tk::warp_row<T, N>: N must be a positive multiple of 256 (32 lanes x 8-element pieces)");
    using dtype = T;
    using T2 = packed_t<T>;
    static constexpr int length = N, pieces = N / 256;
    static constexpr int registers = pieces * 4 * int(sizeof(T2)) / 4;  // per lane
    T2 data[pieces][4];  // piece p, pair k: this lane's columns col_of(lane, p, 2k) and +1

    // The column this lane's element i (0..7) of piece p holds.
    TK_HOST_DEVICE static constexpr int col_of(int lane, int p, int i) { return 256 * p + 8 * lane + i; }

    TK_HOST_DEVICE float get(int p, int i) const { return to_float(i % 2 ? data[p][i / 2].y : data[p][i / 2].x); }
    TK_HOST_DEVICE void set(int p, int i, float v) {
        if (i % 2) data[p][i / 2].y = from_float<T>(v);
        else data[p][i / 2].x = from_float<T>(v);
    }

#if defined(TK_SIM)
    warp_row(TK_LOC) { tklab::sim::reg_alloc(registers, loc.file, loc.line); }
    warp_row(const warp_row& o, TK_LOC) {
        tklab::sim::reg_alloc(registers, loc.file, loc.line);
        copy_data(o);
    }
    warp_row& operator=(const warp_row& o) { copy_data(o); return *this; }
    ~warp_row() { tklab::sim::reg_free(registers); }
private:
    void copy_data(const warp_row& o) {
        TK_UNROLL
        for (int p = 0; p < pieces; ++p)
            TK_UNROLL
            for (int k = 0; k < 4; ++k) data[p][k] = o.data[p][k];
    }
public:
#endif
};

template <typename X> struct is_warp_row : std::false_type {};
template <typename T, int N> struct is_warp_row<warp_row<T, N>> : std::true_type {};
template <typename X> inline constexpr bool is_warp_row_v = is_warp_row<std::remove_cvref_t<X>>::value;

namespace detail {
template <int N, typename U>
TK_DEVICE void check_row_in_bounds(const gl<U>& g, coord at, const src_loc& loc) {
    TK_CHECK(at.b >= 0 && at.b < g.batch && at.d >= 0 && at.d < g.depth && at.r >= 0 && at.r < g.rows && at.c >= 0 &&
                 (at.c + 1) * N <= g.cols,
             "warp_row coordinate is outside the global tensor",
             "a row of N values at {b, d, r, c} is row r, columns c*N..c*N+N-1: keep r below the rows and (c+1)*N within the columns");
    TK_CHECK(g.cols % 8 == 0, "warp_row: the tensor's rows are not a whole number of 16-byte pieces",
             "give the tensor a column count that is a multiple of 8, so every row starts 16-byte aligned");
    (void)g; (void)at; (void)loc;
}
} // namespace detail

// ---- global memory ------------------------------------------------------------------------

template <typename T, int N, typename U>
TK_DEVICE void load(warp_row<T, N>& dst, const gl<U>& src, coord at, TK_LOC) {
    TK_OP("load");
    static_assert(is_16bit_v<U>, "tk::load(warp_row, gl): the global tensor must hold tk::bf16 or tk::half (16-byte pieces of 8)");
    detail::check_row_in_bounds<N>(src, at, loc);
    const U* row = src.ptr(at.b, at.d, at.r, at.c * N);
    const int lane = laneid();
    TK_UNROLL
    for (int p = 0; p < warp_row<T, N>::pieces; ++p) {
        const U* piece = row + warp_row<T, N>::col_of(lane, p, 0);
        if constexpr (std::is_same_v<T, U>) {  // same type: the bits as they are
            uint32_t w[4];
            arch::ld_global<4>(w, piece, loc);
            TK_UNROLL
            for (int k = 0; k < 4; ++k) dst.data[p][k] = unpack_bits<packed_t<T>>(w[k]);
        } else {
            float v[8];
            load_piece(v, piece, loc);
            TK_UNROLL
            for (int i = 0; i < 8; ++i) dst.set(p, i, v[i]);
        }
    }
}

template <typename U, typename T, int N>
TK_DEVICE void store(const gl<U>& dst, const warp_row<T, N>& src, coord at, TK_LOC) {
    TK_OP("store");
    static_assert(is_16bit_v<U>, "tk::store(gl, warp_row): the global tensor must hold tk::bf16 or tk::half (16-byte pieces of 8)");
    detail::check_row_in_bounds<N>(dst, at, loc);
    U* row = dst.ptr(at.b, at.d, at.r, at.c * N);
    const int lane = laneid();
    TK_UNROLL
    for (int p = 0; p < warp_row<T, N>::pieces; ++p) {
        U* piece = row + warp_row<T, N>::col_of(lane, p, 0);
        if constexpr (std::is_same_v<T, U>) {
            uint32_t w[4];
            TK_UNROLL
            for (int k = 0; k < 4; ++k) w[k] = pack_bits(src.data[p][k]);
            arch::st_global<4>(piece, w, loc);
        } else {
            float v[8];
            TK_UNROLL
            for (int i = 0; i < 8; ++i) v[i] = src.get(p, i);
            store_piece(piece, v, loc);
        }
    }
}

// ---- element-wise ------------------------------------------------------------------------

// dst = f(srcs...) element by element, computed in float and rounded once to
// dst's type. dst may be one of the sources. One to three sources.
namespace detail {
template <typename Dst, typename F, typename... Src>
TK_DEVICE void map_row(Dst& dst, F f, const src_loc& loc, const Src&... src) {
    static_assert(((is_warp_row_v<Src> && Src::length == Dst::length) && ...),
                  "tk::map(warp_row): every source must be a warp_row of dst's length");
    TK_OP("map");
    TK_UNROLL
    for (int p = 0; p < Dst::pieces; ++p)
        TK_UNROLL
        for (int i = 0; i < 8; ++i) dst.set(p, i, f(src.get(p, i)...));
    // What the simulator charges (tk/arch/alu.h), as for a tile's map: f an
    // instruction an element, and a conversion an element to round into a
    // 16-bit dst. It waits for loaded sources, as the GPU's first arithmetic
    // on them does.
    constexpr int elements = Dst::pieces * 8;
    arch::alu(arch::alu_kind::simple, elements, loc);
    if constexpr (is_16bit_v<typename Dst::dtype>) arch::alu(arch::alu_kind::convert, elements, loc);
}
} // namespace detail

template <typename Dst, typename F, typename A> requires is_warp_row_v<Dst>
TK_DEVICE void map(Dst& dst, F f, const A& a, TK_LOC) { detail::map_row(dst, f, loc, a); }
template <typename Dst, typename F, typename A, typename B> requires is_warp_row_v<Dst>
TK_DEVICE void map(Dst& dst, F f, const A& a, const B& b, TK_LOC) { detail::map_row(dst, f, loc, a, b); }
template <typename Dst, typename F, typename A, typename B, typename C> requires is_warp_row_v<Dst>
TK_DEVICE void map(Dst& dst, F f, const A& a, const B& b, const C& c, TK_LOC) { detail::map_row(dst, f, loc, a, b, c); }

// ---- reductions ------------------------------------------------------------------------

// The sum over the row of f(value), in float, the same in every lane: each
// lane adds its own elements, then five shfl.xor steps combine the 32 lanes.
template <typename T, int N, typename F>
TK_DEVICE float sum(const warp_row<T, N>& row, F f, TK_LOC) {
    TK_OP("sum");
    float acc = 0.0f;
    TK_UNROLL
    for (int p = 0; p < warp_row<T, N>::pieces; ++p)
        TK_UNROLL
        for (int i = 0; i < 8; ++i) acc += f(row.get(p, i));
    // Charged as an add an element (f's own arithmetic is priced as nothing
    // more, as a tile reduction's is): tk/arch/alu.h.
    arch::alu(arch::alu_kind::simple, warp_row<T, N>::pieces * 8, loc);
    TK_UNROLL
    for (int m = 16; m >= 1; m /= 2) acc += arch::u2f(arch::shfl_xor(0xffffffffu, arch::f2u(acc), m, loc));
    return acc;
}
template <typename T, int N>
TK_DEVICE float sum(const warp_row<T, N>& row, TK_LOC) {
    return sum(row, [](float v) { return v; }, loc);
}

} // namespace tk
