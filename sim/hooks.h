// The one door between the instructions and what watches them: the bug
// finders (the race and uninitialised-read shadow of shared memory, and the
// happens-before clocks it checks against) and the block's records (events,
// shared-memory analyses, barrier waits, register changes). An executor
// (sim/exec/) reaches them only through these calls, and the parts every
// instruction needs -- its event, its lanes meeting, the end of a warp's
// epoch after a release -- are made by the executor around each handler, so
// a new instruction cannot forget a finder or the trace.
//
//   access   a shared-memory read or write, by a warp's lane or an agent working for it
//   release  synchronisation that publishes what its issuer knew (an arrival, a copy landing)
//   acquire  synchronisation that joins what another published (a barrier release, a wait)
//   event    a record of the block's trace
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "sim/bug_finders/shared_shadow.h"
#include "sim/cuda_shim.h"
#include "sim/events.h"

namespace tklab::sim {

struct Block;

// A finding stops the kernel with a SimError naming both accesses (diagnostics.cpp).
[[noreturn]] void report_finding(const Block& b, const bugs::Finding& f, const bugs::Accessor& who, Op op, const char* file,
                                 int line, const dim3& block, const char* space = "shared");

class Hooks {
public:
    // A new block: its records go to `trace`; `shadow` is null unless a shared-memory finder is on.
    void attach(const Block* block, BlockTrace* trace, bugs::SharedShadow* shadow) {
        block_ = block;
        trace_ = trace;
        shadow_ = shadow;
        released_ = false;
    }
    bool finders_on() const { return shadow_ != nullptr; }
    const bugs::Agents& agents() const { return shadow_->agents(); }

    // ---- access: checked against every earlier access, then remembered; a finding throws.
    // `lands_later`: a write whose data arrives later (cp.async), racing from now on.
    // `allow_uninit`: the thread is inside tk::allow_uninitialized_reads.
    // `atomic`: an atomic read-modify-write (atom/red.shared; `write` true).
    void access(const bugs::Accessor& who, uint32_t addr, uint32_t bytes, bool write, Op op, const char* file, int line,
                const dim3& block, bool lands_later = false, bool allow_uninit = false, bool atomic = false) {
        if (!shadow_) return;
        ++accesses_;
        bool allowed = false;
        if (auto f = shadow_->access(who, addr, bytes, write, lands_later, allow_uninit, &allowed, atomic))
            report_finding(*block_, *f, who, op, file, line, block);
        if (allowed) allowed_uninit_read(file, line);
    }
    // A read of bytes nothing wrote inside tk::allow_uninitialized_reads: a note in the block's records.
    void allowed_uninit_read(const char* file, int line);
    // The data of a write shown with `lands_later` is in shared memory now.
    void landed(uint32_t addr, uint32_t bytes) {
        if (shadow_) shadow_->landed(addr, bytes);
    }

    // ---- release: the warp's clock (`warp_clock`) joins `into`; its epoch ends with the instruction.
    void release(const bugs::VectorClock& warp_clock, bugs::VectorClock& into) {
        if (!shadow_) return;
        bugs::join(into, warp_clock);
        released_ = true;
    }
    // An asynchronous agent's (a bulk copy landing with what its issuer knew at issue).
    void release_agent(const bugs::VectorClock& agent_clock, bugs::VectorClock& into) {
        if (shadow_) bugs::join(into, agent_clock);
    }

    // ---- acquire: the warp now knows what `from` published.
    void acquire(bugs::VectorClock& warp_clock, const bugs::VectorClock& from) {
        if (shadow_) bugs::join(warp_clock, from);
    }
    // Every epoch of `agent` up to `epoch` is over (a wgmma wait retiring its groups).
    void acquire_epoch(bugs::VectorClock& warp_clock, int agent, uint32_t epoch) {
        if (!shadow_) return;
        uint32_t& known = warp_clock[size_t(agent)];
        known = std::max(known, epoch);
    }

    // A warp instruction begins.
    void instruction_begin() { accesses_ = 0; }
    // The end of warp `warp`'s instruction number `seq`, executed by `lanes`:
    // a release ends the warp's epoch, and lanes that met at a warp-synchronous
    // instruction are ordered with each other from here on. An instruction
    // whose row says it touches shared memory must have shown the finders an
    // access: else its executor forgot them (a simulator bug, not the kernel's).
    void instruction_done(bugs::VectorClock& warp_clock, int warp, uint32_t seq, bool lanes_met, uint32_t lanes,
                          bool touches_shared, const char* name, uint32_t executing, uint32_t all) {
        if (!shadow_) return;
        if (touches_shared && accesses_ == 0)
            throw std::logic_error(std::string("tklab simulator bug: the executor of ") + name +
                                   " touched shared memory without showing the bug finders (Hooks::access); see sim/README.md, "
                                   "\"Adding an instruction\"");
        if (released_) {
            shadow_->warp_release(warp, warp_clock[size_t(warp)], seq, executing, all);
            ++warp_clock[size_t(warp)];
        }
        released_ = false;
        if (lanes_met) shadow_->warp_sync(warp, seq, lanes);
    }

    // ---- event: the block's records.
    BlockTrace& trace() { return *trace_; }
    int event(const Event& e) {
        trace_->events.push_back(e);
        return int(trace_->events.size() - 1);
    }
    // The bank analysis of event `ev`; its 32 lane addresses are kept when it conflicts (or all are asked for).
    void smem(int ev, const BankAnalysis& ba, const uint32_t addr[32], bool keep_all_lanes) {
        SmemRecord r;
        r.event = uint32_t(ev);
        r.banks = ba;
        if (ba.wavefronts > ba.ideal || keep_all_lanes) {
            r.lanes = int32_t(trace_->lane_addrs.size());
            trace_->lane_addrs.insert(trace_->lane_addrs.end(), addr, addr + 32);
        }
        trace_->events[size_t(ev)].smem = int32_t(trace_->smem.size());
        trace_->smem.push_back(r);
    }
    void barrier_wait(const BarrierRecord& r) { trace_->barriers.push_back(r); }
    void registers(RegRecord&& r) { trace_->regs.push_back(std::move(r)); }

private:
    const Block* block_ = nullptr;
    BlockTrace* trace_ = nullptr;
    bugs::SharedShadow* shadow_ = nullptr;
    bool released_ = false;  // the current instruction released: its warp's epoch ends with it
    uint32_t accesses_ = 0;  // accesses shown since the instruction began
};

} // namespace tklab::sim
