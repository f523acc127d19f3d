// What the profiler's overhead benchmarks share: their command line, the demo
// GEMM's operands at N^3 on the device, and a mean.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "kernels/gemm/gemm_data.cuh"
#include "kernels/gemm/gemm_kernel.cuh"

namespace overhead_bench {

struct Options {
    int size = 4096, iters = 20, rounds = 10;
};

// --size N (a multiple of 64), --iters N (at most max_iters, `why` says
// why), --rounds N; exits 2 on anything else.
inline Options parse(int argc, char** argv, Options o, int max_iters, const char* why = "") {
    for (int i = 1; i < argc; ++i) {
        auto value = [&](const char* flag) {
            if (i + 1 >= argc) { std::fprintf(stderr, "%s needs a number\n", flag); std::exit(2); }
            const int v = std::atoi(argv[++i]);
            if (v <= 0) { std::fprintf(stderr, "%s must be a positive number, not %s\n", flag, argv[i]); std::exit(2); }
            return v;
        };
        if (!std::strcmp(argv[i], "--size")) o.size = value("--size");
        else if (!std::strcmp(argv[i], "--iters")) o.iters = value("--iters");
        else if (!std::strcmp(argv[i], "--rounds")) o.rounds = value("--rounds");
        else {
            std::fprintf(stderr, "usage: %s [--size N (multiple of %d)] [--iters N (at most %d)] [--rounds N]\n", argv[0],
                         gemm::BLOCK, max_iters);
            std::exit(2);
        }
    }
    if (o.size % gemm::BLOCK != 0) { std::fprintf(stderr, "--size must be a multiple of %d\n", gemm::BLOCK); std::exit(2); }
    if (o.iters > max_iters) { std::fprintf(stderr, "--iters: at most %d%s\n", max_iters, why); std::exit(2); }
    return o;
}

// The GPU's name, or nullptr when there is none (the benchmark then exits 77).
inline const char* gpu_name() {
    static cudaDeviceProp prop{};
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) return nullptr;
    cudaGetDeviceProperties(&prop, 0);
    return prop.name;
}

// A, B (bf16, seeds 1 and 2) and C (float), N x N each, on the device.
inline gemm::Data gemm_operands(int n) { return gemm::make_inputs({{"M", n}, {"N", n}, {"K", n}}, 1, 2); }

inline double mean(const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return v.empty() ? 0 : s / double(v.size());
}

} // namespace overhead_bench
