// Hardware counters with CUPTI's Range Profiler (CUDA 13: cupti_range_profiler.h,
// cupti_profiler_host.h): between start() and stop(), every kernel launched
// on the current device's context is its own range (auto range), replayed by
// CUPTI as many times as the metrics need passes (kernel replay: launches are
// serialized, device memory is saved and restored between passes, the kernel's
// results are those of one run). stop() evaluates each range's metrics into a
// trace::GpuCounters, in launch order.
//
//   tklab::profiler::RangeProfiler counters;      // default_metric_names()
//   counters.start();                   // throws CuptiError: permission, GPU, metric, another profiler
//   ... launch kernels ...
//   auto got = counters.stop();         // waits for the GPU
//   trace.gpu_counters = got.counters;  // hardware_shared(got.counters[i]) for the shared-memory view
//
// or: auto got = tklab::profiler::record_counters([&] { launch(); });
//
// Kernel timing (KernelActivity) and region markers measure replayed kernels
// several times: collect counters in a run of their own. One RangeProfiler at
// a time in a process; it may be started and stopped many times.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>
#include "profiler/decode/counter_metrics.h"
#include "profiler/gpu/cupti_library.h"
#include "trace/trace.h"

namespace tklab::profiler {

struct RangeProfilerOptions {
    std::vector<std::string> metrics = default_metric_names();
    // Ranges the counter data holds: launches past it are not measured, and
    // counted in CounterResult::dropped.
    uint32_t max_launches = 1024;
};

struct CounterResult {
    std::vector<trace::GpuCounters> counters;  // one per measured launch, in launch order
    std::string chip;                          // CUPTI's chip name, e.g. "gh100"
    uint64_t passes = 0;                       // replays each kernel needed for the metrics
    uint64_t dropped = 0;                      // launches not measured (past max_launches)
    std::vector<std::string> problems;         // values CUPTI could not evaluate, each said in full
    // "" when every launch was measured in full, else one line on what is missing and why.
    std::string warning() const;
};

class RangeProfiler {
public:
    explicit RangeProfiler(RangeProfilerOptions options = {});
    ~RangeProfiler();  // stops profiling if still running (its counters are dropped)
    RangeProfiler(const RangeProfiler&) = delete;
    RangeProfiler& operator=(const RangeProfiler&) = delete;

    // Sets up counter collection on the current device (its primary context is
    // created if needed). Throws CuptiError saying what and how to fix it:
    // libcupti missing; no permission for counters; a GPU, MIG instance or
    // system that does not allow profiling; another profiler active; a metric
    // the chip does not know (named); a second RangeProfiler.
    void start();
    // cudaDeviceSynchronize, then decodes and evaluates every range, then
    // tears the session down (also when decoding fails: start() works again).
    CounterResult stop();
    bool running() const;

private:
    struct Session;
    RangeProfilerOptions options_;
    std::unique_ptr<Session> session_;
};

// Counters of every kernel `work` launches: start(), work(), stop().
CounterResult record_counters(const std::function<void()>& work, const RangeProfilerOptions& options = {});

// What to do about a CUPTI error met while collecting counters (the Range
// Profiler's permission differs from kernel timing's). Exposed for the tests;
// never "": every code gets advice.
std::string counters_fix(CUptiResult r);

} // namespace tklab::profiler
