// Warp-scope register vectors (tk::rv): moving them to and from memory.
//
//   load(rv& dst, const sv& src)            shared vector -> register vector
//   store(sv& dst, const rv& src)           register vector -> shared vector
//   load(rv& dst, const gl<T>& src, coord)  global -> register vector
//   store(const gl<T>& dst, const rv& src, coord)
//
// In global memory a vector of length N lies along the last dimension:
// coord {b, d, r, c} is row r of (batch b, depth d), elements c*N .. c*N+N-1
// (c counts in vector lengths, as a tile coordinate counts in tiles; r counts
// in rows). So a row_sum of 64 rows stored at {0, 0, 3, 0} fills row 3,
// columns 0..63 of the tensor.
//
// Element types may differ between memory and registers (converted once).
// Every lane loads the entries it holds (lanes holding the same entry read
// the same address: a broadcast); on a store one lane per entry writes it
// (t == 0 for vec_ortho, g == 0 for vec_align; g = lane/4, t = lane%4).
//
// The element-wise maps (tk::exp, tk::add, tk::unary_map, ...) and
// tk::copy, which also converts between vec_ortho and vec_align, are in
// maps.h; reductions of tiles to vectors in reductions.h.
#pragma once
#include "tk/ops/warp/register/maps.h"
#include "tk/common/check.h"
#include "tk/types/global/gl.h"
#include "tk/types/shared/st.h"

namespace tk {
namespace detail {

template <typename X> struct is_sv : std::false_type {};
template <typename T, int N> struct is_sv<sv<T, N>> : std::true_type {};
template <typename X> inline constexpr bool is_sv_v = is_sv<std::remove_cvref_t<X>>::value;

template <typename V, typename G>
TK_DEVICE void check_vector_in_bounds(const G& g, coord at, const src_loc& loc) {
    TK_CHECK(at.b >= 0 && at.b < g.batch && at.d >= 0 && at.d < g.depth && at.r >= 0 && at.r < g.rows && at.c >= 0 &&
                 (at.c + 1) * V::length <= g.cols,
             "vector coordinate is outside the global tensor",
             "a vector of length N at {b, d, r, c} is row r, elements c*N..c*N+N-1: keep r below the rows and (c+1)*N within the columns");
    (void)g; (void)at; (void)loc;
}

template <typename V, typename T>
TK_DEVICE void check_vector_aligned(const T* p, const src_loc& loc) {
    if constexpr (std::is_same_v<typename V::layout, vec_align>)
        TK_CHECK(reinterpret_cast<uintptr_t>(p) % (2 * sizeof(T)) == 0, "vector in global memory is not aligned for pair accesses",
                 "a vec_align vector moves pairs of elements: start it at an even element (an even number of columns keeps every row aligned)");
    (void)p; (void)loc;
}

} // namespace detail

// ---- shared memory ----------------------------------------------------------------------

template <typename V, typename SV> requires(is_rv_v<V> && detail::is_sv_v<SV>)
TK_DEVICE void load(V& dst, const SV& src, TK_LOC) {
    TK_OP("load");
    static_assert(V::length == SV::length, "tk::load(rv, sv): the register and shared vectors must have the same length");
    using R = typename V::dtype;
    using M = typename SV::dtype;
    constexpr uint32_t es = sizeof(M);
    const int lane = laneid();
    const uint32_t base = arch::smem_addr(&src.data[0], loc);
    TK_UNROLL
    for (int c = 0; c < V::chunks; ++c) {
        if constexpr (std::is_same_v<typename V::layout, vec_ortho>) {
            TK_UNROLL
            for (int j = 0; j < 2; ++j) dst.data[c][j] = detail::ld_shared_one<R, M>(base + es * uint32_t(V::index_of(lane, c, j)), loc);
        } else {
            TK_UNROLL
            for (int j = 0; j < 4; j += 2)
                detail::ld_shared_pair<R, M>(dst.data[c][j], dst.data[c][j + 1], base + es * uint32_t(V::index_of(lane, c, j)), loc);
        }
    }
    detail::convert_loaded<R, M>(detail::elements_per_lane<V>(), loc);
}

template <typename SV, typename V> requires(is_rv_v<V> && detail::is_sv_v<SV>)
TK_DEVICE void store(SV& dst, const V& src, TK_LOC) {
    TK_OP("store");
    static_assert(V::length == SV::length, "tk::store(sv, rv): the shared and register vectors must have the same length");
    using R = typename V::dtype;
    using M = typename SV::dtype;
    constexpr uint32_t es = sizeof(M);
    const int lane = laneid();
    const uint32_t base = arch::smem_addr(&dst.data[0], loc);
    if constexpr (std::is_same_v<typename V::layout, vec_ortho>) {
        if (lane % 4 == 0)
            TK_UNROLL
            for (int c = 0; c < V::chunks; ++c)
                TK_UNROLL
                for (int j = 0; j < 2; ++j) detail::st_shared_one<M, R>(base + es * uint32_t(V::index_of(lane, c, j)), src.data[c][j], loc);
    } else {
        if (lane < 4)
            TK_UNROLL
            for (int c = 0; c < V::chunks; ++c)
                TK_UNROLL
                for (int j = 0; j < 4; j += 2)
                    detail::st_shared_pair<M, R>(base + es * uint32_t(V::index_of(lane, c, j)), src.data[c][j], src.data[c][j + 1], loc);
    }
}

// ---- global memory ----------------------------------------------------------------------

template <typename V, typename T> requires is_rv_v<V>
TK_DEVICE void load(V& dst, const gl<T>& src, coord at, TK_LOC) {
    TK_OP("load");
    detail::check_vector_in_bounds<V>(src, at, loc);
    using R = typename V::dtype;
    const T* p = src.ptr(at.b, at.d, at.r, at.c * V::length);
    detail::check_vector_aligned<V>(p, loc);
    const int lane = laneid();
    TK_UNROLL
    for (int c = 0; c < V::chunks; ++c) {
        if constexpr (std::is_same_v<typename V::layout, vec_ortho>) {
            TK_UNROLL
            for (int j = 0; j < 2; ++j) dst.data[c][j] = detail::ld_global_one<R, T>(p + V::index_of(lane, c, j), loc);
        } else {
            TK_UNROLL
            for (int j = 0; j < 4; j += 2) detail::ld_global_pair<R, T>(dst.data[c][j], dst.data[c][j + 1], p + V::index_of(lane, c, j), loc);
        }
    }
    detail::convert_loaded<R, T>(detail::elements_per_lane<V>(), loc);
}

template <typename V, typename T> requires is_rv_v<V>
TK_DEVICE void store(const gl<T>& dst, const V& src, coord at, TK_LOC) {
    TK_OP("store");
    detail::check_vector_in_bounds<V>(dst, at, loc);
    using R = typename V::dtype;
    T* p = dst.ptr(at.b, at.d, at.r, at.c * V::length);
    detail::check_vector_aligned<V>(p, loc);
    const int lane = laneid();
    if constexpr (std::is_same_v<typename V::layout, vec_ortho>) {
        if (lane % 4 == 0)
            TK_UNROLL
            for (int c = 0; c < V::chunks; ++c)
                TK_UNROLL
                for (int j = 0; j < 2; ++j) detail::st_global_one<T, R>(p + V::index_of(lane, c, j), src.data[c][j], loc);
    } else {
        if (lane < 4)
            TK_UNROLL
            for (int c = 0; c < V::chunks; ++c)
                TK_UNROLL
                for (int j = 0; j < 4; j += 2) detail::st_global_pair<T, R>(p + V::index_of(lane, c, j), src.data[c][j], src.data[c][j + 1], loc);
    }
}

} // namespace tk
