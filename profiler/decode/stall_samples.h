// CUPTI's PC samples, summed into the trace's GpuStalls: per kernel, samples
// per (source file, line, stall reason). CPU only (no CUDA, no CUPTI types):
// profiler/gpu/pc_sampling.cpp copies CUPTI's records into RawPcSamples and a
// LineTable, and the tests feed recorded ones.
//
// CUPTI names each reason as a metric, "smsp__pcsamp_warps_issue_stalled_"
// + reason, and most come twice: "<reason>" counts every sample of a warp in
// that state, "<reason>_not_issued" only those taken in a cycle where its
// scheduler issued nothing. The second is a subset of the first (a PC with
// 42 long_scoreboard samples has at most 42 long_scoreboard_not_issued), so
// only the first goes into the trace's sites, which then add up to the
// kernel's samples; the not-issued counts are kept beside them.
#pragma once
#include <compare>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>
#include "trace/trace.h"

namespace tklab::profiler {

// One sampled instruction as CUPTI reports it (CUpti_PCSamplingPCData).
struct RawPcSample {
    uint64_t cubin_crc = 0;   // identifies the module (cuptiGetCubinCrc of its cubin)
    uint64_t pc_offset = 0;   // within the function
    std::string function;     // mangled, as CUPTI names it
    // CUPTI's reason name ("smsp__pcsamp_warps_issue_stalled_long_scoreboard") -> samples.
    std::vector<std::pair<std::string, uint64_t>> reasons;
};

// Where an instruction comes from: "" and 0 when the kernel has no line table.
struct SourceLine {
    std::string file;
    uint32_t line = 0;
    // The instruction's own line when `file`/`line` is the kernel line that
    // called inlined tile-library code (inline_lines.h); "" and 0 otherwise.
    std::string inner_file;
    uint32_t inner_line = 0;
    // The instruction is a CTA barrier that waits (BAR.SYNC, BAR.RED): a
    // warp waiting there has its PC on the next instruction.
    bool cta_barrier = false;
    bool operator==(const SourceLine&) const = default;
};

// Instructions -> source lines, from cuptiGetSassToSourceCorrelation.
struct PcKey {
    uint64_t cubin_crc = 0;
    std::string function;
    uint64_t pc_offset = 0;
    auto operator<=>(const PcKey&) const = default;
};
using LineTable = std::map<PcKey, SourceLine>;
// Hopper's SASS instructions are 16 bytes: a barrier sample's BAR is at its
// PC less this (aggregate_stall_samples), and the line table needs that PC,
// marked cta_barrier.
constexpr uint64_t kSassInstructionBytes = 16;
// Whether a sample has barrier samples (its BAR's PC needs a line too).
bool has_barrier_samples(const RawPcSample& s);

// A CUPTI reason name, split: "smsp__pcsamp_warps_issue_stalled_mio_throttle_not_issued"
// -> {"mio_throttle", not_issued}. A name without a known prefix is kept whole.
struct StallReason {
    std::string name;
    bool not_issued = false;
    bool operator==(const StallReason&) const = default;
};
StallReason parse_stall_reason(const std::string& cupti_name);

// The simulator's stall reason (sim/events.h, the trace's `stalls` table) that
// means the same as a GPU reason (with or without CUPTI's prefix), "" where the
// simulator has none: long_scoreboard, short_scoreboard, barrier, mio_throttle,
// math_pipe_throttle, wait (an mma's fixed interval), selected, not_selected,
// drain, lg_throttle and imc_miss have one; membar, sleeping, ... do not (and the
// simulator's mbarrier has no GPU name).
std::string sim_stall_for(const std::string& gpu_reason);

// One kernel's samples: the trace record and what the trace does not keep.
struct KernelStallSamples {
    trace::GpuStalls stalls;                      // kernel demangled; sites sorted by (file, line, reason)
    std::string mangled;                          // CUPTI's function name
    std::vector<trace::GpuStallSite> not_issued;  // the not-issued subset, same keys and order
    uint64_t samples_without_line = 0;            // in sites with file "" (no -lineinfo, or no cubin)
    uint64_t pcs = 0;                             // distinct instructions sampled
};

// The session's totals from CUPTI (CUpti_PCSamplingData), summed over GetData calls.
struct SamplingTotals {
    uint64_t period_cycles = 0;
    uint64_t dropped = 0;   // droppedSamples: lost to a full hardware buffer, kernel unknown
};

// Sums the samples per kernel (by CUPTI's function name) and per (file, line,
// reason). A kernel's `samples` is the sum of its all-samples reasons, so its
// sites add up to exactly that. Continuous sampling does not say which kernel
// lost the dropped samples: they are shared out in proportion to the kernels'
// samples (all to the kernel when there is one). Kernels come sorted by name
// (then mangled name). A barrier sample counts on the line of the BAR before
// its PC when the line table has that PC marked cta_barrier (where a warp
// waits at a barrier: the simulator's line for it), else on its own (a
// warpgroup's wait, wgmma's, stalls on its own PC). Throws
// std::invalid_argument for a sample whose reason name is empty.
std::vector<KernelStallSamples> aggregate_stall_samples(const std::vector<RawPcSample>& samples,
                                                        const LineTable& lines, const SamplingTotals& totals);

// A kernel's sites by samples (most first, ties by file, line, reason), at
// most n of them. (Samples per reason: trace::GpuStalls::by_reason.)
std::vector<trace::GpuStallSite> top_sites(const trace::GpuStalls& s, size_t n);

// The trace records of aggregated kernels, and appending them to a trace.
std::vector<trace::GpuStalls> to_gpu_stalls(const std::vector<KernelStallSamples>& kernels);
void add_to_trace(trace::Trace& t, const std::vector<KernelStallSamples>& kernels);

} // namespace tklab::profiler
