// Launching a kernel: the same call runs it on the GPU or in the simulator,
// and returns when it has finished.
//   TK_LAUNCH(my_kernel, grid, block, shared_bytes, args...);
#pragma once
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include "tk/common/base.h"
#include "tk/common/region_buffer.h"
#include "tk/host/device_buffer.h"
#include "tk/host/gpu_wait.h"
#include "tk/ops/warp/debug/region.h"

namespace tk {

namespace profile {
// The buffer launches record regions into (host side); nullptr: none. The
// profiler sets it (profiler/gpu/regions_session.h); tk::launch reads it.
using region_target = tklab::regions::Target;
inline region_target*& current_regions() { return tklab::regions::current_target(); }
} // namespace profile

// SMs of the GPU kernels run on (the simulated one's in the simulator): the
// size of a persistent grid.
inline int multiprocessors() {
#if defined(TK_GPU)
    int dev = 0, n = 0;
    cuda_check(cudaGetDevice(&dev), "cudaGetDevice");
    cuda_check(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev), "SM count");
    return n;
#else
    return tklab::sim::multiprocessors();
#endif
}

// Internal linkage (an unnamed namespace): each translation unit keeps its own
// copy. On the GPU the launch points its own translation unit's tk::region
// buffer view at the profiler's buffer (tk/ops/warp/debug/region.h); a copy
// shared between translation units (the linker keeps one of identical
// template instances) would set another file's view, and the kernel's
// markers would record nothing. Launch a kernel from its own file.
namespace {

#if defined(TK_GPU)
// Before a launch, point this translation unit's tk::region view
// (detail::region_view, tk/ops/warp/debug/region.h) at the current target's
// buffer. Returns whether it did (then the caller clears it after the kernel,
// so no stale pointer outlives the buffer).
inline bool regions_before_launch(const char* kernel, dim3 grid, dim3 block) {
    tklab::regions::Target* target = tklab::regions::current_target();
    if (!target) return false;  // the common case: no copy, nothing to pay
    const uint32_t g[3] = {grid.x, grid.y, grid.z}, b[3] = {block.x, block.y, block.z};
    const tklab::regions::DeviceView v = target->prepare(kernel, g, b);
    if (!v.records) return false;
    const cudaError_t e = cudaMemcpyToSymbol(detail::region_view, &v, sizeof v);
    if (e != cudaSuccess)
        throw std::runtime_error(std::string(kernel) + ": setting the region buffer (cudaMemcpyToSymbol): " + cudaGetErrorString(e));
    return true;
}
inline void regions_after_launch() {
    const tklab::regions::DeviceView off{};
    (void)cudaMemcpyToSymbol(detail::region_view, &off, sizeof off);  // best effort: may run while an error unwinds
}

// Kernels may use more than 48 KB of dynamic shared memory only once raised.
template <typename Kernel>
void allow_shared_bytes(Kernel kernel, size_t shared_bytes, const char* what) {
    if (shared_bytes > 48 * 1024)
        cuda_check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared_bytes)), what);
}

// One launch, started by `start` (which returns its cudaError_t), and waited
// for. With a region buffer current (tk::profile::current_regions()), this
// translation unit's markers record into it for this launch only.
template <typename Kernel, typename Start>
void launch_and_wait(const char* name, Kernel kernel, dim3 grid, dim3 block, size_t shared_bytes, Start&& start) {
    allow_shared_bytes(kernel, shared_bytes, name);
    struct regions_guard {
        bool on;
        ~regions_guard() { if (on) regions_after_launch(); }
    } regions{regions_before_launch(name, grid, block)};
    cuda_check(start(), name);
    // Polled, not cudaDeviceSynchronize: a deadlocked kernel must not hang the run (tk/host/gpu_wait.h).
    cudaError_t state = cudaSuccess;
    const double limit = host::gpu_wait_limit_s();
    if (!host::poll_until_done([&] { return (state = cudaStreamQuery(nullptr)) != cudaErrorNotReady; }, limit)) {
        const std::string m = host::hung_launch_message(name, limit);
        std::fputs(m.c_str(), stderr);
        std::fflush(stderr);
        std::_Exit(124);  // no destructors: freeing device memory would wait for the kernel too
    }
    cuda_check(state, name);
    cuda_check(cudaDeviceSynchronize(), name);
}

// A launch configuration in clusters of `cluster` blocks along x; it points
// at `attr`, which must outlive it.
inline cudaLaunchConfig_t cluster_config(cudaLaunchAttribute& attr, dim3 grid, dim3 block, size_t shared_bytes, unsigned cluster) {
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = cluster;
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = shared_bytes;
    config.attrs = &attr;
    config.numAttrs = 1;
    return config;
}

// One launch in clusters of `cluster` blocks along x, not waited for.
template <typename... KArgs, typename... Args>
cudaError_t launch_in_clusters(void (*kernel)(KArgs...), dim3 grid, dim3 block, size_t shared_bytes, unsigned cluster, Args&&... args) {
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t config = cluster_config(attr, grid, block, shared_bytes, cluster);
    return cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
}

// How many clusters of `cluster` blocks of this kernel the GPU runs at once:
// fewer than SMs / cluster where a GPC's SMs do not divide evenly (clusters
// of 4 of the GEMM: fewer than 33 on an H200, so a persistent grid of 33
// waited for a second wave).
template <typename... KArgs>
int max_active_clusters(void (*kernel)(KArgs...), dim3 block, size_t shared_bytes, unsigned cluster, const char* what) {
    allow_shared_bytes(kernel, shared_bytes, what);
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t config = cluster_config(attr, dim3(cluster), block, shared_bytes, cluster);
    int n = 0;
    cuda_check(cudaOccupancyMaxActiveClusters(&n, kernel, &config), what);
    return n;
}
#endif

template <typename... KArgs, typename... Args>
void launch(const char* name, void (*kernel)(KArgs...), dim3 grid, dim3 block, size_t shared_bytes, Args&&... args) {
#if defined(TK_GPU)
    launch_and_wait(name, kernel, grid, block, shared_bytes, [&] {
        kernel<<<grid, block, shared_bytes>>>(std::forward<Args>(args)...);
        return cudaGetLastError();
    });
#else
    tklab::sim::launch(name, {grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, shared_bytes,
                       [&] { kernel(args...); }, reinterpret_cast<const void*>(kernel));
#endif
}

// A launch in clusters of `cluster` blocks along x (grid.x a multiple of it).
// The simulator runs clusters of one block (tk/ops/sync/cluster.h), where
// layouts size them with tk::cluster_size, so it is tk::launch there.
template <typename... KArgs, typename... Args>
void launch_cluster(const char* name, void (*kernel)(KArgs...), dim3 grid, dim3 block, size_t shared_bytes, unsigned cluster,
                    Args&&... args) {
    if (cluster < 1 || grid.x % cluster != 0)
        throw std::invalid_argument(std::string(name) + ": a grid of " + std::to_string(grid.x) + " blocks along x is not a whole number of clusters of " +
                                    std::to_string(cluster) + "; launch a multiple of the cluster size");
#if defined(TK_GPU)
    if (cluster == 1) return launch(name, kernel, grid, block, shared_bytes, std::forward<Args>(args)...);
    launch_and_wait(name, kernel, grid, block, shared_bytes,
                    [&] { return launch_in_clusters(kernel, grid, block, shared_bytes, cluster, std::forward<Args>(args)...); });
#else
    launch(name, kernel, grid, block, shared_bytes, std::forward<Args>(args)...);
#endif
}

} // namespace
} // namespace tk

#define TK_LAUNCH(kernel, grid, block, shared_bytes, ...) ::tk::launch(#kernel, kernel, grid, block, shared_bytes, __VA_ARGS__)
