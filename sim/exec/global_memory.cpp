// Global memory: ld.global / st.global (a fixed latency, long_scoreboard),
// and cp.async with its commit and wait groups. A cp.async reads its source
// at issue and lands in shared memory at the wait_group that retires it.
#include "sim/exec/executor.h"

#include <algorithm>
#include <cstring>

namespace tklab::sim {

void Executor::global_memory(Op op) {
    switch (op) {
    case Op::ld_global: case Op::st_global: global_access(op); break;
    case Op::cp_async: cp_async(); break;
    case Op::cp_async_commit:
        w_.groups.push_back(std::move(w_.open));
        w_.open = {};
        w_.clock = t_ + cost_.issue_cycles;
        break;
    case Op::cp_async_wait: cp_async_wait(); break;
    default: break;
    }
}

void Executor::global_access(Op op) {
    const bool load = op == Op::ld_global;
    const uint32_t bytes = op0_->bytes;
    for_lanes([&](int l) {
        LaneOp& o = lane_op(l);
        const Allocation& al = check_global(lane(l), o.gptr, bytes, load ? "load" : "store");
        if (load) check_global_written(lane(l), al, uintptr_t(o.gptr), bytes, "a load");
        else al.mark(uintptr_t(o.gptr), bytes);
        if (load) std::memcpy(o.data, o.gptr, bytes);
        else std::memcpy(const_cast<void*>(o.gptr), o.data, bytes);
    });
    if (load) note_load(t_ + cost_.global_latency, Stall::long_scoreboard);
    w_.clock = t_ + cost_.global_issue_cycles;
}

void Executor::cp_async() {
    const uint32_t bytes = op0_->bytes;
    uint64_t complete = t_ + cost_.cp_async_latency;
    for_lanes([&](int l) {
        LaneOp& o = lane_op(l);
        check_shared(b_, lane(l), o.addr, bytes, "cp.async destination");
        const Allocation& src = check_global(lane(l), o.gptr, bytes, "cp.async source");
        check_global_written(lane(l), src, uintptr_t(o.gptr), bytes, "a cp.async source read");
        AsyncCopy c{o.addr, bytes, {}, uint8_t(l), site_};
        std::memcpy(c.data, o.gptr, bytes);  // the source as it is at issue
        w_.open.copies.push_back(c);
    });
    w_.open.complete = std::max(w_.open.complete, complete);
    w_.clock = t_ + cost_.global_issue_cycles;
}

void Executor::cp_async_wait() {
    const size_t keep = op0_->pending;
    while (w_.groups.size() > keep) {
        AsyncGroup& g = w_.groups.front();
        wait_until(g.complete, Stall::long_scoreboard);
        for (const AsyncCopy& c : g.copies) {
            // The copy's write happens here, where the simulator lands it,
            // and is the issuing lane's, named by the cp.async's line.
            if (b_.hooks.finders_on()) {
                bugs::Accessor who = lane_accessor(c.lane);
                who.site = c.site;
                const auto [file, line] = site_line(b_, c.site);
                b_.hooks.access(who, c.smem, c.bytes, true, Op::cp_async, file, line, t0_->ids.block);
            }
            std::memcpy(b_.smem + c.smem, c.data, c.bytes);
        }
        w_.groups.erase(w_.groups.begin());
    }
    w_.clock = t_ + cost_.issue_cycles;
}

} // namespace tklab::sim
