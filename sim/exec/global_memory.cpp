// Global memory: ld.global / st.global (the memory path's latency,
// long_scoreboard; their sectors counted for the launch's bandwidth bound),
// and cp.async with its commit and wait groups. A cp.async reads its source
// at issue and lands in shared memory at the wait_group that retires it; to
// the race finder it writes its destination from its issue on (the GPU may
// land it at any moment until that wait), as the warp's cp.async agent, whose
// epoch the wait acquires.
#include "sim/exec/executor.h"

#include <algorithm>
#include <cstring>

namespace tklab::sim {

void Executor::global_memory(Op op) {
    switch (op) {
    case Op::ld_global: case Op::st_global: global_access(op); break;
    case Op::cp_async: cp_async(); break;
    case Op::cp_async_commit:
        w_.open.epoch = ++w_.cp_async_commits;
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
    bool streamed = false;  // from a buffer read from DRAM (MemoryPath::streamed)
    for_lanes([&](int l) {
        LaneOp& o = lane_op(l);
        const Allocation& al = check_global(lane(l), o.gptr, bytes, load ? "load" : "store");
        streamed = streamed || b_.memory.streamed(al.bytes);
        if (load) {
            check_global_written(lane(l), al, uintptr_t(o.gptr), bytes, "a load");
            std::memcpy(o.data, o.gptr, bytes);
        } else if (!b_.probe) {
            al.mark(uintptr_t(o.gptr), bytes);
            std::memcpy(const_cast<void*>(o.gptr), o.data, bytes);
        }
    });
    const uint64_t moved = global_traffic(bytes);
    if (!load) {
        // A warp's exit waits for its stores to leave the SM (Nsight's "drain").
        store_leaves(t_, moved);
        b_.out->trace.global_write_bytes += moved;
    }
    if (load) {
        // nvcc issues a tile op's global loads together, ahead of the stores
        // and math that use them (ptxas schedules across the op's unrolled
        // loop); the simulator runs them in program order, so each load's data
        // comes as if issued right after the op's first.
        uint64_t issued = t_;
        if (t0_->op_depth > 0) {
            if (w_.hoist_seq != t0_->op_seq) { w_.hoist_seq = t0_->op_seq; w_.hoist_start = t_; w_.hoist_count = 0; }
            issued = std::min(t_, w_.hoist_start + uint64_t(w_.hoist_count++) * uint64_t(cost_.global_issue_cycles));
        }
        const int latency = streamed ? cost_.global_dram_latency : cost_.global_latency;
        note_load(load_arrives(issued, moved, latency, streamed), Stall::long_scoreboard, (bytes + 3) / 4);
    }
    w_.clock = t_ + cost_.global_issue_cycles;
}

uint64_t Executor::global_traffic(uint32_t bytes_per_lane) {
    const uint64_t s = uint64_t(cost_.sector_bytes);
    uint64_t sectors[64];
    int n = 0;
    for_lanes([&](int l) {
        const uintptr_t a = uintptr_t(lane_op(l).gptr);
        for (uint64_t k = a / s, last = (a + bytes_per_lane - 1) / s; k <= last && n < 64; ++k) sectors[n++] = k;
    });
    // Lanes usually walk memory upwards: sort only when they do not.
    if (!std::is_sorted(sectors, sectors + n)) std::sort(sectors, sectors + n);
    const uint64_t bytes = uint64_t(std::unique(sectors, sectors + n) - sectors) * s;
    b_.out->trace.global_bytes += bytes;
    return bytes;
}

void Executor::cp_async() {
    const uint32_t bytes = op0_->bytes;
    bool streamed = false;  // from a buffer read from DRAM (MemoryPath::streamed)
    for_lanes([&](int l) {
        LaneOp& o = lane_op(l);
        check_shared(b_, lane(l), o.addr, bytes, "cp.async destination");
        const Allocation& src = check_global(lane(l), o.gptr, bytes, "cp.async source");
        streamed = streamed || b_.memory.streamed(src.bytes);
        check_global_written(lane(l), src, uintptr_t(o.gptr), bytes, "a cp.async source read");
        // The write races from now on: by the warp's cp.async agent, in the
        // open group's epoch, knowing what the warp knows at issue.
        if (b_.hooks.finders_on()) {
            const bugs::Accessor copy{b_.hooks.agents().async_copies(w_.id), l, w_.cp_async_commits + 1, 0, &w_.hb, site_};
            b_.hooks.access(copy, o.addr, bytes, true, Op::cp_async, lane(l).kfile, lane(l).kline, lane(l).ids.block, true);
        }
        AsyncCopy c{o.addr, bytes, {}, uint8_t(l), site_};
        std::memcpy(c.data, o.gptr, bytes);  // the source as it is at issue
        w_.open.copies.push_back(c);
    });
    const uint64_t complete = load_arrives(t_, global_traffic(bytes), streamed ? cost_.cp_async_dram_latency : cost_.cp_async_latency, streamed);
    w_.open.complete = std::max(w_.open.complete, complete);
    w_.clock = t_ + cost_.global_issue_cycles;
}

void Executor::cp_async_wait() {
    const size_t keep = op0_->pending;
    while (w_.groups.size() > keep) {
        AsyncGroup& g = w_.groups.front();
        wait_until(g.complete, Stall::long_scoreboard);
        // The data lands here (the race finder saw the write at issue); the
        // warp now knows the group's copies are done.
        for (const AsyncCopy& c : g.copies) {
            b_.hooks.landed(c.smem, c.bytes);
            std::memcpy(b_.smem + c.smem, c.data, c.bytes);
        }
        if (b_.hooks.finders_on()) b_.hooks.acquire_epoch(w_.hb, b_.hooks.agents().async_copies(w_.id), g.epoch);
        w_.groups.erase(w_.groups.begin());
    }
    w_.clock = t_ + cost_.issue_cycles;
}

} // namespace tklab::sim
