// Bulk tensor copies (the Tensor Memory Accelerator, sm_90): one thread moves
// a whole box of a tensor between global and shared memory, asynchronously.
//   load:  completes on an mbarrier, counting its bytes off the barrier's
//          expected transaction count (mbarrier_expect_tx);
//   store: joins a bulk group (bulk_commit_group); bulk_wait_group<N, true>
//          waits until the shared source may be reused, <N, false> until the
//          global writes are done.
// The box and the swizzle of its shared-memory image come from the tensor map
// (tk/types/global/tensor_map.h); coordinates are in elements, innermost first.
#pragma once
#include "tk/common/base.h"
#include "tk/common/check.h"

namespace tk::arch {

TK_DEVICE void tma_load_4d(uint32_t smem, const void* tensor_map, int c0, int c1, int c2, int c3, uint32_t bar, TK_LOC) {
#if defined(TK_GPU)
#if defined(TK_SM90)
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];"
                 ::"r"(smem), "l"(tensor_map), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(bar) : "memory");
#else
    (void)smem, (void)tensor_map, (void)c0, (void)c1, (void)c2, (void)c3, (void)bar;
    tk::hopper_only_trap();
#endif
#else
    tklab::sim::LaneOp op{tklab::sim::Op::tma_load};
    op.addr = smem; op.gptr = tensor_map; op.mbarrier = bar;
    op.coord[0] = c0; op.coord[1] = c1; op.coord[2] = c2; op.coord[3] = c3;
    op.file = loc.file; op.line = loc.line;
    tklab::sim::issue(op);
#endif
}

// The same load, written to the same shared offset in every block of the
// cluster named in `cta_mask` (bit i: rank i), each completing on its own
// mbarrier at offset `bar`. The simulator runs clusters of one block
// (tk/arch/cluster.h): the mask must be 1 there, and it is a plain load.
TK_DEVICE void tma_load_4d_multicast(uint32_t smem, const void* tensor_map, int c0, int c1, int c2, int c3, uint32_t bar,
                                     uint16_t cta_mask, TK_LOC) {
#if defined(TK_GPU)
#if defined(TK_HOPPER)  // sm_90a: on plain sm_90 targets ptxas warns that multicast may be slow on later GPUs
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
                 " [%0], [%1, {%2, %3, %4, %5}], [%6], %7;"
                 ::"r"(smem), "l"(tensor_map), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(bar), "h"(cta_mask) : "memory");
#else
    (void)smem, (void)tensor_map, (void)c0, (void)c1, (void)c2, (void)c3, (void)bar, (void)cta_mask;
    tk::hopper_only_trap();
#endif
#else
    TK_CHECK(cta_mask == 1, "a multicast bulk copy names other blocks of the cluster, but the simulator runs clusters of one block",
             "build the mask from tk::cluster_size<N> (1 in the simulator)");
    tma_load_4d(smem, tensor_map, c0, c1, c2, c3, bar, loc);
#endif
}

TK_DEVICE void tma_store_4d(const void* tensor_map, uint32_t smem, int c0, int c1, int c2, int c3, TK_LOC) {
#if defined(TK_GPU)
#if defined(TK_SM90)
    asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group [%0, {%2, %3, %4, %5}], [%1];"
                 ::"l"(tensor_map), "r"(smem), "r"(c0), "r"(c1), "r"(c2), "r"(c3) : "memory");
#else
    (void)smem, (void)tensor_map, (void)c0, (void)c1, (void)c2, (void)c3;
    tk::hopper_only_trap();
#endif
#else
    tklab::sim::LaneOp op{tklab::sim::Op::tma_store};
    op.addr = smem; op.gptr = tensor_map;
    op.coord[0] = c0; op.coord[1] = c1; op.coord[2] = c2; op.coord[3] = c3;
    op.file = loc.file; op.line = loc.line;
    tklab::sim::issue(op);
#endif
}

// The bulk stores this thread issued since the last commit form one group.
TK_DEVICE void bulk_commit_group(TK_LOC) {
#if defined(TK_GPU)
#if defined(TK_SM90)
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
#else
    tk::hopper_only_trap();
#endif
#else
    tklab::sim::LaneOp op{tklab::sim::Op::bulk_commit};
    op.file = loc.file; op.line = loc.line;
    tklab::sim::issue(op);
#endif
}

// Waits until at most N of this thread's bulk groups are pending: with
// ReadOnly, pending reading their shared source; otherwise, pending at all.
template <int N, bool ReadOnly>
TK_DEVICE void bulk_wait_group(TK_LOC) {
#if defined(TK_GPU)
#if defined(TK_SM90)
    if constexpr (ReadOnly) asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
    else asm volatile("cp.async.bulk.wait_group %0;" ::"n"(N) : "memory");
#else
    tk::hopper_only_trap();
#endif
#else
    tklab::sim::LaneOp op{tklab::sim::Op::bulk_wait};
    op.pending = N; op.read_done = ReadOnly; op.file = loc.file; op.line = loc.line;
    tklab::sim::issue(op);
#endif
}

// Makes this thread's ordinary shared-memory writes visible to the async
// proxy (bulk copies, wgmma): needed between writing a tile with st.shared
// and storing it with a bulk copy.
TK_DEVICE void fence_proxy_async(TK_LOC) {
#if defined(TK_GPU)
#if defined(TK_SM90)
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#else
    tk::hopper_only_trap();
#endif
#else
    tklab::sim::LaneOp op{tklab::sim::Op::fence_proxy_async};
    op.file = loc.file; op.line = loc.line;
    tklab::sim::issue(op);
#endif
}

} // namespace tk::arch
