// The records a trace and the simulator share: one warp instruction, its
// bank analysis, a barrier wait, a change of live tile registers,
// shared-memory totals, a tile snapshot and a tk::region. The simulator records these very types (sim/events.h)
// and the trace stores them (trace.h, SCHEMA.md), so one field is added in one
// place. No dependencies: kernels built for the simulator include it too.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tklab::trace {

// One warp instruction. Indices refer to the tables of the Trace.
struct Event {
    uint64_t issue = 0;         // cycle it issued
    uint64_t done = 0;          // cycle the warp could issue its next instruction
    uint32_t stall_cycles = 0;  // cycles waited before issue, for `stall`
    uint32_t mask = 0;          // active lanes
    uint32_t loc = 0;           // Trace::locations: the kernel line
    uint32_t op_seq = 0;        // which tile-op call of this warp (0 = outside any tile op)
    uint16_t op_name = 0;       // Trace::op_names (0 = none)
    uint16_t warp = 0;
    uint8_t op = 0;             // Trace::ops
    uint8_t stall = 0;          // Trace::stalls (0 = none)
    uint8_t aux = 0;            // bytes per lane (memory), matrices (ldmatrix), mode (shfl), 16 (16-byte rows: bulk copies, wgmma); simulator: sim/instructions.h TraceAux
    int32_t smem = -1;          // Block::smem index for shared-memory instructions
    bool operator==(const Event&) const = default;
};

// Bank analysis of one shared-memory instruction (Nsight Compute's counting).
struct SmemAccess {
    uint32_t event = 0;         // Block::events index
    uint16_t wavefronts = 0, ideal = 0;
    uint8_t max_way = 0;        // 1 = conflict-free
    int32_t lanes = -1;         // Block::lane_addrs offset of 32 byte addresses, -1 when not kept
    int conflicts() const { return int(wavefronts) - int(ideal); }
    bool operator==(const SmemAccess&) const = default;
};

// One warp waiting at a barrier: arrive -> release.
struct BarrierWait {
    uint64_t arrive = 0, release = 0;
    uint32_t loc = 0;
    uint32_t address = 0;       // mbarrier's shared address
    uint16_t warp = 0;
    uint16_t last_warp = 0;     // the warp whose arrival released it
    uint8_t id = 0;             // bar.sync id
    bool mbarrier = false;
    uint32_t phase = 0;         // mbarrier phase waited on
    // Never released: the run stopped (a deadlock, a fault elsewhere) while the
    // warp waited; `release` is the cycle the block had reached, `last_warp` the warp itself.
    bool open = false;
    // An mbarrier wait that went on at once, the barrier having completed no
    // phase: a wait for parity 1, "the phase before the first" (a producer's
    // first wait for a free slot, or a consumer's parity slip). arrive == release.
    bool at_once = false;
    bool operator==(const BarrierWait&) const = default;
};

struct LiveTile {  // a declaration holding registers
    uint32_t loc = 0;
    int regs = 0;
    bool operator==(const LiveTile&) const = default;
};

struct RegChange {
    uint64_t cycle = 0;
    uint16_t warp = 0;
    uint16_t regs = 0;          // live registers per thread held by tiles and vectors
    // The declarations holding them after the change, oldest first. Files
    // written before this was kept have none (regs > 0 with nothing live).
    std::vector<LiveTile> live;
    bool operator==(const RegChange&) const = default;
};

struct SmemTotals {
    uint64_t instructions = 0, wavefronts = 0, ideal = 0;
    int max_way = 0;
    uint64_t conflicts() const { return wavefronts - ideal; }
    bool operator==(const SmemTotals&) const = default;
};

// Values of one tile at one moment, taken by tk::snapshot() when asked for.
struct Snapshot {
    uint64_t cycle = 0;
    uint16_t warp = 0;
    uint32_t loc = 0;
    std::string label;
    std::string space;          // "register" or "shared"
    int rows = 0, cols = 0;
    std::vector<float> values;  // row-major rows x cols
    bool operator==(const Snapshot&) const = default;
};

// Simulator runs: one tk::region of one warp, on the warp's cycle clock. Not an
// instruction: stepping and the instruction statistics never see it.
struct Region {
    uint64_t begin = 0, end = 0;  // end >= begin
    uint32_t loc = 0;             // Trace::locations: the marker's line
    uint16_t name = 0;            // Trace::op_names
    uint16_t warp = 0;
    uint8_t depth = 0;            // this warp's regions open around it (0 = outermost)
    bool open = false;            // never left (a fault in between): `end` is where the warp stopped
    bool operator==(const Region&) const = default;
};

// What the compiler allocated for a kernel (ptxas -v for `arch`, when the
// build found nvcc: sim/compiler_figures.h). Per thread unless named per block.
struct CompilerFigures {
    std::string tool;                    // e.g. "ptxas (nvcc 13.0)"
    std::string arch;                    // e.g. "sm_90a"
    std::string entry;                   // ptxas's (mangled) name of the kernel's entry function
    int registers = 0;
    uint64_t stack_bytes = 0;            // local memory: arrays indexed at run time, spills
    uint64_t spill_store_bytes = 0, spill_load_bytes = 0;
    uint64_t static_shared_bytes = 0;    // per block, declared in the kernel
    bool operator==(const CompilerFigures&) const = default;
};

} // namespace tklab::trace
