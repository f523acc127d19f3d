// What the simulator records, per block, for every warp instruction: the
// in-process form of a trace. Events, barrier waits, register changes,
// snapshots, regions and shared-memory totals are the trace's own types
// (trace/records.h), so what the simulator records is what the trace holds,
// field for field; the recorder (trace_recorder.h) only maps their ids to the
// trace's tables. What stays the simulator's own: each shared access's whole
// bank analysis (the per-line summaries sum its bank histogram), statistics
// indexed by Op and Stall, and locations by file name (the recorder turns them
// into the trace's file ids).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>
#include "sim/api.h"
#include "sim/banks.h"
#include "sim/cuda_shim_types.h"
#include "trace/records.h"

namespace tklab::sim {

// Why a warp waited before an instruction could issue. Names follow Nsight
// Compute's warp stall reasons where one exists.
enum class Stall : uint8_t {
    none,
    barrier,             // bar.sync: waiting for the other warps; wgmma.wait_group (what PC sampling calls it)
    mbarrier,            // waiting on an mbarrier phase (no hardware counterpart name)
    long_scoreboard,     // global memory / cp.async data not yet back
    short_scoreboard,    // shared memory / shuffle data not yet back
    mio_throttle,        // shared-memory pipe busy (bank-conflict wavefronts queue here)
    math_pipe_throttle,  // tensor pipe busy with another warp's mma
    wait,                // a fixed interval after the warp's own previous mma or arithmetic (its latency, the pipe it holds: Nsight's "wait")
    selected,            // issuing a tile op's arithmetic, or the address arithmetic nvcc adds around its memory instructions: a cycle each
    drain,               // at exit, until the warp's global stores have left the SM
    not_selected,        // arithmetic ready, the sub-partition issuing other warps' (Nsight's "not_selected")
    lg_throttle,         // global load or store: the SM's queue for its load/store unit is full
    imc_miss,            // the kernel's parameters not yet in the SM's constant cache (a first-wave block's first instruction)
    count_
};
const char* stall_name(Stall s);

// One warp instruction (trace::Event). Its `op` and `stall` are indices into
// the trace's tables, which the simulator writes in Op's and Stall's order;
// `loc` and `op_name` index RunResult::locations and op_names until the
// recorder maps them; `smem` indexes BlockTrace::smem.
using Event = trace::Event;
// An event's op or stall index is the Op or Stall of that number.
constexpr bool operator==(uint8_t index, Op op) { return index == uint8_t(op); }
constexpr bool operator==(uint8_t index, Stall stall) { return index == uint8_t(stall); }

// Part of an event's stall cycles, of one reason. An event names the reason
// that cost it the most; one that waited for more than one has each part
// here, so the stall totals count every cycle under its own reason, as PC
// sampling does (address arithmetic: its issue cycles `selected`, the rest
// `wait`). Events without parts: all their stall_cycles are their stall's.
struct StallPart {
    uint32_t event = 0;   // index into BlockTrace::events
    uint32_t cycles = 0;
    uint8_t stall = 0;
};

struct SmemRecord {
    uint32_t event = 0;         // index into BlockTrace::events
    BankAnalysis banks;
    int32_t lanes = -1;         // index of 32 addresses in BlockTrace::lane_addrs, kept for conflicted instructions
};

// One warp waiting at a barrier or an mbarrier phase: arrive -> release.
using BarrierRecord = trace::BarrierWait;
// A declaration holding registers (a register tile or vector) and how many.
using LiveRegs = trace::LiveTile;
// A warp's live tile registers changed (the declarations holding them, oldest first).
using RegRecord = trace::RegChange;

// Values of one tile at one moment (tk::snapshot), gathered from its lanes.
using SnapshotRecord = trace::Snapshot;
// One tk::region of one warp: begin and end on the warp's clock. Nested
// regions are separate records (`depth` says how deep); a region the kernel
// never left (a fault or an exception in between) stays `open` and ends
// where the warp's clock stood when the block stopped.
using RegionRecord = trace::Region;

struct BlockTrace {
    Dim3 block;
    uint64_t index = 0;         // linear block index
    bool timeline = true;       // the observer asked for a full timeline of this block
    uint64_t cycles = 0;        // when the block's last warp finished
    std::vector<Event> events;
    std::vector<StallPart> stall_parts;  // events that waited for more than one reason: each part
    std::vector<SmemRecord> smem;
    std::vector<uint32_t> lane_addrs;
    std::vector<BarrierRecord> barriers;
    std::vector<RegRecord> regs;
    std::vector<uint16_t> warp_peak_regs;
    std::vector<SnapshotRecord> snapshots;
    std::vector<RegionRecord> regions;  // in the order they began
    uint64_t global_bytes = 0;          // global memory traffic to L2, in whole sectors
    uint64_t l1_hit_bytes = 0;          // loads' sectors L1 served (not in global_bytes)
    uint64_t global_write_bytes = 0;    // of it, written
    uint64_t global_tma_read_bytes = 0; // of it, read by bulk tensor copies
    double overhead_instructions = 0;   // the address arithmetic charged around tile ops' memory instructions
    uint64_t allowed_uninit_reads = 0;  // reads of unwritten bytes inside tk::allow_uninitialized_reads
    uint32_t allowed_uninit_loc = 0;    // the first one's kernel line
    int peak_regs = 0;                  // the block's highest live registers per thread
    int peak_from_shared_regs = 0;      // of them, tiles filled from shared memory (mma operands: Thread::from_shared)
    int peak_loaded_regs = 0;           // the most registers per lane loaded and not yet read, any warp
    int loop_addresses = 0;             // global-memory instructions per pass of a warp's hottest loop, most of any warp
    int run_addresses = 0;              // global-memory instructions one tile op call issued, most of any warp (a straight run)
    // Per-thread registers summed over the block's warps after their setmaxnreg
    // (a warp that never called it: its peak); 0 when no warp called it.
    int setmaxnreg_registers = 0;
    uint32_t peak_regs_loc = 0;
    std::vector<LiveRegs> peak_live;    // what was live at that peak
};

// f(event, stall, cycles) for each stall reason of each event that waited.
template <class F>
void for_each_stall(const BlockTrace& bt, F&& f) {
    std::vector<bool> split(bt.events.size());
    for (const StallPart& p : bt.stall_parts) split[p.event] = true;
    for (size_t i = 0; i < bt.events.size(); ++i)
        if (!split[i] && bt.events[i].stall_cycles) f(bt.events[i], bt.events[i].stall, uint64_t(bt.events[i].stall_cycles));
    for (const StallPart& p : bt.stall_parts) f(bt.events[p.event], p.stall, uint64_t(p.cycles));
}

struct Location { std::string file; int line = 0; };

// Shared-memory totals for one instruction kind, as Nsight Compute reports them.
using SmemTotals = trace::SmemTotals;

struct Stats {
    uint64_t warp_instructions = 0;
    uint64_t by_op[size_t(Op::count_)] = {};
    SmemTotals ld_shared, st_shared, ldmatrix, stmatrix;
    SmemTotals atom_shared;  // atom.shared and red.shared (Nsight's op_atom)
    // The most conflicted shared-memory instruction of the run (its extra
    // wavefronts, kernel line, kind and n-way), for messages that name it.
    int worst_conflict = 0;
    uint32_t worst_conflict_loc = 0;
    Op worst_conflict_op = Op::count_;
    int worst_conflict_way = 0;
    uint64_t stall_cycles[size_t(Stall::count_)] = {};
    uint64_t barrier_wait_cycles = 0;
    uint64_t max_block_cycles = 0;       // slowest block
    uint64_t sum_block_cycles = 0;
    uint64_t est_kernel_cycles = 0;      // the largest of the bounds below, plus the launch overhead
    uint64_t wave_cycles = 0;            // the busiest SM's time, its resident blocks simulated together (sim/sm.h)
    uint64_t store_ack_cycles = 0;       // of it, after its last block's exit until L2 acknowledged its stores
    int blocks_together = 0;             // blocks simulated together on an SM at most
    uint64_t global_bytes = 0;           // global memory traffic to L2 of every block, in whole sectors
    uint64_t l1_hit_bytes = 0;           // loads' sectors L1 served
    uint64_t global_write_bytes = 0;     // of it, written
    uint64_t global_tma_read_bytes = 0;  // of it, read by bulk tensor copies
    uint64_t overhead_instructions = 0;  // warp instructions of address arithmetic around tile ops' memory instructions, charged as time
    uint64_t allowed_uninit_reads = 0;   // reads of unwritten bytes inside tk::allow_uninitialized_reads
    uint32_t allowed_uninit_loc = 0;     // the first one's kernel line (in block order)
    uint64_t dram_bytes = 0;             // of it, from or to DRAM (the memory model)
    uint64_t l2_cycles = 0, dram_cycles = 0;  // that traffic over the bandwidth of the SMs with blocks
    uint64_t launch_overhead_cycles = 0;
    double clock_mhz = 0;                // the SM clock it runs at: the cost model's tensor clock when it issued mma.sync or wgmma
    const char* time_limit = "";         // which bound est_kernel_cycles is: "blocks", "L2 bandwidth", "DRAM bandwidth"
    int blocks_per_sm = 0;
    int peak_regs = 0;                   // live registers per thread at the peak
    int peak_from_shared_regs = 0;       // of them, tiles filled from shared memory (mma operands)
    int peak_loaded_regs = 0;            // the most registers per lane loaded and not yet read (any block)
    int loop_addresses = 0;              // global-memory instructions per pass of the hottest loop (any warp)
    int run_addresses = 0;               // global-memory instructions one tile op call issued, most (any warp)
    uint32_t peak_regs_loc = 0;          // declaration that reached it
    int setmaxnreg_registers = 0;        // a block's registers after setmaxnreg (BlockTrace's), largest
    // Registers per thread the compiler is estimated to allocate, without its
    // figures (register_estimate()): what occupancy uses when there are none.
    int estimated_registers = 0;
    std::vector<LiveRegs> peak_live;     // declarations live at the peak
    const char* occupancy_limit = "";    // what bounds blocks_per_sm
    uint64_t blocks_run = 0;
};

struct RunResult {
    std::string kernel;
    Dim3 grid, block;
    size_t smem_bytes = 0;
    std::string arch;
    std::vector<Location> locations;     // id 0 = unknown
    std::vector<std::string> op_names;   // tile-op names, then region names; id 0 = none
    std::vector<BlockTrace> blocks;      // in block order (empty when Options::keep_blocks is off)
    Stats stats;
    uint64_t first_wave_blocks = 0;      // blocks resident at once, by threads and shared memory
    // ptxas's registers, local memory and spills for this kernel, when the
    // build compiled it with nvcc (sim/compiler_figures.h); occupancy uses them.
    std::optional<trace::CompilerFigures> compiler;
    double wall_seconds = 0;
};

} // namespace tklab::sim
