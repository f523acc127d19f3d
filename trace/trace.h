// The trace document in memory: what a run recorded, as the loader returns it
// and as the recorder builds it while the kernel runs. trace/SCHEMA.md says how
// each field is stored on disk. Nothing here depends on the simulator or on
// CUDA, so the visualizer and the profiler share it.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>
#include <nlohmann/json.hpp>
#include "trace/records.h"

namespace tklab::trace {

using json = nlohmann::json;

constexpr int kVersion = 1;           // bump when a reader of the old version would misread a new file
constexpr const char* kFormat = "tklab-trace";

struct Dim3 {
    uint32_t x = 1, y = 1, z = 1;
    bool operator==(const Dim3&) const = default;
};

// A source file the trace refers to. The text is embedded when the recorder
// could read it, so a trace shows its kernel lines on any machine.
struct SourceFile {
    std::string path;      // relative to the project root when it lies under it
    std::string hash;      // "fnv1a64:<16 hex digits>" of the text, "" when unread
    std::optional<std::string> text;
    bool operator==(const SourceFile&) const = default;
};

struct Location {
    uint32_t file = 0;     // index into Trace::files; location 0 is "unknown" (file 0 is "")
    int line = 0;
    bool operator==(const Location&) const = default;
};

struct Block {
    uint32_t index = 0;         // linear block index (x fastest)
    Dim3 coord;
    uint64_t cycles = 0;        // when its last warp finished
    uint64_t instructions = 0;
    std::vector<uint16_t> warp_peak_regs;
    bool timeline = false;      // false: only the lines above were kept
    std::vector<Event> events;  // execution order
    std::vector<SmemAccess> smem;
    std::vector<uint32_t> lane_addrs;
    std::vector<BarrierWait> barriers;
    std::vector<RegChange> regs;
    std::vector<Snapshot> snapshots;
    std::vector<Region> regions;  // every block, timeline or not; in the order they began
    bool operator==(const Block&) const = default;
};

// ---- summaries over every block of a launch (timeline or not) ----

// One shared-memory instruction site: a kernel line and an instruction kind.
struct SmemSite {
    uint32_t loc = 0;
    uint8_t op = 0;
    uint64_t count = 0, wavefronts = 0, ideal = 0;
    uint8_t max_way = 0;
    std::array<uint64_t, 32> bank_words{};  // distinct words per bank, summed over executions
    // The worst execution (most wavefronts), kept so a report can say which lanes collide.
    uint8_t worst_aux = 0;
    uint32_t worst_mask = 0;
    std::vector<uint32_t> worst_lanes;       // 32 byte addresses, or empty
    uint64_t conflicts() const { return wavefronts - ideal; }
    bool operator==(const SmemSite&) const = default;
};

struct BarrierWarpStats {
    uint64_t waits = 0, total = 0, longest = 0;
    uint64_t arrived_last = 0;  // times this warp's arrival released the others
    bool operator==(const BarrierWarpStats&) const = default;
};

struct BarrierSite {
    uint32_t loc = 0;
    bool mbarrier = false;
    uint8_t id = 0;
    std::vector<BarrierWarpStats> warps;  // by warp index within a block
    bool operator==(const BarrierSite&) const = default;
};

struct LineStalls {
    uint32_t loc = 0;
    uint64_t instructions = 0;
    std::vector<uint64_t> cycles;  // by Trace::stalls index
    bool operator==(const LineStalls&) const = default;
};

struct Summary {
    uint64_t blocks = 0;                  // blocks that ran
    uint64_t warp_instructions = 0;
    uint64_t warp_cycles = 0;             // sum over blocks of cycles x warps: the time warps existed
    SmemTotals ld_shared, st_shared, ldmatrix, stmatrix;
    SmemTotals atom_shared;               // atom.shared and red.shared (Nsight's op_atom); absent in older traces and runs without: 0
    std::vector<uint64_t> by_op;          // by Trace::ops index
    std::vector<uint64_t> stall_cycles;   // by Trace::stalls index
    uint64_t barrier_wait_cycles = 0;
    uint64_t max_block_cycles = 0, sum_block_cycles = 0;
    uint64_t est_kernel_cycles = 0;       // the largest bound below, plus the launch overhead
    // What est_kernel_cycles is made of (simulator; absent in older traces: 0, ""):
    uint64_t wave_cycles = 0;             // the blocks' bound: the busiest SM's time (older traces: slowest block x waves)
    uint64_t store_ack_cycles = 0;        // of it, from its last block's exit until L2 acknowledged the stores (older: 0)
    int blocks_together = 0;              // blocks simulated together on an SM at most (0: older traces, one at a time)
    uint64_t global_bytes = 0, dram_bytes = 0;  // global traffic to L2 in whole sectors; of it, DRAM's
    uint64_t global_write_bytes = 0;            // of global_bytes, the stores' (older traces: 0)
    uint64_t l1_hit_bytes = 0;                  // loads' sectors L1 served instead (older traces: 0)
    uint64_t overhead_instructions = 0;         // address arithmetic around tile ops' memory instructions (charged as time)
    uint64_t l2_cycles = 0, dram_cycles = 0;    // that traffic over the bandwidth the SMs share
    uint64_t launch_overhead_cycles = 0;
    // The SM clock the launch runs at, which converts its cycles to time
    // (simulator: the cost model's, lower when it uses the tensor cores);
    // 0 in older traces and GPU traces: the arch's clock_mhz.
    double clock_mhz = 0;
    std::string time_limit;               // "blocks", "L2 bandwidth" or "DRAM bandwidth"
    // Reads of bytes nothing wrote inside tk::allow_uninitialized_reads, and
    // the first one's line (optional: 0 in older traces).
    uint64_t allowed_uninit_reads = 0;
    uint32_t allowed_uninit_loc = 0;
    int blocks_per_sm = 0;
    std::string occupancy_limit;          // "threads", "registers", "shared memory" or "blocks"
    int peak_regs = 0;                    // live tile registers per thread at the peak
    uint32_t peak_regs_loc = 0;
    std::vector<LiveTile> peak_live;      // what was live at the peak
    // ptxas's figures for the kernel, when the simulating build had nvcc
    // (optional; occupancy then used its registers).
    std::optional<CompilerFigures> compiler;
    // The simulator's estimate of the registers per thread the compiler
    // allocates (optional: 0 in older traces, where it was the cost model's
    // base plus peak_regs).
    int estimated_registers = 0;
    // The most registers per lane that loads filled before anything read them
    // (optional; part of the estimate: sim/README.md, "Registers").
    int peak_loaded_regs = 0;
    // Global-memory instructions per pass of the hottest loop (optional; their
    // addresses are part of the estimate).
    int loop_addresses = 0;
    // Global-memory instructions of the longest straight run (one tile op
    // call), whose addresses the estimate holds at once (optional).
    int run_addresses = 0;
    // Of peak_regs, tiles filled from shared memory, mma operands the estimate
    // counts a share of (optional; older traces: 0).
    int peak_from_shared_regs = 0;
    std::vector<SmemSite> smem_sites;
    std::vector<BarrierSite> barrier_sites;
    std::vector<LineStalls> line_stalls;
    bool operator==(const Summary&) const = default;
};

struct Failure {
    std::string kind;      // fault, deadlock, divergence, kernel_exception, usage, instruction_limit, race, uninitialized_read, sync_misuse, error
    std::string message;
    uint32_t loc = 0;
    int64_t block = -1;    // linear block index, -1 when not in a block
    bool operator==(const Failure&) const = default;
};

struct Launch {
    std::string kernel;
    Dim3 grid, block;
    uint64_t smem_bytes = 0;
    uint64_t first_wave_blocks = 0;
    std::vector<Block> blocks;            // every block that ran, in order
    std::optional<Summary> summary;       // absent only in a truncated trace
    std::optional<Failure> failure;
    double wall_seconds = 0;
    uint32_t warps_per_block() const { return (block.x * block.y * block.z + 31) / 32; }
    bool operator==(const Launch&) const = default;
};

// The result of comparing an output with the CPU reference.
struct Check {
    std::string output;
    double max_error = 0, tolerance = 0;
    bool passed = false;
    std::string variant;
    bool operator==(const Check&) const = default;
};

// One kernel as the GPU ran it, from CUPTI's activity records (profiler/):
// optional in a trace, present when a GPU run collected kernel timing.
struct GpuKernel {
    std::string name;             // demangled where possible
    std::string mangled;          // as the driver reported it; "" when the same as `name`
    uint64_t start_ns = 0, end_ns = 0;  // GPU timestamps on CUPTI's clock (cuptiGetTimestamp), ns
    uint32_t registers = 0;       // per thread
    uint32_t static_smem = 0;     // bytes per block, declared in the kernel
    uint32_t dynamic_smem = 0;    // bytes per block, asked for at launch
    Dim3 grid, block;
    uint32_t device = 0;          // CUDA device ordinal
    uint32_t stream = 0;          // CUPTI's stream id
    uint32_t correlation = 0;     // ties the kernel to the API call that launched it
    uint64_t duration_ns() const { return end_ns - start_ns; }
    uint64_t smem_bytes() const { return uint64_t(static_smem) + dynamic_smem; }
    bool operator==(const GpuKernel&) const = default;
};

// GPU runs only: one kernel launch's hardware counters, from CUPTI's Range
// Profiler (one range per launch), as CUPTI evaluated them.
struct GpuCounters {
    std::string kernel;                     // demangled where possible
    uint32_t launch = 0;                    // its order among the profiled launches, from 0
    std::map<std::string, double> metrics;  // CUPTI metric name ("...op_ld.sum") -> value
    bool operator==(const GpuCounters&) const = default;
};

// One (source line, stall reason) of a kernel's PC samples.
struct GpuStallSite {
    std::string file;        // from the kernel's line table (-lineinfo); "" when the PC has none
    uint32_t line = 0;
    std::string reason;      // CUPTI's reason without its prefix: "long_scoreboard", "barrier", "selected", ...
    uint64_t samples = 0;
    bool operator==(const GpuStallSite&) const = default;
};

// GPU runs only: CUPTI PC sampling of one kernel, summed per line and reason.
struct GpuStalls {
    std::string kernel;
    uint64_t period_cycles = 0;  // SM cycles between two samples of a warp scheduler
    uint64_t samples = 0;        // every sample taken, those without a line included
    uint64_t dropped = 0;        // samples CUPTI lost (its buffer was full)
    std::vector<GpuStallSite> sites;
    // The same samples by each instruction's own line, where `sites` names the
    // kernel line that called inlined tile-library code (tk/arch/mma.h:19
    // rather than the kernel's mma_AB line); empty when no sample needed it.
    std::vector<GpuStallSite> inner_sites;
    std::map<std::string, uint64_t> by_reason() const;  // samples per reason, over every line
    bool operator==(const GpuStalls&) const = default;
};

struct Recording {
    std::string timeline_blocks = "first-wave";  // "first-wave", "all", "none" or a list like "0-3,7"
    bool all_lane_addresses = false;             // else only for instructions with conflicts
    bool snapshots = false;
    bool operator==(const Recording&) const = default;
};

struct Trace {
    int version = kVersion;
    std::string producer;                 // "tklab simulator", later "tklab profiler"
    std::string program, variant;         // the registry entry that ran, when one did
    json problem = json::object();        // e.g. {"M":512,"N":512,"K":512}
    uint64_t seed = 0;
    json arch = json::object();           // the cost model, as its data file holds it
    Recording recording;
    std::vector<std::string> ops;         // instruction names, indexed by Event::op
    std::vector<std::string> stalls;      // stall reasons, indexed by Event::stall; 0 = "none"
    std::vector<SourceFile> files;        // file 0 is the unknown file ""
    std::vector<Location> locations;      // location 0 is unknown
    std::vector<std::string> op_names;    // tile-op and region names; 0 = none
    std::vector<Launch> launches;
    std::vector<Check> checks;
    std::optional<Failure> failure;       // a failure outside any launch (or the run's)
    std::vector<GpuKernel> gpu_kernels;   // GPU runs only: CUPTI's kernel records, in start order
    std::vector<GpuCounters> gpu_counters; // GPU runs only: hardware counters, per launch in order
    std::vector<GpuStalls> gpu_stalls;    // GPU runs only: PC stall sampling, per kernel
    bool complete = false;                // the writer closed the file

    // "file:line" of a location, "?" when unknown.
    std::string where(uint32_t loc) const;
    // The text of a source line, "" when the file's text is not in the trace.
    std::string line_text(uint32_t loc) const;
    int op_index(const std::string& name) const;  // -1 when absent
    bool from_gpu() const;  // a GPU run's trace (the profiler's: arch says "gpu": true), not a simulated one
    bool operator==(const Trace&) const = default;
};

// The simulator's estimate of the registers per thread a launch's kernel gets
// without the compiler's figures (sim/merge.cpp register_estimate), and which
// of its terms it came from. Older traces: the cost model's base plus peak_regs.
struct RegisterEstimate {
    enum class From { tiles, loaded, run, setmaxnreg, idle };
    long long base = 0;       // the cost model's base_registers_per_thread
    long long addresses = 0;  // the hottest loop's addresses (Summary::loop_addresses, in registers)
    long long run = 0;        // the kernel while a straight run's addresses are computed ahead (Summary::run_addresses; 0: none)
    long long run_base = 0, run_per_address = 0;  // what it holds besides the addresses, and per address (arch registers_run_base, registers_per_run_address)
    bool run_capped = false;  // run is full occupancy's registers per thread, less than base plus addresses
    long long from_shared = 0;  // registers of operands filled from shared memory it leaves out (arch registers_from_shared_share)
    long long total = 0;
    From from = From::tiles;
};
RegisterEstimate register_estimate(const Trace& t, const Summary& s);

// The SM clock that converts a launch's cycles to time, in MHz: its own
// (Summary::clock_mhz) when it has one, else the arch's clock_mhz; 0 when
// neither is known.
double clock_mhz(const Trace& t, const Summary* s);

} // namespace tklab::trace
