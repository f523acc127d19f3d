// Every fact about an instruction, one row per Op: its name, which family of
// executors performs it (sim/exec/<family>.cpp), which lanes must meet for
// it, whether it waits for registers a load is still filling, and where its
// shared-memory analysis is totalled. The executor, the scheduler, the merger,
// the trace recorder and the report all read this table; nothing else
// decides these facts. sim/README.md, "Adding an instruction", walks through
// adding a row.
//
// No dependencies beyond sim/api.h: the trace library (which knows nothing of
// the engine) reads it too, by name.
#pragma once
#include <cstdint>
#include <string_view>

#include "sim/api.h"

namespace tklab::sim {

// The file of sim/exec/ that performs the instruction.
enum class Family : uint8_t {
    shared_memory,  // ld/st.shared, ldmatrix, stmatrix
    math,           // mma.sync, shfl.sync, the tile library's register arithmetic (alu)
    barriers,       // bar.*, bar.warp.sync, mbarrier.*
    global_memory,  // ld/st.global, cp.async and its groups
    bulk_copy,      // cp.async.bulk.tensor (TMA), its groups, fence.proxy.async
    wgmma,          // wgmma.*, setmaxnreg
    atomics,        // atom/red on shared and global memory
};

// Which of a warp's lanes must be parked at the instruction before it executes.
enum class Meet : uint8_t {
    arrived,      // the lanes that arrived together (divergent groups execute one at a time)
    member_mask,  // shfl.sync, bar.warp.sync: the lanes of the instruction's member mask
    whole_warp,   // .sync.aligned: every lane the warp has
    running,      // bar.sync/bar.arrive: every lane that has not exited
};

// Where the merger totals the instruction's bank analysis (Nsight Compute's four kinds).
// Shared atomics (atom and red: on the GPU both are ATOMS) are Nsight's op_atom.
enum class SmemTotal : uint8_t { none, ld_shared, st_shared, ldmatrix, stmatrix, atom_shared };

// Which operand a trace event's `aux` holds (trace/SCHEMA.md).
enum class TraceAux : uint8_t { none, bytes, matrices, shfl_mode, accumulate };

struct Instruction {
    Op op;
    const char* name;             // the PTX mnemonic, as traces and reports name it
    Family family;
    Meet meet;
    bool reads_loaded_registers;  // reads registers a recent load may still be filling (waits on its scoreboard)
    SmemTotal smem_total;
    TraceAux aux;
    // Reads or writes shared memory as it executes, every time (mbarriers
    // included): the executor checks that the bug finders were shown at least
    // one access, so a handler cannot forget them. (Asynchronous writes --
    // cp.async and TMA landings, wgmma's operand reads -- are shown too, but
    // not always during the instruction itself.)
    bool touches_shared;

    // Warp-synchronous: the lanes that execute it together are ordered with
    // each other afterwards (the race finder's view), and it waits for every lane it names.
    bool warp_synchronous() const { return meet != Meet::arrived; }
    // Its bank analysis is drawn in phases of 8 rows of 16 bytes (ldmatrix, stmatrix).
    bool matrix_phases() const { return smem_total == SmemTotal::ldmatrix || smem_total == SmemTotal::stmatrix; }
};

const Instruction& instruction(Op op);

// The event's `aux` for this lane's operands (0 when the row says none;
// bulk copies and wgmma then set 16 for their 16-byte rows).
inline uint8_t trace_aux(TraceAux what, const LaneOp& o) {
    switch (what) {
    case TraceAux::bytes: return o.bytes;
    case TraceAux::matrices: return o.matrices;
    case TraceAux::shfl_mode: return uint8_t(o.shfl_mode);
    case TraceAux::accumulate: return uint8_t(o.accumulate);
    case TraceAux::none: break;
    }
    return 0;
}
// The row with this name (a trace's op table), or nullptr.
const Instruction* instruction_named(std::string_view name);

} // namespace tklab::sim
