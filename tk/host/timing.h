// Timing kernels on the GPU: the mean time of back-to-back launches between
// two CUDA events (no synchronisation between launches), after a warm-up,
// over at least 20 launches and at least 100 ms. GPU builds only; the
// simulator's time is its cost model's (tklab run prints it).
#pragma once
#include <algorithm>
#include "tk/common/base.h"
#include "tk/host/device_buffer.h"

namespace tk {

#if defined(TK_GPU)
// `launch` starts one kernel launch (with <<<...>>>, not tk::launch, which
// synchronises); run the kernel once through tk::launch first where it needs
// more than 48 KB of shared memory (that raises the limit). `what` names it
// in a CUDA error.
template <typename Launch>
double mean_launch_ms(Launch&& launch, const char* what) {
    cudaEvent_t start, stop;
    cuda_check(cudaEventCreate(&start), what);
    cuda_check(cudaEventCreate(&stop), what);
    auto time_n = [&](int n) {
        cudaEventRecord(start);
        for (int i = 0; i < n; ++i) launch();
        cudaEventRecord(stop);
        cuda_check(cudaGetLastError(), what);
        cuda_check(cudaEventSynchronize(stop), what);
        float ms = 0;
        cudaEventElapsedTime(&ms, start, stop);
        return double(ms);
    };
    time_n(3);  // warm-up
    const double once = std::max(time_n(5) / 5, 1e-4);
    const int iters = std::max(20, int(100.0 / once));
    const double ms = time_n(iters) / iters;
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return ms;
}
#endif

} // namespace tk
