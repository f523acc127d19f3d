// Thread-block clusters: a cluster's blocks run at once on neighbouring SMs,
// arrive on each other's semaphores, and share bulk loads by multicast
// (tk::tma::load_async_multicast). Launch with tk::launch_cluster.
//
//   constexpr int cluster = tk::cluster_size<2>;      // 2 on the GPU, 1 in the simulator
//   tk::cluster::arrive(empty[s], peer);              // on block `peer`'s empty[s]
//   tk::cluster::sync();                              // every thread of every block
//
// The simulator runs each block alone, so there a cluster is one block
// (tk/arch/cluster.h): kernels written for any size run with size 1, and the
// same source lines are stepped through.
#pragma once
#include "tk/arch/cluster.h"
#include "tk/ops/sync/semaphore.h"

namespace tk {

#if defined(TK_GPU)
template <int N>
inline constexpr int cluster_size = N;
#else
template <int N>
inline constexpr int cluster_size = 1;
#endif

namespace cluster {
TK_DEVICE int rank() { return int(arch::cluster_ctarank()); }
TK_DEVICE int size() { return int(arch::cluster_nctarank()); }
// After the semaphores' init: they may be used from the other blocks after it.
TK_DEVICE void sync_after_init(TK_LOC) {
    TK_OP("cluster_sync");
    arch::fence_mbarrier_init_cluster();
    arch::cluster_sync(loc);
}
TK_DEVICE void sync(TK_LOC) { TK_OP("cluster_sync"); arch::cluster_sync(loc); }
// One arrival on the semaphore at the same place in block `cta` of the cluster.
TK_DEVICE void arrive(semaphore& s, int cta, TK_LOC) {
    TK_OP("cluster_arrive");
    arch::mbarrier_arrive_cluster(arch::smem_addr(&s, loc), uint32_t(cta), loc);
}
} // namespace cluster

} // namespace tk
