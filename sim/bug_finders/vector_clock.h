// Happens-before between the agents of one block, as vector clocks.
//
// An agent is something that touches shared memory in its own order: a warp,
// the bulk-copy engine working for a warp (its TMA loads land later, on their
// own), a warpgroup's tensor cores (wgmma reads its operands until the
// group's wait), or the cp.async copies of a warp (each writes its
// destination at any moment from its issue until the wait_group that
// retires its group). Each agent counts its own epochs; a synchronisation that
// releases (a barrier or mbarrier arrival, a copy landing) publishes the
// agent's clock, and one that acquires (a barrier release, an mbarrier wait,
// a wgmma wait) joins it. An earlier access (agent a, epoch e) is ordered
// before the current point of an agent whose clock V has V[a] >= e.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

namespace tklab::sim::bugs {

using VectorClock = std::vector<uint32_t>;

inline void join(VectorClock& into, const VectorClock& from) {
    if (into.size() < from.size()) into.resize(from.size(), 0);
    for (size_t i = 0; i < from.size(); ++i) into[i] = std::max(into[i], from[i]);
}

// Agent ids of a block with `warps` warps.
struct Agents {
    int warps = 0;
    int count() const { return 4 * warps; }
    int warp(int w) const { return w; }
    int copy_engine(int w) const { return warps + w; }        // bulk copies issued by warp w
    int tensor_cores(int w) const { return 2 * warps + w / 4; }  // wgmma of warp w's warpgroup
    int async_copies(int w) const { return 3 * warps + w; }    // cp.async copies issued by warp w
    enum class Kind { warp, copy_engine, tensor_cores, async_copies };
    Kind kind(int agent) const {
        return agent < warps ? Kind::warp
             : agent < 2 * warps ? Kind::copy_engine
             : agent < 3 * warps ? Kind::tensor_cores
             : Kind::async_copies;
    }
    int owner(int agent) const { return agent % warps; }  // the warp (or warpgroup index) it works for
};

} // namespace tklab::sim::bugs
