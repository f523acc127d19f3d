#include "visualizer/model/replay.h"
#include <algorithm>
#include <map>

namespace tklab::view {

const char* step_unit_name(StepUnit u) {
    switch (u) {
    case StepUnit::instruction: return "instruction";
    case StepUnit::tile_op: return "tile op";
    case StepUnit::barrier: return "barrier";
    }
    return "?";
}

std::optional<StepUnit> parse_step_unit(const std::string& s) {
    if (s == "instruction" || s == "instr" || s == "i") return StepUnit::instruction;
    if (s == "op" || s == "tile-op" || s == "tile_op") return StepUnit::tile_op;
    if (s == "barrier" || s == "bar") return StepUnit::barrier;
    return std::nullopt;
}

namespace {
bool barrier_op_name(const std::string& n) {
    return n.rfind("bar.sync", 0) == 0 || n.rfind("bar.arrive", 0) == 0 || n == "mbarrier.wait" ||
           n == "mbarrier.test_wait" || n == "mbarrier.try_wait" || n == "cp.async.wait_group" ||
           n == "cp.async.wait_all";
}
} // namespace

Replay::Replay(const trace::Trace& trace, uint32_t launch, uint32_t block)
    : trace_(&trace), launch_(launch), block_(block) {
    const trace::Block& b = this->block();
    warps_ = int(launch_ < trace.launches.size() ? trace.launches[launch_].warps_per_block() : 0);
    for (const trace::Event& e : b.events) warps_ = std::max(warps_, int(e.warp) + 1);
    by_warp_.assign(size_t(warps_), {});
    issue_max_.resize(b.events.size());
    uint64_t m = 0;
    for (size_t i = 0; i < b.events.size(); ++i) {
        const trace::Event& e = b.events[i];
        by_warp_[e.warp].push_back(uint32_t(i));
        m = std::max(m, e.issue);
        issue_max_[i] = m;
    }
    barrier_op_.resize(trace.ops.size());
    for (size_t i = 0; i < trace.ops.size(); ++i) barrier_op_[i] = barrier_op_name(trace.ops[i]);

    // A warp's k-th wait at a line belongs to its k-th barrier instruction at
    // that line: both are in the warp's program order.
    wait_of_.assign(b.events.size(), -1);
    std::map<std::pair<uint16_t, uint32_t>, std::vector<uint32_t>> waits;  // (warp, loc) -> waits
    for (size_t i = 0; i < b.barriers.size(); ++i) waits[{b.barriers[i].warp, b.barriers[i].loc}].push_back(uint32_t(i));
    std::map<std::pair<uint16_t, uint32_t>, size_t> taken;
    for (size_t i = 0; i < b.events.size(); ++i) {
        const trace::Event& e = b.events[i];
        if (!is_barrier(i)) continue;
        auto it = waits.find({e.warp, e.loc});
        if (it == waits.end()) continue;
        size_t& k = taken[{e.warp, e.loc}];
        // Skip waits that arrived before this instruction issued (an arrive-only op has none).
        while (k < it->second.size() && b.barriers[it->second[k]].arrive < e.issue) ++k;
        if (k < it->second.size() && b.barriers[it->second[k]].arrive <= e.done) wait_of_[i] = int32_t(it->second[k++]);
    }
}

const trace::Launch& Replay::launch() const { return trace_->launches.at(launch_); }
const trace::Block& Replay::block() const { return launch().blocks.at(block_); }
size_t Replay::size() const { return block().events.size(); }

uint64_t Replay::end_cycle() const { return block().cycles; }

long Replay::scan(long from, int dir, int warp) const {
    // From event `from` (inclusive) in direction dir, the first event of `warp` (any if < 0).
    const auto& ev = block().events;
    if (warp < 0) return (from >= 0 && size_t(from) < ev.size()) ? from : -1;
    if (warp >= warps_) return -1;
    const auto& w = by_warp_[size_t(warp)];
    if (dir > 0) {
        auto it = std::lower_bound(w.begin(), w.end(), uint32_t(std::max<long>(from, 0)));
        return it == w.end() || from >= long(ev.size()) ? -1 : long(*it);
    }
    if (from < 0) return -1;
    auto it = std::upper_bound(w.begin(), w.end(), uint32_t(from));
    return it == w.begin() ? -1 : long(*(it - 1));
}

long Replay::current(int warp) const { return scan(long(pos_) - 1, -1, warp); }
long Replay::next(int warp) const { return scan(long(pos_), +1, warp); }

long Replay::current_smem(int warp) const {
    const auto& ev = block().events;
    for (long e = current(warp); e >= 0; e = scan(e - 1, -1, warp))
        if (ev[size_t(e)].smem >= 0) return e;
    return -1;
}

bool Replay::is_barrier(size_t e) const {
    const uint8_t op = block().events[e].op;
    return op < barrier_op_.size() && barrier_op_[op];
}
long Replay::barrier_wait(size_t e) const { return e < wait_of_.size() ? wait_of_[e] : -1; }

uint64_t Replay::wait_cycles(size_t e) const {
    const trace::Block& b = block();
    uint64_t w = b.events[e].stall_cycles;
    if (long k = barrier_wait(e); k >= 0) w = std::max(w, b.barriers[size_t(k)].release - b.barriers[size_t(k)].arrive);
    return w;
}

const std::vector<uint32_t>& Replay::warp_events(int warp) const {
    static const std::vector<uint32_t> none;
    return warp >= 0 && warp < warps_ ? by_warp_[size_t(warp)] : none;
}

size_t Replay::forward_target(StepUnit unit, int warp) const {
    const auto& ev = block().events;
    long e = next(warp);
    if (e < 0) return pos_;
    switch (unit) {
    case StepUnit::instruction: return size_t(e) + 1;
    case StepUnit::tile_op: {
        // Through the last instruction of the tile op that `e` belongs to, in
        // its own warp (other warps' instructions in between run too).
        const uint16_t w = ev[size_t(e)].warp;
        const uint32_t seq = ev[size_t(e)].op_seq;
        if (seq == 0) return size_t(e) + 1;
        long last = e;
        for (long f = scan(e + 1, +1, w); f >= 0 && ev[size_t(f)].op_seq == seq; f = scan(f + 1, +1, w)) last = f;
        return size_t(last) + 1;
    }
    case StepUnit::barrier:
        for (; e >= 0; e = scan(e + 1, +1, warp))
            if (is_barrier(size_t(e))) return size_t(e) + 1;
        return ev.size();  // no barrier left: to the end
    }
    return pos_;
}

size_t Replay::back_target(StepUnit unit, int warp) const {
    // The mirror image: the cursor lands just after the previous such point,
    // so a step back from "just after X" lands "just after the X before".
    const auto& ev = block().events;
    long e = current(warp);
    if (e < 0) return 0;
    auto after_previous = [&](long from, auto&& is_point) -> size_t {
        for (long f = scan(from, -1, warp); f >= 0; f = scan(f - 1, -1, warp))
            if (is_point(f)) return size_t(f) + 1;
        return 0;
    };
    switch (unit) {
    case StepUnit::instruction: return after_previous(e - 1, [](long) { return true; });
    case StepUnit::tile_op: {
        // Back over the tile op `e` is in: to just after the last instruction before it.
        const uint16_t w = ev[size_t(e)].warp;
        const uint32_t seq = ev[size_t(e)].op_seq;
        long first = e;
        if (seq != 0)
            for (long f = scan(e - 1, -1, w); f >= 0 && ev[size_t(f)].op_seq == seq; f = scan(f - 1, -1, w)) first = f;
        return after_previous(first - 1, [](long) { return true; });
    }
    case StepUnit::barrier:
        return after_previous(e - 1, [&](long f) { return is_barrier(size_t(f)); });
    }
    return pos_;
}

bool Replay::step(int dir, StepUnit unit, int warp) {
    if (dir > 0) {
        const size_t to = forward_target(unit, warp);
        if (to == pos_) return false;
        history_.push_back({pos_, cycle_, to});
        pos_ = to;
        cycle_ = block().events[pos_ - 1].issue;
        return true;
    }
    // Undo the last forward step when the cursor is still where it left it.
    if (!history_.empty() && history_.back().to == pos_) {
        pos_ = history_.back().from;
        cycle_ = history_.back().from_cycle;
        history_.pop_back();
        return true;
    }
    history_.clear();
    const size_t to = back_target(unit, warp);
    if (to == pos_) return false;
    seek(to);
    return true;
}

void Replay::seek(size_t pos) {
    pos_ = std::min(pos, size());
    cycle_ = pos_ == 0 ? 0 : block().events[pos_ - 1].issue;
    history_.clear();
}

size_t Replay::pos_at_cycle(uint64_t cycle) const {
    return size_t(std::upper_bound(issue_max_.begin(), issue_max_.end(), cycle) - issue_max_.begin());
}

void Replay::seek_cycle(uint64_t cycle) {
    seek(pos_at_cycle(cycle));
    cycle_ = std::max(cycle_, std::min(cycle, end_cycle()));
}

bool Replay::failed_here() const {
    const auto& f = launch().failure;
    return f && f->block == int64_t(block().index);
}

std::optional<std::string> Replay::hits(size_t e, const Breakpoints& bp) const {
    const trace::Block& b = block();
    const trace::Event& ev = b.events[e];
    const std::string where = trace_->where(ev.loc) + " (warp " + std::to_string(ev.warp) + ")";
    if (bp.conflict_way > 0 && ev.smem >= 0 && size_t(ev.smem) < b.smem.size()) {
        const int way = b.smem[size_t(ev.smem)].max_way;
        if (way >= bp.conflict_way) return std::to_string(way) + "-way bank conflict at " + where;
    }
    if (bp.wait_cycles > 0) {
        const uint64_t w = wait_cycles(e);
        if (w >= bp.wait_cycles) return "waited " + std::to_string(w) + " cycles at " + where;
    }
    if (std::find(bp.locs.begin(), bp.locs.end(), ev.loc) != bp.locs.end()) return "line breakpoint at " + where;
    return std::nullopt;
}

std::optional<Hit> Replay::run(int dir, const Breakpoints& bp, int warp) {
    history_.clear();
    const auto& ev = block().events;
    if (dir > 0) {
        for (long e = next(warp); e >= 0; e = scan(e + 1, +1, warp)) {
            if (auto why = hits(size_t(e), bp)) {
                seek(size_t(e) + 1);
                return Hit{e, *why};
            }
        }
        seek(ev.size());
        if (bp.fault && failed_here()) {
            const trace::Failure& f = *launch().failure;
            return Hit{-1, f.kind + " at " + trace_->where(f.loc) + ": " + f.message};
        }
        return std::nullopt;
    }
    // Back: to just after the previous hit, as forward lands just after the
    // next one. The event the cursor stands on does not count, so repeated
    // runs move on.
    const long here = current(warp);
    for (long e = here < 0 ? -1 : scan(here - 1, -1, warp); e >= 0; e = scan(e - 1, -1, warp)) {
        if (auto why = hits(size_t(e), bp)) {
            seek(size_t(e) + 1);
            return Hit{e, *why};
        }
    }
    seek(0);
    return std::nullopt;
}

} // namespace tklab::view
