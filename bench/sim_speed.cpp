// Simulator speed on the demonstration GEMM, with everything recorded
// (per-lane addresses of every shared-memory instruction included).
// For each size: wall seconds, warp instructions simulated per second, peak
// memory, and the slowdown against a plain C++ float i-k-j matrix product of
// the same size, built with the same flags and timed in the same run.
// Each size runs in its own child process so its peak memory is its own;
// times are the best of three runs, since a shared machine's noise only adds.
//
//   sim_speed [SIZE...]      (default 256 512 1024)
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "kernels/gemm/gemm_kernel.cuh"
#include "tk/host/reference.h"

namespace {

struct Result { double sim_s, ref_s; unsigned long long instr; long peak_kb; float checksum; };

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The baseline: what a student would write first, in float.
__attribute__((noinline)) void plain_matmul(const float* a, const float* b, float* c, int n) {
    for (int i = 0; i < n * n; ++i) c[i] = 0.f;
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < n; ++k) {
            const float av = a[i * n + k];
            for (int j = 0; j < n; ++j) c[i * n + j] += av * b[k * n + j];
        }
}

Result measure(int n) {
    Result r{};
    auto a = tk::host::random_values<tk::bf16>(size_t(n) * n, 1), b = tk::host::random_values<tk::bf16>(size_t(n) * n, 2);
    const auto af = tk::host::to_floats(a), bf = tk::host::to_floats(b);
    std::vector<float> cf(size_t(n) * n);
    constexpr int repeats = 3;
    r.ref_s = r.sim_s = 1e30;
    for (int i = 0; i < repeats; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        plain_matmul(af.data(), bf.data(), cf.data(), n);
        r.ref_s = std::min(r.ref_s, seconds_since(t0));
    }
    r.checksum = cf[size_t(n) * n / 2];

    tklab::sim::options().all_lane_addresses = true;
    tk::device_buffer<tk::bf16> da(a.size(), a, "A"), db(b.size(), b, "B");
    tk::device_buffer<float> dc(size_t(n) * n, "C");
    for (int i = 0; i < repeats; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        gemm::run<tk::swizzle::automatic>({da.data(), 1, 1, n, n}, {db.data(), 1, 1, n, n}, {dc.data(), 1, 1, n, n});
        r.sim_s = std::min(r.sim_s, seconds_since(t0));
    }
    r.instr = tklab::sim::last_run().stats.warp_instructions;
    const float got = dc.download()[size_t(n) * n / 2];
    if (std::abs(got - r.checksum) > 1e-2f * std::max(1.f, std::abs(r.checksum))) {
        std::fprintf(stderr, "sim_speed: the simulated GEMM disagrees with the plain product at %d^3\n", n);
        std::exit(1);
    }
    struct rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    r.peak_kb = ru.ru_maxrss;
    return r;
}

} // namespace

int main(int argc, char** argv) {
    std::vector<int> sizes;
    for (int i = 1; i < argc; ++i) {
        const int n = std::atoi(argv[i]);
        if (n <= 0 || n % 64) { std::fprintf(stderr, "usage: sim_speed [SIZE...] (multiples of 64)\n"); return 2; }
        sizes.push_back(n);
    }
    if (sizes.empty()) sizes = {256, 512, 1024};
    std::printf("simulator speed, demonstration GEMM (swizzled), everything recorded, 1 host thread, best of 3\n");
    std::printf("%6s %10s %12s %14s %10s %12s %9s\n", "size", "sim s", "warp instr", "instr/s", "peak MB", "plain ikj s", "slowdown");
    for (int n : sizes) {
        int fd[2];
        if (pipe(fd) != 0) return 1;
        const pid_t pid = fork();
        if (pid == 0) {
            close(fd[0]);
            Result r = measure(n);
            if (write(fd[1], &r, sizeof r) != ssize_t(sizeof r)) _exit(1);
            _exit(0);
        }
        close(fd[1]);
        Result r{};
        const bool got = read(fd[0], &r, sizeof r) == ssize_t(sizeof r);
        close(fd[0]);
        int status = 0;
        waitpid(pid, &status, 0);
        if (!got || !WIFEXITED(status) || WEXITSTATUS(status) != 0) { std::fprintf(stderr, "sim_speed: size %d failed\n", n); return 1; }
        std::printf("%6d %10.3f %12llu %14.0f %10.1f %12.4f %8.1fx\n", n, r.sim_s, r.instr, r.instr / r.sim_s, r.peak_kb / 1024.0,
                    r.ref_s, r.sim_s / r.ref_s);
        std::fflush(stdout);
    }
    return 0;
}
