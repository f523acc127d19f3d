// Kernel timing with CUPTI's Activity API: between start() and stop(), every
// kernel the process runs on any GPU is recorded by the driver (start and end
// timestamps, registers, shared memory, launch shape) without serializing
// kernels (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL).
//
//   tklab::profiler::KernelActivity timing;
//   timing.start();                     // throws CuptiError with the reason and the fix
//   ... launch kernels ...
//   auto got = timing.stop();           // waits for the GPU, flushes CUPTI's buffers
//   tklab::profiler::add_to_trace(trace, got.kernels);
//
// CUPTI delivers records through process-wide callbacks, so one KernelActivity
// collects at a time; it may be started and stopped many times.
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include "profiler/decode/kernel_record.h"
#include "profiler/gpu/cupti_library.h"

namespace tklab::profiler {

struct KernelActivityResult {
    std::vector<KernelRecord> kernels;  // in start order
    uint64_t dropped = 0;               // records CUPTI dropped (its buffers were full)
    uint64_t untimed = 0;               // kernels CUPTI could not time (left out)
    std::vector<std::string> problems;  // records that could not be decoded, each said in full
    // "" when everything was kept, else one line on what is missing and why.
    std::string warning() const;
};

class KernelActivity {
public:
    KernelActivity() = default;
    ~KernelActivity();  // stops collection if still running (records are dropped)
    KernelActivity(const KernelActivity&) = delete;
    KernelActivity& operator=(const KernelActivity&) = delete;

    // Loads libcupti (once per process) and enables kernel records. Throws
    // CuptiError: libcupti missing or too old, another CUPTI user in the
    // process, a GPU or driver that refuses tracing, or a second collector.
    void start();
    // cudaDeviceSynchronize, then CUPTI's forced flush, then disables the records.
    KernelActivityResult stop();
    bool running() const { return running_; }

private:
    bool running_ = false;
};

} // namespace tklab::profiler
