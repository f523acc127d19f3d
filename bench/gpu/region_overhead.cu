// What intra-kernel timing costs: the demo GEMM (swizzled, with its three
// tk::region markers) at 4096^3, launched through tk::launch, with and
// without a region session current, rounds interleaved (off, on, off, on...)
// in the same process. Kernel times come from CUPTI's activity records, so
// they hold the kernel alone (not the launch wrapper's copies of the buffer
// pointer). Prints both means, the overhead and the issue's target: at most
// 3% on the 4096^3 demo GEMM.
//
//   region_overhead [--size 4096] [--iters 10] [--rounds 8]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "kernels/gemm/gemm_kernel.cuh"
#include "profiler/gpu/kernel_activity.h"
#include "profiler/gpu/regions_session.h"
#include "tk/host/reference.h"

namespace {

constexpr double kTargetPercent = 3.0;

struct Options {
    int size = 4096, iters = 10, rounds = 8;
};

Options parse(int argc, char** argv) {
    Options o;
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
        else { std::fprintf(stderr, "usage: %s [--size N (multiple of 64)] [--iters N <= 16] [--rounds N]\n", argv[0]); std::exit(2); }
    }
    if (o.size % gemm::BLOCK != 0) { std::fprintf(stderr, "--size must be a multiple of %d\n", gemm::BLOCK); std::exit(2); }
    if (o.iters > 16) { std::fprintf(stderr, "--iters: a region session records at most 16 launches\n"); std::exit(2); }
    return o;
}

double mean(const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return v.empty() ? 0 : s / double(v.size());
}

} // namespace

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::printf("no CUDA device: nothing to measure\n");
        return 77;
    }
    cudaDeviceProp prop{};
    cudaGetDeviceProperties(&prop, 0);
    const int n = o.size;
    constexpr int kSwizzle = tk::swizzle::automatic;
    try {
        auto a = tk::host::random_values<tk::bf16>(size_t(n) * n, 1), b = tk::host::random_values<tk::bf16>(size_t(n) * n, 2);
        tk::device_buffer<tk::bf16> da(a.size(), a, "A"), db(b.size(), b, "B");
        tk::device_buffer<float> dc(size_t(n) * n, "C");
        const tk::gl<tk::bf16> A{da.data(), 1, 1, n, n}, B{db.data(), 1, 1, n, n};
        const tk::gl<float> C{dc.data(), 1, 1, n, n};
        for (int i = 0; i < 3; ++i) gemm::run<kSwizzle>(A, B, C);  // warm-up: clocks up, shared-memory limit raised

        tklab::profiler::KernelActivity activity;
        // One round: the mean kernel time (ms, CUPTI) over o.iters launches.
        auto round = [&](bool regions, uint64_t* recorded) {
            tklab::profiler::RegionSession session;
            if (regions) session.start();
            activity.start();
            for (int i = 0; i < o.iters; ++i) gemm::run<kSwizzle>(A, B, C);
            const auto got = activity.stop();
            if (regions) {
                session.stop();
                const auto device = tklab::profiler::current_gpu_device();
                tklab::trace::Trace t = tklab::profiler::gpu_trace(device);
                const auto stats = session.decode_into(t, tklab::profiler::RegionNames({"prologue", "main loop", "store"}),
                                                       device.sm_clock_mhz);
                for (const auto& s : stats) *recorded += s.regions;
            }
            double sum = 0;
            for (const auto& k : got.kernels) sum += double(k.duration_ns()) * 1e-6;
            return got.kernels.empty() ? 0.0 : sum / double(got.kernels.size());
        };
        uint64_t recorded = 0;
        std::vector<double> off, on;
        for (int r = 0; r < o.rounds; ++r) {
            off.push_back(round(false, &recorded));
            on.push_back(round(true, &recorded));
        }
        const double m_off = mean(off), m_on = mean(on), overhead = 100.0 * (m_on - m_off) / m_off;
        std::printf("Intra-kernel timing overhead: demo GEMM (swizzled, 3 regions per warp) %dx%dx%d on %s\n", n, n, n, prop.name);
        std::printf("  %d rounds x %d launches each way, interleaved off/on; %llu regions recorded\n", o.rounds, o.iters,
                    (unsigned long long)recorded);
        std::printf("  without a session  %.4f ms per kernel (CUPTI)\n", m_off);
        std::printf("  with a session     %.4f ms per kernel (CUPTI)\n", m_on);
        std::printf("  overhead           %+.2f%%\n", overhead);
        std::printf("  target             at most %.0f%%: %s\n", kTargetPercent, overhead <= kTargetPercent ? "met" : "MISSED");
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
}
