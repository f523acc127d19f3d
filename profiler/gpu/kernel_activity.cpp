// CUPTI activity buffers for kernel records (see kernel_activity.h). CUPTI
// asks for empty buffers and hands full ones back on its own thread; both
// callbacks are C functions, so nothing may throw out of them: problems are
// kept and returned by stop().
#include "profiler/gpu/kernel_activity.h"

#include <cstdlib>
#include <cuda_runtime.h>
#include <mutex>
#include <stdexcept>

namespace tklab::profiler {

namespace {

constexpr size_t kBufferBytes = 8u << 20;   // ~40,000 kernel records per buffer
constexpr size_t kBufferAlign = 8;          // CUPTI_ACTIVITY_RECORD_ALIGNMENT
// The record struct of the CUPTI headers tklab is built with. CUDA 13's is
// CUpti_ActivityKernel10; CuptiLibrary::get() refuses an older libcupti.
using KernelStruct = CUpti_ActivityKernel10;

// What the callbacks fill, shared with the one running KernelActivity.
struct Collected {
    std::mutex m;
    bool active = false;
    KernelActivityResult result;
};
Collected& collected() {
    static Collected c;
    return c;
}

RawKernelActivity raw_of(const KernelStruct& k) {
    RawKernelActivity r;
    r.name = k.name;
    r.start = k.start;
    r.end = k.end;
    r.registers_per_thread = k.registersPerThread;
    r.static_shared = k.staticSharedMemory;
    r.dynamic_shared = k.dynamicSharedMemory;
    r.grid_x = k.gridX, r.grid_y = k.gridY, r.grid_z = k.gridZ;
    r.block_x = k.blockX, r.block_y = k.blockY, r.block_z = k.blockZ;
    r.device_id = k.deviceId;
    r.stream_id = k.streamId;
    r.correlation_id = k.correlationId;
    return r;
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlign, kBufferBytes));
    *size = *buffer ? kBufferBytes : 0;  // 0: CUPTI drops records and counts them
    *max_records = 0;                     // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t* buffer, size_t, size_t valid) {
    Collected& c = collected();
    try {
        const CuptiLibrary& lib = CuptiLibrary::get();  // loaded: start() succeeded
        std::lock_guard<std::mutex> lock(c.m);
        CUpti_Activity* rec = nullptr;
        for (;;) {
            const CUptiResult r = lib.activityGetNextRecord(buffer, valid, &rec);
            if (r == CUPTI_ERROR_MAX_LIMIT_REACHED) break;  // the end of the buffer
            if (r != CUPTI_SUCCESS) {
                c.result.problems.push_back(lib.message(r, "cuptiActivityGetNextRecord"));
                break;
            }
            if (rec->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && rec->kind != CUPTI_ACTIVITY_KIND_KERNEL) continue;
            const RawKernelActivity raw = raw_of(*reinterpret_cast<const KernelStruct*>(rec));
            if (untimed(raw)) { ++c.result.untimed; continue; }
            try {
                c.result.kernels.push_back(decode_kernel(raw));
            } catch (const std::invalid_argument& e) {
                c.result.problems.push_back(e.what());
            }
        }
        size_t dropped = 0;
        if (lib.activityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS) c.result.dropped += dropped;
    } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(c.m);
        c.result.problems.push_back(std::string("reading a CUPTI buffer: ") + e.what());
    }
    std::free(buffer);
}

} // namespace

std::string KernelActivityResult::warning() const {
    std::string w;
    auto add = [&](const std::string& s) { w += (w.empty() ? "" : "; ") + s; };
    if (dropped) add(std::to_string(dropped) + " kernel records dropped by CUPTI (its buffers were full)");
    if (untimed) add(std::to_string(untimed) + " kernels CUPTI could not time");
    if (!problems.empty()) add(std::to_string(problems.size()) + " records unreadable, the first: " + problems.front());
    return w;
}

KernelActivity::~KernelActivity() {
    if (!running_) return;
    try { stop(); } catch (...) {}
}

void KernelActivity::start() {
    if (running_) throw CuptiError("CUPTI: KernelActivity::start() called twice without stop() (a tklab bug)");
    // Without a GPU CUPTI only says CUPTI_ERROR_UNKNOWN: say what is wrong first.
    int devices = 0;
    if (const cudaError_t e = cudaGetDeviceCount(&devices); e != cudaSuccess || devices == 0)
        throw CuptiError(std::string("CUPTI: kernel timing needs a CUDA GPU, and there is none usable (cudaGetDeviceCount: ") +
                         (e != cudaSuccess ? std::string(cudaGetErrorString(e)) : std::string("0 devices")) +
                         "). Run on a machine with an NVIDIA GPU and a driver for CUDA " +
                         std::to_string(CUPTI_API_VERSION / 10000) + ", or without --profile timing.");
    const CuptiLibrary& lib = CuptiLibrary::get();
    Collected& c = collected();
    {
        std::lock_guard<std::mutex> lock(c.m);
        if (c.active)
            throw CuptiError("CUPTI: kernel timing is already being collected in this process; CUPTI's buffers are "
                             "process-wide, so stop the other KernelActivity first (a tklab bug)");
        c.active = true;
        c.result = {};
    }
    try {
        lib.check(lib.activityRegisterCallbacks(buffer_requested, buffer_completed),
                  "cuptiActivityRegisterCallbacks");
        lib.check(lib.activityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL),
                  "cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)");
    } catch (...) {
        std::lock_guard<std::mutex> lock(c.m);
        c.active = false;
        throw;
    }
    running_ = true;
}

KernelActivityResult KernelActivity::stop() {
    if (!running_) throw CuptiError("CUPTI: KernelActivity::stop() without start() (a tklab bug)");
    running_ = false;
    const CuptiLibrary& lib = CuptiLibrary::get();
    Collected& c = collected();
    // Kernels still running have no record yet: wait for them, then make
    // CUPTI hand over every buffer, full or not.
    const cudaError_t sync = cudaDeviceSynchronize();
    CUptiResult flushed = lib.activityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    const CUptiResult disabled = lib.activityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    KernelActivityResult out;
    {
        std::lock_guard<std::mutex> lock(c.m);
        out = std::move(c.result);
        c.result = {};
        c.active = false;
    }
    if (sync != cudaSuccess)
        throw CuptiError(std::string("CUPTI: waiting for the GPU before reading kernel records failed: ") +
                         cudaGetErrorName(sync) + " (" + cudaGetErrorString(sync) +
                         "). A kernel failed; its own error comes first, fix that.");
    lib.check(flushed, "cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED)");
    lib.check(disabled, "cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)");
    sort_by_start(out.kernels);
    return out;
}

} // namespace tklab::profiler
