#include "visualizer/model/barrier_episodes.h"
#include <algorithm>
#include <map>
#include <tuple>

namespace tklab::view {

uint64_t BarrierEpisode::total_wait() const {
    uint64_t sum = 0;
    for (const BarrierArrival& a : arrivals) sum += a.wait();
    return sum;
}

uint64_t BarrierEpisode::longest_wait() const {
    uint64_t most = 0;
    for (const BarrierArrival& a : arrivals) most = std::max(most, a.wait());
    return most;
}

bool BarrierEpisode::last_warp_waited() const {
    return !open && std::any_of(arrivals.begin(), arrivals.end(), [&](const BarrierArrival& a) { return a.warp == last_warp; });
}

std::vector<BarrierEpisode> barrier_episodes(const trace::Block& block) {
    // A bar.sync id is reused for every instance, so the release cycle tells
    // instances apart; an mbarrier instance is its address and phase (the
    // release is kept in the key too: a phase number wraps only after 2^32 uses).
    using Key = std::tuple<bool, uint32_t, uint32_t, uint64_t>;
    std::map<Key, size_t> index;
    std::vector<BarrierEpisode> out;
    for (size_t i = 0; i < block.barriers.size(); ++i) {
        const trace::BarrierWait& w = block.barriers[i];
        // A wait that went on at once is an episode of its own (its "phase" is the one before the first).
        const Key key{w.mbarrier, w.mbarrier ? w.address : w.id, w.at_once ? UINT32_MAX : w.mbarrier ? w.phase : 0, w.release};
        auto [it, added] = index.try_emplace(key, out.size());
        if (added) {
            BarrierEpisode e;
            e.mbarrier = w.mbarrier;
            e.id = w.mbarrier ? 0 : w.id;
            e.address = w.mbarrier ? w.address : 0;
            e.phase = w.mbarrier ? w.phase : 0;
            e.release = w.release;
            e.last_warp = w.last_warp;
            e.open = w.open;
            e.at_once = w.at_once;
            out.push_back(std::move(e));
        }
        out[it->second].arrivals.push_back({w.warp, w.arrive, w.release, w.loc, uint32_t(i)});
    }
    for (BarrierEpisode& e : out)
        std::stable_sort(e.arrivals.begin(), e.arrivals.end(), [](const BarrierArrival& a, const BarrierArrival& b) {
            return std::tie(a.arrive, a.warp) < std::tie(b.arrive, b.warp);
        });
    std::stable_sort(out.begin(), out.end(), [](const BarrierEpisode& a, const BarrierEpisode& b) {
        return std::make_tuple(a.first_arrive(), a.release) < std::make_tuple(b.first_arrive(), b.release);
    });
    return out;
}

long episode_at(const std::vector<BarrierEpisode>& episodes, uint64_t cycle) {
    auto it = std::upper_bound(episodes.begin(), episodes.end(), cycle,
                               [](uint64_t c, const BarrierEpisode& e) { return c < e.first_arrive(); });
    return long(it - episodes.begin()) - 1;
}

} // namespace tklab::view
