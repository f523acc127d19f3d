// Statistics of one block's timeline over a span of cycles [begin, end): the
// same quantities as the launch's Summary, so the statistics panel can show a
// selected range the way it shows the whole run. No ImGui.
#pragma once
#include <cstdint>
#include <vector>
#include "trace/trace.h"

namespace tklab::view {

struct RangeStats {
    uint64_t begin = 0, end = 0;
    int warps = 0;                         // warps of the block
    int active_warps = 0;                  // warps that issued at least one instruction in the range
    uint64_t instructions = 0;             // warp instructions issued in the range
    std::vector<uint64_t> by_op;           // by Trace::ops index
    std::vector<uint64_t> stall_cycles;    // by Trace::stalls index (each event's reason); the part of each wait inside the range
    std::vector<uint64_t> warp_instructions;  // by warp
    std::vector<uint64_t> warp_stall_cycles;  // by warp, clipped like stall_cycles
    trace::SmemTotals ld_shared, st_shared, ldmatrix, stmatrix;  // instructions issued in the range
    uint64_t barrier_waits = 0;            // warp waits at a barrier that overlap the range
    uint64_t barrier_wait_cycles = 0;      // their cycles inside the range

    uint64_t cycles() const { return end > begin ? end - begin : 0; }
    uint64_t stall_total() const;
};

// An instruction counts when it issued in [begin, end). A wait counts the
// cycles of it inside the range: a barrier or mbarrier wait lies after the
// instruction issued (it ends when the warp is released, at `done`), any other
// stall lies just before the issue.
RangeStats range_stats(const trace::Trace& trace, const trace::Block& block, int warps,
                       uint64_t begin, uint64_t end);

} // namespace tklab::view
