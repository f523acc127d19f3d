// Thread-block clusters (sm_90): blocks of one cluster run at once on
// neighbouring SMs and can reach each other's shared memory: arrive on a
// peer's mbarrier, and receive one bulk tensor copy multicast to several
// blocks (tk/arch/tma.h). A kernel is launched with a cluster size
// (tk::launch_cluster, tk/host/launch.h).
//
// The simulator runs each block alone, so it runs a cluster kernel as
// clusters of ONE block: rank 0 of 1, a cluster barrier is a block barrier,
// and an arrival or a multicast may only name block 0, itself. A kernel
// written for any cluster size therefore runs there with size 1; layouts pick
// their size with tk::cluster_size (tk/ops/sync/cluster.h).
#pragma once
#include "tk/arch/barrier.h"
#include "tk/arch/mbarrier.h"
#include "tk/common/check.h"

namespace tk::arch {

// This block's rank in its cluster, and the cluster's block count.
TK_DEVICE uint32_t cluster_ctarank() {
#if defined(TK_GPU) && defined(TK_SM90)
    uint32_t r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
#elif defined(TK_GPU)
    tk::hopper_only_trap();
    return 0;
#else
    return 0;
#endif
}
TK_DEVICE uint32_t cluster_nctarank() {
#if defined(TK_GPU) && defined(TK_SM90)
    uint32_t n;
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
    return n;
#elif defined(TK_GPU)
    tk::hopper_only_trap();
    return 1;
#else
    return 1;
#endif
}

// Every thread of every block of the cluster: barrier.cluster.arrive (release)
// and wait (acquire), so shared-memory writes before it (barrier inits
// included) are seen by the cluster's other blocks after it.
TK_DEVICE void cluster_sync(TK_LOC) {
#if defined(TK_GPU)
#if defined(TK_SM90)
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
#else
    tk::hopper_only_trap();
#endif
#else
    syncthreads(loc);
#endif
}

// Makes this thread's mbarrier inits visible to the cluster (before the
// cluster_sync that publishes them).
TK_DEVICE void fence_mbarrier_init_cluster() {
#if defined(TK_GPU) && defined(TK_SM90)
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#elif defined(TK_GPU)
    tk::hopper_only_trap();
#endif
}

// Arrives on the mbarrier at shared address `bar` in block `cta` of this
// cluster (the same offset in its shared memory). The release is at CTA scope
// (the default): enough to hand back a stage whose reads are complete (wgmma
// waited on), and it is cheap -- with .release.cluster each arrival became a
// cluster-wide memory barrier, and the GEMM ran at 62% of its speed (H200).
TK_DEVICE void mbarrier_arrive_cluster(uint32_t bar, uint32_t cta, TK_LOC) {
#if defined(TK_GPU)
#if defined(TK_SM90)
    asm volatile("{ .reg .b32 remote; mapa.shared::cluster.u32 remote, %0, %1; mbarrier.arrive.shared::cluster.b64 _, [remote]; }"
                 ::"r"(bar), "r"(cta) : "memory");
#else
    (void)bar, (void)cta;
    tk::hopper_only_trap();
#endif
#else
    TK_CHECK(cta == 0, "an mbarrier arrival names another block of the cluster, but the simulator runs clusters of one block",
             "size clusters with tk::cluster_size<N> (1 in the simulator) and name ranks below it");
    mbarrier_arrive(bar, loc);
#endif
}

} // namespace tk::arch
