// Stall sampling through CUPTI's PC sampling on a real GPU: a kernel that does
// nothing but chase pointers through an array larger than L2 spends its time
// waiting for global loads, so its samples must be mostly long_scoreboard, on
// the chasing line of this file. What was measured is printed first, so one
// run shows it even where an expectation fails. (Without a GPU the runner
// exits 77: skipped.) CUPTI exists only on the GPU side: tests/*.cu also build
// for the simulator, where this file is empty. Built with -lineinfo
// (tests/CMakeLists.txt), which the line check needs.
#if defined(__CUDACC__)
#include <catch2/catch.hpp>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>
#include "profiler/gpu/pc_sampling.h"
#include "tk/tk.h"

namespace pcs {

// The tile library's mma, inlined from tk/arch into this kernel line: its
// samples must be named by this line (as the simulator names them), with
// tk/arch/mma.h kept as their instructions' own line.
constexpr int kMmaLine = __LINE__ + 7;  // the line of `tk::mma_AB(...)` below
__global__ void mma_loop(float* out, int steps) {
    tk::rt_bf<16, 16> a;
    tk::rt_bf<16, 16, tk::col_l> b;
    tk::rt_fl<16, 16> c;
    tk::one(a); tk::one(b); tk::zero(c);
    for (int i = 0; i < steps; ++i)
        tk::mma_AB(c, a, b, c);
    out[blockIdx.x * blockDim.x + threadIdx.x] = c.tiles[0][0].data[0].x;  // keeps the loop
}

// Each thread follows the cycle `next` from its own start: every load's
// address is the previous load's value, so nothing overlaps within a warp.
constexpr int kChaseLine = __LINE__ + 5;  // the line of `p = next[p];` below (checked against this file)
__global__ void pointer_chase(const unsigned* __restrict__ next, unsigned* out, int steps, unsigned n) {
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned p = unsigned((t * 2654435761ull) % n);
    for (int i = 0; i < steps; ++i)
        p = next[p];
    out[t] = p;  // keeps the chain from being optimised away
}

} // namespace pcs

namespace {

using tklab::profiler::PcSampling;
using tklab::profiler::PcSamplingResult;
using tklab::trace::GpuStalls;
using tklab::trace::GpuStallSite;
using Catch::Matchers::Contains;

void ok(cudaError_t e, const char* what) {
    INFO(what << ": " << cudaGetErrorString(e));
    REQUIRE(e == cudaSuccess);
}

// One cycle through all n slots (Sattolo's shuffle), so no chase gets stuck in a short loop.
std::vector<unsigned> one_cycle(unsigned n, uint64_t seed) {
    std::vector<unsigned> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::mt19937_64 rng(seed);
    for (unsigned i = n - 1; i > 0; --i) std::swap(order[i], order[std::uniform_int_distribution<unsigned>(0, i - 1)(rng)]);
    std::vector<unsigned> next(n);
    for (unsigned i = 0; i < n; ++i) next[order[i]] = order[(i + 1) % n];
    return next;
}

std::string base_name(const std::string& path) {
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Sites name project files relative to the project root.
bool all_files_relative(const GpuStalls& k) {
    for (const GpuStallSite& x : k.sites)
        if (!x.file.empty() && x.file.front() == '/') return false;
    return true;
}

// The text of a line of this file, "" when the file cannot be read here.
std::string line_of_this_file(int line) {
    std::ifstream in(__FILE__);
    std::string s;
    for (int i = 1; std::getline(in, s); ++i)
        if (i == line) return s;
    return "";
}

uint64_t sum_of(const std::vector<GpuStallSite>& v) {
    uint64_t n = 0;
    for (const GpuStallSite& x : v) n += x.samples;
    return n;
}

void print(const PcSamplingResult& r) {
    std::printf("PC sampling: period %llu cycles, CUPTI total %llu samples (%llu in non-user kernels), dropped %llu%s\n",
                (unsigned long long)r.period_cycles, (unsigned long long)r.cupti_total_samples,
                (unsigned long long)r.non_user_samples, (unsigned long long)r.dropped,
                r.hardware_buffer_full ? ", hardware buffer FULL" : "");
    for (const auto& k : r.kernels) {
        std::printf("  %s: %llu samples, %llu without a line, %llu PCs, %zu sites, sites sum %llu\n", k.stalls.kernel.c_str(),
                    (unsigned long long)k.stalls.samples, (unsigned long long)k.samples_without_line,
                    (unsigned long long)k.pcs, k.stalls.sites.size(), (unsigned long long)sum_of(k.stalls.sites));
        for (const auto& [reason, n] : k.stalls.by_reason())
            std::printf("    reason %-20s %8llu  (%.1f%%)\n", reason.c_str(), (unsigned long long)n,
                        k.stalls.samples ? 100.0 * double(n) / double(k.stalls.samples) : 0.0);
        for (const GpuStallSite& x : tklab::profiler::top_sites(k.stalls, 8))
            std::printf("    site %s:%u %-20s %8llu\n", x.file.empty() ? "?" : base_name(x.file).c_str(), x.line,
                        x.reason.c_str(), (unsigned long long)x.samples);
    }
    for (const std::string& n : r.notes) std::printf("  note: %s\n", n.c_str());
    std::fflush(stdout);
}

// What each sampling test starts with: its line constant must name the line
// it means (or its check means nothing), and cubins are kept from now on
// (this file's module loads at its first launch). Returns the SM count.
int prepare_sampling(int line, const char* text) {
    const std::string at = line_of_this_file(line);
    if (at.empty()) WARN("cannot read " << __FILE__ << " here: line " << line << " unchecked");
    else REQUIRE_THAT(at, Contains(text));
    try {
        PcSampling::watch_modules();
    } catch (const tklab::profiler::CuptiError& e) {
        WARN("no cubins, so no source lines: " << e.what());
    }
    int device = 0, sms = 0;
    ok(cudaGetDevice(&device), "cudaGetDevice");
    ok(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
    return sms;
}

} // namespace

TEST_CASE("PC sampling: pointer chasing stalls on long_scoreboard at the chasing line", "[profiler][cupti][stalls][gpu]") {
    const int sms = prepare_sampling(pcs::kChaseLine, "p = next[p];");
    const unsigned n = 1u << 24;  // 64 MiB of links: more than any L2 (50 MiB on an H100)
    const int threads = 128, blocks = 4 * sms, steps = 3000;
    const std::vector<unsigned> next = one_cycle(n, 20240601);
    unsigned *d_next = nullptr, *d_out = nullptr;
    ok(cudaMalloc(&d_next, size_t(n) * sizeof(unsigned)), "cudaMalloc next");
    ok(cudaMalloc(&d_out, size_t(blocks) * threads * sizeof(unsigned)), "cudaMalloc out");
    ok(cudaMemcpy(d_next, next.data(), size_t(n) * sizeof(unsigned), cudaMemcpyHostToDevice), "cudaMemcpy");

    PcSampling sampling;
    try {
        sampling.start();
    } catch (const tklab::profiler::CuptiError& e) {
        cudaFree(d_next);
        cudaFree(d_out);
        if (e.result == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) {  // the message must say what to do; nothing to measure
            CHECK_THAT(e.what(), Contains("NVreg_RestrictProfilingToAdminUsers=0") && Contains("still work"));
            WARN("stall sampling not permitted here: " << e.what());
            return;
        }
        FAIL("PcSampling::start: " << e.what());
    }
    cudaEvent_t t0, t1;
    ok(cudaEventCreate(&t0), "cudaEventCreate");
    ok(cudaEventCreate(&t1), "cudaEventCreate");
    ok(cudaEventRecord(t0), "cudaEventRecord");
    pcs::pointer_chase<<<blocks, threads>>>(d_next, d_out, steps, n);
    ok(cudaGetLastError(), "pointer_chase launch");
    ok(cudaEventRecord(t1), "cudaEventRecord");
    const PcSamplingResult got = sampling.stop();
    float ms = 0;
    ok(cudaEventElapsedTime(&ms, t0, t1), "cudaEventElapsedTime");
    std::printf("pointer_chase: %d blocks x %d threads, %d dependent loads each, %.3f ms; chasing line %d\n", blocks, threads,
                steps, ms, pcs::kChaseLine);
    print(got);
    cudaEventDestroy(t0);
    cudaEventDestroy(t1);
    cudaFree(d_next);
    cudaFree(d_out);

    CHECK(got.period_cycles == 4096);
    REQUIRE(got.stalls.size() == got.kernels.size());
    auto it = std::find_if(got.stalls.begin(), got.stalls.end(),
                           [](const GpuStalls& s) { return s.kernel.find("pointer_chase") != std::string::npos; });
    REQUIRE(it != got.stalls.end());
    const GpuStalls& k = *it;
    CHECK(k.kernel == "pcs::pointer_chase(unsigned int const*, unsigned int*, int, unsigned int)");
    CHECK(k.period_cycles == 4096);
    CHECK(k.samples > 1000);  // milliseconds on every SM: tens of thousands expected
    CHECK(sum_of(k.sites) <= k.samples);
    CHECK(got.cupti_total_samples >= k.samples);

    // The dominant reason over the whole kernel.
    const auto by_reason = k.by_reason();
    const auto top_reason = std::max_element(by_reason.begin(), by_reason.end(),
                                             [](const auto& a, const auto& b) { return a.second < b.second; });
    REQUIRE(top_reason != by_reason.end());
    CHECK(top_reason->first == "long_scoreboard");
    CHECK(tklab::profiler::sim_stall_for(top_reason->first) == "long_scoreboard");

    // Its heaviest site is the chasing line of this file.
    const std::vector<GpuStallSite> top = tklab::profiler::top_sites(k, 1);
    REQUIRE(top.size() == 1);
    CHECK(top[0].reason == "long_scoreboard");
    CHECK(base_name(top[0].file) == base_name(__FILE__));
    CHECK(top[0].line == unsigned(pcs::kChaseLine));
    CHECK(got.warning().find("pointer_chase") == std::string::npos);  // no note about its lines
}

TEST_CASE("PC sampling: inlined tile-library code is named by the kernel line that called it", "[profiler][cupti][stalls][gpu]") {
    const int sms = prepare_sampling(pcs::kMmaLine, "tk::mma_AB(c, a, b, c);");
    const int threads = 128, blocks = 4 * sms;
    float* d_out = nullptr;
    ok(cudaMalloc(&d_out, size_t(blocks) * threads * sizeof(float)), "cudaMalloc out");
    PcSampling sampling;
    try {
        sampling.start();
    } catch (const tklab::profiler::CuptiError& e) {
        cudaFree(d_out);
        if (e.result == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) {
            WARN("stall sampling not permitted here: " << e.what());
            return;
        }
        FAIL("PcSampling::start: " << e.what());
    }
    pcs::mma_loop<<<blocks, threads>>>(d_out, 20000);
    ok(cudaGetLastError(), "mma_loop launch");
    ok(cudaDeviceSynchronize(), "mma_loop");
    const PcSamplingResult got = sampling.stop();
    print(got);
    cudaFree(d_out);
    auto it = std::find_if(got.stalls.begin(), got.stalls.end(),
                           [](const GpuStalls& s) { return s.kernel.find("mma_loop") != std::string::npos; });
    REQUIRE(it != got.stalls.end());
    const GpuStalls& k = *it;
    CHECK(k.samples > 1000);
    for (const GpuStallSite& x : tklab::profiler::top_sites(k, 3)) std::printf("    kernel line %s:%u %s %llu\n", x.file.c_str(), x.line, x.reason.c_str(), (unsigned long long)x.samples);
    // Every sampled line is one of this kernel's, relative to the project, none inside tk/.
    uint64_t at_mma = 0, total = 0;
    for (const GpuStallSite& x : k.sites) {
        INFO(x.file << ":" << x.line);
        CHECK(x.file.rfind("tk/", 0) != 0);
        CHECK(x.file.find("/include/") == std::string::npos);
        total += x.samples;
        if (base_name(x.file) == base_name(__FILE__) && x.line == unsigned(pcs::kMmaLine)) at_mma += x.samples;
    }
    CHECK(all_files_relative(k));
    CHECK(at_mma * 2 > total);  // most of the time is the mma line's
    // Their own lines are kept: the mma's instructions come from tk/arch/mma.h.
    uint64_t in_arch = 0;
    for (const GpuStallSite& x : k.inner_sites) in_arch += x.file == "tk/arch/mma.h" ? x.samples : 0;
    CHECK(in_arch * 2 > total);
}

TEST_CASE("PC sampling: misuse is an error that says so", "[profiler][cupti][stalls][gpu]") {
    PcSampling sampling;
    CHECK_FALSE(sampling.running());
    CHECK_THROWS_WITH(sampling.stop(), Contains("stop() without start()"));
    tklab::profiler::PcSamplingOptions bad;
    bad.period_log2 = 40;
    PcSampling too_slow(bad);
    CHECK_THROWS_WITH(too_slow.start(), Contains("period_log2 40") && Contains("5..31"));
    PcSampling again;
    try {
        again.start();
    } catch (const tklab::profiler::CuptiError& e) {
        if (e.result == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) return;  // the test above says it
        FAIL("PcSampling::start: " << e.what());
    }
    CHECK(again.running());
    CHECK_THROWS_WITH(PcSampling().start(), Contains("already running"));  // one session at a time
    const PcSamplingResult none = again.stop();
    CHECK(none.stalls.empty());  // nothing ran
    CHECK_FALSE(again.running());
    // Work that fails stops sampling on its way out, so a new session can start.
    CHECK_THROWS_WITH(tklab::profiler::record_stalls([] { throw std::runtime_error("kernel failed"); }), Contains("kernel failed"));
    const PcSamplingResult after = tklab::profiler::record_stalls([] {});
    CHECK(after.period_cycles == 4096);
}

TEST_CASE("PC sampling: CUPTI's errors come with what to do", "[profiler][cupti][stalls]") {
    using tklab::profiler::pc_sampling_fix;
    CHECK_THAT(pc_sampling_fix(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES),
               Contains("NVreg_RestrictProfilingToAdminUsers=0") && Contains("root") && Contains("timing and regions"));
    CHECK_THAT(pc_sampling_fix(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED), Contains("Nsight"));
    CHECK_THAT(pc_sampling_fix(CUPTI_ERROR_HARDWARE_BUSY), Contains("--profile counters"));
    CHECK_THAT(pc_sampling_fix(CUPTI_ERROR_NOT_SUPPORTED), Contains("compute capability 7.0"));
    CHECK_FALSE(pc_sampling_fix(CUPTI_ERROR_UNKNOWN).empty());
}
#endif // __CUDACC__
