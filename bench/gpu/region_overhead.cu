// What intra-kernel timing costs: the demo GEMM (swizzled, with its three
// tk::region markers) at 4096^3, launched through tk::launch, with and
// without a region session current, rounds interleaved (off, on, off, on...)
// in the same process. Kernel times come from CUPTI's activity records, so
// they hold the kernel alone (not the launch wrapper's copies of the buffer
// pointer). Prints both means, the overhead and the issue's target: at most
// 3% on the 4096^3 demo GEMM.
//
//   region_overhead [--size 4096] [--iters 10] [--rounds 8]
#include <vector>
#include "bench/gpu/overhead_bench.h"
#include "profiler/gpu/kernel_activity.h"
#include "profiler/gpu/regions_session.h"

constexpr double kTargetPercent = 3.0;

int main(int argc, char** argv) {
    using overhead_bench::mean;
    const overhead_bench::Options o = overhead_bench::parse(argc, argv, {4096, 10, 8}, 16, " (a region session records at most 16 launches)");
    const char* gpu = overhead_bench::gpu_name();
    if (!gpu) {
        std::printf("no CUDA device: nothing to measure\n");
        return 77;
    }
    const int n = o.size;
    constexpr int kSwizzle = tk::swizzle::automatic;
    try {
        const gemm::Data g = overhead_bench::gemm_operands(n);
        const tk::gl<tk::bf16> A = g.A(), B = g.B();
        const tk::gl<float> C = g.C();
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
        std::printf("Intra-kernel timing overhead: demo GEMM (swizzled, 3 regions per warp) %dx%dx%d on %s\n", n, n, n, gpu);
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
