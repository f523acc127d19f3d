// Kernel timing through CUPTI's Activity API on a real GPU: three small
// kernels with known launch shapes and shared memory; what CUPTI records must
// match what was launched, and the times must agree with CUDA events.
// (Without a GPU the runner exits 77: skipped.) CUPTI exists only on the GPU
// side: tests/*.cu also build for the simulator, where this file is empty.
#if defined(__CUDACC__)
#include <catch2/catch.hpp>
#include <cuda_runtime.h>
#include <algorithm>
#include "profiler/gpu/kernel_activity.h"

namespace kat {

__device__ unsigned long long global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Runs for `ns` nanoseconds of the GPU's global timer: a kernel of known length.
__global__ void spin_kernel(unsigned long long ns) {
    const unsigned long long t0 = global_ns();
    while (global_ns() - t0 < ns) {}
}

__device__ unsigned linear_thread() {
    const unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
    return block * threads + threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

template <int N>
__global__ void static_smem_kernel(float* out) {
    __shared__ float buf[N];
    const unsigned t = threadIdx.x + blockDim.x * threadIdx.y;
    for (unsigned i = t; i < N; i += blockDim.x * blockDim.y) buf[i] = float(i);
    __syncthreads();
    out[linear_thread()] = buf[(t * 7) % N];
}

__global__ void dynamic_smem_kernel(float* out) {
    extern __shared__ float dyn[];
    const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    dyn[t] = float(t);
    __syncthreads();
    out[linear_thread()] = dyn[(t + 1) % (blockDim.x * blockDim.y * blockDim.z)];
}

} // namespace kat

namespace {

using tklab::profiler::KernelRecord;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

void ok(cudaError_t e, const char* what) {
    INFO(what << ": " << cudaGetErrorString(e));
    REQUIRE(e == cudaSuccess);
}

const KernelRecord& find(const std::vector<KernelRecord>& ks, const std::string& part) {
    auto it = std::find_if(ks.begin(), ks.end(), [&](const KernelRecord& k) { return k.name.find(part) != std::string::npos; });
    INFO("no record named like " << part);
    REQUIRE(it != ks.end());
    return *it;
}

// CUPTI reports the registers the launch allocated: the compiler's count
// rounded up to the allocation unit (8), and at least 16 (measured on an
// H100: 8 and 12 came back as 16; 80 as 80).
bool allocated_registers(unsigned reported, int compiled) {
    const unsigned rounded = std::max(16u, (unsigned(compiled) + 7u) / 8u * 8u);
    INFO("CUPTI " << reported << " registers, compiled " << compiled << ", allocated at most " << rounded);
    return reported >= unsigned(compiled) && reported <= rounded;
}

} // namespace

TEST_CASE("CUPTI kernel activity: names, shapes, shared memory, registers and times", "[profiler][cupti][gpu]") {
    constexpr unsigned long long kSpinNs = 2'000'000;  // 2 ms
    constexpr size_t kDynamicBytes = 3000;             // not a multiple of anything: must come back exact
    float* out = nullptr;
    ok(cudaMalloc(&out, 64 * 1024 * sizeof(float)), "cudaMalloc");
    cudaFuncAttributes static_attr{}, dynamic_attr{}, spin_attr{};
    ok(cudaFuncGetAttributes(&static_attr, kat::static_smem_kernel<256>), "attributes");
    ok(cudaFuncGetAttributes(&dynamic_attr, kat::dynamic_smem_kernel), "attributes");
    ok(cudaFuncGetAttributes(&spin_attr, kat::spin_kernel), "attributes");
    kat::spin_kernel<<<1, 32>>>(1000);  // context and module loaded before timing starts
    ok(cudaDeviceSynchronize(), "warm-up");

    cudaEvent_t before, after;
    ok(cudaEventCreate(&before), "event");
    ok(cudaEventCreate(&after), "event");

    tklab::profiler::KernelActivity activity;
    try {
        activity.start();
    } catch (const tklab::profiler::CuptiError& e) {
        FAIL(e.what());
    }
    ok(cudaEventRecord(before), "event");
    kat::spin_kernel<<<dim3(2, 1, 1), dim3(32, 1, 1)>>>(kSpinNs);
    ok(cudaEventRecord(after), "event");
    kat::static_smem_kernel<256><<<dim3(4, 3, 1), dim3(64, 2, 1)>>>(out);
    kat::dynamic_smem_kernel<<<dim3(5, 1, 2), dim3(32, 4, 2), kDynamicBytes>>>(out);
    ok(cudaGetLastError(), "launches");
    const tklab::profiler::KernelActivityResult got = activity.stop();
    float event_ms = 0;
    ok(cudaEventElapsedTime(&event_ms, before, after), "cudaEventElapsedTime");

    INFO("warning: " << got.warning());
    CHECK(got.warning().empty());
    REQUIRE(got.kernels.size() == 3);

    const KernelRecord& spin = find(got.kernels, "kat::spin_kernel(");
    CHECK_THAT(spin.mangled, StartsWith("_Z"));
    CHECK(spin.grid == tklab::trace::Dim3{2, 1, 1});
    CHECK(spin.block == tklab::trace::Dim3{32, 1, 1});
    CHECK(allocated_registers(spin.registers, spin_attr.numRegs));
    CHECK(spin.dynamic_smem == 0);

    const KernelRecord& stat = find(got.kernels, "kat::static_smem_kernel<256>(");
    CHECK(stat.grid == tklab::trace::Dim3{4, 3, 1});
    CHECK(stat.block == tklab::trace::Dim3{64, 2, 1});
    CHECK(stat.static_smem == static_attr.sharedSizeBytes);
    CHECK(stat.static_smem >= 256 * sizeof(float));
    CHECK(stat.dynamic_smem == 0);
    CHECK(allocated_registers(stat.registers, static_attr.numRegs));

    const KernelRecord& dyn = find(got.kernels, "kat::dynamic_smem_kernel(");
    CHECK(dyn.grid == tklab::trace::Dim3{5, 1, 2});
    CHECK(dyn.block == tklab::trace::Dim3{32, 4, 2});
    CHECK(dyn.dynamic_smem == kDynamicBytes);
    CHECK(dyn.static_smem == dynamic_attr.sharedSizeBytes);
    CHECK(allocated_registers(dyn.registers, dynamic_attr.numRegs));

    // One stream, launched in order: in start order, one after another, distinct correlation ids.
    for (size_t i = 0; i < got.kernels.size(); ++i) {
        CHECK(got.kernels[i].start_ns < got.kernels[i].end_ns);
        if (i > 0) {
            CHECK(got.kernels[i - 1].end_ns <= got.kernels[i].start_ns);
            CHECK(got.kernels[i - 1].correlation != got.kernels[i].correlation);
        }
    }
    CHECK(got.kernels[0].name == spin.name);
    CHECK(stat.stream == spin.stream);

    // The spin kernel lasts its 2 ms, and no longer than the events around it say.
    const double event_ns = double(event_ms) * 1e6;
    INFO("CUPTI " << spin.duration_ns() << " ns, events " << event_ns << " ns");
    CHECK(double(spin.duration_ns()) >= 0.99 * kSpinNs);  // CUPTI rescales GPU time to its clock: allow 1%
    // Events bracket the kernel (50 us for their resolution). No lower bound from them: the first launch after
    // collection starts carries CUPTI's set-up (3.6 ms measured on an H100) inside the events' span.
    CHECK(double(spin.duration_ns()) <= event_ns + 50'000);
    CHECK(stat.duration_ns() < 1'000'000);                    // tiny kernels: well under a millisecond
    CHECK(dyn.duration_ns() < 1'000'000);

    SECTION("collection starts again, with only the new kernels") {
        tklab::profiler::KernelActivity again;
        again.start();
        kat::spin_kernel<<<1, 32>>>(10'000);
        const auto second = again.stop();
        REQUIRE(second.kernels.size() == 1);
        CHECK_THAT(second.kernels[0].name, Contains("kat::spin_kernel("));
        CHECK(second.kernels[0].start_ns > got.kernels.back().end_ns);
    }
    SECTION("one collector at a time") {
        tklab::profiler::KernelActivity a, b;
        a.start();
        CHECK_THROWS_WITH(b.start(), Contains("already being collected"));
        a.stop();
    }
    cudaEventDestroy(before);
    cudaEventDestroy(after);
    cudaFree(out);
}

TEST_CASE("CUPTI errors say what is true and what to do", "[profiler][cupti]") {
    using tklab::profiler::cupti_fix;
    // The Activity API needs no counter permission: the message must not send people to change it.
    CHECK_THAT(cupti_fix(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES), Contains("does not need") && Contains("counters"));
    CHECK_THAT(cupti_fix(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED), Contains("Nsight"));
    CHECK_THAT(cupti_fix(CUPTI_ERROR_NOT_INITIALIZED), Contains("driver"));
    CHECK_FALSE(cupti_fix(CUPTI_ERROR_UNKNOWN).empty());
    const auto& lib = tklab::profiler::CuptiLibrary::get();
    CHECK_FALSE(lib.path.empty());
    CHECK(lib.version >= CUPTI_API_VERSION);
    const std::string m = lib.message(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, "cuptiActivityEnable(X)");
    CHECK_THAT(m, StartsWith("CUPTI: cuptiActivityEnable(X) failed: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"));
    CHECK_THROWS_AS(lib.check(CUPTI_ERROR_NOT_READY, "x"), tklab::profiler::CuptiError);
}

#endif // __CUDACC__
