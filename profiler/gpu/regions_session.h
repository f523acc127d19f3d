// Recording tk::region markers on the GPU (host side, CUDA runtime).
//
//   trace::Trace t = profiler::gpu_trace(profiler::current_gpu_device());
//   profiler::RegionRun r = profiler::record_regions(t, [&] { program_case->run(variant); },
//                                                    profiler::RegionNames(names));
//   if (!r.warning.empty()) std::fprintf(stderr, "warning: %s\n", r.warning.c_str());
//
// While a session is current, every tk::launch (tk/host/launch.h) asks it for
// a buffer: the session allocates one sized for that launch's warps (or the
// number of warps it was given), writes its header, zeroes the rest, and
// the launch points the kernel's translation unit at it for that launch only.
// Each launch's buffer is copied back before the next one and when the
// session stops; decoding turns each into a Launch of the trace.
// Kernels launched other than through tk::launch record nothing.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>
#include "tk/common/region_buffer.h"
#include "profiler/decode/regions.h"

namespace tklab::profiler {

struct RegionSessionOptions {
    uint32_t records_per_warp = 64;       // a slice's capacity; regions beyond it are counted as dropped
    uint32_t warps = 0;                   // slices per launch; 0: one per warp of each launch
    uint64_t max_bytes = 1ull << 30;      // per launch; records per warp are lowered to fit (with a note)
    uint32_t max_launches = 16;           // launches recorded; later ones run unrecorded (with a note)
};

// One launch's buffer as copied back from the device.
struct RegionCapture {
    std::string kernel;
    std::string bytes;   // the whole buffer: header, counts, records
};

// The GPU in use (cudaGetDevice), for gpu_trace(). Throws std::runtime_error
// when there is none.
GpuDevice current_gpu_device();

class RegionSession final : public regions::Target {
public:
    explicit RegionSession(RegionSessionOptions opt = {});
    ~RegionSession() override;            // stops (if current) and frees the device memory
    RegionSession(const RegionSession&) = delete;
    RegionSession& operator=(const RegionSession&) = delete;

    // Makes this session current: launches from now on record into it.
    // Throws std::logic_error when another session is current.
    void start();
    // No longer current; copies the last launch's buffer back.
    void stop();

    const std::vector<RegionCapture>& captures() const { return captures_; }
    // What the session had to change or leave out ("" when nothing).
    const std::string& notes() const { return notes_; }

    // Decodes every captured launch into t, one Launch each, in order.
    std::vector<RegionStats> decode_into(trace::Trace& t, const RegionNames& names, double sm_clock_mhz,
                                         uint32_t source_file = 0) const;

    // regions::Target: called by tk::launch before each launch.
    regions::DeviceView prepare(const char* kernel, const uint32_t grid[3], const uint32_t block[3]) override;

private:
    void copy_back();   // the pending launch's buffer -> captures_
    void note(const std::string& s);

    RegionSessionOptions opt_;
    void* device_ = nullptr;
    size_t capacity_ = 0;      // bytes allocated at device_
    size_t pending_ = 0;       // bytes of the launch not copied back yet (0: none)
    std::string pending_kernel_;
    std::vector<RegionCapture> captures_;
    std::string notes_;
    uint32_t skipped_ = 0;
    bool current_ = false;
};

struct RegionRun {
    std::vector<RegionStats> launches;   // per launch recorded, in order
    std::string warning;                 // for the command line: drops, losses, notes; "" when none
};

// Runs `run` (which launches kernels through tk::launch) with a session
// current, then decodes every launch into t. The SM clock comes from the
// trace's arch.clock_mhz (gpu_trace sets it) unless given.
RegionRun record_regions(trace::Trace& t, const std::function<void()>& run, const RegionNames& names,
                         const RegionSessionOptions& opt = {}, double sm_clock_mhz = 0, uint32_t source_file = 0);

} // namespace tklab::profiler
