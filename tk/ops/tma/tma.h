// Bulk tensor copies of whole tiles (Hopper's TMA). ONE thread issues each
// copy; the copy engine moves the tile and writes it with the tile's swizzle.
//
//   if (warpgroup::laneid() == 0) {                  // the producer's one thread
//       tma::expect<a_tile, b_tile>(full[s]);        // arrive + expect the two tiles' bytes
//       tma::load_async(a[s], A, {0, 0, row, k}, full[s]);
//       tma::load_async(b[s], B, {0, 0, k, col}, full[s]);
//   }
//   wait(full[s], phase);                            // consumers: both tiles have landed
//
//   tma::store_async(C, c_tile, {0, 0, row, col});   // after fence + barrier (see below)
//   tma::store_commit_group();
//   tma::store_async_read_wait<0>();                 // c_tile may be written again
//
// The global side is a gl_tma (tk/types/global/tensor_map.h) carrying a map
// for the tile type; coord counts in tiles, like tk::gl.
#pragma once
#include "tk/arch/mbarrier.h"
#include "tk/arch/shared_memory.h"
#include "tk/arch/tma.h"
#include "tk/ops/sync/semaphore.h"
#include "tk/types/global/tensor_map.h"

namespace tk::tma {

// Tile bytes of all the given tile types: what one phase of a barrier expects.
template <typename... Tiles>
inline constexpr uint32_t bytes_of = (uint32_t(Tiles::bytes) + ...);

// arrive.expect_tx: counts this thread's arrival and adds `bytes` to what the
// barrier's current phase waits for. One thread per phase, before its copies.
TK_DEVICE void expect_bytes(semaphore& bar, uint32_t bytes, TK_LOC) {
    TK_OP("expect_bytes");
    arch::mbarrier_expect_tx<true>(arch::smem_addr(&bar, loc), bytes, loc);
}
template <typename... Tiles>
TK_DEVICE void expect(semaphore& bar, TK_LOC) { expect_bytes(bar, bytes_of<Tiles...>, loc); }

namespace detail {
template <typename ST, typename GL>
TK_DEVICE void check_tma_operands() {
    static_assert(is_st_v<ST>, "tk::tma: the shared side must be a whole shared tile (st)");
    static_assert(is_gl_tma<GL>::value, "tk::tma: the global side must be a tk::gl_tma<T, Tiles...> (it carries the tensor maps)");
    static_assert(std::is_same_v<typename ST::dtype, typename GL::dtype>, "tk::tma: tile and tensor element types differ");
}
} // namespace detail

// global -> shared, completing on `bar` (which must expect ST::bytes).
template <typename ST, typename GL>
TK_DEVICE void load_async(ST& dst, const GL& src, coord at, semaphore& bar, TK_LOC) {
    detail::check_tma_operands<ST, GL>();
    TK_OP("tma_load_async");
    using box = tk::detail::tma_box<ST>;
    const tensor_map& map = src.template map<ST>();
    const uint32_t base = arch::smem_addr(&dst.data[0], loc), b = arch::smem_addr(&bar, loc);
    TK_UNROLL
    for (int j = 0; j < box::blocks; ++j)
        arch::tma_load_4d(base + uint32_t(j * box::bytes), &map, at.c * ST::cols + j * box::cols, at.r * ST::rows, at.d, at.b, b, loc);
}

// Cluster multicast (tk/ops/sync/cluster.h): the blocks of a cluster that
// need the same tile share its loading. Each issues part `part` of `parts`
// (its share of the tile's column blocks of box::cols) once, and the copy
// engine writes it to `dst` in every block of `cta_mask`, completing on each
// one's `bar`; so every block's `bar` expects the WHOLE tile's bytes.
template <typename ST, typename GL>
TK_DEVICE void load_async_multicast(ST& dst, const GL& src, coord at, semaphore& bar, uint16_t cta_mask, int part, int parts,
                                    TK_LOC) {
    detail::check_tma_operands<ST, GL>();
    TK_OP("tma_load_async_multicast");
    using box = tk::detail::tma_box<ST>;
    TK_CHECK(parts >= 1 && box::blocks % parts == 0 && part >= 0 && part < parts,
             "a multicast load's parts must divide the tile's column blocks (box::blocks) evenly",
             "split the tile among as many blocks as divide its column blocks, or load it whole in each block");
    const tensor_map& map = src.template map<ST>();
    const uint32_t base = arch::smem_addr(&dst.data[0], loc), b = arch::smem_addr(&bar, loc);
    const int per = box::blocks / parts;
    TK_UNROLL
    for (int j = part * per; j < (part + 1) * per; ++j)
        arch::tma_load_4d_multicast(base + uint32_t(j * box::bytes), &map, at.c * ST::cols + j * box::cols, at.r * ST::rows, at.d, at.b,
                                    b, cta_mask, loc);
}

// shared -> global. Before it: every thread that wrote the tile runs
// store_fence() and a barrier orders them before the issuing thread.
template <typename ST, typename GL>
TK_DEVICE void store_async(const GL& dst, const ST& src, coord at, TK_LOC) {
    detail::check_tma_operands<ST, GL>();
    TK_OP("tma_store_async");
    using box = tk::detail::tma_box<ST>;
    const tensor_map& map = dst.template map<ST>();
    const uint32_t base = arch::smem_addr(&src.data[0], loc);
    TK_UNROLL
    for (int j = 0; j < box::blocks; ++j)
        arch::tma_store_4d(&map, base + uint32_t(j * box::bytes), at.c * ST::cols + j * box::cols, at.r * ST::rows, at.d, at.b, loc);
}

// Makes this thread's st.shared writes visible to the copy engine.
TK_DEVICE void store_fence(TK_LOC) { TK_OP("tma_store_fence"); arch::fence_proxy_async(loc); }
TK_DEVICE void store_commit_group(TK_LOC) { TK_OP("tma_store_commit_group"); arch::bulk_commit_group(loc); }
// Until at most N store groups still read their shared tiles (which may then be reused).
template <int N = 0>
TK_DEVICE void store_async_read_wait(TK_LOC) { TK_OP("tma_store_async_read_wait"); arch::bulk_wait_group<N, true>(loc); }
// Until at most N store groups are still writing global memory.
template <int N = 0>
TK_DEVICE void store_async_wait(TK_LOC) { TK_OP("tma_store_async_wait"); arch::bulk_wait_group<N, false>(loc); }

} // namespace tk::tma
