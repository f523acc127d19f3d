// Atomics: atom (returns the old value) and red (returns nothing) on shared
// and global memory -- add (u32, s32, f32), min/max (u32, s32), and/or/xor,
// exch and cas (b32). The lanes of one warp instruction apply theirs one at a
// time in lane order, each atom lane getting the value it found, so a run is
// deterministic (the GPU's order among lanes on one word is unspecified:
// integer results are the same in any order, f32 sums may differ in their
// last bits). PTX ISA: atom.add.f32 on global memory flushes subnormal inputs
// and results to sign-preserving zero; on shared memory it keeps them.
//
// Shared atomics are shared-memory requests: their bank analysis
// (analyze_atomic, sim/banks.h, measured on the H100) is recorded and totalled as Nsight's op_atom,
// and they take the shared-memory pipe like loads and stores; to the race
// finder they are atomic read-modify-writes (no race with each other, a race
// with an unordered plain load or store). Global atomics take the memory path
// of a load (atom: its result comes back) or a store (red). The costs are
// placeholders from the plain accesses' figures, not measured for atomics
// (sim/arch/README.md).
#include "sim/exec/executor.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>

namespace tklab::sim {

namespace {

float as_float(uint32_t u) { return std::bit_cast<float>(u); }
uint32_t as_bits(float f) { return std::bit_cast<uint32_t>(f); }
float flush_subnormal(float f) { return std::fpclassify(f) == FP_SUBNORMAL ? std::copysign(0.0f, f) : f; }

// The word's new value after `op` of `type` with operand b (cas: compare b, swap in c).
uint32_t apply(AtomOp op, AtomType type, uint32_t old, uint32_t b, uint32_t c, bool ftz) {
    switch (op) {
    case AtomOp::add:
        if (type == AtomType::f32) {
            if (!ftz) return as_bits(as_float(old) + as_float(b));
            return as_bits(flush_subnormal(flush_subnormal(as_float(old)) + flush_subnormal(as_float(b))));
        }
        return old + b;  // u32 and s32 alike: two's complement wraps
    case AtomOp::min:
        return type == AtomType::s32 ? uint32_t(std::min(int32_t(old), int32_t(b))) : std::min(old, b);
    case AtomOp::max:
        return type == AtomType::s32 ? uint32_t(std::max(int32_t(old), int32_t(b))) : std::max(old, b);
    case AtomOp::exch: return b;
    case AtomOp::cas: return old == b ? c : old;
    case AtomOp::and_: return old & b;
    case AtomOp::or_: return old | b;
    case AtomOp::xor_: return old ^ b;
    }
    return old;
}

} // namespace

void Executor::atomics(Op op) {
    switch (op) {
    case Op::atom_shared: shared_atomic(true); break;
    case Op::red_shared: shared_atomic(false); break;
    case Op::atom_global: global_atomic(true); break;
    case Op::red_global: global_atomic(false); break;
    default: break;
    }
}

void Executor::shared_atomic(bool returns) {
    const char* what = returns ? "atomic (atom.shared)" : "reduction (red.shared)";
    uint32_t addr[32] = {};
    for_lanes([&](int l) {
        addr[l] = lane_op(l).addr;
        check_shared(b_, lane(l), addr[l], 4, what);
    });
    for_lanes([&](int l) { access(lane_accessor(l), addr[l], 4, true, lane(l), true); });
    const LaneOp& first = lane_op(std::countr_zero(mask_));
    const BankAnalysis ba = analyze_atomic(mask_, addr, first.atom_op, first.atom_type);
    const uint64_t end = use_smem_pipe(ba.wavefronts);
    for_lanes([&](int l) {
        LaneOp& o = lane_op(l);
        uint32_t old;
        std::memcpy(&old, b_.smem + addr[l], 4);
        const uint32_t now = apply(o.atom_op, o.atom_type, old, o.data[0], o.data[1], false);
        std::memcpy(b_.smem + addr[l], &now, 4);
        if (returns) o.data[0] = old;
    });
    if (returns) note_load(end + cost_.shared_latency, Stall::short_scoreboard, 1);
    w_.clock = t_ + uint64_t(cost_.issue_cycles) * ba.instructions;  // an f32 add's loop issues once a round
    record_smem(ba, addr);
}

void Executor::global_atomic(bool returns) {
    const char* what = returns ? "atomic (atom.global)" : "reduction (red.global)";
    bool streamed = false;  // on a buffer read from DRAM (MemoryPath::streamed)
    // Every lane's address is checked before any lane's atomic changes memory.
    const Allocation* al[32] = {};
    for_lanes([&](int l) {
        LaneOp& o = lane_op(l);
        al[l] = &check_global(lane(l), o.gptr, 4, what);
        streamed = streamed || b_.memory.streamed(al[l]->bytes);
        check_global_written(lane(l), *al[l], uintptr_t(o.gptr), 4, returns ? "an atomic's read (atom.global)" : "a reduction's read (red.global)", true);
    });
    // Blocks on other host threads (Options::host_threads > 1) may update the
    // same word: each lane's read-modify-write is one host atomic, so none is
    // lost, though their order across blocks is then the host's (sim/README.md).
    for_lanes([&](int l) {
        LaneOp& o = lane_op(l);
        std::atomic_ref<uint32_t> word(*static_cast<uint32_t*>(const_cast<void*>(o.gptr)));
        uint32_t old = word.load(std::memory_order_relaxed);
        if (!b_.probe) {  // a probe block's writes are dropped (launch.cpp)
            while (!word.compare_exchange_weak(old, apply(o.atom_op, o.atom_type, old, o.data[0], o.data[1], true),
                                               std::memory_order_relaxed)) {
            }
            al[l]->mark(uintptr_t(o.gptr), 4);
        }
        if (returns) o.data[0] = old;
    });
    const uint64_t moved = global_traffic(4);
    b_.out->trace.global_write_bytes += moved;
    if (returns) {
        // Its result comes back as a load's would (a placeholder: atomics at L2 are not measured).
        note_load(load_arrives(t_, moved, streamed ? cost_.global_dram_latency : cost_.global_latency, streamed), Stall::long_scoreboard, 1);
    } else {
        // A reduction leaves as a store does; the warp's exit waits for it (the drain).
        store_leaves(t_, moved);
    }
    w_.clock = t_ + cost_.global_issue_cycles;
}

} // namespace tklab::sim
