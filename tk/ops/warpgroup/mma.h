// Warpgroup matrix multiply (wgmma) on tiles. The warpgroup computes a
// 64 x N block of D; each warp holds its 16 rows as an rt_fl<16, N>.
//
//   mma_AB  (d, a, b):  d += a * b      a: 64 x K, b: K x N     (both row-major tiles)
//   mma_ABt (d, a, b):  d += a * b^T    a: 64 x K, b: N x K
//   mma_AtB (d, a, b):  d += a^T * b    a: K x 64, b: K x N
//   mma_AtBt(d, a, b):  d += a^T * b^T  a: K x 64, b: N x K
//   mm_*   : the same, d = (no accumulation)
// A may also be this warp's rt_bf<16, K> (registers) for mma_AB / mma_ABt.
// Each call issues K/16 wgmmas as one group (fence, wgmmas, commit); wait for
// the results with mma_async_wait<N>() before reading d.
//
// Operands come from shared tiles with a 32/64/128-byte swizzle, described to
// the hardware by matrix descriptors. Which dimension is contiguous decides
// the descriptor's form (PTX ISA, "Shared Memory Matrix Layout"):
//   K-major (K contiguous):  8-row groups SBO = 8 * swizzle bytes apart;
//   M/N-major:               8-row (K) groups SBO apart, and swizzle-span
//                            column blocks LBO = rows * swizzle bytes apart.
#pragma once
#include <cstring>
#include "tk/arch/shared_memory.h"
#include "tk/arch/wgmma.h"
#include "tk/ops/warpgroup/warpgroup.h"
#include "tk/types/register/rt.h"
#include "tk/types/shared/st.h"

namespace tk::warpgroup {

namespace detail {

template <typename ST>
constexpr arch::wgmma_swizzle swizzle_mode() {
    static_assert(ST::swizzle_bytes != 0, "tk::warpgroup::mma: wgmma reads shared tiles with a 32, 64 or 128-byte swizzle; this tile has none (use swizzle::automatic)");
    return ST::swizzle_bytes == 128 ? arch::wgmma_swizzle::b128 : ST::swizzle_bytes == 64 ? arch::wgmma_swizzle::b64 : arch::wgmma_swizzle::b32;
}

// Byte offset of element (r, c) before the swizzle: where the descriptor's
// start address points (the hardware swizzles the addresses it computes).
template <typename ST>
TK_HOST_DEVICE constexpr uint32_t linear_offset(int r, int c) {
    constexpr int e = int(sizeof(typename ST::dtype)), span = ST::swizzle_bytes / e;
    return uint32_t((c / span) * ST::rows * ST::swizzle_bytes + r * ST::swizzle_bytes + (c % span) * e);
}

// A shared operand as (tile, first row, first column): a whole tile, or a
// window of one (e.g. a consumer warpgroup's 64 rows of a 128-row tile).
template <typename ST> TK_DEVICE const ST& parent(const ST& t) { return t; }
template <typename ST, int R, int C> TK_DEVICE const ST& parent(const st_subtile<ST, R, C>& t) { return *t.parent; }
template <typename ST> TK_DEVICE int row0(const ST&) { return 0; }
template <typename ST, int R, int C> TK_DEVICE int row0(const st_subtile<ST, R, C>& t) { return t.row0; }
template <typename ST> TK_DEVICE int col0(const ST&) { return 0; }
template <typename ST, int R, int C> TK_DEVICE int col0(const st_subtile<ST, R, C>& t) { return t.col0; }

// Descriptor of a K-major operand's k16 slice `kk` (columns 16kk .. 16kk + 15).
template <typename X>
TK_DEVICE uint64_t k_major(const X& x, int kk, const src_loc& loc) {
    using ST = std::remove_cvref_t<decltype(parent(x))>;
    const uint32_t base = arch::smem_addr(&parent(x).data[0], loc) + linear_offset<ST>(row0(x), col0(x) + 16 * kk);
    return arch::make_wgmma_descriptor(base, 16, 8 * ST::swizzle_bytes, swizzle_mode<ST>());
}
// Descriptor of an M/N-major operand's k16 slice `kk` (rows 16kk .. 16kk + 15:
// K runs down the rows).
template <typename X>
TK_DEVICE uint64_t mn_major(const X& x, int kk, const src_loc& loc) {
    using ST = std::remove_cvref_t<decltype(parent(x))>;
    const uint32_t base = arch::smem_addr(&parent(x).data[0], loc) + linear_offset<ST>(row0(x) + 16 * kk, col0(x));
    return arch::make_wgmma_descriptor(base, ST::rows * ST::swizzle_bytes, 8 * ST::swizzle_bytes, swizzle_mode<ST>());
}

template <int N, typename D>
TK_DEVICE float* accumulator(D& d) {
    static_assert(std::is_same_v<typename D::dtype, float> && D::layout::is_row && D::rows == 16 && D::cols == N,
                  "tk::warpgroup::mma: d must be this warp's rt_fl<16, N> (row layout): the warpgroup's 64 x N result");
    return reinterpret_cast<float*>(&d.tiles[0][0]);
}

// The shared-A forms: TransA / TransB say which operands are M/N-major.
template <bool TransA, bool TransB, typename D, typename A, typename B>
TK_DEVICE void mma_ss(D& d, const A& a, const B& b, bool accumulate, const src_loc& loc) {
    static_assert(is_shared_tile_v<A> && is_shared_tile_v<B>, "tk::warpgroup::mma: a and b must be shared tiles (st or a subtile of one) here");
    static_assert(std::is_same_v<typename A::dtype, bf16> && std::is_same_v<typename B::dtype, bf16>, "tk::warpgroup::mma: operands must be bf16");
    constexpr int M = TransA ? A::cols : A::rows, K = TransA ? A::rows : A::cols;
    constexpr int N = TransB ? B::cols : B::rows, KB = TransB ? B::rows : B::cols;
    static_assert(M == 64, "tk::warpgroup::mma: a covers the warpgroup's 64 rows of d (64 x K, or K x 64 transposed)");
    static_assert(K == KB, "tk::warpgroup::mma: a's K and b's K differ");
    float* acc = accumulator<N>(d);
    arch::wgmma_fence(loc);
    TK_UNROLL
    for (int kk = 0; kk < K / 16; ++kk) {
        const uint64_t da = TransA ? mn_major(a, kk, loc) : k_major(a, kk, loc);
        const uint64_t db = TransB ? mn_major(b, kk, loc) : k_major(b, kk, loc);
        arch::wgmma_ss<N, TransA, TransB>(acc, da, db, (accumulate || kk > 0) ? 1 : 0, loc);
    }
    arch::wgmma_commit_group(loc);
}

template <bool TransB, typename D, typename A, typename B>
TK_DEVICE void mma_rs(D& d, const A& a, const B& b, bool accumulate, const src_loc& loc) {
    static_assert(is_shared_tile_v<B>, "tk::warpgroup::mma: b must be a shared tile (st or a subtile of one)");
    static_assert(std::is_same_v<typename A::dtype, bf16> && A::layout::is_row && A::rows == 16,
                  "tk::warpgroup::mma: a register a must be this warp's rt_bf<16, K> (row layout)");
    static_assert(std::is_same_v<typename B::dtype, bf16>, "tk::warpgroup::mma: operands must be bf16");
    constexpr int K = A::cols, N = TransB ? B::cols : B::rows, KB = TransB ? B::rows : B::cols;
    static_assert(K == KB, "tk::warpgroup::mma: a's K and b's K differ");
    float* acc = accumulator<N>(d);
    // Each 16x16 slice of A as four packed bf16 pairs in 32-bit registers, all
    // in place before the fence (tk/arch/convert.h says why it matters).
    uint32_t frag[K / 16][4];
    TK_UNROLL
    for (int kk = 0; kk < K / 16; ++kk) {
        std::memcpy(frag[kk], &a.tiles[0][kk].data[0], sizeof frag[kk]);
        for (auto& r : frag[kk]) arch::pin_register(r);
    }
    arch::wgmma_fence(loc);
    TK_UNROLL
    for (int kk = 0; kk < K / 16; ++kk) {
        const uint64_t db = TransB ? mn_major(b, kk, loc) : k_major(b, kk, loc);
        arch::wgmma_rs<N, TransB>(acc, frag[kk], db, (accumulate || kk > 0) ? 1 : 0, loc);
    }
    arch::wgmma_commit_group(loc);
}

template <typename A> inline constexpr bool in_registers = !is_shared_tile_v<A>;

// Every public form: A from registers (then never transposed) or shared memory.
template <bool TransA, bool TransB, typename D, typename A, typename B>
TK_DEVICE void mma(D& d, const A& a, const B& b, bool accumulate, const src_loc& loc) {
    if constexpr (in_registers<A>) {
        static_assert(!TransA, "tk::warpgroup::mma_At*: a transposed A must be a shared tile (wgmma reads registers only as A untransposed)");
        mma_rs<TransB>(d, a, b, accumulate, loc);
    } else {
        mma_ss<TransA, TransB>(d, a, b, accumulate, loc);
    }
}

} // namespace detail

template <typename D, typename A, typename B>
TK_DEVICE void mma_AB(D& d, const A& a, const B& b, TK_LOC) { TK_OP("warpgroup_mma_AB"); detail::mma<false, true>(d, a, b, true, loc); }
template <typename D, typename A, typename B>
TK_DEVICE void mm_AB(D& d, const A& a, const B& b, TK_LOC) { TK_OP("warpgroup_mm_AB"); detail::mma<false, true>(d, a, b, false, loc); }
template <typename D, typename A, typename B>
TK_DEVICE void mma_ABt(D& d, const A& a, const B& b, TK_LOC) { TK_OP("warpgroup_mma_ABt"); detail::mma<false, false>(d, a, b, true, loc); }
template <typename D, typename A, typename B>
TK_DEVICE void mm_ABt(D& d, const A& a, const B& b, TK_LOC) { TK_OP("warpgroup_mm_ABt"); detail::mma<false, false>(d, a, b, false, loc); }
template <typename D, typename A, typename B>
TK_DEVICE void mma_AtB(D& d, const A& a, const B& b, TK_LOC) { TK_OP("warpgroup_mma_AtB"); detail::mma<true, true>(d, a, b, true, loc); }
template <typename D, typename A, typename B>
TK_DEVICE void mm_AtB(D& d, const A& a, const B& b, TK_LOC) { TK_OP("warpgroup_mm_AtB"); detail::mma<true, true>(d, a, b, false, loc); }
template <typename D, typename A, typename B>
TK_DEVICE void mma_AtBt(D& d, const A& a, const B& b, TK_LOC) { TK_OP("warpgroup_mma_AtBt"); detail::mma<true, false>(d, a, b, true, loc); }
template <typename D, typename A, typename B>
TK_DEVICE void mm_AtBt(D& d, const A& a, const B& b, TK_LOC) { TK_OP("warpgroup_mm_AtBt"); detail::mma<true, false>(d, a, b, false, loc); }

// Orders this warp's writes to d (e.g. zero(d), a rescale) before the next
// wgmma reads it. mma_* calls fence already; this is for explicit use.
TK_DEVICE void mma_fence(TK_LOC) { TK_OP("warpgroup_mma_fence"); arch::wgmma_fence(loc); }
// Waits until at most N of this warpgroup's mma groups are in flight.
template <int N = 0>
TK_DEVICE void mma_async_wait(TK_LOC) { TK_OP("warpgroup_mma_async_wait"); arch::wgmma_wait_group<N>(loc); }

} // namespace tk::warpgroup
