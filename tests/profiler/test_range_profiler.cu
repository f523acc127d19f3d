// Hardware counters through CUPTI's Range Profiler on a real GPU: one-block
// kernels whose shared-memory accesses the bank rules predict exactly (each
// access an asm volatile, repeated kReps times, on uninitialized shared memory:
// only the addresses matter). The counters must give the predicted
// instructions, wavefronts and conflicts. Every launch's counters are printed,
// so one run shows the hardware's numbers even where an expectation is wrong.
// (Without a GPU the runner exits 77: skipped.) CUPTI exists only on the GPU
// side: tests/*.cu also build for the simulator, where this file is empty.
#if defined(__CUDACC__)
#include <catch2/catch.hpp>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <functional>
#include "profiler/decode/counter_metrics.h"
#include "profiler/gpu/range_profiler.h"

namespace rpt {

constexpr int kReps = 16;       // accesses per thread in each kernel
constexpr int kMatrixReps = 8;  // ldmatrix/stmatrix: one 4 KB tile each

__device__ __forceinline__ uint32_t shared_address(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

// Each lane loads the 32-bit word lane * Stride (Stride 0: all lanes one word).
template <int Stride>
__global__ void lds32(uint32_t* out) {
    __shared__ uint32_t words[32 * 32];
    const uint32_t lane = threadIdx.x % 32;
    const uint32_t a = shared_address(&words[lane * Stride]);
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < kReps; ++i) {
        uint32_t v;
        asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(v) : "r"(a) : "memory");
        acc ^= v;
    }
    out[threadIdx.x] = acc;
}

// Each lane loads Bytes (8 or 16) consecutive bytes at lane * Bytes: 256 or 512 bytes a warp.
template <int Bytes>
__global__ void lds_vector(uint32_t* out) {
    __shared__ uint4 chunks[32];
    const uint32_t lane = threadIdx.x % 32;
    const uint32_t a = shared_address(reinterpret_cast<const char*>(chunks) + lane * Bytes);
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < kReps; ++i) {
        uint32_t x, y, z = 0, w = 0;
        if constexpr (Bytes == 8)
            asm volatile("ld.volatile.shared.v2.u32 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "r"(a) : "memory");
        else
            asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                         : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(a) : "memory");
        acc ^= x ^ y ^ z ^ w;
    }
    out[threadIdx.x] = acc;
}

// Each lane stores the 32-bit word lane * Stride.
template <int Stride>
__global__ void sts32(uint32_t* out) {
    __shared__ uint32_t words[32 * 32];
    const uint32_t lane = threadIdx.x % 32;
    const uint32_t a = shared_address(&words[lane * Stride]);
#pragma unroll
    for (int i = 0; i < kReps; ++i) asm volatile("st.volatile.shared.u32 [%0], %1;" ::"r"(a), "r"(lane + i) : "memory");
    out[threadIdx.x] = lane;
}

// Each lane stores 16 bytes at lane * 16: 512 bytes a warp.
__global__ void sts128(uint32_t* out) {
    __shared__ uint4 chunks[32];
    const uint32_t lane = threadIdx.x % 32;
    const uint32_t a = shared_address(&chunks[lane]);
#pragma unroll
    for (int i = 0; i < kReps; ++i)
        asm volatile("st.volatile.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(a), "r"(lane), "r"(i), "r"(lane), "r"(i)
                     : "memory");
    out[threadIdx.x] = lane;
}

// The row address lane l gives ldmatrix/stmatrix .x4 in a 32-row, 64-column
// bf16 row-major tile (128 bytes a row): row l, first 8 columns. Unswizzled,
// the 8 rows of each 8x8 matrix start 128 bytes apart, all in banks 0-3:
// 8 wavefronts a matrix, 32 an instruction. Swizzled (128-byte swizzle: the
// 16-byte chunk XOR row % 8), the 8 rows cover all 32 banks: 1 wavefront a
// matrix, 4 an instruction.
template <bool Swizzled>
__device__ __forceinline__ uint32_t matrix_row(const char* tile, uint32_t lane) {
    const uint32_t chunk = Swizzled ? (lane % 8) : 0;
    return shared_address(tile + lane * 128 + chunk * 16);
}

// Each rep reads its own tile, so no two ldmatrix read the same addresses (nothing for ptxas to merge).
template <bool Swizzled>
__global__ void ldsm_x4(uint32_t* out) {
    __shared__ __align__(128) char tiles[kMatrixReps][32 * 128];
    const uint32_t lane = threadIdx.x % 32;
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < kMatrixReps; ++i) {
        uint32_t r0, r1, r2, r3;
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                     : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(matrix_row<Swizzled>(tiles[i], lane)) : "memory");
        acc ^= r0 ^ r1 ^ r2 ^ r3;
    }
    out[threadIdx.x] = acc;
}

template <bool Swizzled>
__global__ void stsm_x4(uint32_t* out) {
    __shared__ __align__(128) char tiles[kMatrixReps][32 * 128];
    const uint32_t lane = threadIdx.x % 32;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900  // stmatrix is Hopper's
#pragma unroll
    for (int i = 0; i < kMatrixReps; ++i)
        asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
                     ::"r"(matrix_row<Swizzled>(tiles[i], lane)), "r"(lane), "r"(uint32_t(i)), "r"(lane), "r"(uint32_t(i))
                     : "memory");
#else
    (void)tiles;
#endif
    out[threadIdx.x] = lane;
}

// Two kernels without shared memory, for names and order.
__global__ void first_kernel(uint32_t* out) { out[threadIdx.x] = threadIdx.x; }
__global__ void second_kernel(uint32_t* out, int k) { out[threadIdx.x] += k; }

} // namespace rpt

namespace {

namespace metric = tklab::profiler::metric;
using tklab::profiler::CounterResult;
using tklab::profiler::CuptiError;
using tklab::trace::GpuCounters;
using Catch::Matchers::Contains;

void ok(cudaError_t e, const char* what) {
    INFO(what << ": " << cudaGetErrorString(e));
    REQUIRE(e == cudaSuccess);
}

// What the bank rules predict for one launch (whole launch: every warp).
struct Expected {
    uint64_t lds = 0, ldsm = 0, sts = 0, stsm = 0;  // warp instructions
    uint64_t ld_wavefronts = 0, ld_conflicts = 0, st_wavefronts = 0, st_conflicts = 0;
};

struct Case {
    std::string kernel;  // as it appears in the demangled name
    int warps = 1;
    std::function<void(uint32_t*, int)> launch;  // (out, threads)
    Expected expect;
};

// A launch of `warps` warps, each running `per_warp` instructions of
// `wavefronts` wavefronts, `conflicts` of them from conflicts.
Expected loads(int warps, uint64_t per_warp, uint64_t wavefronts, uint64_t conflicts, bool matrix = false) {
    Expected e;
    (matrix ? e.ldsm : e.lds) = warps * per_warp;
    e.ld_wavefronts = warps * per_warp * wavefronts;
    e.ld_conflicts = warps * per_warp * conflicts;
    return e;
}
Expected stores(int warps, uint64_t per_warp, uint64_t wavefronts, uint64_t conflicts, bool matrix = false) {
    Expected e;
    (matrix ? e.stsm : e.sts) = warps * per_warp;
    e.st_wavefronts = warps * per_warp * wavefronts;
    e.st_conflicts = warps * per_warp * conflicts;
    return e;
}

template <class K>
std::function<void(uint32_t*, int)> launcher(K kernel) {
    return [kernel](uint32_t* out, int threads) { kernel<<<1, threads>>>(out); };
}

std::vector<Case> cases() {
    return {
        {"rpt::lds32<1>(", 1, launcher(rpt::lds32<1>), loads(1, rpt::kReps, 1, 0)},
        {"rpt::lds32<1>(", 4, launcher(rpt::lds32<1>), loads(4, rpt::kReps, 1, 0)},
        {"rpt::lds32<0>(", 1, launcher(rpt::lds32<0>), loads(1, rpt::kReps, 1, 0)},    // broadcast
        {"rpt::lds32<2>(", 1, launcher(rpt::lds32<2>), loads(1, rpt::kReps, 2, 1)},    // 2-way
        {"rpt::lds32<2>(", 4, launcher(rpt::lds32<2>), loads(4, rpt::kReps, 2, 1)},
        {"rpt::lds32<32>(", 1, launcher(rpt::lds32<32>), loads(1, rpt::kReps, 32, 31)},  // 32-way
        {"rpt::lds_vector<8>(", 1, launcher(rpt::lds_vector<8>), loads(1, rpt::kReps, 2, 0)},   // 256 B
        {"rpt::lds_vector<16>(", 1, launcher(rpt::lds_vector<16>), loads(1, rpt::kReps, 4, 0)}, // 512 B
        {"rpt::sts32<1>(", 1, launcher(rpt::sts32<1>), stores(1, rpt::kReps, 1, 0)},
        {"rpt::sts32<2>(", 1, launcher(rpt::sts32<2>), stores(1, rpt::kReps, 2, 1)},
        {"rpt::sts32<32>(", 1, launcher(rpt::sts32<32>), stores(1, rpt::kReps, 32, 31)},
        {"rpt::sts128(", 1, launcher(rpt::sts128), stores(1, rpt::kReps, 4, 0)},
        {"rpt::ldsm_x4<false>(", 1, launcher(rpt::ldsm_x4<false>), loads(1, rpt::kMatrixReps, 32, 28, true)},
        {"rpt::ldsm_x4<true>(", 1, launcher(rpt::ldsm_x4<true>), loads(1, rpt::kMatrixReps, 4, 0, true)},
        {"rpt::stsm_x4<false>(", 1, launcher(rpt::stsm_x4<false>), stores(1, rpt::kMatrixReps, 32, 28, true)},
        {"rpt::stsm_x4<true>(", 1, launcher(rpt::stsm_x4<true>), stores(1, rpt::kMatrixReps, 4, 0, true)},
    };
}

std::string value_of(const GpuCounters& c, const char* name) {
    auto it = c.metrics.find(name);
    if (it == c.metrics.end()) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", it->second);
    return buf;
}

void print_table(const CounterResult& got) {
    std::printf("Range Profiler on %s: %llu pass(es), %zu launches, %llu dropped%s%s\n", got.chip.c_str(),
                (unsigned long long)got.passes, got.counters.size(), (unsigned long long)got.dropped,
                got.warning().empty() ? "" : "; warning: ", got.warning().c_str());
    std::printf("  %-3s %-28s %5s %5s %5s %5s | %7s %7s | %7s %7s | %7s %6s %7s\n", "#", "kernel", "LDS", "LDSM",
                "STS", "STSM", "ld wf", "ld conf", "st wf", "st conf", "all wf", "LDGSTS", "instr");
    for (const GpuCounters& c : got.counters) {
        std::string name = c.kernel.substr(0, c.kernel.find('('));
        if (name.rfind("void ", 0) == 0) name = name.substr(5);
        std::printf("  %-3u %-28s %5s %5s %5s %5s | %7s %7s | %7s %7s | %7s %6s %7s\n", c.launch, name.c_str(),
                    value_of(c, metric::lds_instructions).c_str(), value_of(c, metric::ldsm_instructions).c_str(),
                    value_of(c, metric::sts_instructions).c_str(), value_of(c, metric::stsm_instructions).c_str(),
                    value_of(c, metric::shared_ld_wavefronts).c_str(), value_of(c, metric::shared_ld_conflicts).c_str(),
                    value_of(c, metric::shared_st_wavefronts).c_str(), value_of(c, metric::shared_st_conflicts).c_str(),
                    value_of(c, metric::shared_wavefronts).c_str(), value_of(c, metric::ldgsts_instructions).c_str(),
                    value_of(c, metric::instructions).c_str());
    }
    std::fflush(stdout);
}

CounterResult profile(const std::function<void()>& work, const tklab::profiler::RangeProfilerOptions& o = {}) {
    try {
        return tklab::profiler::record_counters(work, o);
    } catch (const CuptiError& e) {
        FAIL(e.what());
    }
    return {};
}

} // namespace

TEST_CASE("Range Profiler: shared-memory counters are what the bank rules predict", "[profiler][cupti][counters][gpu]") {
    uint32_t* out = nullptr;
    ok(cudaMalloc(&out, 1024 * sizeof(uint32_t)), "cudaMalloc");
    rpt::first_kernel<<<1, 32>>>(out);  // the module loaded before profiling
    ok(cudaDeviceSynchronize(), "warm-up");

    const std::vector<Case> all = cases();
    const CounterResult got = profile([&] {
        for (const Case& c : all) c.launch(out, 32 * c.warps);
        ok(cudaGetLastError(), "launches");
    });
    print_table(got);
    INFO("warning: " << got.warning());
    CHECK(got.warning().empty());
    CHECK(got.dropped == 0);
    CHECK(got.passes >= 1);
    REQUIRE(got.counters.size() == all.size());

    for (size_t i = 0; i < all.size(); ++i) {
        const Case& c = all[i];
        const GpuCounters& g = got.counters[i];
        INFO("launch " << i << ": " << c.kernel << " with " << c.warps << " warp(s); CUPTI named it " << g.kernel);
        CHECK(g.launch == i);
        CHECK_THAT(g.kernel, Contains(c.kernel));
        CHECK(g.metrics.size() == tklab::profiler::default_metric_names().size());
        const tklab::profiler::SharedCounters hw = tklab::profiler::hardware_shared(g);
        CHECK(hw.loads.plain == c.expect.lds);
        CHECK(hw.loads.matrix == c.expect.ldsm);
        CHECK(hw.stores.plain == c.expect.sts);
        CHECK(hw.stores.matrix == c.expect.stsm);
        CHECK(hw.loads.wavefronts == c.expect.ld_wavefronts);
        CHECK(hw.loads.conflicts == c.expect.ld_conflicts);
        CHECK(hw.loads.ideal() == c.expect.ld_wavefronts - c.expect.ld_conflicts);
        CHECK(hw.stores.wavefronts == c.expect.st_wavefronts);
        CHECK(hw.stores.conflicts == c.expect.st_conflicts);
        CHECK(hw.stores.ideal() == c.expect.st_wavefronts - c.expect.st_conflicts);
        CHECK(hw.async_copies == 0u);
        // No cp.async or wgmma: the shared wavefronts are the loads' and the
        // stores', and (measured on an H100, CUDA 13) one more per warp that is
        // neither: the all-kinds counter also counts a kind ("misc") these
        // kernels do not ask for. Never more.
        REQUIRE(hw.all_wavefronts.has_value());
        CHECK(*hw.all_wavefronts >= c.expect.ld_wavefronts + c.expect.st_wavefronts);
        CHECK(*hw.all_wavefronts <= c.expect.ld_wavefronts + c.expect.st_wavefronts + c.warps);
        REQUIRE(hw.instructions.has_value());
        CHECK(*hw.instructions >= c.expect.lds + c.expect.ldsm + c.expect.sts + c.expect.stsm + c.warps);
    }
    cudaFree(out);
}

TEST_CASE("Range Profiler: each launch is its own record, in order, named", "[profiler][cupti][counters][gpu]") {
    uint32_t* out = nullptr;
    ok(cudaMalloc(&out, 256 * sizeof(uint32_t)), "cudaMalloc");
    tklab::profiler::RangeProfilerOptions o;
    o.metrics = {metric::instructions, metric::lds_instructions};
    const CounterResult got = profile([&] {
        rpt::second_kernel<<<2, 64>>>(out, 3);  // 4 warps
        rpt::first_kernel<<<1, 32>>>(out);      // 1 warp
    }, o);
    print_table(got);
    INFO("warning: " << got.warning());
    CHECK(got.warning().empty());
    REQUIRE(got.counters.size() == 2);
    CHECK(got.counters[0].launch == 0);
    CHECK(got.counters[1].launch == 1);
    CHECK(got.counters[0].kernel == "rpt::second_kernel(unsigned int*, int)");
    CHECK(got.counters[1].kernel == "rpt::first_kernel(unsigned int*)");
    for (const GpuCounters& c : got.counters) {
        REQUIRE(c.metrics.size() == 2);
        CHECK(c.metrics.at(metric::lds_instructions) == 0.0);
    }
    // 4 warps against 1 running (nearly) the same few instructions.
    CHECK(got.counters[0].metrics.at(metric::instructions) > got.counters[1].metrics.at(metric::instructions));

    SECTION("a second session sees only its own launches") {
        const CounterResult again = profile([&] { rpt::first_kernel<<<1, 32>>>(out); }, o);
        REQUIRE(again.counters.size() == 1);
        CHECK(again.counters[0].launch == 0);
        CHECK(again.counters[0].kernel == "rpt::first_kernel(unsigned int*)");
    }
    SECTION("one session at a time") {
        tklab::profiler::RangeProfiler a(o), b(o);
        a.start();
        CHECK_THROWS_WITH(b.start(), Contains("already being collected"));
        rpt::first_kernel<<<1, 32>>>(out);
        CHECK(a.stop().counters.size() == 1);
    }
    SECTION("a metric the chip does not know is named, and the next session still starts") {
        tklab::profiler::RangeProfilerOptions bad;
        bad.metrics = {metric::instructions, "tklab__no_such_counter.sum"};
        CHECK_THROWS_WITH(tklab::profiler::record_counters([] {}, bad),
                          Contains("\"tklab__no_such_counter.sum\"") && Contains("--query-metrics"));
        const CounterResult after = profile([&] { rpt::first_kernel<<<1, 32>>>(out); }, o);
        CHECK(after.counters.size() == 1);
    }
    cudaFree(out);
}

TEST_CASE("Range Profiler: errors say what is true and what to do", "[profiler][cupti][counters]") {
    using tklab::profiler::counters_fix;
    const std::string perm = counters_fix(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES);
    CHECK_THAT(perm, Contains("NVreg_RestrictProfilingToAdminUsers=0") && Contains("root") &&
                         Contains("CAP_SYS_ADMIN") && Contains("timing and regions") && Contains("still work"));
    CHECK_THAT(counters_fix(CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED), Contains("MIG") && Contains("still work"));
    CHECK_THAT(counters_fix(CUPTI_ERROR_INVALID_CHIP_NAME), Contains("chip"));
    CHECK_THAT(counters_fix(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED), Contains("Nsight") && Contains("DCGM"));
    CHECK_THAT(counters_fix(CUPTI_ERROR_HARDWARE_BUSY), Contains("Another profiler"));
    CHECK_THAT(counters_fix(CUPTI_ERROR_NOT_SUPPORTED), Contains("does not allow hardware counters"));
    CHECK_FALSE(counters_fix(CUPTI_ERROR_UNKNOWN).empty());
}

#endif // __CUDACC__
