// The GPU test runner: skips (exit 77, CTest's SKIP_RETURN_CODE) when there
// is no usable CUDA device, so CI machines without a GPU pass cleanly.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cstdio>
#include <cuda_runtime.h>

int main(int argc, char** argv) {
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        std::printf("no CUDA device (%s): GPU tests skipped\n", e != cudaSuccess ? cudaGetErrorString(e) : "none found");
        return 77;
    }
    cudaDeviceProp p{};
    cudaGetDeviceProperties(&p, 0);
    std::printf("GPU tests on %s (sm_%d%d)\n", p.name, p.major, p.minor);
    return Catch::Session().run(argc, argv);
}
