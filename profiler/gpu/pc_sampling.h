// Stall sampling with CUPTI's PC Sampling API: every few thousand cycles each
// SM's hardware records which instruction one of its warps is at and why it
// is not issuing; between start() and stop(), every kernel on the current
// context is sampled (continuous mode: kernels still run concurrently), and
// stop() sums the samples per kernel, source line and reason.
//
//   tklab::profiler::PcSampling::watch_modules();  // early, before kernels load (see below)
//   tklab::profiler::PcSampling stalls;
//   stalls.start();                     // throws CuptiError with the reason and the fix
//   ... launch kernels ...
//   auto got = stalls.stop();           // waits for the GPU, drains CUPTI, maps PCs to lines
//   trace.gpu_stalls = got.stalls;      // or profiler::add_to_trace(trace, got.kernels)
//   if (auto w = got.warning(); !w.empty()) ... // lines missing, samples dropped
//
// CUPTI's order, kept by start() and stop(): cuptiPCSamplingEnable on the
// context; the stall reasons' names and indices (only after Enable); the
// configuration (period, all reasons, continuous mode, start/stop control, the
// buffer CUPTI decodes into); cuptiPCSamplingStart; ... kernels ...;
// cudaDeviceSynchronize; cuptiPCSamplingStop (flushes the range); GetData until
// no PC remains; cuptiPCSamplingDisable (hands over anything left in the
// configured buffer).
//
// Source lines need each module's cubin, which CUPTI hands out only when the
// module loads (its resource callback), so watch_modules() subscribes to
// CUPTI's callbacks (the one subscriber a process may have: nothing else in
// tklab subscribes) and keeps every cubin loaded from then on. CUDA loads
// modules lazily, at a kernel's first launch, so calling it before the first
// launch of the kernels to sample is enough; start() calls it too. A kernel
// whose module was loaded earlier (or with CUDA_MODULE_LOADING=EAGER before
// watch_modules) keeps its samples with file "" and line 0, and the result
// says so. Lines also need the kernel built with nvcc -lineinfo.
//
// Needs the GPU performance-counter permission (root, or the driver option
// NVreg_RestrictProfilingToAdminUsers=0); without it start() says exactly
// that. Do not sample in the same pass as the hardware counters (Range
// Profiler): both use the SMs' profiling hardware.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>
#include "profiler/decode/stall_samples.h"
#include "profiler/gpu/cupti_library.h"
#include "trace/trace.h"

namespace tklab::profiler {

struct PcSamplingOptions {
    // Samples are 2^period_log2 SM cycles apart (CUPTI allows 5..31). 12: 4096
    // cycles, about 400 samples per SM per millisecond at 1.7 GHz, so ~50,000
    // per millisecond on a busy H100 (132 SMs) and still thousands on a kernel
    // that fills only a dozen SMs, with little pressure on the hardware buffer.
    uint32_t period_log2 = 12;
    size_t pcs_per_read = 8192;  // instructions fetched per GetData call (and held by the configured buffer)
};

struct PcSamplingResult {
    std::vector<trace::GpuStalls> stalls;      // per kernel, for the trace (sorted by kernel name)
    std::vector<KernelStallSamples> kernels;   // the same, with not-issued counts and line coverage
    uint64_t period_cycles = 0;
    uint64_t cupti_total_samples = 0;  // CUPTI's totalSamples: user kernels, others and dropped ones
    uint64_t non_user_samples = 0;     // samples in kernels CUPTI gives no PCs for (its own, the driver's)
    uint64_t dropped = 0;              // lost to a full hardware buffer (shared out over the kernels' records)
    bool hardware_buffer_full = false;
    std::vector<std::string> notes;    // each said in full: lines missing and why, data lost
    // "" when every sample has its line and nothing was lost, else the notes in one line.
    std::string warning() const;
};

class PcSampling {
public:
    explicit PcSampling(PcSamplingOptions opt = {});
    ~PcSampling();  // stops sampling if still running (its samples are dropped)
    PcSampling(const PcSampling&) = delete;
    PcSampling& operator=(const PcSampling&) = delete;

    // Starts keeping the cubin of every module loaded from now on, for the
    // whole process (idempotent). Throws CuptiError when libcupti is missing
    // or another CUPTI client holds the callbacks (Nsight Systems/Compute,
    // cuda-gdb): then sampling still works but without source lines.
    static void watch_modules();

    // Enables PC sampling on the calling thread's current context (the
    // device's primary context when none is current). Throws CuptiError:
    // no GPU, libcupti missing, no profiling permission, a GPU or system that
    // does not allow PC sampling, a second session.
    void start();
    // Waits for the GPU, collects every sample, maps them to source lines and
    // disables sampling. Throws CuptiError when CUPTI fails (sampling is
    // disabled first).
    PcSamplingResult stop();
    bool running() const { return running_; }

private:
    struct Session;
    PcSamplingOptions opt_;
    Session* session_ = nullptr;
    bool running_ = false;
};

// Runs `work` (which launches kernels) under stall sampling and returns what
// was sampled. If work throws, sampling is stopped and the exception passes on.
PcSamplingResult record_stalls(const std::function<void()>& work, PcSamplingOptions opt = {});

// The message for a CUPTI error met while stall sampling: what it means here
// and what to do (every code gets advice).
std::string pc_sampling_fix(CUptiResult r);

} // namespace tklab::profiler
