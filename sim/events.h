// What the simulator records, per block, for every warp instruction. This is
// the in-process form of a trace: the trace writer (issue 3) serialises it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include "sim/api.h"
#include "sim/banks.h"
#include "sim/cuda_shim_types.h"

namespace tklab::sim {

// Why a warp waited before an instruction could issue. Names follow Nsight
// Compute's warp stall reasons where one exists.
enum class Stall : uint8_t {
    none,
    barrier,             // bar.sync: waiting for the other warps
    mbarrier,            // waiting on an mbarrier phase (no hardware counterpart name)
    long_scoreboard,     // global memory / cp.async data not yet back
    short_scoreboard,    // shared memory / shuffle data not yet back
    mio_throttle,        // shared-memory pipe busy (bank-conflict wavefronts queue here)
    math_pipe_throttle,  // tensor pipe busy
    count_
};
const char* stall_name(Stall s);

struct Event {
    uint64_t issue = 0;         // cycle the instruction issued
    uint64_t done = 0;          // cycle the warp could issue its next instruction
    uint32_t stall_cycles = 0;  // cycles waited before issue, for `stall`
    uint32_t mask = 0;          // active lanes
    uint32_t loc = 0;           // kernel source location (RunResult::locations)
    uint32_t op_seq = 0;        // which tile-op call of this warp (0 = none)
    uint16_t op_name = 0;       // RunResult::op_names
    uint16_t warp = 0;
    Op op = Op::count_;
    Stall stall = Stall::none;
    uint8_t aux = 0;            // width in bytes, matrices, barrier id
    int32_t smem = -1;          // index into BlockTrace::smem for shared-memory instructions
};

struct SmemRecord {
    uint32_t event = 0;         // index into BlockTrace::events
    BankAnalysis banks;
    int32_t lanes = -1;         // index of 32 addresses in BlockTrace::lane_addrs, kept for conflicted instructions
};

struct BarrierRecord {
    uint64_t arrive = 0, release = 0;
    uint32_t loc = 0;
    uint32_t address = 0;       // mbarrier shared address
    uint16_t warp = 0, last_warp = 0;  // who waited, and who arrived last (released it)
    uint8_t id = 0;             // bar.sync id
    bool mbarrier = false;
    uint32_t phase = 0;         // mbarrier phase waited on
};

// A declaration holding registers (a register tile or vector) and how many.
struct LiveRegs { uint32_t loc = 0; int regs = 0; };

struct RegRecord {
    uint64_t cycle = 0;
    uint16_t warp = 0;
    uint16_t regs = 0;          // live registers per thread (tiles and vectors)
    std::vector<LiveRegs> live; // the declarations holding them, oldest first
};

// Values of one tile at one moment (tk::snapshot), gathered from its lanes.
struct SnapshotRecord {
    uint64_t cycle = 0;
    uint16_t warp = 0;
    uint32_t loc = 0;
    const char* label = "";
    bool shared = false;        // a shared tile, else a register tile
    int rows = 0, cols = 0;
    std::vector<float> values;  // row-major
    uint32_t lanes_seen = 0;    // lanes that contributed (register tiles)
};

// One tk::region of one warp: begin and end on the warp's clock. Nested
// regions are separate records (`depth` says how deep); a region the kernel
// never left (a fault or an exception in between) has `closed` false and ends
// where the warp's clock stood when the block stopped.
struct RegionRecord {
    uint64_t begin = 0, end = 0;
    uint32_t loc = 0;           // its source line (RunResult::locations)
    uint16_t name = 0;          // RunResult::op_names
    uint16_t warp = 0;
    uint8_t depth = 0;          // regions of this warp open around it
    bool closed = false;
    uint32_t entered = 0, left = 0;  // lanes that constructed it, and destroyed it
};

struct BlockTrace {
    Dim3 block;
    uint64_t index = 0;         // linear block index
    bool timeline = true;       // the observer asked for a full timeline of this block
    uint64_t cycles = 0;        // when the block's last warp finished
    std::vector<Event> events;
    std::vector<SmemRecord> smem;
    std::vector<uint32_t> lane_addrs;
    std::vector<BarrierRecord> barriers;
    std::vector<RegRecord> regs;
    std::vector<uint16_t> warp_peak_regs;
    std::vector<SnapshotRecord> snapshots;
    std::vector<RegionRecord> regions;  // in the order they began
    int peak_regs = 0;                  // the block's highest live registers per thread
    // Per-thread registers summed over the block's warps after their setmaxnreg
    // (a warp that never called it: its peak); 0 when no warp called it.
    int setmaxnreg_registers = 0;
    uint32_t peak_regs_loc = 0;
    std::vector<LiveRegs> peak_live;    // what was live at that peak
};

struct Location { std::string file; int line = 0; };

// Shared-memory totals for one instruction kind, as Nsight Compute reports them.
struct SmemTotals {
    uint64_t instructions = 0, wavefronts = 0, ideal = 0;
    uint64_t conflicts() const { return wavefronts - ideal; }
    int max_way = 0;
};

struct Stats {
    uint64_t warp_instructions = 0;
    uint64_t by_op[size_t(Op::count_)] = {};
    SmemTotals ld_shared, st_shared, ldmatrix, stmatrix;
    uint64_t stall_cycles[size_t(Stall::count_)] = {};
    uint64_t barrier_wait_cycles = 0;
    uint64_t max_block_cycles = 0;       // slowest block
    uint64_t sum_block_cycles = 0;
    uint64_t est_kernel_cycles = 0;      // slowest block x waves, from occupancy
    int blocks_per_sm = 0;
    int peak_regs = 0;                   // live registers per thread at the peak
    uint32_t peak_regs_loc = 0;          // declaration that reached it
    int setmaxnreg_registers = 0;        // a block's registers after setmaxnreg (BlockTrace's), largest
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
    double wall_seconds = 0;
};

} // namespace tklab::sim
