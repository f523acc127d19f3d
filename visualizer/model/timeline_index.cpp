#include "visualizer/model/timeline_index.h"
#include <algorithm>

namespace tklab::view {

namespace {

// Instructions whose warp waits at a barrier until it is released; the trace
// keeps that wait as a Block::barriers row.
bool waits_at_barrier(const std::string& op) {
    return op.rfind("bar.sync", 0) == 0 || op.rfind("barrier.sync", 0) == 0 ||
           (op.rfind("mbarrier.", 0) == 0 && op.find("wait") != std::string::npos);
}

int index_of(const std::vector<std::string>& names, const char* name) {
    const auto it = std::find(names.begin(), names.end(), name);
    return it == names.end() ? -1 : int(it - names.begin());
}

// What an event contributes to a span's "what took most cycles".
struct Parts {
    SliceKind wait, body;
    uint64_t wait_cycles, body_cycles;
};

// Cycles per kind over a run of events; picks the largest (ties: smaller kind).
class KindTally {
public:
    void add(const Parts& p) {
        if (p.wait_cycles > 0) add(p.wait, p.wait_cycles);
        add(p.body, p.body_cycles);
    }
    SliceKind take() {
        SliceKind best = 0;
        uint64_t most = 0;
        bool any = false;
        for (SliceKind k : touched_) {
            if (!any || cycles_[k] > most || (cycles_[k] == most && k < best)) { best = k; most = cycles_[k]; any = true; }
            cycles_[k] = 0;
            seen_[k] = false;
        }
        touched_.clear();
        return best;
    }

private:
    void add(SliceKind k, uint64_t c) {
        if (!seen_[k]) { seen_[k] = true; touched_.push_back(k); }
        cycles_[k] += c;
    }
    std::vector<uint64_t> cycles_ = std::vector<uint64_t>(kSliceKinds, 0);
    std::vector<bool> seen_ = std::vector<bool>(kSliceKinds, false);
    std::vector<SliceKind> touched_;
};

} // namespace

TimelineIndex::TimelineIndex(const trace::Block& block, int warps, const std::vector<std::string>& ops,
                             const std::vector<std::string>& stalls)
    : block_(&block) {
    warps_.resize(size_t(std::max(warps, 0)));
    build(ops, stalls);
}

TimelineIndex::TimelineIndex(const trace::Trace& trace, uint32_t launch, uint32_t block)
    : TimelineIndex(trace.launches.at(launch).blocks.at(block), int(trace.launches[launch].warps_per_block()),
                    trace.ops, trace.stalls) {}

void TimelineIndex::build(const std::vector<std::string>& ops, const std::vector<std::string>& stalls) {
    const trace::Block& b = *block_;
    barrier_stall_ = index_of(stalls, "barrier");
    mbarrier_stall_ = index_of(stalls, "mbarrier");
    region_op_ = index_of(ops, "region");
    for (size_t i = 0; i < b.events.size(); ++i) {
        const trace::Event& e = b.events[i];
        if (e.warp >= warps_.size()) warps_.resize(size_t(e.warp) + 1);
        warps_[e.warp].events.push_back(uint32_t(i));
        end_cycle_ = std::max({end_cycle_, e.done, e.issue});
    }
    end_cycle_ = std::max(end_cycle_, b.cycles);

    // A warp's waits come in its program order; each belongs to the barrier
    // instruction that issued when the wait began.
    std::vector<std::vector<uint32_t>> waits(warps_.size());
    for (size_t i = 0; i < b.barriers.size(); ++i)
        if (b.barriers[i].warp < warps_.size()) waits[b.barriers[i].warp].push_back(uint32_t(i));
    for (size_t w = 0; w < warps_.size(); ++w) {
        auto& list = waits[w];
        std::stable_sort(list.begin(), list.end(),
                         [&](uint32_t x, uint32_t y) { return b.barriers[x].arrive < b.barriers[y].arrive; });
        Warp& wp = warps_[w];
        wp.barrier.assign(wp.events.size(), -1);
        size_t k = 0;
        for (size_t i = 0; i < wp.events.size(); ++i) {
            const trace::Event& e = b.events[wp.events[i]];
            if (e.op >= ops.size() || !waits_at_barrier(ops[e.op])) continue;
            while (k < list.size() && b.barriers[list[k]].arrive < e.issue) ++k;
            if (k < list.size() && b.barriers[list[k]].arrive <= std::max(e.done, e.issue))
                wp.barrier[i] = int32_t(list[k++]);
        }
    }

    KindTally tally;
    for (size_t w = 0; w < warps_.size(); ++w) {
        Warp& wp = warps_[w];
        const size_t n = wp.events.size();
        if (n == 0) continue;
        std::vector<Parts> parts(n);
        std::vector<TimelineSpan> below(n);
        uint64_t widest0 = 0;
        for (size_t i = 0; i < n; ++i) {
            const EventSlices s = slices(int(w), i);
            parts[i] = {s.wait, s.body, s.issue - s.wait_begin, s.done - s.issue};
            below[i] = leaf(int(w), i);
            widest0 = std::max(widest0, below[i].end - below[i].begin);
        }
        wp.widest.push_back(widest0);
        wp.levels.push_back(below);
        for (int level = 1; below.size() > 1; ++level) {
            std::vector<TimelineSpan> up((below.size() + 1) / 2);
            uint64_t widest = 0;
            for (size_t i = 0; i < up.size(); ++i) {
                TimelineSpan s = below[2 * i];
                if (2 * i + 1 < below.size()) {
                    const TimelineSpan& r = below[2 * i + 1];
                    s.begin = std::min(s.begin, r.begin);
                    s.end = std::max(s.end, r.end);
                    s.max_way = std::max(s.max_way, r.max_way);
                    s.barrier = s.barrier || r.barrier;
                }
                const size_t first = i << level, last = std::min(n, (i + 1) << level);
                for (size_t e = first; e < last; ++e) tally.add(parts[e]);
                s.kind = tally.take();
                up[i] = s;
                widest = std::max(widest, s.end - s.begin);
            }
            wp.widest.push_back(widest);
            below = up;
            wp.levels.push_back(std::move(up));
        }
    }
}

int TimelineIndex::levels(int warp) const {
    const Warp& w = warps_[size_t(warp)];
    return int(w.levels.size());
}

size_t TimelineIndex::spans(int warp, int level) const {
    const Warp& w = warps_[size_t(warp)];
    return w.levels[size_t(level)].size();
}

TimelineSpan TimelineIndex::span(int warp, int level, size_t i) const {
    return warps_[size_t(warp)].levels[size_t(level)][i];
}

uint64_t TimelineIndex::widest(int warp, int level) const { return warps_[size_t(warp)].widest[size_t(level)]; }

int TimelineIndex::level_for(int warp, double cycles_per_pixel) const {
    const Warp& w = warps_[size_t(warp)];
    int level = 0;
    while (size_t(level) + 1 < w.widest.size() && double(w.widest[size_t(level) + 1]) <= cycles_per_pixel) ++level;
    return level;
}

EventSlices TimelineIndex::slices(int warp, size_t i) const {
    const Warp& w = warps_[size_t(warp)];
    const trace::Event& e = block_->events[w.events[i]];
    EventSlices s;
    s.issue = e.issue;
    s.done = std::max(e.done, e.issue);
    s.wait = wait_kind(e.stall);
    s.body = region_op_ >= 0 && e.op == region_op_ ? named_kind(e.op_name) : op_kind(e.op);
    uint64_t before = e.stall_cycles;
    if (w.barrier[i] >= 0) {
        // The recorded stall counts the barrier wait too; only the rest came before issue.
        const trace::BarrierWait& r = block_->barriers[size_t(w.barrier[i])];
        const uint64_t held = r.release > r.arrive ? r.release - r.arrive : 0;
        before = before > held ? before - held : 0;
        const int reason = r.mbarrier ? mbarrier_stall_ : barrier_stall_;
        s.body = wait_kind(reason >= 0 ? uint8_t(reason) : e.stall);
        s.barrier = w.barrier[i];
    }
    s.wait_begin = e.issue - std::min<uint64_t>(before, e.issue);
    return s;
}

TimelineSpan TimelineIndex::leaf(int warp, size_t i) const {
    const EventSlices s = slices(warp, i);
    const trace::Event& e = block_->events[warps_[size_t(warp)].events[i]];
    TimelineSpan t;
    t.begin = s.wait_begin;
    t.end = s.done;
    const uint64_t before = s.issue - s.wait_begin, body = s.done - s.issue;
    t.kind = before > body || (before == body && before > 0 && s.wait < s.body) ? s.wait : s.body;
    if (e.smem >= 0 && size_t(e.smem) < block_->smem.size()) t.max_way = std::max<uint8_t>(1, block_->smem[size_t(e.smem)].max_way);
    t.barrier = s.barrier >= 0;
    return t;
}

long TimelineIndex::event_at(int warp, uint64_t cycle, uint64_t slack) const {
    if (warp < 0 || size_t(warp) >= warps_.size()) return -1;
    const auto& ev = warps_[size_t(warp)].events;
    if (ev.empty()) return -1;
    // Events of a warp follow each other: `done` does not decrease.
    const auto it = std::partition_point(ev.begin(), ev.end(), [&](uint32_t k) {
        const trace::Event& e = block_->events[k];
        return std::max(e.done, e.issue) <= cycle;
    });
    const long i = long(it - ev.begin());
    uint64_t best_gap = slack + 1;
    long best = -1;
    if (i < long(ev.size())) {
        const EventSlices s = slices(warp, size_t(i));
        const uint64_t gap = s.wait_begin > cycle ? s.wait_begin - cycle : 0;
        if (gap <= slack) { best = i; best_gap = gap; }
    }
    if (i > 0) {
        const EventSlices s = slices(warp, size_t(i - 1));
        const uint64_t gap = cycle >= s.done ? cycle - s.done : 0;
        if (gap < best_gap && gap <= slack) best = i - 1;
    }
    return best;
}

} // namespace tklab::view
