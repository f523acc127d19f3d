// The executor's shared part (executor.h): one warp instruction from its
// event to its register record, handed to its family by its row in the
// instruction table.
#include "sim/exec/executor.h"

#include "sim/instructions.h"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace tklab::sim {

namespace {

// Shared-memory traffic served in 16-byte rows, 8 rows (128 bytes) per
// wavefront at best: a bulk copy's rows, or wgmma's core-matrix rows. Counted
// with the bank model of a 16-byte-per-lane access (phases of 8 rows), 32
// rows at a time. `worst` gets the 32 addresses of the most conflicted batch.
BankAnalysis analyze_rows16(const std::vector<uint32_t>& rows, uint32_t (&worst)[32]) {
    BankAnalysis total;
    int words[32] = {};
    int worst_excess = -1;
    for (size_t i = 0; i < rows.size(); i += 32) {
        const size_t n = std::min<size_t>(32, rows.size() - i);
        uint32_t addr[32] = {};
        std::copy(rows.begin() + long(i), rows.begin() + long(i + n), addr);
        const uint32_t mask = n == 32 ? 0xffffffffu : (1u << n) - 1;
        const BankAnalysis ba = analyze_access(mask, addr, 16);
        total.wavefronts = uint16_t(std::min<int>(total.wavefronts + ba.wavefronts, 65535));
        total.ideal = uint16_t(std::min<int>(total.ideal + ba.ideal, 65535));
        total.max_way = std::max(total.max_way, ba.max_way);
        for (int k = 0; k < 32; ++k) words[k] += ba.bank_words[k];
        if (ba.conflicts() > worst_excess) {
            worst_excess = ba.conflicts();
            std::copy(addr, addr + 32, worst);
        }
    }
    for (int k = 0; k < 32; ++k) total.bank_words[k] = uint8_t(std::min(words[k], 255));
    return total;
}

} // namespace

// The shared-memory swizzles (PTX ISA, "Tensor swizzling modes"): bits
// [4:6] ^= [7:9] (128B), [4:5] ^= [7:8] (64B), [4] ^= [7] (32B), on the byte address.
uint32_t swizzle_address(uint32_t a, uint32_t swizzle_bytes) {
    const uint32_t mask = swizzle_bytes == 128 ? 7 : swizzle_bytes == 64 ? 3 : swizzle_bytes == 32 ? 1 : 0;
    return a ^ (((a >> 7) & mask) << 4);
}

void Executor::run() {
    const Op op = op0_->op;
    const Instruction& ins = instruction(op);
    const bool reads_loaded = ins.reads_loaded_registers && !(op == Op::alu && op0_->no_sources);
    if (!w_.yielded) {
        w_.failed_poll = false;  // set again by a test_wait that finds nothing
        begin_event(op);
        seq_ = ++w_.seq;
        site_ = make_site(trace().events[size_t(ev_)].loc, op);
        if (seq_ == 1) constants_fetched();
        issue_overhead(op);  // (addresses do not wait for loaded data)
        visit_global_site(op);
        // Its data comes later: the warp yields until then (Warp::yielded),
        // the wait charged now. The SM model runs warps in clock order, so
        // an instruction must take shared resources at its own issue cycle,
        // after those of other warps that issue before it.
        if (reads_loaded) {
            const auto [ready, why] = operands_ready();
            if (ready > t_) {
                charge_stall(trace(), w_, ev_, why, ready - t_);
                w_.yielded = true;
                w_.yield_event = ev_;
                w_.yield_begun = begun_;
                w_.clock = ready;
                return;
            }
        }
    } else {
        ev_ = w_.yield_event;
        seq_ = w_.seq;  // the warp ran nothing since
        site_ = make_site(trace().events[size_t(ev_)].loc, op);
        begun_ = w_.yield_begun;
        w_.yielded = false;
    }
    if (reads_loaded) {
        const auto [ready, why] = operands_ready();
        wait_until(ready, why);
        w_.loaded_regs = 0;  // what was loaded is in use now
    }
    // Loads no instruction read before a block barrier were read by plain
    // code the simulator does not see (arithmetic between tile ops): a loop
    // that synchronises reuses their registers on its next pass.
    if (op == Op::bar_sync) w_.loaded_regs = 0;
    b_.hooks.instruction_begin();
    switch (ins.family) {
    case Family::shared_memory: shared_memory(op); break;
    case Family::math: math(op); break;
    case Family::barriers: barriers(op); break;
    case Family::global_memory: global_memory(op); break;
    case Family::bulk_copy: bulk_copy(op); break;
    case Family::wgmma: warpgroup(op); break;
    case Family::atomics: atomics(op); break;
    }
    // The warp's epoch ends if it released; lanes that executed a
    // warp-synchronous instruction together are ordered from here on.
    b_.hooks.instruction_done(w_.hb, w_.id, seq_, ins.warp_synchronous(), ins.meet == Meet::member_mask ? mask_ & op0_->mask : mask_,
                              ins.touches_shared, ins.name, mask_, w_.exists);
    if (ins.warp_synchronous()) catch_up(w_, ins.meet == Meet::member_mask ? mask_ & op0_->mask : mask_);
    finish_event();
    // A run of a loop's loads holds while the warp only stores to shared memory (global_memory.cpp).
    if (op != Op::st_shared && !(op == Op::ld_global && t0_->op_depth == 0)) w_.load_run.open = false;
    w_.last_op = op;
    w_.last_file = t0_->kfile;
    w_.last_line = t0_->kline;
    for (uint32_t m = mask_; m; m &= m - 1) w_.lanes[std::countr_zero(m)]->pending = nullptr;
    record_registers();
}

// How much of a tile op's address arithmetic ptxas leaves inside a loop,
// from what changed since the call at the same site before. Nothing, when
// the instruction's addresses are the same (lesson 8's K and V tiles: LDSM
// [R124+UR4], ... in its SASS, no arithmetic in the loop). Its tile's base
// only, when the offsets in the tile are the same and the tile another: a
// stage of a buffer (the demo GEMM's LDSMs have no arithmetic of their own).
// A global address moved by the same stride every call, as a loop walks a
// tensor: nvcc moves the pointers it has (about 9 instructions a cp.async in
// the GEMM's loop; the loop probes' figures, 13 a call and 6.25 a copy,
// against 19 and 10 when the coordinates jump). Anything else (a
// window at another place in the same swizzled tile, a coordinate that jumps)
// is computed again, from then on: ptxas cannot know that a later call
// repeats one.
Executor::Hoisted Executor::addresses_hoisted() {
    Warp::HoistSite& s = w_.hoist_sites[site_];
    if (s.recomputed) return Hoisted::none;
    if (s.seq != t0_->op_seq || s.now.empty()) {  // the call's first instruction
        if (!s.now.empty()) s.last.swap(s.now);
        s.now.clear();
        s.seq = t0_->op_seq;
        s.stride = s.gshift;
        ++s.calls;
    }
    const uint32_t tile = op0_->tile == kNoTile ? 0 : op0_->tile;
    Warp::AddressShape a{0, op0_->addr - tile, tile, op0_->gptr};
    const uintptr_t g0 = reinterpret_cast<uintptr_t>(op0_->gptr);
    for (uint32_t m = mask_; m; m &= m - 1) {
        const int l = std::countr_zero(m);
        const LaneOp* p = w_.lanes[l]->pending;
        const uint64_t d = uint64_t(p->addr - op0_->addr) ^ (uint64_t(reinterpret_cast<uintptr_t>(p->gptr) - g0) << 20);
        a.shape = (a.shape ^ (d + uint64_t(l) * 0x9e3779b97f4a7c15ull)) * 0x100000001b3ull;
    }
    const size_t i = s.now.size();
    s.now.push_back(a);
    if (s.calls < 2) return Hoisted::none;  // the site's first call
    const int64_t gshift = i < s.last.size() ? int64_t(g0) - int64_t(reinterpret_cast<uintptr_t>(s.last[i].gptr)) : 0;
    if (i == 0) s.gshift = gshift;
    const bool stride_kept = s.calls < 3 || gshift == 0 || gshift == s.stride;  // (a stride is known from the third call)
    if (i >= s.last.size() || s.last[i].shape != a.shape || s.last[i].in_tile != a.in_tile || gshift != s.gshift || !stride_kept) {
        s.recomputed = true;
        s.last.clear();
        s.now.clear();
        return Hoisted::none;
    }
    return gshift == 0 && s.last[i].tile == a.tile ? Hoisted::all : Hoisted::instruction;
}

// A launch's parameters (and the constants the compiler puts beside them)
// come to an SM's constant cache with its first blocks: the first of their
// warps to run asks for them, and every warp of those blocks waits at its
// first instruction until they come (Nsight's imc_miss, which PC sampling
// puts on the kernel's first lines at one wave and hardly at all at many).
// Blocks of later waves find them there. The code before the first
// instruction (index arithmetic) is where the GPU reads them: the simulator
// has nothing there, so the wait shows at its first instruction.
void Executor::constants_fetched() { wait_until(constants_ready(b_, t_), Stall::imc_miss); }

// The instructions around a tile op's memory instruction, measured per
// instruction on the GPU (bench/calibrate/overhead_probes.h): n of them take
// the simple arithmetic's throughput of the sub-partition's issue slot
// (shared with the other warps' arithmetic), shown as `selected`, and alone
// the warp the measured overhead latency each: the rest is its wait for
// each one's result before the next (`wait`, as PC sampling shows these
// lines). A kernel's own instructions outside tile ops are not charged.
void Executor::issue_overhead(Op op) {
    if (t0_->op_depth == 0) return;
    const bool group_copy = t0_->op_name && std::strncmp(t0_->op_name, "group_", 6) == 0;
    const CostModel::Overhead* o = nullptr;
    Hoisted hoisted = Hoisted::none;
    switch (op) {
    case Op::ldmatrix: case Op::stmatrix:
        hoisted = addresses_hoisted();
        o = &cost_.ov_ldmatrix;
        break;
    case Op::cp_async:
        hoisted = addresses_hoisted();
        o = hoisted == Hoisted::instruction ? &cost_.ov_cp_async_loop : &cost_.ov_cp_async;
        break;
    case Op::ld_global: o = group_copy ? &cost_.ov_group_copy : &cost_.ov_ld_global; break;
    case Op::st_global: o = group_copy ? &cost_.ov_group_copy : &cost_.ov_st_global; break;
    case Op::ld_shared: case Op::st_shared: o = group_copy ? &cost_.ov_group_copy : nullptr; break;
    default: break;
    }
    if (!o || hoisted == Hoisted::all) return;
    // (A moved ldmatrix needs only its stage's base: LDSM takes an offset.)
    double n = hoisted == Hoisted::instruction && o == &cost_.ov_ldmatrix ? 0 : o->per_instruction;
    if (w_.overhead_seq != t0_->op_seq) {  // the op call's first: its bounds checks and base addresses
        w_.overhead_seq = t0_->op_seq;
        n += o->per_call;
    }
    if (n <= 0) return;
    b_.out->trace.overhead_instructions += n;
    const CostModel::AluCost& c = cost_.alu[size_t(AluKind::simple)];
    double& slot = b_.sm->issue_free[size_t((b_.warp_base + w_.id) % 4)];
    slot = std::max(slot, double(t_)) + n * c.throughput;
    arithmetic_stalls(n * double(cost_.issue_cycles), n * std::max(cost_.overhead_latency, c.throughput), slot);
}

// Arithmetic a warp spends `issuing` cycles issuing and `own` cycles on in
// all when alone on its sub-partition, whose issue slot is free again at
// `slot`. The time is the event's stall, named as PC sampling names it:
// `selected` for issuing, `wait` for the rest of the warp's own time (each
// instruction's latency before the next, which depends on it, or the pipe its
// last one holds: a fixed interval the compiler encodes), `not_selected`
// beyond that, while other warps' instructions take the slot.
void Executor::arithmetic_stalls(double issuing, double own, double slot) {
    const uint64_t start = t_;
    wait_until(start + uint64_t(issuing + 0.5), Stall::selected);
    wait_until(start + uint64_t(std::max(issuing, own) + 0.5), Stall::wait);
    wait_until(uint64_t(slot + 0.5), Stall::not_selected);
}

// A read of global memory in `al`: every byte must have been written (by an upload or a kernel).
void Executor::check_global_written(const Thread& t, const Allocation& al, uintptr_t a, uint64_t bytes, const char* what, bool atomic) {
    if (!b_.checks.uninit) return;
    if (auto bad = al.first_unwritten(a, bytes)) {
        if (t.allow_uninit > 0) {  // tk::allow_uninitialized_reads: a note, not an error
            b_.hooks.allowed_uninit_read(t.kfile, t.kline);
            return;
        }
        std::ostringstream s;
        s << "read of global memory nothing wrote: " << what << " of " << bytes << " bytes at " << hex(a) << " reads byte " << hex(*bad)
          << " (byte " << (*bad - al.base) << " of '" << al.name << "'), which neither the host (an upload) nor a kernel has written";
        std::ostringstream m;
        m << line_of(t.kfile, t.kline) << ": error: " << s.str() << " (" << where(t) << ").\n  fix: ";
        if (atomic)
            m << "an atomic updates the value already there, so give every word its starting value first (zeros for a sum: "
                 "a kernel launched before this one that stores them, or an upload); fresh device memory is garbage, not zeros";
        else
            m << "upload the buffer before the launch (tk::device_buffer(n, values) or upload()) or write it in an earlier kernel; "
                 "fresh device memory is garbage, not zeros";
        throw SimError(ErrorKind::uninitialized_read, m.str(), t.kfile, t.kline);
    }
}

void Executor::begin_event(Op op) {
    Event e;
    e.warp = uint16_t(w_.id);
    e.op = uint8_t(op);
    e.mask = mask_;
    e.loc = b_.out->locs(t0_->kfile, t0_->kline);
    if (t0_->op_depth > 0) {
        e.op_seq = t0_->op_seq;
        e.op_name = uint16_t(b_.out->names(t0_->op_name, 0));
    }
    e.aux = trace_aux(instruction(op).aux, *op0_);
    e.issue = e.done = t_;  // final values in finish_event(); these stay if the instruction faults
    ev_ = b_.hooks.event(e);
}

void Executor::finish_event() {
    Event& e = trace().events[size_t(ev_)];
    e.issue = t_;
    if (w_.state == WarpState::runnable) e.done = w_.clock;
    else w_.wait_event = ev_;  // filled in at release
}

void Executor::record_smem(const BankAnalysis& ba, const uint32_t addr[32]) {
    b_.hooks.smem(ev_, ba, addr, options().all_lane_addresses);
}

void Executor::record_rows16(const std::vector<uint32_t>& rows) {
    if (rows.empty()) return;
    uint32_t worst[32] = {};
    const BankAnalysis ba = analyze_rows16(rows, worst);
    trace().events[size_t(ev_)].aux = 16;  // the report's phases: 8 rows of 16 bytes each
    record_smem(ba, worst);
}

// A record when the first lane's registers or its live declarations
// changed: a tile can die and another of the same size take its place.
void Executor::record_registers() {
    count_written_constants(*t0_);  // (the instruction may have written a constant tile)
    const uint16_t regs = uint16_t(t0_->regs);
    // The tiles holding registers (not those holding one constant), as last recorded?
    size_t same = 0;
    bool changed = regs != w_.last_regs;
    for (const Thread::Alloc& a : t0_->live) {
        if (changed) break;
        if (a.constant) continue;
        changed = same == w_.last_live.size() || !(w_.last_live[same] == a);
        ++same;
    }
    if (!changed && same == w_.last_live.size()) return;
    w_.last_regs = regs;
    w_.last_live.clear();
    for (const Thread::Alloc& a : t0_->live)
        if (!a.constant) w_.last_live.push_back(a);
    RegRecord r{t_, uint16_t(w_.id), regs, {}};
    r.live.reserve(w_.last_live.size());
    for (const Thread::Alloc& a : w_.last_live) r.live.push_back({b_.out->decls(a.file, a.line), a.regs});
    b_.hooks.registers(std::move(r));
}

} // namespace tklab::sim
