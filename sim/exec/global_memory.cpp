// Global memory: ld.global / st.global (the memory path's latency,
// long_scoreboard; loads through the SM's L1; the sectors that go to L2
// counted for the launch's bandwidth bound),
// and cp.async with its commit and wait groups. A cp.async reads its source
// at issue and lands in shared memory at the wait_group that retires it; to
// the race finder it writes its destination from its issue on (the GPU may
// land it at any moment until that wait), as the warp's cp.async agent, whose
// epoch the wait acquires.
#include "sim/exec/executor.h"

#include <algorithm>
#include <cstring>
#include <deque>

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
    uint64_t sectors[64];
    const int n = global_sectors(bytes, sectors);
    const int lines = lines_of(sectors, n);
    const uint64_t moved = uint64_t(n) * uint64_t(cost_.sector_bytes);
    if (cost_.l1_modelled) lsu_queue_wait(lines);
    if (!load) {
        b_.out->trace.global_bytes += moved;
        // A warp's exit waits for its stores to leave the SM (Nsight's "drain");
        // a store holds its place in the unit's queue until it has left.
        const uint64_t left = store_leaves(t_, moved);
        b_.out->trace.global_write_bytes += moved;
        if (cost_.l1_modelled) {
            // Stores go through the unit at their own rate, a line at a time,
            // beside the loads (Nsight counts them few of L1's data-pipe
            // wavefronts: sim/arch/README.md, "The load/store unit's queue").
            const double unit = std::max(cost_.lsu_cycles_per_instruction, double(lines) * cost_.lsu_st_cycles_per_line);
            lsu_queue_enter(std::max(left, lsu_take(b_.sm->lsu_store_free, t_, unit)), lines);
        }
    } else {
        // nvcc issues a tile op's global loads together, ahead of the stores
        // and math that use them (ptxas schedules across the op's unrolled
        // loop); the simulator runs them in program order, so each load's data
        // comes as if issued right after the op's first.
        // The same in a kernel's own loop whose loads only go on to shared
        // memory (the warp ran nothing but st.shared since this site's last
        // load), kLoopLoadsTogether at a time: ptxas unrolls such a loop and
        // issues its loads ahead of the stores (lesson 4's SASS: 16 LDG
        // before the first STS).
        constexpr uint32_t kLoopLoadsTogether = 16;
        const bool in_op = t0_->op_depth > 0;
        Warp::LoadRun& run = w_.load_run;
        const uint64_t key = in_op ? uint64_t(t0_->op_seq) : (uint64_t(1) << 32 | site_);
        if (run.key != key || (!in_op && (!run.open || run.count >= kLoopLoadsTogether))) run = {key, t_, 0, false};
        const uint64_t issued = std::min(t_, run.start + uint64_t(run.count++) * uint64_t(cost_.global_issue_cycles));
        run.open = true;
        const int latency = streamed ? cost_.global_dram_latency : cost_.global_latency;
        uint64_t ready = 0;
        if (cost_.l1_modelled) {
            ready = load_through_l1(issued, sectors, n, latency, streamed, op0_->no_allocate);
        } else {
            b_.out->trace.global_bytes += moved;
            ready = load_arrives(issued, moved, latency, streamed);
        }
        note_load(ready, Stall::long_scoreboard, (bytes + 3) / 4);
    }
    w_.clock = t_ + cost_.global_issue_cycles;
}

// An ld.global through the SM's load/store unit and L1 (sim/README.md,
// "L1", when the cost model has it on): its sectors L1 holds arrive an L1
// latency after the unit is done with the instruction (or when a sector on
// its way lands); the others come from L2 (load_arrives) and, unless
// no_allocate, stay in L1. `sectors`: its n sectors, sorted.
uint64_t Executor::load_through_l1(uint64_t issued, const uint64_t* sectors, int n, int latency, bool from_dram, bool no_allocate) {
    const uint64_t per_line = L1Cache::kLineBytes / uint64_t(cost_.sector_bytes);
    SmPipes& sm = *b_.sm;
    int lines = 0, missed = 0, missed_lines = 0;
    uint64_t ready = 0, last_line = ~uint64_t(0), last_missed_line = ~uint64_t(0);
    bool miss[64];
    for (int i = 0; i < n; ++i) {
        const uint64_t line = sectors[i] / per_line;
        if (line != last_line) { ++lines; last_line = line; }
        L1Cache::Line* l = sm.l1.find(line);
        const unsigned bit = 1u << (sectors[i] % per_line);
        miss[i] = !l || !(l->valid & bit);
        if (miss[i]) {
            ++missed;
            if (line != last_missed_line) { ++missed_lines; last_missed_line = line; }
        } else {
            ready = std::max(ready, l->ready[sectors[i] % per_line]);
        }
    }
    // L1's data pipe reads each line the instruction touches and writes each
    // line a miss fills (Nsight Compute's wavefronts, results/l1_pipe_h200.txt);
    // its turn queues as take() queues traffic: from when the warp came to it.
    const double unit = std::max(cost_.lsu_cycles_per_instruction, double(lines + missed_lines) * cost_.lsu_cycles_per_line);
    const uint64_t through = lsu_take(sm.lsu_free, issued, unit);
    lsu_queue_enter(through, lines);
    const uint64_t s = uint64_t(cost_.sector_bytes);
    if (missed < n) {
        ready = std::max(ready, through + uint64_t(cost_.global_l1_latency));
        b_.out->trace.l1_hit_bytes += uint64_t(n - missed) * s;
    }
    if (missed > 0) {
        b_.out->trace.global_bytes += uint64_t(missed) * s;
        const uint64_t arrives = load_arrives(through, uint64_t(missed) * s, latency, from_dram);
        ready = std::max(ready, arrives);
        if (!no_allocate)
            for (int i = 0; i < n; ++i) {
                if (!miss[i]) continue;
                L1Cache::Line* l = sm.l1.fill(sectors[i] / per_line);
                if (!l) break;
                l->valid |= uint8_t(1u << (sectors[i] % per_line));
                l->ready[sectors[i] % per_line] = arrives;
            }
    }
    return ready;
}

// The load/store unit's turn for a global instruction issued at `issued`,
// `unit` cycles of it, after those before it on the same path (`free`: the
// loads' or the stores'; queued, like the memory's paths, as of when the
// warp came to it: take()); returns when it is through.
uint64_t Executor::lsu_take(double& free, uint64_t issued, double unit) {
    free = std::max(free, double(std::min(issued, begun_))) + unit;
    return uint64_t(std::max(free, double(issued) + unit) + 0.5);
}

// The SM's queue for its load/store unit (sim/arch/README.md, "The load/store
// unit's queue"): it holds the 128-byte line requests of the global loads and
// stores of the SM's warps not yet through the unit, lsu_queue_depth
// instructions of 32 lines at most. A warp whose instruction's `lines` do not
// fit waits to issue it (Nsight's lg_throttle) until enough of the oldest are
// through. The unit takes them in turn, so the oldest are the first through.
void Executor::lsu_queue_wait(int lines) {
    if (cost_.lsu_queue_depth <= 0) return;
    SmPipes& sm = *b_.sm;
    auto pop_through = [&] {
        while (!sm.lsu_queue.empty() && sm.lsu_queue.front().through <= t_) {
            sm.lsu_queued_lines -= sm.lsu_queue.front().lines;
            sm.lsu_queue.pop_front();
        }
    };
    pop_through();
    const int capacity = cost_.lsu_queue_depth * 32;
    int over = sm.lsu_queued_lines + lines - capacity;
    if (over <= 0) return;
    size_t i = 0;
    for (; i + 1 < sm.lsu_queue.size() && over > sm.lsu_queue[i].lines; ++i) over -= sm.lsu_queue[i].lines;
    wait_until(sm.lsu_queue[i].through, Stall::lg_throttle);
    pop_through();
}

void Executor::lsu_queue_enter(uint64_t through, int lines) {
    if (cost_.lsu_queue_depth <= 0) return;
    b_.sm->lsu_queue.push_back({through, lines});
    b_.sm->lsu_queued_lines += lines;
}

int Executor::lines_of(const uint64_t* sectors, int n) const {
    const uint64_t per_line = L1Cache::kLineBytes / uint64_t(cost_.sector_bytes);
    int lines = 0;
    for (int i = 0; i < n; ++i)
        if (i == 0 || sectors[i] / per_line != sectors[i - 1] / per_line) ++lines;
    return lines;
}

int Executor::global_sectors(uint32_t bytes_per_lane, uint64_t (&sectors)[64]) {
    const uint64_t s = uint64_t(cost_.sector_bytes);
    int n = 0;
    for_lanes([&](int l) {
        const uintptr_t a = uintptr_t(lane_op(l).gptr);
        for (uint64_t k = a / s, last = (a + bytes_per_lane - 1) / s; k <= last && n < 64; ++k) sectors[n++] = k;
    });
    // Lanes usually walk memory upwards: sort only when they do not.
    if (!std::is_sorted(sectors, sectors + n)) std::sort(sectors, sectors + n);
    return int(std::unique(sectors, sectors + n) - sectors);
}

uint64_t Executor::global_traffic(uint32_t bytes_per_lane) {
    uint64_t sectors[64];
    const uint64_t bytes = uint64_t(global_sectors(bytes_per_lane, sectors)) * uint64_t(cost_.sector_bytes);
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
