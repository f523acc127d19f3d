// The SASS instructions around each tile op (overhead_probes.h): launched
// here, counted by Nsight Compute in scripts/gpu/calibrate.sh (--only overhead).
#include "common.h"
#include "bench/calibrate/overhead_probes.h"

#include <algorithm>

namespace cal {

// Each probe once, one block of 4 warps, `iters` calls (calibrate
// --overhead-probes ITERS, for ncu); with `timing`, each probe at 8 and 40
// calls instead, printing its cycles per call (the slowest warp's, one warp
// per sub-partition): what the op's code costs a warp alone.
int run_overhead_probes(int iters, bool timing) {
    using namespace overhead;
    tk::bf16* a = nullptr;
    float* f = nullptr;
    uint32_t* sink = nullptr;
    CK(cudaMalloc(&a, size_t(kRows) * kCols * sizeof(tk::bf16)));
    CK(cudaMalloc(&f, size_t(kRows) * kCols * sizeof(float)));
    CK(cudaMalloc(&sink, kThreads * sizeof(uint32_t)));
    CK(cudaMemset(a, 0x3c, size_t(kRows) * kCols * sizeof(tk::bf16)));
    CK(cudaMemset(f, 0, size_t(kRows) * kCols * sizeof(float)));
    const tk::gl<tk::bf16> A(a, 1, 1, kRows, kCols);
    const tk::gl<float> F(f, 1, 1, kRows, kCols);
    long long* cycles = nullptr;
    CK(cudaMalloc(&cycles, kThreads / 32 * sizeof(long long)));
    for_each_probe([&](auto kernel, int p) {
        CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kSharedBytes)));
        if (!timing) {
            kernel<<<1, kThreads, kSharedBytes>>>(A, F, iters, sink, nullptr);
            CK_LAUNCH();
            return;
        }
        auto slowest = [&](int n) {  // the slowest warp's cycles, median of 5 launches after a warm-up
            return median_runs(5, [&] {
                kernel<<<1, kThreads, kSharedBytes>>>(A, F, n, sink, cycles);
                CK_LAUNCH();
                long long c[kThreads / 32];
                CK(cudaMemcpy(c, cycles, sizeof c, cudaMemcpyDeviceToHost));
                return double(*std::max_element(c, c + kThreads / 32));
            });
        };
        std::printf("timing: %s %.2f\n", kNames[p], (slowest(40) - slowest(8)) / 32.0);
    });
    CK(cudaFree(cycles));
    if (timing) return 0;
    std::printf("probes:");
    for (int p = 0; p < probes; ++p) std::printf(" %s=%d", kNames[p], kModelled[p]);
    std::printf("\n");
    return 0;
}

} // namespace cal
