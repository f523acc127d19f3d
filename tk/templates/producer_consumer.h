// A producer/consumer kernel for Hopper, so a kernel author writes only the
// parts that differ. One producer warpgroup streams inputs into an N-stage
// ring of shared-memory stages with bulk copies; consumer warpgroups compute
// on each stage as it lands and release it; the grid is persistent (one block
// per SM, each block walking over work items: output tiles).
//
// A layout L supplies:
//   static constexpr int stages, consumers;                 // ring depth, consumer warpgroups (1..3)
//   static constexpr int producer_registers, consumer_registers;  // setmaxnreg counts
//   static constexpr int cluster;  // optional: blocks per cluster (tk::cluster_size<N>; 1 if absent)
//   struct globals;      // the kernel's arguments (gl_tma layouts, sizes)
//   struct input_stage;  // one ring stage in shared memory (tiles; 1024-byte multiples)
//   struct scratch;      // other shared memory the consumers use (may be empty)
//   struct state;        // a consumer's registers across one work item
//   static int work_items(const globals&);
//   static int iterations(const globals&, int item);        // stages per work item (k-steps)
//   // producer, ONE thread: expect the stage's bytes on `full`, start its copies
//   static void load(input_stage&, semaphore& full, const globals&, int item, int iter);
//   // each consumer warpgroup (c = 0..consumers-1):
//   static void start(state&, scratch&, const globals&, int item, int c);       // e.g. zero the accumulator
//   // issues this stage's work; it may leave ONE wgmma group in flight (the
//   // template waits for it before releasing the stage, one stage later):
//   static void compute(state&, input_stage&, scratch&, const globals&, int item, int iter, int c);
//   // optional: after an item's last compute, before its last stage is released:
//   // work that still reads that stage (the last step of a software-pipelined loop)
//   static void tail(state&, input_stage& last, scratch&, const globals&, int item, int c);
//   static void finish(state&, scratch&, const globals&, int item, int c);      // e.g. store the output tile
//   static void drain(scratch&, const globals&, int c);   // optional: after the last item (e.g. wait for bulk stores)
//
//   tk::producer_consumer::launch<L>(name, globals);
//
// Clusters: with L::cluster = N > 1, the blocks of a cluster share one work
// item (each its part of it, by tk::cluster::rank()), so work_items counts
// cluster items; load() may multicast into every block of the cluster
// (tk::tma::load_async_multicast), so a stage is free again only once the
// consumers of EVERY block of the cluster have released it.
#pragma once
#include "tk/host/launch.h"
#include "tk/host/timing.h"
#include "tk/ops/sync/cluster.h"
#include "tk/ops/sync/semaphore.h"
#include "tk/ops/warp/uniform.h"
#include "tk/ops/warpgroup/warpgroup.h"
#include "tk/types/shared/allocator.h"

namespace tk::producer_consumer {

template <typename L>
constexpr int cluster_of() {
    if constexpr (requires { L::cluster; }) return L::cluster;
    else return 1;
}

template <typename L>
struct shared_layout {
    struct alignas(1024) slot { typename L::input_stage s; };
    struct alignas(1024) scratch_slot { typename L::scratch s; };
    static constexpr size_t bytes = 1024 /* alignment slack */ + L::stages * sizeof(slot) + sizeof(scratch_slot) + 2 * L::stages * 8 + 64;
};

template <typename L>
__global__ void __launch_bounds__((L::consumers + 1) * 128, 1) kernel(const __grid_constant__ typename L::globals g) {
    static_assert(L::consumers >= 1 && L::consumers <= 3, "tk::producer_consumer: 1 to 3 consumer warpgroups");
    static_assert(L::stages >= 1, "tk::producer_consumer: at least one stage");
    constexpr int cluster = cluster_of<L>();
    static_assert(cluster >= 1 && cluster <= 8, "tk::producer_consumer: clusters of 1 to 8 blocks");
    using layout = shared_layout<L>;
    shared_allocator al;
    // Arrays, indexed arithmetically (arrays of pointers would live in local memory).
    auto& ring = al.allocate<typename layout::slot[L::stages]>();
    typename layout::scratch_slot& scratch = al.allocate<typename layout::scratch_slot>();
    auto& full = al.allocate<semaphore[L::stages]>();
    auto& empty = al.allocate<semaphore[L::stages]>();
    if (threadIdx.x == 0)
        for (int s = 0; s < L::stages; ++s) {
            init_semaphore(full[s], 1);                  // the producer's arrive.expect_tx (+ the bytes)
            init_semaphore(empty[s], L::consumers * 4 * cluster);  // one arrival per consumer warp of each block
        }
    if constexpr (cluster > 1) cluster::sync_after_init();  // the cluster's blocks arrive on each other's
    else __syncthreads();

    // Clusters walk the work items; their blocks each take a part of one.
    const int items = L::work_items(g), first = int(blockIdx.x) / cluster, step = int(gridDim.x) / cluster;
    // A consumer warp's release of stage s: in every block its stage may be multicast from.
    auto release = [&](int s) {
        if (laneid() != 0) return;
        if constexpr (cluster > 1)
            for (int r = 0; r < cluster; ++r) cluster::arrive(empty[s], r);
        else arrive(empty[s]);
    };
    const int group = warp_uniform(warpgroup::groupid());  // each warpgroup's role, known uniform
    if (group == 0) {
        warpgroup::decrease_registers<L::producer_registers>();
        if (warpgroup::laneid() == 0) {
            int it = 0;  // stages filled so far, over all work items
            for (int item = first; item < items; item += step)
                for (int k = 0; k < L::iterations(g, item); ++k, ++it) {
                    const int s = it % L::stages;
                    if (it >= L::stages) wait(empty[s], (it / L::stages - 1) & 1);  // its last use was released
                    L::load(ring[s].s, full[s], g, item, k);
                }
        }
    } else {
        warpgroup::increase_registers<L::consumer_registers>();
        const int c = group - 1;
        typename L::state st;
        int it = 0;
        for (int item = first; item < items; item += step) {
            L::start(st, scratch.s, g, item, c);
            const int n = L::iterations(g, item);
            for (int k = 0; k < n; ++k, ++it) {
                const int s = it % L::stages;
                wait(full[s], (it / L::stages) & 1);
                L::compute(st, ring[s].s, scratch.s, g, item, k, c);
                // The previous stage's wgmmas are done once at most this one's
                // are in flight: release it, and keep the tensor cores fed.
                if (k > 0) {
                    warpgroup::mma_async_wait<1>();
                    release((it - 1) % L::stages);
                }
            }
            if constexpr (requires { L::tail(st, ring[0].s, scratch.s, g, item, c); })
                if (n > 0) L::tail(st, ring[(it - 1) % L::stages].s, scratch.s, g, item, c);
            warpgroup::mma_async_wait<0>();
            if (n > 0) release((it - 1) % L::stages);
            L::finish(st, scratch.s, g, item, c);
        }
        if constexpr (requires { L::drain(scratch.s, g, c); }) L::drain(scratch.s, g, c);
    }
    // No block leaves while another of its cluster may still arrive on its semaphores.
    if constexpr (cluster > 1) {
        __syncwarp();
        cluster::sync();
    }
}

template <typename L>
inline constexpr unsigned threads = unsigned((L::consumers + 1) * 128);

// The persistent grid: one block per SM (in as many clusters as run at once),
// or fewer when there are fewer work items.
template <typename L>
dim3 grid(const typename L::globals& g) {
    constexpr int cluster = cluster_of<L>();
    int fit = multiprocessors() / cluster;
#if defined(TK_GPU)
    if constexpr (cluster > 1) fit = max_active_clusters(kernel<L>, dim3(threads<L>), shared_layout<L>::bytes, cluster, "tk::producer_consumer");
#endif
    const int clusters = L::work_items(g);
    return dim3(unsigned((clusters < fit ? clusters : fit) * cluster));
}

// Launching the kernel (and waiting for it), and timing it. Internal
// linkage, like tk::launch (tk/host/launch.h says why).
namespace {
template <typename L>
void launch_on(const char* name, const typename L::globals& g, dim3 blocks) {
    tk::launch_cluster(name, kernel<L>, blocks, dim3(threads<L>), shared_layout<L>::bytes, unsigned(cluster_of<L>()), g);
}
template <typename L>
void launch(const char* name, const typename L::globals& g) { launch_on<L>(name, g, grid<L>(g)); }

#if defined(TK_GPU)
// The mean time of back-to-back launches (tk::mean_launch_ms), after one
// launch through launch() (which raises the shared-memory limit).
template <typename L>
double time_ms(const char* name, const typename L::globals& g) {
    const dim3 blocks = grid<L>(g);  // once: with clusters it asks the driver how many fit
    launch_on<L>(name, g, blocks);
    if constexpr (cluster_of<L>() > 1)
        return mean_launch_ms([&] { launch_in_clusters(kernel<L>, blocks, dim3(threads<L>), shared_layout<L>::bytes, unsigned(cluster_of<L>()), g); },
                              name);
    else
        return mean_launch_ms([&] { kernel<L><<<blocks, threads<L>, shared_layout<L>::bytes>>>(g); }, name);
}
#endif
} // namespace

} // namespace tk::producer_consumer
