// Tests for the timeline's level-of-detail index (visualizer/model/timeline_index.h)
// on seeded random blocks, against brute force over each warp's events.
#include <catch2/catch.hpp>

#include "visualizer/model/timeline_index.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>

using namespace tklab;
using view::SliceKind;

namespace {

const std::vector<std::string> kOps = {"ld.shared", "ldmatrix", "mma.sync", "bar.sync", "mbarrier.wait", "cp.async"};
const std::vector<std::string> kStalls = {"none", "long_scoreboard", "barrier", "mio_throttle", "mbarrier"};
enum Op : uint8_t { ld_shared, ldmatrix, mma, bar_sync, mbar_wait, cp_async };
enum Stall : uint8_t { none, long_scoreboard, barrier, mio_throttle, mbarrier };

// What the test knows an event should look like, independently of the index.
struct Expected {
    uint64_t wait_begin, issue, done;
    SliceKind wait, body;
    uint8_t max_way;  // 0: not a shared-memory instruction
    bool barrier;
};

struct Synthetic {
    trace::Block block;
    std::vector<std::vector<Expected>> by_warp;
};

// Warps issue in clock order; a warp waits before issue (a stall) and, at
// bar.sync / mbarrier.wait, after issue until release, as the simulator records.
Synthetic random_block(std::mt19937& rng, int warps, int events) {
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    Synthetic s;
    s.block.timeline = true;
    s.by_warp.resize(size_t(warps));
    std::vector<uint64_t> clock(static_cast<size_t>(warps), 0);
    for (auto& c : clock) c = uint64_t(pick(0, 40));
    for (int i = 0; i < events; ++i) {
        const int w = int(std::min_element(clock.begin(), clock.end()) - clock.begin());
        trace::Event e;
        e.warp = uint16_t(w);
        e.mask = 0xFFFFFFFFu;
        e.loc = uint32_t(pick(1, 5));
        e.op = uint8_t(pick(0, 5));
        const uint32_t before = pick(0, 2) == 0 ? uint32_t(pick(1, 200)) : 0;
        e.issue = clock[size_t(w)] + before;
        Expected x{clock[size_t(w)], e.issue, 0, view::wait_kind(none), view::op_kind(e.op), 0, false};
        if (e.op == bar_sync || e.op == mbar_wait) {
            const uint32_t held = uint32_t(pick(1, 300));
            e.done = e.issue + held;
            e.stall = e.op == bar_sync ? barrier : mbarrier;
            e.stall_cycles = before + held;
            trace::BarrierWait bw;
            bw.arrive = e.issue;
            bw.release = e.done;
            bw.warp = e.warp;
            bw.mbarrier = e.op == mbar_wait;
            s.block.barriers.push_back(bw);
            x.body = view::wait_kind(e.stall);
            x.barrier = true;
        } else {
            e.stall = before ? uint8_t(pick(0, 1) ? long_scoreboard : mio_throttle) : uint8_t(none);
            e.stall_cycles = before;
            e.done = e.issue + uint64_t(pick(1, 40));
        }
        x.wait = view::wait_kind(e.stall);
        x.done = e.done;
        if (e.op == ld_shared || e.op == ldmatrix) {
            trace::SmemAccess a;
            a.event = uint32_t(s.block.events.size());
            a.max_way = uint8_t(1 << pick(0, 5));
            a.ideal = 1;
            a.wavefronts = a.max_way;
            e.smem = int32_t(s.block.smem.size());
            s.block.smem.push_back(a);
            x.max_way = a.max_way;
        }
        clock[size_t(w)] = e.done + uint64_t(pick(0, 1) ? 0 : pick(1, 20));  // sometimes idle in between
        s.block.events.push_back(e);
        s.by_warp[size_t(w)].push_back(x);
    }
    // The recorder appends waits at release, not in arrival order.
    std::shuffle(s.block.barriers.begin(), s.block.barriers.end(), rng);
    for (const auto& e : s.block.events) s.block.cycles = std::max(s.block.cycles, e.done);
    return s;
}

// The kind taking most cycles over events [first, last) (ties: smaller kind).
SliceKind dominant(const std::vector<Expected>& ev, size_t first, size_t last) {
    std::map<SliceKind, uint64_t> cycles;
    for (size_t i = first; i < last; ++i) {
        if (ev[i].issue > ev[i].wait_begin) cycles[ev[i].wait] += ev[i].issue - ev[i].wait_begin;
        cycles[ev[i].body] += ev[i].done - ev[i].issue;
    }
    SliceKind best = cycles.begin()->first;
    for (const auto& [k, c] : cycles)
        if (c > cycles[best]) best = k;
    return best;
}

} // namespace

TEST_CASE("timeline index: slices follow the recorded waits", "[visualizer][timeline]") {
    std::mt19937 rng(20240611);
    const Synthetic s = random_block(rng, 4, 600);
    const view::TimelineIndex ix(s.block, 4, kOps, kStalls);
    REQUIRE(ix.warps() == 4);
    for (int w = 0; w < 4; ++w) {
        const auto& want = s.by_warp[size_t(w)];
        REQUIRE(ix.events(w).size() == want.size());
        for (size_t i = 0; i < want.size(); ++i) {
            INFO("warp " << w << " event " << i);
            REQUIRE(s.block.events[ix.events(w)[i]].warp == w);
            const view::EventSlices got = ix.slices(w, i);
            CHECK(got.wait_begin == want[i].wait_begin);
            CHECK(got.issue == want[i].issue);
            CHECK(got.done == want[i].done);
            CHECK(got.body == want[i].body);
            CHECK((got.barrier >= 0) == want[i].barrier);
            if (got.barrier >= 0) CHECK(s.block.barriers[size_t(got.barrier)].arrive == want[i].issue);
            if (want[i].issue > want[i].wait_begin) CHECK(got.wait == want[i].wait);
        }
    }
}

TEST_CASE("timeline index: every level's spans summarise exactly their events", "[visualizer][timeline]") {
    std::mt19937 rng(7);
    for (int events : {1, 2, 3, 5, 64, 777}) {
        const Synthetic s = random_block(rng, 3, events);
        const view::TimelineIndex ix(s.block, 4, kOps, kStalls);  // warp 3 has no events
        REQUIRE(ix.levels(3) == 0);
        for (int w = 0; w < 3; ++w) {
            const auto& ev = s.by_warp[size_t(w)];
            if (ev.empty()) { CHECK(ix.levels(w) == 0); continue; }
            REQUIRE(ix.levels(w) >= 1);
            CHECK(ix.spans(w, ix.levels(w) - 1) == 1);  // one span at the top
            for (int level = 0; level < ix.levels(w); ++level) {
                const size_t width = size_t(1) << level;
                REQUIRE(ix.spans(w, level) == (ev.size() + width - 1) / width);
                uint64_t widest = 0;
                for (size_t i = 0; i < ix.spans(w, level); ++i) {
                    INFO("events " << events << " warp " << w << " level " << level << " span " << i);
                    const size_t first = i * width, last = std::min(ev.size(), first + width);
                    uint64_t lo = UINT64_MAX, hi = 0;
                    uint8_t way = 0;
                    bool bar = false;
                    for (size_t e = first; e < last; ++e) {
                        lo = std::min(lo, ev[e].wait_begin);
                        hi = std::max(hi, ev[e].done);
                        way = std::max(way, ev[e].max_way);
                        bar = bar || ev[e].barrier;
                    }
                    const view::TimelineSpan sp = ix.span(w, level, i);
                    CHECK(sp.begin == lo);
                    CHECK(sp.end == hi);
                    CHECK(sp.max_way == way);
                    CHECK(sp.barrier == bar);
                    CHECK(sp.kind == dominant(ev, first, last));
                    widest = std::max(widest, hi - lo);
                }
                CHECK(ix.widest(w, level) == widest);
            }
        }
    }
}

TEST_CASE("timeline index: level_for picks the coarsest level no wider than a pixel", "[visualizer][timeline]") {
    std::mt19937 rng(99);
    const Synthetic s = random_block(rng, 2, 2000);
    const view::TimelineIndex ix(s.block, 2, kOps, kStalls);
    for (int trial = 0; trial < 200; ++trial) {
        const double cpp = std::exp(std::uniform_real_distribution<double>(0, 12)(rng));
        for (int w = 0; w < 2; ++w) {
            const int level = ix.level_for(w, cpp);
            INFO("cycles per pixel " << cpp << " warp " << w << " level " << level);
            REQUIRE(level >= 0);
            REQUIRE(level < ix.levels(w));
            if (level > 0)
                for (size_t i = 0; i < ix.spans(w, level); ++i) {
                    const view::TimelineSpan sp = ix.span(w, level, i);
                    CHECK(double(sp.end - sp.begin) <= cpp);
                }
            if (level + 1 < ix.levels(w)) {  // the next level up is too coarse
                bool wider = false;
                for (size_t i = 0; i < ix.spans(w, level + 1); ++i) {
                    const view::TimelineSpan sp = ix.span(w, level + 1, i);
                    wider = wider || double(sp.end - sp.begin) > cpp;
                }
                CHECK(wider);
            }
        }
    }
}

TEST_CASE("timeline index: a visit covers each visible event once, in order", "[visualizer][timeline]") {
    std::mt19937 rng(4242);
    const Synthetic s = random_block(rng, 3, 1500);
    const view::TimelineIndex ix(s.block, 3, kOps, kStalls);
    for (int trial = 0; trial < 300; ++trial) {
        const int w = std::uniform_int_distribution<int>(0, 2)(rng);
        const auto& ev = s.by_warp[size_t(w)];
        const uint64_t end = ev.back().done;
        uint64_t t0 = std::uniform_int_distribution<uint64_t>(0, end)(rng);
        uint64_t t1 = std::uniform_int_distribution<uint64_t>(0, end)(rng);
        if (t0 > t1) std::swap(t0, t1);
        const double min_cycles = std::exp(std::uniform_real_distribution<double>(-1, 9)(rng));
        std::vector<int> covered(ev.size(), 0);
        long next = -1;  // the first event the next emitted span may start at
        bool ordered = true, narrow = true, visible = true;
        ix.visit(w, t0, t1, min_cycles, [&](int level, size_t i, const view::TimelineSpan& sp) {
            const size_t first = i << level, last = std::min(ev.size(), (i + 1) << level);
            if (long(first) < next) ordered = false;
            next = long(last);
            for (size_t e = first; e < last; ++e) ++covered[e];
            if (level > 0 && double(sp.end - sp.begin) > min_cycles) narrow = false;
            if (sp.end < t0 || sp.begin > t1) visible = false;
        });
        INFO("warp " << w << " window " << t0 << ".." << t1 << " min " << min_cycles);
        CHECK(ordered);
        CHECK(narrow);
        CHECK(visible);
        for (size_t e = 0; e < ev.size(); ++e) {
            const bool in_window = ev[e].done >= t0 && ev[e].wait_begin <= t1;
            if (in_window) CHECK(covered[e] == 1);
            else CHECK(covered[e] <= 1);  // only as part of a span that reaches the window
        }
    }
}

TEST_CASE("timeline index: event_at finds the event under a cycle", "[visualizer][timeline]") {
    std::mt19937 rng(31337);
    const Synthetic s = random_block(rng, 2, 400);
    const view::TimelineIndex ix(s.block, 2, kOps, kStalls);
    for (int w = 0; w < 2; ++w) {
        const auto& ev = s.by_warp[size_t(w)];
        for (uint64_t c = 0; c <= ev.back().done + 30; c += 3) {
            long inside = -1;
            for (size_t e = 0; e < ev.size(); ++e)
                if (ev[e].wait_begin <= c && c < ev[e].done) inside = long(e);
            const long got = ix.event_at(w, c, 0);
            INFO("warp " << w << " cycle " << c);
            if (inside >= 0) CHECK(got == inside);
            else CHECK((got < 0 || ev[size_t(got)].done == c || ev[size_t(got)].wait_begin == c));
            // With slack, a cycle in a gap finds a neighbour no further than the slack.
            const long near = ix.event_at(w, c, 25);
            if (near >= 0) {
                const auto& x = ev[size_t(near)];
                const uint64_t gap = c < x.wait_begin ? x.wait_begin - c : (c >= x.done ? c - x.done : 0);
                CHECK(gap <= 25);
            }
        }
        CHECK(ix.event_at(w, ev.back().done + 1000, 10) == -1);
    }
}

TEST_CASE("timeline index: a block without events, and a trace's block", "[visualizer][timeline]") {
    trace::Trace t;
    t.ops = kOps;
    t.stalls = kStalls;
    trace::Launch l;
    l.block = {64, 1, 1};
    trace::Block empty;
    empty.timeline = true;
    l.blocks.push_back(empty);
    std::mt19937 rng(5);
    l.blocks.push_back(random_block(rng, 2, 50).block);
    t.launches.push_back(l);

    const view::TimelineIndex none(t, 0, 0);
    REQUIRE(none.warps() == 2);  // from the launch's shape
    int emitted = 0;
    for (int w = 0; w < 2; ++w) {
        CHECK(none.levels(w) == 0);
        CHECK(none.event_at(w, 0, 100) == -1);
        none.visit(w, 0, 1000, 1, [&](int, size_t, const view::TimelineSpan&) { ++emitted; });
    }
    CHECK(emitted == 0);

    const view::TimelineIndex some(t, 0, 1);
    CHECK(some.events(0).size() + some.events(1).size() == 50);
    CHECK(some.end_cycle() == t.launches[0].blocks[1].cycles);
    CHECK_THROWS(view::TimelineIndex(t, 0, 2));
}

TEST_CASE("timeline index: slice kinds pack an op or a wait", "[visualizer][timeline]") {
    for (int i = 0; i < 256; ++i) {
        CHECK_FALSE(view::is_wait(view::op_kind(uint8_t(i))));
        CHECK(view::is_wait(view::wait_kind(uint8_t(i))));
        CHECK(view::kind_index(view::op_kind(uint8_t(i))) == i);
        CHECK(view::kind_index(view::wait_kind(uint8_t(i))) == i);
    }
}

TEST_CASE("timeline index: a GPU trace's regions are kinds of their own, one per name", "[visualizer][timeline]") {
    // Two warps, each with seeded regions named 1..200 (past the 8-bit op and wait kinds' range of tallies).
    std::mt19937 rng(17);
    trace::Block b;
    b.timeline = true;
    const std::vector<std::string> ops = {"ld.shared", "region"};
    std::vector<uint64_t> clock(2, 0);
    for (int i = 0; i < 400; ++i) {
        trace::Event e;
        e.warp = uint16_t(i % 2);
        e.op = 1;
        e.op_name = uint16_t(1 + rng() % 200);
        e.issue = clock[e.warp];
        e.done = e.issue + 1 + rng() % 50;
        clock[e.warp] = e.done;
        b.events.push_back(e);
    }
    b.cycles = std::max(clock[0], clock[1]);
    const view::TimelineIndex idx(b, 2, ops, kStalls);
    for (int w = 0; w < 2; ++w) {
        const auto& events = idx.events(w);
        for (size_t i = 0; i < events.size(); ++i) {
            const SliceKind body = idx.slices(w, i).body;
            CHECK(view::is_named(body));
            CHECK_FALSE(view::is_wait(body));
            CHECK(view::kind_index(body) == (b.events[events[i]].op_name & 0xff));
        }
        // Coarser levels summarise with the same kinds (the tally has room for them).
        for (int level = 1; level < idx.levels(w); ++level)
            for (size_t i = 0; i < idx.spans(w, level); ++i) CHECK(view::is_named(idx.span(w, level, i).kind));
    }
    // An ordinary op stays an op kind.
    b.events[0].op = 0;
    const view::TimelineIndex mixed(b, 2, ops, kStalls);
    CHECK(mixed.slices(0, 0).body == view::op_kind(0));
}
