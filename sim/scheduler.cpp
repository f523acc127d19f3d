// The block scheduler and the warp rendezvous (scheduler.h).
#include "sim/scheduler.h"

#include "sim/diagnostics.h"
#include "sim/exec/executor.h"
#include "sim/instructions.h"
#include "sim/kernel_source.h"

#include <algorithm>
#include <bit>

namespace tklab::sim {

constinit thread_local Thread* g_cur = nullptr;

namespace {

// Rounds of failed polls by every warp after which a block is livelocked:
// far more than a bounded poll loop runs before the warp arrives itself (a
// test kernel polls 100 times), and still a few milliseconds of simulation.
constexpr uint64_t kLivelockPolls = 4096;

struct SiteKey {
    Op op; const char* file; int line; const char* kfile; int kline;
    bool operator==(const SiteKey&) const = default;
};
SiteKey site_of(const Thread& t) { return {t.pending->op, t.pending->file, t.pending->line, t.kfile, t.kline}; }

// Lanes a warp-synchronous instruction needs to be present (its row's Meet):
// its member mask for shfl/syncwarp, every lane of the warp for the .aligned
// instructions, and the lanes still running for a block barrier.
uint32_t required_lanes(const Warp& w, const LaneOp& op) {
    switch (instruction(op.op).meet) {
    case Meet::member_mask: return op.mask & w.exists;
    case Meet::whole_warp: return w.exists;
    case Meet::running: case Meet::arrived: break;
    }
    return w.live;
}

// The kernel line a thread is at: the tile op it began after its last
// instruction (maybe still open), else that instruction's kernel line.
std::pair<const char*, int> kernel_line(const Thread& t) {
    if (t.op_seq != t.parked_op_seq && t.op_line > 0) return {t.op_file, t.op_line};
    return {t.kfile, t.kline};
}

} // namespace

// The cycle of the block's next step: an asynchronous completion due by its
// next warp's clock, else that warp's clock; 0 when no warp can run and
// nothing is due (the block is done or deadlocked: settle it at once).
uint64_t BlockRunner::next_time() {
    if (next_known_) return next_time_;
    Warp* next = nullptr;
    for (Warp& w : b_.warps)
        if (w.state == WarpState::runnable && (!next || w.clock < next->clock)) next = &w;
    next_ = next;
    fire_ = !b_.async.empty() && (!next || b_.async.begin()->first.first <= next->clock);
    next_time_ = fire_ ? b_.async.begin()->first.first : next ? next->clock : 0;
    next_known_ = true;
    return next_time_;
}

bool BlockRunner::advance() {
    next_time();
    next_known_ = false;
    // Asynchronous completions due by the next warp's clock happen
    // first; with no warp runnable, the earliest one (it may release some).
    if (fire_) {
        auto node = b_.async.extract(b_.async.begin());
        node.mapped()();
        failed_polls_in_a_row_ = 0;
        return false;
    }
    Warp* next = next_;
    if (!next) {
        bool all_done = std::all_of(b_.warps.begin(), b_.warps.end(), [](const Warp& w) { return w.state == WarpState::done; });
        if (!all_done) report_deadlock(b_);
        finish();
        return true;
    }
    if (++executed_ > options().max_block_instructions) report_instruction_limit(b_);
    step(*next);
    // A livelock: for many rounds every warp that ran only polled an
    // mbarrier and found nothing, and no copy is in flight that could
    // complete a phase. The state can no longer change.
    if (!next->failed_poll) failed_polls_in_a_row_ = 0;
    else if (++failed_polls_in_a_row_ > kLivelockPolls * b_.warps.size() && b_.async.empty()) report_livelock(b_);
    return false;
}

void BlockRunner::finish() {
    check_transactions_settled(b_);
    check_barriers_settled(b_);
    uint64_t end = 0;
    // A warp exits once its global stores have left the SM (drain); the
    // kernel's end waits for L2 to acknowledge them (launch.cpp).
    for (Warp& w : b_.warps) end = std::max({end, w.clock, w.stores_done});
    b_.out->trace.cycles = end;
}

void BlockRunner::unwind() {
    for (Thread& t : b_.threads) {
        if (!t.fib) continue;
        g_cur = &t;
        fiber_switch::unwind(t.fib, t.stack);
        g_cur = nullptr;
    }
}

// Always inlined into step(): a call around the fiber switch ends in a return the
// CPU mispredicts (the switch leaves its return-address stack behind), which
// cost the demo GEMM 13% of its simulation time.
[[gnu::always_inline]] inline void BlockRunner::resume(Thread& t) {
    if (!t.fib && !t.exited) {
        t.fib = boost::context::fiber(std::allocator_arg, PooledStack{&stacks_, &t.stack}, [this, &t](boost::context::fiber&& sched) {
            fiber_switch::entered();
            t.sched = std::move(sched);
            try {
                body_();
            } catch (const boost::context::detail::forced_unwind&) {
                fiber_switch::leaving();
                throw;
            } catch (...) {
                t.error = std::current_exception();
            }
            t.exited = true;
            fiber_switch::leaving();
            return std::move(t.sched);
        });
    }
    g_cur = &t;
    kernel_crash::RunningFiber running(t.stack, t.sched);
    t.fib = fiber_switch::enter(std::move(t.fib), t.stack);
    g_cur = nullptr;
    if (running.crash.signal) crashed(t, running.crash);
    if (t.error) rethrow_from(t);
    t.parked_op_seq = t.op_seq;
}

void BlockRunner::rethrow_from(Thread& t) {
    std::exception_ptr e = t.error;
    t.error = nullptr;
    const auto [file, line] = kernel_line(t);
    try {
        std::rethrow_exception(e);
    } catch (const SimError&) {
        throw;
    } catch (const kernel_crash::KernelTrap& trap) {
        throw kernel_crash::trap_error(trap, where(t));
    } catch (const std::exception& ex) {
        throw kernel_crash::exception_error(typeid(ex).name(), ex.what(), where(t), file, line);
    } catch (...) {
        throw kernel_crash::exception_error({}, {}, where(t), file, line);
    }
}

// A signal on the thread's fiber (kernel_crash.h) left it for good: its
// stack holds a dead handler's frame, so the fiber is never resumed or
// unwound (its handle is dropped unreleased) and its stack never goes back
// to the pool (a few pages leak per crash).
void BlockRunner::crashed(Thread& t, const kernel_crash::Crash& c) {
    new (&t.fib) boost::context::fiber{};
    const auto [file, line] = kernel_line(t);
    throw kernel_crash::crash_error(c, where(t), file, line, options().stack_bytes);
}

// Its lanes have returned. A warp whose global stores are still on their way
// waits for them at its EXIT (Nsight's `drain`), which the GPU's line table
// puts at the kernel function's closing brace: an `exit` event there holds
// the wait, so the report, the timeline and the fidelity comparison see it.
void BlockRunner::exit_warp(Warp& w) {
    w.state = WarpState::done;
    if (w.stores_done <= w.clock || w.last_line <= 0) return;
    Event e;
    e.warp = uint16_t(w.id);
    e.op = uint8_t(Op::exit);
    e.mask = w.exists;
    e.loc = b_.out->locs(w.last_file, function_end_line(w.last_file, w.last_line));
    e.issue = e.done = w.stores_done;
    e.stall = uint8_t(Stall::drain);
    e.stall_cycles = uint32_t(std::min<uint64_t>(w.stores_done - w.clock, UINT32_MAX));
    b_.hooks.event(e);
    w.clock = w.stores_done;
}

void BlockRunner::step(Warp& w) {
    for (uint32_t m = w.live; m; m &= m - 1) {
        Thread& t = *w.lanes[std::countr_zero(m)];
        if (!t.pending) resume(t);
        if (t.exited) w.live &= ~(1u << t.lane);
    }
    if (!w.live) {
        exit_warp(w);
        return;
    }
    // Group the parked lanes by call site.
    uint32_t group_mask[32];
    int group_lane[32];
    int groups = 0;
    for (uint32_t m = w.live; m; m &= m - 1) {
        int l = std::countr_zero(m);
        SiteKey k = site_of(*w.lanes[l]);
        int g = 0;
        while (g < groups && !(site_of(*w.lanes[group_lane[g]]) == k)) ++g;
        if (g == groups) { group_lane[g] = l; group_mask[g] = 0; ++groups; }
        group_mask[g] |= 1u << l;
    }
    // Converged lanes run together. Divergent groups run one at a time, the
    // earliest kernel line first (a stand-in for the lowest PC) so lanes that
    // took a branch catch up with the rest; a warp-synchronous instruction
    // waits until every lane it names is there.
    int order[32];
    for (int g = 0; g < groups; ++g) order[g] = g;
    std::sort(order, order + groups, [&](int a, int c) {
        const Thread& x = *w.lanes[group_lane[a]];
        const Thread& y = *w.lanes[group_lane[c]];
        if (x.kline != y.kline) return x.kline < y.kline;
        if (x.pending->line != y.pending->line) return x.pending->line < y.pending->line;
        return group_lane[a] < group_lane[c];
    });
    // Lanes about to block on an mbarrier wait go last: the lanes still
    // running may be the ones that complete the phase (a lane-0 arrive
    // after the loop's wait, say), as they would on the GPU.
    int deferred = -1;
    for (int i = 0; i < groups; ++i) {
        int g = order[i];
        const LaneOp& op = *w.lanes[group_lane[g]]->pending;
        if (groups > 1 && deferred < 0 && op.op == Op::mbar_wait && would_block(op)) {
            deferred = g;
            continue;
        }
        if (instruction(op.op).warp_synchronous()) {
            uint32_t need = required_lanes(w, op);
            if (need & ~w.live) report_divergence(w, groups, group_mask, group_lane, true);
            if ((need & group_mask[g]) != need) continue;
            Executor(b_, w, need).run();  // need is within this group (checked above)
            return;
        }
        Executor(b_, w, group_mask[g]).run();
        return;
    }
    if (deferred >= 0) {
        Executor(b_, w, group_mask[deferred]).run();
        return;
    }
    report_divergence(w, groups, group_mask, group_lane, false);
}

// An mbarrier wait whose phase has not completed (it would park the warp).
bool BlockRunner::would_block(const LaneOp& op) const {
    auto it = b_.mbars.find(op.addr);
    return it != b_.mbars.end() && (it->second.phase & 1) == (op.parity & 1);
}

} // namespace tklab::sim
