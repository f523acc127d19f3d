// Empty kernels for scripts/gpu/launch_overhead.sh: a shared library that
// Python loads with ctypes while PyTorch's profiler (CUPTI's activity records,
// the same records tklab's kernel timing reads) times each launch.
#include <cuda_runtime.h>

__global__ void empty_kernel() {}

// `times` launches of `blocks` x `threads`, back to back; 0 or CUDA's error.
extern "C" int launch_empty(int blocks, int threads, int times) {
    for (int i = 0; i < times; ++i) empty_kernel<<<blocks, threads>>>();
    return int(cudaDeviceSynchronize());
}
