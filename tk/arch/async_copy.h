// cp.async (global -> shared, 4/8/16 bytes per lane) with commit_group / wait_group.
// The data is guaranteed in shared memory only after the matching wait; the
// simulator writes it exactly then, so a missing wait shows up as stale data.
#pragma once
#include "tk/common/base.h"

namespace tk::arch {

// `tile`: the shared tile's base address when a tile op copies into one (as ldmatrix's).
template <int Bytes>
TK_DEVICE void cp_async(uint32_t smem, const void* gmem, TK_LOC, uint32_t tile = ~0u) {
    static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "cp.async copies 4, 8 or 16 bytes per lane");
#if defined(TK_GPU)
    (void)tile;
    if constexpr (Bytes == 16) asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem), "l"(gmem) : "memory");
    else asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(smem), "l"(gmem), "n"(Bytes) : "memory");
#else
    tklab::sim::LaneOp op{tklab::sim::Op::cp_async};
    op.bytes = Bytes; op.addr = smem; op.tile = tile; op.gptr = gmem; op.file = loc.file; op.line = loc.line;
    tklab::sim::issue(op);
#endif
}

TK_DEVICE void cp_async_commit(TK_LOC) {
#if defined(TK_GPU)
    asm volatile("cp.async.commit_group;" ::: "memory");
#else
    tklab::sim::LaneOp op{tklab::sim::Op::cp_async_commit};
    op.file = loc.file; op.line = loc.line;
    tklab::sim::issue(op);
#endif
}

// Waits until at most N of this thread's committed groups are still in flight.
template <int N>
TK_DEVICE void cp_async_wait(TK_LOC) {
#if defined(TK_GPU)
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
#else
    tklab::sim::LaneOp op{tklab::sim::Op::cp_async_wait};
    op.pending = N; op.file = loc.file; op.line = loc.line;
    tklab::sim::issue(op);
#endif
}

} // namespace tk::arch
