// Tests for the statistics of a span of cycles (visualizer/model/range_stats.h),
// against a reference that walks the span one cycle at a time.
#include <catch2/catch.hpp>

#include "visualizer/model/range_stats.h"

#include <algorithm>
#include <random>

using namespace tklab;

namespace {

enum Op : uint8_t { ld_shared, st_shared, ldmatrix, stmatrix, mma, bar_sync };
enum Stall : uint8_t { none, barrier, mbarrier, long_scoreboard, mio_throttle };

trace::Trace make_trace() {
    trace::Trace t;
    t.ops = {"ld.shared", "st.shared", "ldmatrix", "stmatrix", "mma.sync", "bar.sync"};
    t.stalls = {"none", "barrier", "mbarrier", "long_scoreboard", "mio_throttle"};
    return t;
}

// Warps issuing in clock order: stalls before issue, barrier waits after it
// (as the simulator records them), shared-memory accesses with conflicts.
trace::Block random_block(std::mt19937& rng, int warps, int events) {
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    trace::Block b;
    b.timeline = true;
    std::vector<uint64_t> clock(size_t(warps), 0);
    for (int w = 0; w < warps; ++w) clock[size_t(w)] = uint64_t(pick(0, 30));
    for (int i = 0; i < events; ++i) {
        const int w = int(std::min_element(clock.begin(), clock.end()) - clock.begin());
        trace::Event e;
        e.warp = uint16_t(w);
        e.mask = 0xFFFFFFFFu;
        e.loc = uint32_t(pick(1, 6));
        e.op = uint8_t(pick(0, 5));
        if (e.op == bar_sync) {
            e.issue = clock[size_t(w)];
            const uint32_t wait = uint32_t(pick(0, 150));
            e.done = e.issue + wait;
            e.stall = wait ? uint8_t(pick(0, 1) ? barrier : mbarrier) : uint8_t(none);
            e.stall_cycles = wait;
            trace::BarrierWait bw;
            bw.arrive = e.issue;
            bw.release = e.done;
            bw.warp = e.warp;
            bw.mbarrier = e.stall == mbarrier;
            b.barriers.push_back(bw);
        } else {
            const bool stalled = pick(0, 2) == 0;
            e.stall = stalled ? uint8_t(pick(0, 1) ? long_scoreboard : mio_throttle) : uint8_t(none);
            e.stall_cycles = stalled ? uint32_t(pick(1, 60)) : 0;
            e.issue = clock[size_t(w)] + e.stall_cycles;
            e.done = e.issue + uint64_t(pick(1, 8));
        }
        if (e.op <= stmatrix) {
            trace::SmemAccess s;
            s.event = uint32_t(b.events.size());
            s.ideal = uint16_t(1 << pick(0, 2));
            s.max_way = uint8_t(pick(0, 1) ? 1 << pick(1, 5) : 1);
            s.wavefronts = uint16_t(s.ideal * s.max_way);
            e.smem = int32_t(b.smem.size());
            b.smem.push_back(s);
        }
        clock[size_t(w)] = e.done;
        b.events.push_back(e);
        b.cycles = std::max(b.cycles, e.done);
    }
    b.instructions = b.events.size();
    return b;
}

// The same figures, one cycle at a time: is cycle c inside the wait?
view::RangeStats reference(const trace::Trace& t, const trace::Block& b, int warps, uint64_t begin, uint64_t end) {
    view::RangeStats r;
    r.warps = warps;
    r.by_op.assign(t.ops.size(), 0);
    r.stall_cycles.assign(t.stalls.size(), 0);
    r.warp_instructions.assign(size_t(warps), 0);
    r.warp_stall_cycles.assign(size_t(warps), 0);
    trace::SmemTotals* kinds[] = {&r.ld_shared, &r.st_shared, &r.ldmatrix, &r.stmatrix};
    for (const trace::Event& e : b.events) {
        const bool after_issue = e.stall == barrier || e.stall == mbarrier;
        const uint64_t stop = after_issue ? e.done : e.issue, start = stop - e.stall_cycles;
        for (uint64_t c = begin; c < end; ++c)
            if (e.stall != none && c >= start && c < stop) {
                r.stall_cycles[e.stall]++;
                r.warp_stall_cycles[e.warp]++;
            }
        if (e.issue >= begin && e.issue < end) {
            r.instructions++;
            r.by_op[e.op]++;
            r.warp_instructions[e.warp]++;
            if (e.op <= stmatrix) {
                const trace::SmemAccess& s = b.smem[size_t(e.smem)];
                kinds[e.op]->instructions++;
                kinds[e.op]->wavefronts += s.wavefronts;
                kinds[e.op]->ideal += s.ideal;
                kinds[e.op]->max_way = std::max(kinds[e.op]->max_way, int(s.max_way));
            }
        }
    }
    for (const trace::BarrierWait& w : b.barriers) {
        uint64_t in = 0;
        for (uint64_t c = begin; c < end; ++c) in += c >= w.arrive && c < w.release;
        if (in > 0 || (w.arrive >= begin && w.arrive < end)) r.barrier_waits++;
        r.barrier_wait_cycles += in;
    }
    for (uint64_t n : r.warp_instructions) r.active_warps += n > 0;
    return r;
}

void check_same(const view::RangeStats& got, const view::RangeStats& want) {
    CHECK(got.instructions == want.instructions);
    CHECK(got.by_op == want.by_op);
    CHECK(got.stall_cycles == want.stall_cycles);
    CHECK(got.warp_instructions == want.warp_instructions);
    CHECK(got.warp_stall_cycles == want.warp_stall_cycles);
    CHECK(got.ld_shared == want.ld_shared);
    CHECK(got.st_shared == want.st_shared);
    CHECK(got.ldmatrix == want.ldmatrix);
    CHECK(got.stmatrix == want.stmatrix);
    CHECK(got.barrier_waits == want.barrier_waits);
    CHECK(got.barrier_wait_cycles == want.barrier_wait_cycles);
    CHECK(got.active_warps == want.active_warps);
    CHECK(got.warps == want.warps);
}

} // namespace

TEST_CASE("range stats match a cycle-by-cycle count", "[visualizer][stats]") {
    const trace::Trace t = make_trace();
    for (uint32_t seed : {11u, 12u, 13u, 14u}) {
        std::mt19937 rng(seed);
        const int warps = std::uniform_int_distribution<int>(2, 8)(rng);
        const trace::Block b = random_block(rng, warps, 600);
        std::uniform_int_distribution<uint64_t> cycle(0, b.cycles + 50);
        for (int i = 0; i < 25; ++i) {
            uint64_t lo = cycle(rng), hi = cycle(rng);
            if (lo > hi) std::swap(lo, hi);
            INFO("seed " << seed << " range [" << lo << ", " << hi << ")");
            const view::RangeStats got = view::range_stats(t, b, warps, lo, hi);
            CHECK(got.begin == lo);
            CHECK(got.end == hi);
            CHECK(got.cycles() == hi - lo);
            check_same(got, reference(t, b, warps, lo, hi));
        }
    }
}

TEST_CASE("range stats over the whole block count everything, ranges add up", "[visualizer][stats]") {
    const trace::Trace t = make_trace();
    std::mt19937 rng(21);
    const trace::Block b = random_block(rng, 4, 800);
    const view::RangeStats all = view::range_stats(t, b, 4, 0, b.cycles + 1);
    CHECK(all.instructions == b.events.size());
    CHECK(all.active_warps == 4);
    std::vector<uint64_t> stalls(t.stalls.size(), 0);
    uint64_t smem_wavefronts = 0, waits = 0;
    for (const trace::Event& e : b.events) stalls[e.stall] += e.stall_cycles;
    for (const trace::SmemAccess& s : b.smem) smem_wavefronts += s.wavefronts;
    for (const trace::BarrierWait& w : b.barriers) waits += w.release - w.arrive;
    stalls[none] = 0;
    CHECK(all.stall_cycles == stalls);
    CHECK(all.ld_shared.wavefronts + all.st_shared.wavefronts + all.ldmatrix.wavefronts + all.stmatrix.wavefronts ==
          smem_wavefronts);
    CHECK(all.barrier_wait_cycles == waits);
    CHECK(all.barrier_waits == b.barriers.size());

    // Splitting a range in two splits every count (waits straddling the cut included).
    for (uint64_t cut : {uint64_t(1), b.cycles / 3, b.cycles / 2, b.cycles - 1}) {
        const view::RangeStats a = view::range_stats(t, b, 4, 0, cut), z = view::range_stats(t, b, 4, cut, b.cycles + 1);
        INFO("cut at " << cut);
        CHECK(a.instructions + z.instructions == all.instructions);
        CHECK(a.barrier_wait_cycles + z.barrier_wait_cycles == all.barrier_wait_cycles);
        CHECK(a.stall_total() + z.stall_total() == all.stall_total());
        CHECK(a.ldmatrix.wavefronts + z.ldmatrix.wavefronts == all.ldmatrix.wavefronts);
    }
}

TEST_CASE("range stats of an empty range or block", "[visualizer][stats]") {
    const trace::Trace t = make_trace();
    std::mt19937 rng(31);
    const trace::Block b = random_block(rng, 3, 100);
    const view::RangeStats empty = view::range_stats(t, b, 3, 50, 50);
    CHECK(empty.instructions == 0);
    CHECK(empty.stall_total() == 0);
    CHECK(empty.barrier_wait_cycles == 0);
    CHECK(empty.cycles() == 0);
    const view::RangeStats backwards = view::range_stats(t, b, 3, 80, 20);  // an inverted range is empty
    CHECK(backwards.cycles() == 0);
    CHECK(backwards.instructions == 0);
    const view::RangeStats none = view::range_stats(t, trace::Block{}, 4, 0, 1000);
    CHECK(none.instructions == 0);
    CHECK(none.active_warps == 0);
    CHECK(none.warps == 4);
    CHECK(none.by_op.size() == t.ops.size());
}
