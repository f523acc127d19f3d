// Empty kernels for scripts/gpu/launch_overhead.sh: a shared library that
// Python loads with ctypes while PyTorch's profiler (CUPTI's activity records,
// the same records tklab's kernel timing reads) times each launch.
#include <cuda_runtime.h>

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

__global__ void empty_kernel() {}

// `times` launches of `blocks` x `threads`, back to back; 0 or CUDA's error.
extern "C" int launch_empty(int blocks, int threads, int times) {
    for (int i = 0; i < times; ++i) empty_kernel<<<blocks, threads>>>();
    return int(cudaDeviceSynchronize());
}

// What an SM takes between a block's end and the next block's start in the
// same place (a later wave's): each block spins `spin` cycles, one per SM
// at a time (its dynamic shared memory leaves no room for a second), and
// thread 0 records its SM and its first and last %clock64 (a per-SM clock,
// so the two blocks' clocks compare).
__global__ void stamped_kernel(long long spin, long long* stamps) {
    const long long t0 = clock64();
    while (clock64() - t0 < spin) {
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned sm;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        const long long t1 = clock64();
        long long* s = stamps + 3 * size_t(blockIdx.x);
        s[0] = sm, s[1] = t0, s[2] = t1;
    }
}

// `waves` waves of such blocks of `threads` threads: the median over every
// SM's consecutive pairs of (next block's first clock - this block's last),
// in *gap_cycles; 0 or CUDA's error.
extern "C" int block_gaps(int waves, int threads, long long spin, double* gap_cycles) {
    int sms = 0;
    if (cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0)) return int(e);
    const int smem = 150 * 1024;  // two would need 300 KB: one block per SM
    if (cudaError_t e = cudaFuncSetAttribute(stamped_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem)) return int(e);
    const int blocks = sms * waves;
    long long* d = nullptr;
    if (cudaError_t e = cudaMalloc(&d, size_t(blocks) * 3 * sizeof(long long))) return int(e);
    stamped_kernel<<<blocks, threads, smem>>>(spin, d);  // warm-up
    stamped_kernel<<<blocks, threads, smem>>>(spin, d);
    std::vector<long long> h(size_t(blocks) * 3);
    cudaError_t e = cudaMemcpy(h.data(), d, h.size() * sizeof(long long), cudaMemcpyDeviceToHost);
    cudaFree(d);
    if (e) return int(e);
    std::map<long long, std::vector<std::pair<long long, long long>>> by_sm;
    for (int b = 0; b < blocks; ++b) by_sm[h[3 * b]].push_back({h[3 * b + 1], h[3 * b + 2]});
    std::vector<long long> gaps;
    for (auto& [sm, v] : by_sm) {
        std::sort(v.begin(), v.end());
        for (size_t i = 1; i < v.size(); ++i) gaps.push_back(v[i].first - v[i - 1].second);
    }
    if (gaps.empty()) return -1;
    std::sort(gaps.begin(), gaps.end());
    *gap_cycles = double(gaps[gaps.size() / 2]);
    return 0;
}
