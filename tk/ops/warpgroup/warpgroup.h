// Warpgroup scope (Hopper): four consecutive warps, 128 threads, starting at a
// warp index divisible by 4, acting together. wgmma (tk/ops/warpgroup/mma.h)
// and register reallocation are warpgroup instructions; these are the
// indices and the cooperative moves between a 64-row shared tile and the four
// warps' 16-row register tiles.
#pragma once
#include "tk/arch/wgmma.h"
#include "tk/common/indices.h"
#include "tk/ops/group/group.h"
#include "tk/ops/warp/memory/shared_to_register.h"

namespace tk::warpgroup {

inline constexpr int warps = 4, threads = 128;
TK_DEVICE int groupid() { return thread_id() / threads; }   // which warpgroup of the block
TK_DEVICE int warpid() { return tk::warpid() % warps; }     // which warp of the warpgroup
TK_DEVICE int laneid() { return thread_id() % threads; }    // which thread of the warpgroup

// Register reallocation: a producer warpgroup gives registers back
// (decrease_registers<24..>), consumers take them (increase_registers<..256>).
// Every thread of the warpgroup must call it with the same count.
template <int Registers> TK_DEVICE void increase_registers(TK_LOC) { TK_OP("increase_registers"); arch::setmaxnreg<Registers, true>(loc); }
template <int Registers> TK_DEVICE void decrease_registers(TK_LOC) { TK_OP("decrease_registers"); arch::setmaxnreg<Registers, false>(loc); }

// Shared (64 x C, or 4R x C) -> registers: warp w of the warpgroup takes rows
// [wR, wR + R) into its R x C register tile.
template <typename RT, typename ST>
TK_DEVICE void load(RT& dst, ST& src, TK_LOC) {
    static_assert(ST::rows == 4 * RT::rows && ST::cols == RT::cols,
                  "tk::warpgroup::load(rt, st): the shared tile must have 4x the register tile's rows (one slice per warp) and the same columns");
    TK_OP("warpgroup_load");
    tk::load(dst, subtile<RT::rows, RT::cols>(src, warpid(), 0), loc);
}

// Registers -> shared: warp w writes its R x C tile to rows [wR, wR + R).
template <typename ST, typename RT>
TK_DEVICE void store(ST& dst, const RT& src, TK_LOC) {
    static_assert(ST::rows == 4 * RT::rows && ST::cols == RT::cols,
                  "tk::warpgroup::store(st, rt): the shared tile must have 4x the register tile's rows (one slice per warp) and the same columns");
    TK_OP("warpgroup_store");
    tk::store(subtile<RT::rows, RT::cols>(dst, warpid(), 0), src, loc);
}

// Global <-> shared with all 128 threads: group<4>'s ops (ld.global +
// st.shared, or cp.async for load_async), and its named-barrier sync.
template <typename ST, typename T>
TK_DEVICE void load(ST& dst, const gl<T>& src, coord at, TK_LOC) { group<warps>::load(dst, src, at, loc); }
template <typename ST, typename T>
TK_DEVICE void store(const gl<T>& dst, const ST& src, coord at, TK_LOC) { group<warps>::store(dst, src, at, loc); }
template <typename ST, typename T>
TK_DEVICE void load_async(ST& dst, const gl<T>& src, coord at, TK_LOC) { group<warps>::load_async(dst, src, at, loc); }
TK_DEVICE void sync(int barrier_id, TK_LOC) { group<warps>::sync(barrier_id, loc); }

} // namespace tk::warpgroup
