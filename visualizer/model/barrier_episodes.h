// A block's barrier waits grouped into episodes: one episode is one use of
// one barrier (a bar.sync id, or an mbarrier's address and phase) that
// released its waiters at one cycle. The barriers panel draws them; no ImGui.
#pragma once
#include <cstdint>
#include <vector>
#include "trace/trace.h"

namespace tklab::view {

struct BarrierArrival {
    uint16_t warp = 0;
    uint64_t arrive = 0, release = 0;
    uint32_t loc = 0;     // the line the warp waited at (Trace::locations)
    uint32_t record = 0;  // Block::barriers index
    uint64_t wait() const { return release - arrive; }
};

struct BarrierEpisode {
    bool mbarrier = false;
    bool at_once = false;  // a wait on a fresh mbarrier that went on at once (trace::BarrierWait::at_once)
    uint8_t id = 0;             // bar.sync id
    uint32_t address = 0;       // mbarrier's shared address
    uint32_t phase = 0;         // mbarrier phase
    uint64_t release = 0;
    uint16_t last_warp = 0;     // whose arrival released it (it may not be among the waiters: bar.arrive, mbarrier.arrive)
    bool open = false;          // never released: the run stopped with these warps waiting (`release` is where it stopped)
    std::vector<BarrierArrival> arrivals;  // by arrive cycle, then warp

    uint64_t first_arrive() const { return arrivals.empty() ? release : arrivals.front().arrive; }
    uint64_t last_arrive() const { return arrivals.empty() ? release : arrivals.back().arrive; }
    uint32_t loc() const { return arrivals.empty() ? 0 : arrivals.front().loc; }
    uint64_t total_wait() const;    // sum over the waiting warps
    uint64_t longest_wait() const;
    bool last_warp_waited() const;  // the releasing warp is one of the arrivals (never, for an open episode)
};

// Every episode of the block, ordered by first arrival (then release).
std::vector<BarrierEpisode> barrier_episodes(const trace::Block& block);

// The latest episode whose first arrival is at or before `cycle`; -1 when none.
long episode_at(const std::vector<BarrierEpisode>& episodes, uint64_t cycle);

} // namespace tklab::view
