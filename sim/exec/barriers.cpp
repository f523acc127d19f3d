// Barriers: bar.sync / bar.arrive (named barriers with thread counts),
// bar.warp.sync, and mbarriers (init, arrive, test_wait, wait, expect_tx):
// phases, transaction counts, and the waits they release. Every arrival is a
// release and every completed wait an acquire for the race finder.
//
// An mbarrier phase's whole life is here: arrivals (Executor::arrive),
// expected bytes (expect_tx), bytes landing from bulk copies (land_bytes),
// completion (try_complete_phase, complete_phase) and what must hold when
// the block ends (check_transactions_settled).
#include "sim/exec/executor.h"

#include <algorithm>
#include <bit>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

namespace tklab::sim {

// A warp parked at a barrier or an mbarrier runs again at `release`.
void resume_waiter(Block& b, Warp& w, uint64_t release, Stall why) {
    if (w.wait_event >= 0) {
        b.hooks.trace().events[size_t(w.wait_event)].done = release;
        if (release > w.wait_since) charge_stall(b.hooks.trace(), w, w.wait_event, why, release - w.wait_since, true);
    }
    // The warp that completes a barrier may be the waiter itself (the event
    // is still being built); finish_event() then sees it runnable.
    w.wait_event = -1;
    w.clock = std::max(w.clock, release);
    w.state = WarpState::runnable;
}

namespace {

// The mbarrier's current phase completes at cycle t (an arrival, or a bulk
// copy landing): its waiters run again. `releaser`: the warp that arrived
// last, or that issued the copy.
void complete_phase(Block& b, uint32_t addr, MbarState& m, uint64_t t, int releaser) {
    m.phase += 1;
    m.pending = m.expected;
    m.completed = m.clock;  // what a wait on this phase acquires
    std::fill(m.clock.begin(), m.clock.end(), 0u);
    for (Warp& w : b.warps) {
        if (w.state != WarpState::at_mbarrier || w.wait_addr != addr) continue;
        if ((m.phase & 1) == w.wait_parity) continue;  // still waiting for a later phase
        BarrierRecord r;
        r.arrive = w.wait_since;
        r.release = std::max(w.wait_since, t) + b.cost->mbarrier_latency;
        r.warp = uint16_t(w.id);
        r.last_warp = uint16_t(releaser);
        r.mbarrier = true;
        r.address = addr;
        r.phase = m.phase - 1;
        r.loc = b.out->locs(w.wait_file, w.wait_line);
        b.hooks.barrier_wait(r);
        acquire_for_lanes(b, w, w.wait_lanes, m.completed);
        resume_waiter(b, w, r.release, Stall::mbarrier);
    }
}

} // namespace

void acquire_for_lanes(Block& b, Warp& w, uint32_t lanes, const bugs::VectorClock& from) {
    if (!b.hooks.finders_on()) return;
    const uint32_t others = w.exists & ~lanes;
    if (others && !w.lag_lanes) w.hb_lag = w.hb;  // what the others know: the warp's clock before this
    // Lanes already lagging stay so unless they acquire now; lanes that knew
    // everything and do not take part are credited with this too (two clocks).
    w.lag_lanes = w.lag_lanes ? (w.lag_lanes & ~lanes) : others;
    b.hooks.acquire(w.hb, from);
    if (!w.lag_lanes) w.hb_lag.clear();
}

void catch_up(Warp& w, uint32_t lanes) {
    if (!w.lag_lanes || !(lanes & ~w.lag_lanes)) return;  // no lane that knows more took part
    w.lag_lanes &= ~lanes;
    if (!w.lag_lanes) w.hb_lag.clear();
}

// PTX ISA: a phase completes when its pending arrivals are 0 and its
// transaction count is 0. Copies still in flight on the barrier then are
// bytes no expect_tx counted: they would land in the next phase.
void try_complete_phase(Block& b, uint32_t addr, MbarState& m, uint64_t t, int releaser, const char* file, int line,
                        const std::string& who) {
    if (m.pending != 0 || m.tx != 0) return;
    if (m.in_flight != 0)
        fault_at(file, line, who,
                 "mbarrier " + hex(addr) + " completed phase " + std::to_string(m.phase) + " with " + std::to_string(m.in_flight) +
                     " bytes of bulk copies issued on it still in flight (last copy: " + line_of(m.copy_file, m.copy_line) +
                     "): its expect_tx counted fewer bytes than the copies deliver",
                 "expect every byte the phase's copies bring (tk::tma::expect<Tiles...> / expect_bytes with the tiles' total), "
                 "before or together with the arrival");
    complete_phase(b, addr, m, t, releaser);
}

// A bulk copy's bytes land on the barrier at cycle t: they count off its
// transaction count (the copy engine publishing what its issuer knew at
// issue), and may complete the phase.
void land_bytes(Block& b, uint32_t addr, uint64_t bytes, const bugs::VectorClock& copier, uint64_t t, int issuer, const char* file,
                int line, const std::string& who) {
    MbarState& m = b.mbars.at(addr);
    b.hooks.release_agent(copier, m.clock);
    m.in_flight -= bytes;
    m.tx -= int64_t(bytes);
    if (m.tx < -kMaxTx)
        fault_at(file, line, who,
                 "mbarrier " + hex(addr) + "'s transaction count fell to " + std::to_string(m.tx) +
                     " bytes: bulk copies delivered far more bytes than any expect_tx counted",
                 "expect each phase's bytes (tk::tma::expect) on the barrier the copies complete on");
    try_complete_phase(b, addr, m, t, issuer, file, line, who);
}

// After the block: bytes that landed on a barrier with no expect_tx to
// count them leave its transaction count negative; the kernel waited on
// the wrong phase (the arrival completed it before the copy landed).
void check_transactions_settled(const Block& b) {
    std::vector<uint32_t> addrs;
    for (const auto& [addr, m] : b.mbars)
        if (m.tx < 0) addrs.push_back(addr);
    if (addrs.empty()) return;
    std::sort(addrs.begin(), addrs.end());  // deterministic: the lowest address
    const MbarState& m = b.mbars.at(addrs.front());
    std::ostringstream s;
    s << line_of(m.copy_file, m.copy_line) << ": error: kernel " << b.kernel << ", " << block_name(b.threads.front().ids.block)
      << ": bulk copies completing on mbarrier " << hex(addrs.front()) << " delivered " << -m.tx
      << " bytes that no expect_tx counted, so its phases completed without waiting for them (the data may have been read before it landed)."
      << "\n  fix: expect each phase's bytes (tk::tma::expect<Tiles...>, arrive.expect_tx) before or with the phase's arrival";
    throw SimError(ErrorKind::fault, s.str(), m.copy_file, m.copy_line);
}

void Executor::barriers(Op op) {
    switch (op) {
    case Op::bar_sync: case Op::bar_arrive: barrier(op); break;
    case Op::syncwarp: w_.clock = t_ + cost_.issue_cycles; break;
    case Op::mbar_init: case Op::mbar_arrive: case Op::mbar_test_wait: case Op::mbar_wait: mbarrier(op); break;
    case Op::mbar_expect_tx: expect_tx(); break;
    default: break;
    }
}

void Executor::barrier(Op op) {
    const int id = int(op0_->barrier);
    const int count = int(op0_->count);
    if (id < 0 || id > 15)
        fault_kind(ErrorKind::sync_misuse, *t0_, "barrier id " + std::to_string(id) + " is out of range", "use barrier ids 0..15");
    const int block_threads = int(b_.warps.size()) * 32;
    const int expected = count == 0 ? block_threads : count;
    if (count % 32 != 0 || expected > block_threads)
        fault_kind(ErrorKind::sync_misuse, *t0_, "barrier " + std::to_string(id) + " thread count " + std::to_string(count) +
                    " is not a multiple of 32 no greater than the block's " + std::to_string(block_threads) + " threads",
              "pass a multiple of the warp size (32) up to the block size");
    BarrierState& bar = b_.bars[id];
    if (bar.expected != 0 && bar.expected != expected)
        fault_kind(ErrorKind::sync_misuse, *t0_, "barrier " + std::to_string(id) + " used with thread count " + std::to_string(expected) +
                    " while other warps wait on it with " + std::to_string(bar.expected),
              "give every bar.sync/bar.arrive on one barrier id the same thread count");
    if (b_.checks.sync && (bar.arrived_warps >> w_.id & 1))
        fault_kind(ErrorKind::sync_misuse, *t0_,
                   "warp " + std::to_string(w_.id) + " arrived at barrier " + std::to_string(id) + " a second time before it released (" +
                       std::to_string(bar.arrived) + " of " + std::to_string(expected) + " threads arrived; the first arrival was at " +
                       line_of(bar.first_file, bar.first_line) + ")",
                   "give the barrier the thread count of the warps that really use it, and let each warp arrive once per use "
                   "(a bar.arrive in a loop needs a matching bar.sync by the others each time)");
    // A block-wide barrier (no thread count: __syncthreads()) that warps reach
    // at different lines in one round is a __syncthreads() in a branch only
    // some warps took: the hardware counts the arrivals all the same, and the
    // warps that took the branch wait at the other one later. Reported here,
    // at the earlier of the two lines, before it turns into a deadlock.
    if (b_.checks.sync && op == Op::bar_sync && count == 0 && bar.arrived > 0 &&
        (bar.first_line != t0_->kline || std::string_view(bar.first_file) != t0_->kfile)) {
        const bool mine_first = std::string_view(t0_->kfile) == bar.first_file ? t0_->kline < bar.first_line
                                                                                : std::string_view(t0_->kfile) < bar.first_file;
        const std::string here = line_of(t0_->kfile, t0_->kline), there = line_of(bar.first_file, bar.first_line);
        fault_at(mine_first ? t0_->kfile : bar.first_file, mine_first ? t0_->kline : bar.first_line, where(*t0_),
                 "__syncthreads() (bar.sync " + std::to_string(id) + ") reached at two places in one round: " +
                     warp_list(bar.arrived_warps) + " at " + there + ", warp " + std::to_string(w_.id) + " at " + here +
                     "; a __syncthreads() in a branch that only some warps take",
                 "every thread of the block must reach the same __syncthreads(): move it out of the branch (or make the "
                 "branch the same for the whole block)",
                 ErrorKind::sync_misuse);
    }
    // A named barrier whose count is smaller than the warps that use it: the
    // first warps to arrive release it, and the others make a round of their
    // own at the same line, with nothing ordering the two groups.
    const Block::BarrierRound& last = b_.last_round[id];
    if (b_.checks.sync && count != 0 && bar.arrived == 0 && last.warps && !(last.warps >> w_.id & 1) && last.expected == expected &&
        last.line == t0_->kline && std::string_view(last.file) == t0_->kfile && std::popcount(last.warps) * 32 == expected)
        fault_kind(ErrorKind::sync_misuse, *t0_,
                   "named barrier " + std::to_string(id) + " counts " + std::to_string(count) + " threads, but more use it here: " +
                       warp_list(last.warps) + " released it, then warp " + std::to_string(w_.id) +
                       " arrived for a round of its own; nothing orders the two groups",
                   "give bar.sync/bar.arrive the number of threads of every warp that uses barrier " + std::to_string(id) +
                       " (a multiple of 32), or a barrier id of their own to each group");
    if (bar.arrived == 0) { bar.first_file = t0_->kfile; bar.first_line = t0_->kline; }
    bar.arrived_warps |= 1u << w_.id;
    b_.hooks.release(w_.hb, bar.clock);
    bar.expected = expected;
    bar.arrived += 32;
    if (t_ >= bar.last_arrival) { bar.last_arrival = t_; bar.last_warp = w_.id; }
    if (op == Op::bar_sync) {
        w_.state = WarpState::at_barrier;
        w_.wait_since = t_;
        w_.wait_bar = id;
        w_.wait_file = t0_->kfile;
        w_.wait_line = t0_->kline;
        bar.waiters.push_back(w_.id);
    } else {
        w_.clock = t_ + cost_.barrier_latency;
    }
    if (bar.arrived >= bar.expected) release_barrier(id);
}

void Executor::release_barrier(int id) {
    BarrierState& bar = b_.bars[id];
    const uint64_t release = bar.last_arrival + cost_.barrier_latency;
    for (int wid : bar.waiters) {
        Warp& w = b_.warps[wid];
        acquire_for_lanes(b_, w, w.exists, bar.clock);  // bar.sync: the whole warp
        BarrierRecord r;
        r.arrive = w.wait_since;
        r.release = release;
        r.warp = uint16_t(wid);
        r.last_warp = uint16_t(bar.last_warp);
        r.id = uint8_t(id);
        r.loc = b_.out->locs(w.wait_file, w.wait_line);
        b_.hooks.barrier_wait(r);
        sim::resume_waiter(b_, w, release, Stall::barrier);
    }
    b_.last_round[id] = {bar.arrived_warps, bar.first_file, bar.first_line, bar.expected};
    bar = BarrierState{};
}

MbarState& Executor::mbar_at(int l, uint32_t addr) {
    check_shared(b_, lane(l), addr, 8, "mbarrier access");
    auto it = b_.mbars.find(addr);
    if (it == b_.mbars.end())
        fault(lane(l), "mbarrier at shared address " + hex(addr) + " used before mbarrier_init",
              "initialise the barrier (tk::init_semaphore) and sync the block before other threads use it");
    return it->second;
}

// Completes the barrier's phase if its arrivals and bytes are all in.
void Executor::try_complete_phase(int l, uint32_t addr, MbarState& m) {
    sim::try_complete_phase(b_, addr, m, t_, w_.id, lane(l).kfile, lane(l).kline, where(lane(l)));
}

void Executor::mbarrier(Op op) {
    switch (op) {
    case Op::mbar_init:
        for_lanes([&](int l) {
            LaneOp& o = lane_op(l);
            check_shared(b_, lane(l), o.addr, 8, "mbarrier init");
            if (o.count == 0) fault(lane(l), "mbarrier initialised with an arrival count of 0", "pass the number of threads that arrive per phase");
            // The initialisation is a write: threads that use the barrier
            // must be ordered after it (a block sync after init).
            access(lane_accessor(l), o.addr, 8, true, lane(l));
            MbarState m;
            m.expected = m.pending = o.count;
            m.init_file = lane(l).kfile;
            m.init_line = lane(l).kline;
            b_.mbars[o.addr] = m;
        });
        break;
    case Op::mbar_arrive: {
        // One warp instruction's arrivals completing several phases at
        // once: more lanes arrived than the barrier counts per phase.
        // (Almost always one barrier per instruction: a short list, not a map.)
        std::vector<std::pair<uint32_t, uint32_t>> phase_before;
        if (b_.checks.sync)
            for_lanes([&](int l) {
                const uint32_t addr = lane_op(l).addr;
                for (const auto& p : phase_before)
                    if (p.first == addr) return;
                phase_before.emplace_back(addr, mbar_at(l, addr).phase);
            });
        for_lanes([&](int l) {
            const uint32_t addr = lane_op(l).addr;
            MbarState& m = mbar_at(l, addr);
            access(lane_accessor(l), addr, 8, false, lane(l));
            arrive(l, addr, m, false);
            try_complete_phase(l, addr, m);
        });
        for (const auto& [addr, before] : phase_before) {
            const MbarState& m = b_.mbars.at(addr);
            if (m.phase - before > 1)
                fault_kind(ErrorKind::sync_misuse, *t0_,
                           std::to_string(std::popcount(mask_)) + " lanes arrived at once on mbarrier " + hex(addr) + " (initialised at " +
                               line_of(m.init_file, m.init_line) + " for " + std::to_string(m.expected) + " arrival" +
                               (m.expected == 1 ? "" : "s") + " per phase): one instruction completed " + std::to_string(m.phase - before) +
                               " phases, so waits on those phases' parities no longer mean what they say",
                           "let one elected lane arrive (if (tk::laneid() == 0) arrive(bar)) or initialise the barrier with the "
                           "number of threads that arrive per phase");
        }
        break;
    }
    case Op::mbar_test_wait: {
        bool any_done = false;
        uint32_t passed_addr = 0, passed_phase = 0;  // the first lane's that saw its phase done
        for_lanes([&](int l) {
            LaneOp& o = lane_op(l);
            MbarState& m = mbar_at(l, o.addr);
            access(lane_accessor(l), o.addr, 8, false, lane(l));
            o.data[0] = (m.phase & 1) != (o.parity & 1);
            if (o.data[0] && !any_done) passed_addr = o.addr, passed_phase = m.phase;
            any_done = any_done || o.data[0];
            // A lane that sees the phase done acquires it; the others do not.
            if (o.data[0]) acquire_for_lanes(b_, w_, 1u << l, m.completed);
        });
        if (any_done) note_pass(passed_addr, passed_phase);  // once for the warp
        // A poll that found nothing: the scheduler's livelock finder counts these.
        w_.failed_poll = !any_done;
        w_.poll_addr = op0_->addr;
        w_.poll_parity = op0_->parity & 1;
        break;
    }
    case Op::mbar_wait: {
        MbarState& m = mbar_at(first_, op0_->addr);
        for_lanes([&](int l) { access(lane_accessor(l), lane_op(l).addr, 8, false, lane(l)); });
        // Lanes that wait on one barrier for different parities: their copies
        // of the phase bit have diverged. On the GPU the lanes whose parity
        // names a completed phase go on without waiting.
        uint32_t other = 0;
        for_lanes([&](int l) {
            if (lane_op(l).addr == op0_->addr && (lane_op(l).parity & 1) != (op0_->parity & 1)) other |= 1u << l;
        });
        if (other && b_.checks.sync) {
            const uint32_t same = mask_ & ~other;
            fault_kind(ErrorKind::sync_misuse, lane(std::countr_zero(other)),
                       "mbarrier.wait on " + hex(op0_->addr) + ": " + lane_list(same) + " wait for phase parity " +
                           std::to_string(op0_->parity & 1) + " and " + lane_list(other) + " for parity " +
                           std::to_string(1 - (op0_->parity & 1)) + ": the lanes' copies of the phase bit have diverged, and on the "
                           "GPU the lanes waiting for the phase that already completed go on without waiting (the barrier has completed " +
                           std::to_string(m.phase) + (m.phase == 1 ? " phase)" : " phases)"),
                       "update the phase in every lane the same way (phase ^= 1 after each wait, outside any lane branch), or "
                       "compute it from the iteration: (k / stages) & 1");
        }
        // The phase is done: its waiting lanes acquire it.
        if ((m.phase & 1) != (op0_->parity & 1)) {
            acquire_for_lanes(b_, w_, mask_, m.completed);
            note_pass(op0_->addr, m.phase);
        }
        if ((m.phase & 1) == (op0_->parity & 1)) {
            w_.state = WarpState::at_mbarrier;
            w_.wait_lanes = mask_;
            w_.wait_since = t_;
            w_.wait_addr = op0_->addr;
            w_.wait_parity = op0_->parity & 1;
            w_.wait_file = t0_->kfile;
            w_.wait_line = t0_->kline;
            return;
        }
        break;
    }
    default: break;
    }
    w_.clock = t_ + cost_.mbarrier_latency;
}

// A wait on the barrier at `addr` went on at once, `phase` phases completed:
// with none, it was a wait for "the phase before the first" (parity 1 on a
// fresh barrier), which a producer means and a consumer's parity bug does not.
// Recorded as a wait of no length, so the timeline and the barriers panel show it.
void Executor::note_pass(uint32_t addr, uint32_t phase) {
    if (phase != 0) {
        if (w_.fresh_pass.set && w_.fresh_pass.addr == addr) w_.fresh_pass.set = false;
        return;
    }
    w_.fresh_pass = {addr, t0_->kfile, t0_->kline, true};
    BarrierRecord r;
    r.arrive = r.release = t_;
    r.warp = r.last_warp = uint16_t(w_.id);
    r.mbarrier = true;
    r.address = addr;
    r.loc = b_.out->locs(t0_->kfile, t0_->kline);
    r.at_once = true;
    b_.hooks.barrier_wait(r);
}

// Lane l's arrival on the barrier's current phase (mbarrier.arrive, or
// arrive.expect_tx after its bytes): more arrivals than the phase counts is a
// misuse; the arrival publishes what the warp knows. The caller then
// completes the phase if its arrivals and bytes are all in.
void Executor::arrive(int l, uint32_t addr, MbarState& m, bool after_expect) {
    if (m.pending == 0)
        fault_kind(ErrorKind::sync_misuse, lane(l),
                   "mbarrier " + hex(addr) + " (initialised at " + line_of(m.init_file, m.init_line) + " for " +
                       std::to_string(m.expected) + " arrivals per phase) received more arrivals than its phase counts" +
                       (after_expect || m.tx > 0 ? " (its bytes are still expected)" : ""),
                   after_expect ? "arrive once per thread counted at init"
                                : "arrive once per thread counted at init (one elected lane, if the count is per warp), and expect "
                                  "the phase's bytes before its last arrival");
    --m.pending;
    m.arrivers |= 1u << w_.id;
    b_.hooks.release(w_.hb, m.clock);
}

MbarState& Executor::mbar_for_tx(int l, uint32_t addr, const std::string& what) {
    check_shared(b_, lane(l), addr, 8, "mbarrier access");
    auto it = b_.mbars.find(addr);
    if (it == b_.mbars.end())
        fault(lane(l), what + " names shared address " + hex(addr) + ", which is not an initialised mbarrier",
              "initialise the barrier (tk::init_semaphore) and sync the block before expecting bytes or issuing copies on it");
    return it->second;
}

void Executor::check_tx(int l, uint32_t addr, const MbarState& m) {
    if (m.tx > kMaxTx)
        fault(lane(l), "mbarrier " + hex(addr) + "'s transaction count reached " + std::to_string(m.tx) +
                           " bytes, beyond the hardware's limit of 2^20 - 1 (1048575)",
              "expect less than 1 MiB per phase: split the copies over more barriers or phases");
}

void Executor::expect_tx() {
    for_lanes([&](int l) {
        LaneOp& o = lane_op(l);
        MbarState& m = mbar_for_tx(l, o.addr, "mbarrier.expect_tx");
        access(lane_accessor(l), o.addr, 8, false, lane(l));
        m.tx += int64_t(o.tx_bytes);
        m.expect_file = lane(l).kfile;
        m.expect_line = lane(l).kline;
        m.arrivers |= 1u << w_.id;
        check_tx(l, o.addr, m);
        if (o.arrive) arrive(l, o.addr, m, true);  // arrive.expect_tx: the bytes first, then the arrival
        try_complete_phase(l, o.addr, m);
    });
    w_.clock = t_ + cost_.mbarrier_latency;
}

} // namespace tklab::sim
