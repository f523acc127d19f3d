// Per-name statistics of a launch's tk::region markers, for both kinds of
// trace: a GPU run keeps each region as an event (op "region"), a simulator
// run in each block's `regions` table. The report's Regions sections and
// lesson 9's check read the same figures from here.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>
#include "trace/trace.h"

namespace tklab::trace {

struct RegionStat {
    uint16_t name = 0;                      // Trace::op_names
    uint64_t count = 0, total = 0, longest = 0;  // closed regions; cycles
    uint32_t loc = 0;                       // the first marker's line
};

struct RegionStats {
    std::vector<RegionStat> rows;  // by total cycles, most first (ties: first seen)
    uint64_t regions = 0;          // every region, open ones included
    uint64_t open = 0;             // never closed (the run stopped inside them)
    uint64_t blocks = 0;           // blocks with at least one region
    // The warps' time the shares divide by: per block with regions, its warps
    // times its span, its first region's begin to its last region's end (a
    // GPU run has no other clock; the simulator's is measured the same way,
    // so that the two compare).
    uint64_t warp_time = 0;
    // Of it, the time each warp spent in no region (its outermost regions'
    // cycles taken away): between markers, before the first, after the last.
    uint64_t outside = 0;
    double share(const RegionStat& r) const { return warp_time ? double(r.total) / double(warp_time) : 0.0; }
    double outside_share() const { return warp_time ? double(outside) / double(warp_time) : 0.0; }
};

RegionStats region_stats(const Trace& t, const Launch& l);

// Each region name's share of the block time (0..1), summed over launches'
// closed regions and time.
std::map<std::string, double> region_shares(const Trace& t);

} // namespace tklab::trace
