// One lane's "piece": 8 consecutive elements of a global tensor, moved with
// full-width (16-byte) accesses and converted to and from float registers.
//
//   load_piece(float (&dst)[8], const T* src)   T = bf16 / half: one ld.global.v4; T = float: two
//   store_piece(T* dst, const float (&src)[8])  rounds once to T (RNE); one st.global.v4 (float: two)
//   load_piece(packed_t<T> (&dst)[4], const T* src)   T = bf16 / half, kept as they are: 4 packed
//   store_piece(T* dst, const packed_t<T> (&src)[4])  pairs in 4 registers, half a float piece's 8, so
//                                                     twice as many pieces can be in flight
//   load_piece<arch::cache_hint::streaming>(...)      any of them: data touched once, kept out of L1
//
// Memory-bound kernels live on these: a warp whose 32 lanes move 32 adjacent
// pieces touches 512 contiguous bytes of 16-bit data in one instruction, the
// widest access a lane can make, so the fewest instructions keep the most bytes
// in flight. src/dst must be 16-byte aligned (in the simulator a misaligned
// piece is a fault naming the kernel line).
#pragma once
#include "tk/arch/arch.h"
#include "tk/common/dtypes.h"
#include "tk/ops/warp/memory/element_io.h"

namespace tk {

template <arch::cache_hint Hint = arch::cache_hint::normal, typename T>
TK_DEVICE void load_piece(float (&dst)[8], const T* src, TK_LOC) {
    static_assert(std::is_same_v<T, bf16> || std::is_same_v<T, half> || std::is_same_v<T, float>,
                  "tk::load_piece: the tensor's elements must be tk::bf16, tk::half or float");
    TK_OP("load_piece");
    if constexpr (std::is_same_v<T, float>) {
        uint32_t w[2][4];
        arch::ld_global<4, Hint>(w[0], src, loc);
        arch::ld_global<4, Hint>(w[1], src + 4, loc);
        TK_UNROLL
        for (int i = 0; i < 8; ++i) dst[i] = arch::u2f(w[i / 4][i % 4]);
    } else {
        uint32_t w[4];
        arch::ld_global<4, Hint>(w, src, loc);
        TK_UNROLL
        for (int k = 0; k < 4; ++k) {
            const packed_t<T> pair = unpack_bits<packed_t<T>>(w[k]);
            dst[2 * k] = to_float(pair.x);
            dst[2 * k + 1] = to_float(pair.y);
        }
        detail::convert_loaded<float, T>(8, loc);
    }
}

template <arch::cache_hint Hint = arch::cache_hint::normal, typename T>
TK_DEVICE void store_piece(T* dst, const float (&src)[8], TK_LOC) {
    static_assert(std::is_same_v<T, bf16> || std::is_same_v<T, half> || std::is_same_v<T, float>,
                  "tk::store_piece: the tensor's elements must be tk::bf16, tk::half or float");
    TK_OP("store_piece");
    if constexpr (std::is_same_v<T, float>) {
        uint32_t w[2][4];
        TK_UNROLL
        for (int i = 0; i < 8; ++i) w[i / 4][i % 4] = arch::f2u(src[i]);
        arch::st_global<4, Hint>(dst, w[0], loc);
        arch::st_global<4, Hint>(dst + 4, w[1], loc);
    } else {
        uint32_t w[4];
        TK_UNROLL
        for (int k = 0; k < 4; ++k) w[k] = pack_bits(packed_t<T>(from_float<T>(src[2 * k]), from_float<T>(src[2 * k + 1])));
        arch::st_global<4, Hint>(dst, w, loc);
    }
}

template <arch::cache_hint Hint = arch::cache_hint::normal, typename T> requires is_16bit_v<T>
TK_DEVICE void load_piece(packed_t<T> (&dst)[4], const T* src, TK_LOC) {
    TK_OP("load_piece");
    uint32_t w[4];
    arch::ld_global<4, Hint>(w, src, loc);
    TK_UNROLL
    for (int k = 0; k < 4; ++k) dst[k] = unpack_bits<packed_t<T>>(w[k]);
}

template <arch::cache_hint Hint = arch::cache_hint::normal, typename T> requires is_16bit_v<T>
TK_DEVICE void store_piece(T* dst, const packed_t<T> (&src)[4], TK_LOC) {
    TK_OP("store_piece");
    uint32_t w[4];
    TK_UNROLL
    for (int k = 0; k < 4; ++k) w[k] = pack_bits(src[k]);
    arch::st_global<4, Hint>(dst, w, loc);
}

} // namespace tk
