// Decoding the intra-kernel region buffer (tk::region on the GPU) into the
// trace schema: one Event per region of each warp, times in cycles from the
// kernel's earliest start, aligned across SMs. CPU only, no CUDA: CI tests it
// on recorded and synthetic buffers (tests/profiler/test_regions_decode.cpp).
//
// Alignment: clock64 counts each SM's own cycles from its own origin, while
// %globaltimer (ns) is one clock for the whole GPU but coarse. Each record
// holds both at its begin and its end, so per SM the decoder fits the offset
// between the two (the median of globaltimer x clock rate - clock64 over that
// SM's pairs), places each region's begin on the common axis with it, and
// takes durations from clock64 alone (exact). The clock's rate is measured
// from the same pairs when the run is long enough (the SM clock under load is
// not the device's peak), and the trace's arch.clock_mhz is set to it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>
#include "tk/common/region_buffer.h"
#include "trace/trace.h"

namespace tklab::profiler {

// A buffer that cannot be decoded: what is wrong, where, and what to do.
struct RegionDecodeError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Region names by id (the device only keeps the FNV-1a hash of a name).
class RegionNames {
public:
    RegionNames() = default;
    explicit RegionNames(const std::vector<std::string>& names);
    // Throws std::invalid_argument when another name has the same id (rename one).
    void add(const std::string& name);
    bool known(uint32_t id) const { return by_id_.count(id) != 0; }
    // The name, or "region 0x%08x" for an id no given name hashes to.
    std::string name_of(uint32_t id) const;

private:
    std::map<uint32_t, std::string> by_id_;
};

// The names of the tk::region markers in a source text (`tk::region r("name")`,
// in order of first appearance), to build RegionNames from a kernel's file.
std::vector<std::string> region_names_in(const std::string& source);

// The GPU that ran, for the trace's header.
struct GpuDevice {
    std::string name;            // e.g. "NVIDIA H100 80GB HBM3"
    int ordinal = 0;             // CUDA device number
    int cc_major = 0, cc_minor = 0;
    int sms = 0;
    double sm_clock_mhz = 0;     // the clock clock64 counts (cudaDevAttrClockRate / 1000)
};

// An empty trace of a GPU run: producer "tklab profiler"; arch says "gpu": true
// and names the device (name, ordinal, sm_XY, SMs, clock_mhz); ops {"region"},
// stalls {"none"}; the tables hold their entry 0. The caller fills program,
// variant, problem and seed.
trace::Trace gpu_trace(const GpuDevice& device);

struct RegionDecodeOptions {
    std::string kernel = "kernel";  // the launch's kernel name
    double sm_clock_mhz = 0;        // must be > 0: converts %globaltimer ns to cycles (the device's peak clock)
    // Take the clock's rate from the records (clock64 against the globaltimer)
    // when they span at least 50 us; else, or when off, use sm_clock_mhz.
    bool fit_clock = true;
    uint32_t source_file = 0;       // Trace::files id the markers' lines are in (0: unknown file)
};

// What a decode kept and what it lost. The command line prints warning().
struct RegionStats {
    uint64_t regions = 0;                    // events added
    uint64_t dropped = 0;                    // regions ended by warps whose slice was full
    uint64_t lost = 0;                       // regions of warps that had no slice
    uint64_t unknown = 0;                    // regions whose id matched no given name
    uint64_t unfinished = 0;                 // regions begun but never ended (left out)
    std::vector<uint32_t> dropped_per_warp;  // by slice: block linear index x warps per block + warp
    uint32_t records_per_warp = 0;           // a slice's capacity
    uint32_t warps = 0;                      // slices
    uint32_t sms = 0;                        // SMs the regions ran on
    double clock_mhz = 0;                    // the SM clock the alignment used
    bool clock_fitted = false;               // measured from the records (else the given rate)
    // "" when nothing was dropped or lost; else what happened and the fix.
    std::string warning() const;
};

// Checks and decodes `size` bytes copied back from the device (the whole
// buffer: header, counts, records) and appends one Launch to `t`: its blocks
// in block order, each with every warp's regions as Events (op "region",
// op_name the region's name, loc its line, issue/done in cycles from the
// kernel's earliest region), and a summary. Adds "region" to t.ops and the
// names to t.op_names when missing. With a fitted clock, a GPU trace's
// arch.clock_mhz becomes the measured rate (peak_clock_mhz keeps the given one). Throws RegionDecodeError on a truncated,
// foreign or inconsistent buffer, leaving `t` unchanged.
RegionStats add_region_launch(trace::Trace& t, const void* data, size_t size, const RegionNames& names,
                              const RegionDecodeOptions& opt);

} // namespace tklab::profiler
