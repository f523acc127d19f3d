// A level-of-detail index over one block's timeline, so the timeline panel
// draws a block at any zoom in time proportional to its pixels, not to its
// events. Per warp, level k holds spans of 2^k consecutive events of that
// warp (level 0: single events), each summarising its events: first and
// last cycle, what took most of their cycles, the worst bank conflict and
// whether a barrier wait is inside. Drawing walks down from the top level and
// stops at the first span narrower than a pixel. No ImGui here: the tests
// build it from synthetic blocks.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>
#include "trace/trace.h"

namespace tklab::view {

// What a slice shows: an instruction (by Trace::ops index) or a wait (by
// Trace::stalls index), packed in 16 bits so spans stay small.
using SliceKind = uint16_t;
constexpr SliceKind kWaitBit = 0x100;
constexpr SliceKind op_kind(uint8_t op) { return op; }
constexpr SliceKind wait_kind(uint8_t stall) { return SliceKind(kWaitBit | stall); }
constexpr bool is_wait(SliceKind k) { return (k & kWaitBit) != 0; }
// A GPU trace's region (op "region"): coloured by its name, Trace::op_names' index.
constexpr SliceKind kNamedBit = 0x200;
constexpr SliceKind named_kind(uint16_t op_name) { return SliceKind(kNamedBit | (op_name & 0xff)); }
constexpr bool is_named(SliceKind k) { return (k & kNamedBit) != 0; }
constexpr size_t kSliceKinds = kNamedBit + 0x100;  // every SliceKind is below this
constexpr uint8_t kind_index(SliceKind k) { return uint8_t(k & 0xff); }

struct TimelineSpan {
    uint64_t begin = 0;       // the earliest cycle of its events, waits before issue included
    uint64_t end = 0;         // the latest `done` of its events
    SliceKind kind = 0;       // what took the most cycles (ties: the smaller kind)
    uint8_t max_way = 0;      // worst bank-conflict degree of its shared-memory instructions, 0: none
    bool barrier = false;     // holds a bar.sync / mbarrier wait (drawn hatched)
};

// One event cut into what the timeline draws: [wait_begin, issue) waiting
// before issue, then [issue, done) the instruction, or, for a barrier or
// mbarrier wait, the wait from arrival to release.
struct EventSlices {
    uint64_t wait_begin = 0, issue = 0, done = 0;
    SliceKind wait = 0;       // the reason for the wait before issue
    SliceKind body = 0;       // the op, or the barrier wait's reason
    long barrier = -1;        // Block::barriers index of its wait, -1 when none
};

class TimelineIndex {
public:
    // `warps`: the launch's warps per block (more when events name higher
    // warps); `stalls`: Trace::stalls, to find "barrier" and "mbarrier";
    // `ops`: Trace::ops, to tell which instructions wait at barriers.
    TimelineIndex(const trace::Block& block, int warps, const std::vector<std::string>& ops,
                  const std::vector<std::string>& stalls);
    TimelineIndex(const trace::Trace& trace, uint32_t launch, uint32_t block);

    const trace::Block& block() const { return *block_; }
    int warps() const { return int(warps_.size()); }
    // Block::events indices of one warp's events, in order.
    const std::vector<uint32_t>& events(int warp) const { return warps_[size_t(warp)].events; }
    uint64_t end_cycle() const { return end_cycle_; }

    // Levels of a warp: 0 when it has no events, else 1 + the top level, which has one span.
    int levels(int warp) const;
    size_t spans(int warp, int level) const;
    // Span i of a level: the warp's events [i << level, (i + 1) << level).
    TimelineSpan span(int warp, int level, size_t i) const;
    // The widest span of a level, in cycles.
    uint64_t widest(int warp, int level) const;
    // The highest level whose spans are all at most `cycles_per_pixel` wide (0 when none is).
    int level_for(int warp, double cycles_per_pixel) const;

    // The warp's i-th event as slices.
    EventSlices slices(int warp, size_t i) const;
    // The warp's event (index into events(warp)) whose slices cover `cycle`,
    // else the nearest one within `slack` cycles; -1 when none.
    long event_at(int warp, uint64_t cycle, uint64_t slack) const;

    // Calls emit(level, i, span) in time order for what to draw of a warp in
    // [t0, t1]: single events that are wider than `min_cycles`, otherwise
    // the largest span that is at most `min_cycles` wide. Each event in the
    // window is covered exactly once.
    template <class F>
    void visit(int warp, uint64_t t0, uint64_t t1, double min_cycles, F&& emit) const {
        const int top = levels(warp) - 1;
        if (top < 0) return;
        for (size_t i = 0; i < spans(warp, top); ++i) visit_span(warp, top, i, t0, t1, min_cycles, emit);
    }

private:
    template <class F>
    void visit_span(int warp, int level, size_t i, uint64_t t0, uint64_t t1, double min_cycles, F& emit) const {
        const TimelineSpan s = span(warp, level, i);
        if (s.end < t0 || s.begin > t1) return;
        if (level == 0 || double(s.end - s.begin) <= min_cycles) {
            emit(level, i, s);
            return;
        }
        visit_span(warp, level - 1, 2 * i, t0, t1, min_cycles, emit);
        if (2 * i + 1 < spans(warp, level - 1)) visit_span(warp, level - 1, 2 * i + 1, t0, t1, min_cycles, emit);
    }

    void build(const std::vector<std::string>& ops, const std::vector<std::string>& stalls);
    TimelineSpan leaf(int warp, size_t i) const;  // level 0's span i, from the event

    struct Warp {
        std::vector<uint32_t> events;               // Block::events indices
        std::vector<int32_t> barrier;               // per event: Block::barriers index, -1
        std::vector<std::vector<TimelineSpan>> levels;  // 0 (one per event), 1, 2, ...
        std::vector<uint64_t> widest;               // per level, 0 included
    };
    const trace::Block* block_;
    std::vector<Warp> warps_;
    uint64_t end_cycle_ = 0;
    int barrier_stall_ = -1, mbarrier_stall_ = -1;  // Trace::stalls indices, -1 when absent
    int region_op_ = -1;                             // Trace::ops index of "region" (GPU traces), -1 when absent
};

} // namespace tklab::view
