// Fault, race and deadlock reports (diagnostics.h).
#include "sim/diagnostics.h"

#include "sim/instructions.h"
#include "sim/state.h"

#include <algorithm>
#include <bit>
#include <sstream>
#include <vector>

namespace tklab::sim {

// ---------------------------------------------------------------- names

const char* stall_name(Stall s) {
    switch (s) {
    case Stall::none: return "none";
    case Stall::barrier: return "barrier";
    case Stall::mbarrier: return "mbarrier";
    case Stall::long_scoreboard: return "long_scoreboard";
    case Stall::short_scoreboard: return "short_scoreboard";
    case Stall::mio_throttle: return "mio_throttle";
    case Stall::math_pipe_throttle: return "math_pipe_throttle";
    case Stall::wait: return "wait";
    case Stall::selected: return "selected";
    case Stall::drain: return "drain";
    case Stall::lg_throttle: return "lg_throttle";
    case Stall::imc_miss: return "imc_miss";
    case Stall::not_selected: return "not_selected";
    case Stall::count_: break;
    }
    return "?";
}

const char* error_kind_name(ErrorKind k) {
    switch (k) {
    case ErrorKind::fault: return "fault";
    case ErrorKind::deadlock: return "deadlock";
    case ErrorKind::divergence: return "divergence";
    case ErrorKind::kernel_exception: return "kernel_exception";
    case ErrorKind::usage: return "usage";
    case ErrorKind::instruction_limit: return "instruction_limit";
    case ErrorKind::race: return "race";
    case ErrorKind::uninitialized_read: return "uninitialized_read";
    case ErrorKind::sync_misuse: return "sync_misuse";
    }
    return "error";
}

// ---------------------------------------------------------------- faults

std::string block_name(const dim3& b) {
    std::ostringstream s;
    s << "block (" << b.x << "," << b.y << "," << b.z << ")";
    return s.str();
}
std::string where(const Thread& t) {
    return block_name(t.ids.block) + " warp " + std::to_string(t.warp->id) + " lane " + std::to_string(t.lane);
}
std::string line_of(const char* file, int line) {
    std::ostringstream s;
    s << file << ":" << line;
    return s.str();
}

void fault_at(const char* file, int line, const std::string& who, const std::string& what, const std::string& fix, ErrorKind kind) {
    std::ostringstream s;
    s << line_of(file, line) << ": error: " << what << " (" << who << ").\n  fix: " << fix;
    throw SimError(kind, s.str(), file, line);
}
void fault(const Thread& t, const std::string& what, const std::string& fix) {
    fault_at(t.kfile, t.kline, where(t), what, fix);
}
// A misuse of a barrier or mbarrier: the same report, its own kind.
void fault_kind(ErrorKind kind, const Thread& t, const std::string& what, const std::string& fix) {
    fault_at(t.kfile, t.kline, where(t), what, fix, kind);
}

std::string hex(uint64_t v) {
    std::ostringstream s;
    s << "0x" << std::hex << v;
    return s.str();
}

// ---------------------------------------------------------------- bug finders' reports

std::pair<const char*, int> site_line(const Block& b, uint32_t site) { return b.out->locs.list.at(site >> 8); }

namespace {

Op site_op(uint32_t site) { return Op(site & 0xff); }

std::string agent_name(const Block& b, int agent, int lane) {
    const bugs::Agents& ag = b.hooks.agents();
    const int owner = ag.owner(agent);
    switch (ag.kind(agent)) {
    case bugs::Agents::Kind::warp: return "warp " + std::to_string(owner) + " lane " + std::to_string(lane);
    case bugs::Agents::Kind::copy_engine: return "a bulk copy issued by warp " + std::to_string(owner);
    case bugs::Agents::Kind::async_copies: return "a cp.async issued by warp " + std::to_string(owner) + " lane " + std::to_string(lane) + ",";
    case bugs::Agents::Kind::tensor_cores:
        return "the wgmma of warpgroup " + std::to_string(owner) + " (warps " + std::to_string(4 * owner) + "-" +
               std::to_string(4 * owner + 3) + "), reading its operands,";
    }
    return "?";
}

// Why nothing orders the two accesses, and what would.
std::pair<std::string, std::string> race_cause(const Block& b, int earlier, int now, bool earlier_writes) {
    using K = bugs::Agents::Kind;
    const bugs::Agents& ag = b.hooks.agents();
    const K e = ag.kind(earlier), n = ag.kind(now);
    if (e == K::tensor_cores)
        return {"wgmma reads its shared operands until a wgmma wait retires its group, and no such wait orders the read before this access",
                "wait for the group (tk::warpgroup::mma_async_wait) before writing the tiles it reads or releasing their stage "
                "(arrive on the stage's 'empty' mbarrier only after the wait)"};
    if (e == K::async_copies)
        return {"a cp.async writes its destination at any moment until a cp.async.wait_group retires its group, and no such "
                "wait (followed by a barrier, for other warps) orders this access after the copy",
                "wait for the copy's group (cp.async.wait_group: tk::load_async_wait) and then __syncthreads() before any warp "
                "touches the tile"};
    if (n == K::async_copies)
        return {std::string("the cp.async was issued while the earlier ") + (earlier_writes ? "write" : "read") +
                    " was not yet ordered before it, and the copy may land at once",
                "order the buffer's last use before the cp.async that refills it: __syncthreads() between them (in a "
                "double-buffered loop, the barrier at the end of each step), or, with a producer warp, the readers arrive on "
                "the stage's 'empty' mbarrier after their last read and the producer waits on it before the copy"};
    if (e == K::copy_engine)
        return {"the bulk copy lands asynchronously, and nothing waited on the mbarrier phase its bytes complete",
                "wait on the copy's mbarrier (tk::wait with the right phase) before touching the tile"};
    if (n == K::copy_engine)
        return {std::string("the copy was issued before the ") + (earlier_writes ? "write" : "read") +
                    " was finished with: nothing orders that access before the copy's issue",
                "release the stage after its last use (the users arrive on an 'empty' mbarrier) and make the producer wait on "
                "it before issuing the next copy into the stage"};
    if (e == K::warp && n == K::warp && earlier == now)
        return {"two lanes of one warp, with no __syncwarp() or other warp-synchronous instruction between the accesses",
                "put __syncwarp() (tk::arch::syncwarp) between them"};
    return {"different warps, with no barrier (__syncthreads, bar.sync) or mbarrier phase ordering them",
            "synchronise between them: __syncthreads() (or a named barrier for the warps involved), or arrive on an mbarrier "
            "after the first and wait on it before the second"};
}

} // namespace

[[noreturn]] void report_finding(const Block& b, const bugs::Finding& f, const bugs::Accessor& who, Op op, const char* file,
                                 int line, const dim3& block_id, const char* space) {
    const std::string block = block_name(block_id);
    std::ostringstream s;
    const auto verb = [](Op o, bool writes) -> std::string {
        return std::string(writes ? "writes" : "reads") + " (" + op_name(o) + ")";
    };
    std::string fix;
    if (f.kind == bugs::Finding::Kind::uninitialized) {
        s << line_of(file, line) << ": error: read of " << space << " memory nothing wrote: " << agent_name(b, who.agent, who.lane)
          << " of " << block << " " << verb(op, false) << " byte " << hex(f.addr) << ", which nothing has written since the block began";
        fix = "write or load the tile before reading it -- shared memory starts as garbage on the GPU, not zeros; check the loop "
              "bounds and that the load (and its wait) comes first";
        // The reader went past an mbarrier that had completed no phase: its
        // wait asked for parity 1, which a fresh barrier counts as done.
        const int owner = b.hooks.agents().owner(who.agent);
        const bool warp = b.hooks.agents().kind(who.agent) == bugs::Agents::Kind::warp;
        if (warp && owner >= 0 && size_t(owner) < b.warps.size() && b.warps[size_t(owner)].fresh_pass.set) {
            const Warp::FreshPass& p = b.warps[size_t(owner)].fresh_pass;
            s << ".\n  note: warp " << owner << "'s wait at " << line_of(p.file, p.line) << " on mbarrier " << hex(p.addr)
              << " went on at once: that barrier had completed no phase yet, and a wait for parity 1 on a fresh barrier counts "
                 "\"the phase before the first\" as done, so nothing had landed";
            fix = "wait for the phase the data completes: parity 0 for the first round (phase = (k / stages) % 2 for the k-th use of a "
                  "ring of `stages` slots); only a producer waiting for a slot to be free starts with parity 1";
        }
        throw SimError(ErrorKind::uninitialized_read, s.str() + ".\n  fix: " + fix, file, line);
    }
    const char* kind = f.earlier_writes ? (f.current_writes ? "write after write" : "read after write") : "write after read";
    const auto [ef, el] = site_line(b, f.earlier.site);
    const auto [cause, how] = race_cause(b, f.earlier.agent, who.agent, f.earlier_writes);
    s << line_of(file, line) << ": error: shared-memory race (" << kind << ") at shared address " << hex(f.addr) << " in " << block
      << ":\n  now:     " << agent_name(b, who.agent, who.lane) << " " << verb(op, f.current_writes) << " at " << line_of(file, line)
      << "\n  earlier: " << agent_name(b, f.earlier.agent, f.earlier.lane) << " " << verb(site_op(f.earlier.site), f.earlier_writes)
      << " at " << line_of(ef, el) << "\n  nothing orders them: " << cause;
    // Atomics never race with each other; one and a plain access of the same word do.
    const auto is_atomic = [](Op o) { return o == Op::atom_shared || o == Op::red_shared; };
    if (is_atomic(op) != is_atomic(site_op(f.earlier.site)))
        s << ".\n  note: one is an atomic, the other a plain " << op_name(is_atomic(op) ? site_op(f.earlier.site) : op)
          << ": atomics are atomic only with other atomics, so a plain access of the same word that nothing orders races with them";
    s << ".\n  fix: " << how;
    if (is_atomic(op) != is_atomic(site_op(f.earlier.site)))
        s << "; or, if the two may really overlap, make the plain one atomic too (tk::arch::atom_shared / red_shared)";
    throw SimError(ErrorKind::race, s.str(), file, line);
}

// ---------------------------------------------------------------- block-level verdicts

namespace {
// The set bits of `mask` as ranges: "0-3, 6".
std::string ranges(uint64_t mask) {
    std::ostringstream s;
    int n = 0;
    for (int w = 0; w < 64; ++w) {
        if (!(mask >> w & 1)) continue;
        int e = w;
        while (e + 1 < 64 && (mask >> (e + 1) & 1)) ++e;
        s << (n++ ? ", " : "") << w;
        if (e > w) s << "-" << e;
        w = e;
    }
    return s.str();
}
} // namespace

std::string warp_list(uint64_t mask) { return (std::popcount(mask) == 1 ? "warp " : "warps ") + ranges(mask); }
std::string lane_list(uint32_t mask) { return (std::popcount(mask) == 1 ? "lane " : "lanes ") + ranges(mask); }

namespace {
// What a waiting warp waits on, in a few words.
std::string waiting_on(const Warp& w) {
    if (w.state == WarpState::at_barrier) return "bar.sync " + std::to_string(w.wait_bar) + " (" + line_of(w.wait_file, w.wait_line) + ")";
    if (w.state == WarpState::at_mbarrier)
        return "mbarrier " + hex(w.wait_addr) + " phase parity " + std::to_string(w.wait_parity) + " (" + line_of(w.wait_file, w.wait_line) + ")";
    return w.state == WarpState::done ? "exited" : "runnable";
}

} // namespace

// After the block: a barrier some warps arrived at (bar.arrive) that never
// released -- its count is more than the threads that use it.
void check_barriers_settled(const Block& b) {
    if (!b.checks.sync) return;
    for (int id = 0; id < 16; ++id) {
        const BarrierState& bar = b.bars[id];
        if (bar.arrived == 0) continue;
        std::ostringstream s;
        s << line_of(bar.first_file, bar.first_line) << ": error: synchronisation misuse in kernel " << b.kernel << ", "
          << block_name(b.threads.front().ids.block) << ": barrier " << id << " expects " << bar.expected << " threads, but only "
          << bar.arrived << " arrived (" << warp_list(bar.arrived_warps) << ") before the block ended, so it never released"
          << ".\n  fix: give the barrier the number of threads that really arrive at it, and make each of them arrive";
        throw SimError(ErrorKind::sync_misuse, s.str(), bar.first_file, bar.first_line);
    }
}

[[noreturn]] void report_instruction_limit(const Block& b) {
    std::ostringstream s;
    const Thread& any = b.threads.front();
    s << "error: kernel " << b.kernel << ", " << block_name(any.ids.block) << " has executed " << options().max_block_instructions << " warp instructions without finishing:";
    const char* file = "";
    int line = 0;
    for (const Warp& w : b.warps) {
        s << "\n  warp " << w.id << ": ";
        if (w.state == WarpState::done) s << "finished";
        else if (w.last_op == Op::count_) s << "has not executed an instruction";
        else {
            s << "last executed " << op_name(w.last_op) << " (" << line_of(w.last_file, w.last_line) << ")";
            if (!line) { file = w.last_file; line = w.last_line; }
        }
    }
    s << "\n  fix: look for a loop that never ends -- for example spinning on test_wait for a phase nothing completes "
         "(use wait(), which the simulator can prove stuck); if the kernel really is this long, raise "
         "tklab::sim::options().max_block_instructions";
    throw SimError(ErrorKind::instruction_limit, s.str(), file, line);
}

[[noreturn]] void report_divergence(const Warp& w, int groups, const uint32_t* mask, const int* lane, bool needs_exited) {
    std::ostringstream s;
    const Thread& t0 = *w.lanes[lane[0]];
    s << line_of(t0.kfile, t0.kline) << ": error: warp " << w.id << " of " << block_name(t0.ids.block) << " is split across warp-synchronous instructions:";
    for (int g = 0; g < groups; ++g) {
        const Thread& t = *w.lanes[lane[g]];
        s << "\n  lanes " << hex(mask[g]) << " at " << op_name(t.pending->op) << " (" << line_of(t.kfile, t.kline) << ")";
    }
    if (needs_exited) s << "\n  and it needs lanes " << hex(w.exists & ~w.live) << ", which have exited";
    s << "\n  fix: every lane must reach the same mma/ldmatrix/shfl/bar instruction together (move it out of the divergent branch)";
    throw SimError(ErrorKind::divergence, s.str(), t0.kfile, t0.kline);
}

// When every warp still running only polls mbarriers that nothing can
// complete: who polls what (with the phase's arrivals), who waits or exited.
[[noreturn]] void report_livelock(const Block& b) {
    std::ostringstream s;
    const char* file = "";
    int line = 0;
    for (const Warp& w : b.warps) {
        s << "\n  warp " << w.id << ": ";
        if (w.state == WarpState::done) { s << "has exited"; continue; }
        if (w.state != WarpState::runnable) { s << "waits " << (w.state == WarpState::at_barrier ? "at " : "on ") << waiting_on(w); continue; }
        s << "polls mbarrier " << hex(w.poll_addr) << " for phase parity " << w.poll_parity << " (mbarrier.test_wait, "
          << line_of(w.last_file, w.last_line) << ")";
        if (!line) { file = w.last_file; line = w.last_line; }
        const auto it = b.mbars.find(w.poll_addr);
        if (it == b.mbars.end()) continue;
        const MbarState& m = it->second;
        s << ", " << (m.expected - m.pending) << " of " << m.expected << " arrivals";
        if (m.tx > 0) s << " and " << m.tx << " expected bytes outstanding";
        s << (m.arrivers ? "; arrivals came from " + warp_list(m.arrivers) + " before" : std::string("; nothing has arrived on it yet"));
    }
    std::ostringstream out;
    out << line_of(file, line) << ": error: livelock in kernel " << b.kernel << ", " << block_name(b.threads.front().ids.block)
        << ": every warp still running keeps polling an mbarrier phase (test_wait) that nothing left can complete, and no copy "
           "in flight could complete it.\n  who polls, waits or exited:"
        << s.str()
        << "\n  fix: check the phase parity the loop polls (it flips with every completed phase: a consumer's first wait on a "
           "fresh barrier's phase 0 is parity 0), that as many arrivals as the barrier counts come before the poll, and the "
           "loop's trip count; mbarrier.wait (tk::wait) instead of a test_wait loop lets the simulator report a stuck wait as a deadlock";
    throw SimError(ErrorKind::deadlock, out.str(), file, line);
}

// When no warp can run: every waiting warp, what it waits on and who
// could end the wait (the wait-for picture), a cycle among them if there
// is one, and whether the wait is a misuse no schedule could satisfy.
[[noreturn]] void report_deadlock(const Block& b) {
    const int n = int(b.warps.size());
    uint64_t done = 0;
    for (const Warp& w : b.warps)
        if (w.state == WarpState::done) done |= uint64_t(1) << w.id;
    const uint64_t all = n >= 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1;
    std::vector<uint64_t> waits_for(size_t(n), 0);  // warps that could end each warp's wait
    std::ostringstream s, misuse;
    const char* file = "";
    int line = 0;
    const char* misuse_file = "";
    int misuse_line = 0;
    std::string misuse_fix;
    const Thread& any = b.threads.front();
    for (const Warp& w : b.warps) {
        if (w.state == WarpState::done) continue;
        s << "\n  warp " << w.id << ": waits " << (w.state == WarpState::at_barrier ? "at " : "on ") << waiting_on(w);
        if (!line) { file = w.wait_file; line = w.wait_line; }
        if (w.state == WarpState::at_barrier) {
            const BarrierState& bar = b.bars[w.wait_bar];
            const uint64_t arrived = bar.arrived_warps;
            const uint64_t to_come = all & ~arrived & ~done;
            waits_for[size_t(w.id)] = to_come;
            s << ", " << bar.arrived << " of " << bar.expected << " threads arrived (" << warp_list(arrived) << ")";
            if (to_come) s << "; still to come: " << warp_list(to_come);
            if (done & ~arrived) s << "; " << warp_list(done & ~arrived) << " exited without arriving";
            const int could = bar.arrived + 32 * std::popcount(to_come);
            if (misuse.tellp() == 0 && could < bar.expected) {
                misuse << "barrier " << w.wait_bar << " waits for " << bar.expected << " threads, but only " << bar.arrived << " arrived";
                if (to_come) misuse << " and at most " << 32 * std::popcount(to_come) << " more could (" << warp_list(to_come) << ")";
                if (done & ~arrived) misuse << "; " << warp_list(done & ~arrived) << " exited without reaching it";
                misuse << (bar.expected == int(b.threads.size()) && (done & ~arrived) ? ": a block barrier reached by only part of the block"
                                                                                        : ": its thread count is more than the threads that use it");
                misuse_file = w.wait_file;
                misuse_line = w.wait_line;
                misuse_fix = bar.expected == int(b.threads.size())
                                 ? "make every warp reach the barrier: no __syncthreads() after an early return or inside a branch some warps skip"
                                 : "give the named barrier the number of threads that really arrive at it (a multiple of 32)";
            }
        } else if (w.state == WarpState::at_mbarrier) {
            auto it = b.mbars.find(w.wait_addr);
            if (it == b.mbars.end()) continue;
            const MbarState& m = it->second;
            uint64_t waiters = 0;
            for (const Warp& o : b.warps)
                if (o.state == WarpState::at_mbarrier && o.wait_addr == w.wait_addr) waiters |= uint64_t(1) << o.id;
            const uint64_t others = all & ~done & ~waiters;  // warps that could still arrive
            waits_for[size_t(w.id)] = m.arrivers ? (uint64_t(m.arrivers) & ~done) : others;
            s << ", " << (m.expected - m.pending) << " of " << m.expected << " arrivals";
            if (m.tx > 0)
                s << ", " << m.tx << " expected transaction bytes outstanding that no bulk copy in flight will deliver"
                  << " (an expect_tx counted more than the copies issued on it; the last: " << line_of(m.expect_file, m.expect_line) << ")";
            else if (m.tx < 0)
                s << ", " << -m.tx << " bytes landed that no expect_tx counted (last copy: " << line_of(m.copy_file, m.copy_line) << ")";
            if (m.arrivers) s << "; arrivals came from " << warp_list(m.arrivers) << " before";
            else s << "; nothing has arrived on it yet";
            if (misuse.tellp() == 0 && !others && m.in_flight == 0) {
                misuse << "warps wait on phase " << (m.phase + ((m.phase & 1) == w.wait_parity ? 0 : 1)) << " (parity " << w.wait_parity
                       << ") of mbarrier " << hex(w.wait_addr) << " (initialised at " << line_of(m.init_file, m.init_line) << " for "
                       << m.expected << " arrivals per phase), which can never complete: it needs " << m.pending << " more arrival"
                       << (m.pending == 1 ? "" : "s") << (m.tx > 0 ? " and " + std::to_string(m.tx) + " more bytes" : "")
                       << ", and every warp left is waiting on it (" << warp_list(waiters) << ")";
                if (done) misuse << " or has exited (" << warp_list(done) << ")";
                misuse_file = w.wait_file;
                misuse_line = w.wait_line;
                misuse_fix = "check the phase parity each wait uses (it flips with every completed phase), that the arrival count at "
                             "init matches the arrivals per phase, and that the arrivals happen before the wait";
                if (m.tx > 0 && m.pending == 0 && m.expect_line > 0) {
                    // Only bytes are missing: the expect_tx counted more than the copies bring. Name it.
                    misuse << "; the expect_tx at " << line_of(m.expect_file, m.expect_line) << " counted " << m.tx
                           << " bytes more than the bulk copies issued on the barrier deliver";
                    misuse_file = m.expect_file;
                    misuse_line = m.expect_line;
                    misuse_fix = "expect exactly the bytes the phase's copies bring (tk::tma::expect<Tiles...> with the tiles "
                                 "actually loaded, or expect_bytes with their total), or issue the missing copies";
                }
            }
        }
    }
    for (const Warp& w : b.warps)
        if (w.state == WarpState::done) s << "\n  warp " << w.id << ": has exited";
    // A cycle in the wait-for graph: follow the first warp each waits for.
    std::string cycle;
    for (int start = 0; start < n && cycle.empty(); ++start) {
        std::vector<int> path;
        std::vector<int> seen(size_t(n), -1);
        int cur = start;
        while (cur >= 0 && seen[size_t(cur)] < 0 && waits_for[size_t(cur)]) {
            seen[size_t(cur)] = int(path.size());
            path.push_back(cur);
            cur = std::countr_zero(waits_for[size_t(cur)] & ~(uint64_t(1) << cur)) < 64
                      ? std::countr_zero(waits_for[size_t(cur)] & ~(uint64_t(1) << cur)) : -1;
        }
        if (cur >= 0 && seen[size_t(cur)] >= 0) {
            std::ostringstream c;
            for (size_t i = size_t(seen[size_t(cur)]); i < path.size(); ++i)
                c << "warp " << path[i] << " -> " << waiting_on(b.warps[size_t(path[i])]) << " -> ";
            c << "warp " << cur;
            cycle = c.str();
        }
    }
    std::ostringstream out;
    if (b.checks.sync && misuse.tellp() != 0) {
        out << line_of(misuse_file, misuse_line) << ": error: synchronisation misuse in kernel " << b.kernel << ", "
            << block_name(any.ids.block) << ": " << misuse.str() << ".\n  wait-for:" << s.str() << "\n  fix: " << misuse_fix;
        throw SimError(ErrorKind::sync_misuse, out.str(), misuse_file, misuse_line);
    }
    out << "error: deadlock in kernel " << b.kernel << ", " << block_name(any.ids.block)
        << ": every warp is waiting and none can proceed.\n  wait-for (who waits on what, and who could end the wait):" << s.str();
    if (!cycle.empty()) out << "\n  cycle: " << cycle;
    out << "\n  fix: make every warp that a barrier counts reach it (no bar.sync inside a branch some warps skip), "
           "make the arrival count match the arrivals, and break the cycle: a warp must not wait for a warp that waits for it";
    throw SimError(ErrorKind::deadlock, out.str(), file, line);
}

} // namespace tklab::sim
