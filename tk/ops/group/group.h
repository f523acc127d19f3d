// Group scope: ops that N consecutive warps perform together, each thread
// taking its share. tk::group<4>::load(...) is the 4-warp version.
// A group starts at a warp index divisible by N.
#pragma once
#include "tk/ops/warp/memory/element_io.h"
#include "tk/ops/warp/memory/global_to_register.h"
#include "tk/types/shared/st.h"
#include "tk/types/global/gl.h"
#include "tk/common/indices.h"

namespace tk {

template <int N_WARPS>
struct group {
    static_assert(N_WARPS >= 1 && N_WARPS <= 32, "tk::group<N>: N is a number of warps, 1..32");
    static constexpr int warps = N_WARPS, threads = N_WARPS * 32;
    TK_DEVICE static int laneid() { return thread_id() % threads; }
    TK_DEVICE static int groupid() { return thread_id() / threads; }

    // global -> shared, 16 bytes per thread per step (ld.global.v4 + st.shared.v4).
    template <typename ST, typename T>
    TK_DEVICE static void load(ST& dst, const gl<T>& src, coord at, TK_LOC) {
        static_assert(is_st_v<ST>, "tk::group<N>::load(shared tile, global layout, coord): the destination must be a shared tile");
        static_assert(std::is_same_v<typename ST::dtype, T>, "tk::group<N>::load: shared tile and global tensor must have the same element type");
        TK_OP("group_load");
        detail::check_tile_in_bounds<ST>(src, at, loc);
        check_vector_alignment(src, loc);
        constexpr int per_row = ST::cols * int(sizeof(T)) / 16, chunks = ST::rows * per_row;
        const uint32_t base = arch::smem_addr(&dst.data[0], loc);
        TK_UNROLL
        for (int k = laneid(); k < chunks; k += threads) {
            const int r = k / per_row, c = (k % per_row) * (16 / int(sizeof(T)));
            uint32_t v[4];
            arch::ld_global<4>(v, src.ptr(at.b, at.d, at.r * ST::rows + r, at.c * ST::cols + c), loc);
            arch::st_shared<4>(base + ST::offset(r, c), v, loc);
        }
    }

    // shared -> global.
    template <typename ST, typename T>
    TK_DEVICE static void store(const gl<T>& dst, const ST& src, coord at, TK_LOC) {
        static_assert(is_st_v<ST>, "tk::group<N>::store(global layout, shared tile, coord): the source must be a shared tile");
        static_assert(std::is_same_v<typename ST::dtype, T>, "tk::group<N>::store: shared tile and global tensor must have the same element type");
        TK_OP("group_store");
        detail::check_tile_in_bounds<ST>(dst, at, loc);
        check_vector_alignment(dst, loc);
        constexpr int per_row = ST::cols * int(sizeof(T)) / 16, chunks = ST::rows * per_row;
        const uint32_t base = arch::smem_addr(&src.data[0], loc);
        TK_UNROLL
        for (int k = laneid(); k < chunks; k += threads) {
            const int r = k / per_row, c = (k % per_row) * (16 / int(sizeof(T)));
            uint32_t v[4];
            arch::ld_shared<4>(v, base + ST::offset(r, c), loc);
            arch::st_global<4>(dst.ptr(at.b, at.d, at.r * ST::rows + r, at.c * ST::cols + c), v, loc);
        }
    }

    // global -> shared without passing through registers (cp.async, 16 bytes
    // per thread per step). Commits one group; wait with load_async_wait<N>().
    template <typename ST, typename T>
    TK_DEVICE static void load_async(ST& dst, const gl<T>& src, coord at, TK_LOC) {
        static_assert(is_st_v<ST>, "tk::group<N>::load_async(shared tile, global layout, coord): the destination must be a shared tile");
        static_assert(std::is_same_v<typename ST::dtype, T>, "tk::group<N>::load_async: shared tile and global tensor must have the same element type");
        TK_OP("load_async");
        detail::check_tile_in_bounds<ST>(src, at, loc);
        check_vector_alignment(src, loc);
        constexpr int per_row = ST::cols * int(sizeof(T)) / 16, chunks = ST::rows * per_row;
        const uint32_t base = arch::smem_addr(&dst.data[0], loc);
        TK_UNROLL
        for (int k = laneid(); k < chunks; k += threads) {
            const int r = k / per_row, c = (k % per_row) * (16 / int(sizeof(T)));
            arch::cp_async<16>(base + ST::offset(r, c), src.ptr(at.b, at.d, at.r * ST::rows + r, at.c * ST::cols + c), loc, base);
        }
        arch::cp_async_commit(loc);
    }

    // Group-wide barrier (a named barrier counting this group's threads).
    TK_DEVICE static void sync(int barrier_id, TK_LOC) { arch::bar_sync(barrier_id, threads, loc); }

private:
    template <typename T>
    TK_DEVICE static void check_vector_alignment(const gl<T>& g, const src_loc& loc) {
        TK_CHECK((uintptr_t(g.raw) % 16 == 0) && (g.cols * sizeof(T)) % 16 == 0,
                 "group tile copies move 16 bytes per thread, but the tensor's base or row length is not a multiple of 16 bytes",
                 "allocate with tk::device_buffer (256-byte aligned) and use a column count whose rows are a multiple of 16 bytes");
        (void)g; (void)loc;
    }
};

// Waits until at most N of this thread's async-load groups are still in flight.
template <int N = 0>
TK_DEVICE void load_async_wait(TK_LOC) {
    TK_OP("load_async_wait");
    arch::cp_async_wait<N>(loc);
}

// tk::warpgroup (four warps) is a namespace of its own: tk/ops/warpgroup/.

} // namespace tk
