// Tests for grouping a block's barrier waits into episodes (visualizer/model/barrier_episodes.h).
#include <catch2/catch.hpp>

#include "visualizer/model/barrier_episodes.h"

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <tuple>

using namespace tklab;
using tklab::view::BarrierEpisode;

namespace {

// What the generator knows about each episode it made, to check the grouping against.
struct Truth {
    bool mbarrier;
    uint32_t barrier;  // bar.sync id or mbarrier address
    uint32_t phase;
    uint64_t release;
    uint16_t last_warp;
    std::vector<std::pair<uint64_t, uint16_t>> arrivals;  // (arrive, warp)
};

// Episodes of bar.sync ids and mbarriers, several of them overlapping in
// time, with their records shuffled (the grouping must not rely on order).
trace::Block random_block(std::mt19937& rng, int episodes, std::vector<Truth>& truth) {
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    trace::Block b;
    b.timeline = true;
    const int warps = pick(3, 8);
    std::map<uint32_t, uint32_t> next_phase;
    uint64_t t = uint64_t(pick(1, 50));
    for (int k = 0; k < episodes; ++k) {
        Truth tr;
        tr.mbarrier = pick(0, 2) == 0;
        tr.barrier = tr.mbarrier ? uint32_t(0x100 + 8 * pick(0, 2)) : uint32_t(pick(0, 3));
        tr.phase = tr.mbarrier ? next_phase[tr.barrier]++ : 0;
        // Some warps take part (all of them for bar.sync 0, as __syncthreads does).
        std::vector<int> who;
        for (int w = 0; w < warps; ++w)
            if (!tr.mbarrier && tr.barrier == 0 ? true : pick(0, 2) != 0) who.push_back(w);
        if (who.empty()) who.push_back(pick(0, warps - 1));
        uint64_t latest = 0;
        for (int w : who) {
            const uint64_t a = t + uint64_t(pick(0, 300));
            tr.arrivals.push_back({a, uint16_t(w)});
            latest = std::max(latest, a);
        }
        tr.release = latest + uint64_t(pick(0, 40));
        // The releasing warp is usually the latest waiter, sometimes a warp that arrived without waiting.
        tr.last_warp = uint16_t(pick(0, 4) == 0 ? warps : 0);
        if (tr.last_warp == 0) {
            for (auto [a, w] : tr.arrivals)
                if (a == latest) tr.last_warp = w;  // the last of equal arrivals by warp order
        }
        for (auto [a, w] : tr.arrivals) {
            trace::BarrierWait r;
            r.arrive = a;
            r.release = tr.release;
            r.warp = w;
            r.last_warp = tr.last_warp;
            r.mbarrier = tr.mbarrier;
            r.id = tr.mbarrier ? 0 : uint8_t(tr.barrier);
            r.address = tr.mbarrier ? tr.barrier : 0;
            r.phase = tr.phase;
            r.loc = uint32_t(1 + (tr.barrier % 5));
            b.barriers.push_back(r);
        }
        std::sort(tr.arrivals.begin(), tr.arrivals.end());
        truth.push_back(tr);
        t += uint64_t(pick(0, 250));  // the next one may start before this one is released
    }
    std::shuffle(b.barriers.begin(), b.barriers.end(), rng);
    return b;
}

} // namespace

TEST_CASE("barrier episodes: one per barrier instance, arrivals in order", "[visualizer][barriers]") {
    for (uint32_t seed : {1u, 2u, 3u, 17u, 99u}) {
        std::mt19937 rng(seed);
        std::vector<Truth> truth;
        const trace::Block b = random_block(rng, 40, truth);
        const std::vector<BarrierEpisode> eps = view::barrier_episodes(b);
        INFO("seed " << seed);

        // Instances that coincide in (barrier, phase, release) cannot be told
        // apart from the records; the generator rarely makes them, so merge those.
        std::map<std::tuple<bool, uint32_t, uint32_t, uint64_t>, Truth> expect;
        for (const Truth& tr : truth) {
            auto [it, added] = expect.try_emplace({tr.mbarrier, tr.barrier, tr.phase, tr.release}, tr);
            if (!added) {
                it->second.arrivals.insert(it->second.arrivals.end(), tr.arrivals.begin(), tr.arrivals.end());
                std::sort(it->second.arrivals.begin(), it->second.arrivals.end());
            }
        }
        REQUIRE(eps.size() == expect.size());

        size_t records = 0;
        for (size_t i = 0; i < eps.size(); ++i) {
            const BarrierEpisode& e = eps[i];
            records += e.arrivals.size();
            auto it = expect.find({e.mbarrier, e.mbarrier ? e.address : e.id, e.phase, e.release});
            REQUIRE(it != expect.end());
            const Truth& tr = it->second;
            REQUIRE(e.arrivals.size() == tr.arrivals.size());
            uint64_t total = 0, longest = 0;
            for (size_t k = 0; k < e.arrivals.size(); ++k) {
                CHECK(e.arrivals[k].arrive == tr.arrivals[k].first);
                CHECK(e.arrivals[k].warp == tr.arrivals[k].second);
                CHECK(e.arrivals[k].release == tr.release);
                CHECK(b.barriers[e.arrivals[k].record].warp == e.arrivals[k].warp);
                total += tr.release - tr.arrivals[k].first;
                longest = std::max(longest, tr.release - tr.arrivals[k].first);
            }
            CHECK(e.total_wait() == total);
            CHECK(e.longest_wait() == longest);
            CHECK(e.first_arrive() == tr.arrivals.front().first);
            CHECK(e.last_arrive() == tr.arrivals.back().first);
            if (e.last_warp_waited()) {
                bool among = false;
                for (auto [a, w] : tr.arrivals) among |= w == e.last_warp;
                CHECK(among);
            }
            if (i > 0) CHECK(eps[i - 1].first_arrive() <= e.first_arrive());
        }
        CHECK(records == b.barriers.size());
    }
}

TEST_CASE("barrier episodes: the same id used again is a new episode", "[visualizer][barriers]") {
    trace::Block b;
    // bar.sync 0 twice, bar.sync 1 once at the same release as the first, an mbarrier's two phases.
    auto add = [&](uint64_t arrive, uint64_t release, uint16_t warp, uint16_t last, uint8_t id) {
        b.barriers.push_back({arrive, release, 3, 0, warp, last, id, false, 0});
    };
    add(100, 150, 0, 1, 0);
    add(130, 150, 1, 1, 0);
    add(110, 150, 2, 3, 1);
    add(140, 150, 3, 3, 1);
    add(400, 470, 1, 0, 0);
    add(450, 470, 0, 0, 0);
    b.barriers.push_back({200, 260, 4, 0x200, 2, 5, 0, true, 0});
    b.barriers.push_back({300, 360, 4, 0x200, 2, 5, 0, true, 1});
    const auto eps = view::barrier_episodes(b);
    REQUIRE(eps.size() == 5);
    CHECK((eps[0].id == 0 && eps[0].release == 150 && eps[0].arrivals.size() == 2));
    CHECK((eps[1].id == 1 && eps[1].release == 150 && eps[1].last_warp == 3 && eps[1].last_warp_waited()));
    CHECK((eps[2].mbarrier && eps[2].phase == 0 && !eps[2].last_warp_waited()));
    CHECK((eps[3].mbarrier && eps[3].phase == 1));
    CHECK((eps[4].id == 0 && eps[4].release == 470 && eps[4].total_wait() == 70 + 20));
    CHECK(eps[4].arrivals.front().warp == 1);
    CHECK(eps[0].total_wait() == 50 + 20);
}

TEST_CASE("barrier episodes: waits the run stopped in make an open episode, released by nobody", "[visualizer][barriers]") {
    trace::Block b;
    b.barriers.push_back({100, 150, 3, 0, 0, 1, 0, false, 0});  // an ordinary round first
    b.barriers.push_back({120, 150, 3, 0, 1, 1, 0, false, 0});
    trace::BarrierWait stuck{300, 900, 5, 0, 0, 0, 0, false, 0};  // warps 0 and 1 at bar.sync 0 when the run stopped at 900
    stuck.open = true;
    b.barriers.push_back(stuck);
    stuck.warp = stuck.last_warp = 1;
    stuck.arrive = 340;
    b.barriers.push_back(stuck);
    const auto eps = view::barrier_episodes(b);
    REQUIRE(eps.size() == 2);
    CHECK(!eps[0].open);
    CHECK(eps[0].last_warp_waited());
    CHECK(eps[1].open);
    CHECK(eps[1].release == 900);
    CHECK(eps[1].arrivals.size() == 2);
    CHECK(eps[1].total_wait() == 600 + 560);
    CHECK(!eps[1].last_warp_waited());  // nobody released it, though its last_warp is one of the waiters
}

TEST_CASE("barrier episodes: the episode at a cycle", "[visualizer][barriers]") {
    std::mt19937 rng(5);
    std::vector<Truth> truth;
    const trace::Block b = random_block(rng, 30, truth);
    const auto eps = view::barrier_episodes(b);
    REQUIRE(!eps.empty());
    CHECK(view::episode_at(eps, 0) == -1);
    CHECK(view::episode_at({}, 1000) == -1);
    std::uniform_int_distribution<uint64_t> cycle(0, eps.back().release + 100);
    for (int i = 0; i < 500; ++i) {
        const uint64_t c = cycle(rng);
        long expect = -1;
        for (size_t k = 0; k < eps.size(); ++k)
            if (eps[k].first_arrive() <= c) expect = long(k);
        INFO("cycle " << c);
        CHECK(view::episode_at(eps, c) == expect);
    }
    // Exactly at a first arrival, that episode (or a later one starting the same cycle).
    for (size_t k = 0; k < eps.size(); ++k) CHECK(eps[size_t(view::episode_at(eps, eps[k].first_arrive()))].first_arrive() == eps[k].first_arrive());
}

TEST_CASE("barrier episodes: a block without waits has none", "[visualizer][barriers]") {
    trace::Block b;
    CHECK(view::barrier_episodes(b).empty());
}
