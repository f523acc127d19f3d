// The SM (sim/README.md, "The SM"): which blocks are resident on one SM at
// once, and their steps interleaved on one clock, so that they share the SM's
// pipes (state.h, SmPipes) and hide each other's waits as on the hardware.
#pragma once
#include <cstdint>
#include <exception>
#include <functional>
#include <vector>

#include "sim/scheduler.h"

namespace tklab::sim {

// A launch's blocks in groups simulated together, in block order: full waves
// of `sms` groups of `per_sm` blocks, then the last partial wave spread over
// the SMs as evenly as whole groups allow (ceil(rest / sms) blocks each).
// Group g holds blocks [first[g], first[g + 1]) and sits on SM sm[g].
struct SmLayout {
    std::vector<uint64_t> first;  // one more than the groups: the last is the block count
    std::vector<uint32_t> sm;
    size_t groups() const { return sm.size(); }
    uint64_t largest() const;  // the most blocks in a group
};
SmLayout sm_layout(uint64_t nblocks, int sms, int per_sm);

// The busiest SM's time: each SM runs its groups one after another, a group
// lasting as long as its slowest block.
uint64_t busiest_sm_cycles(const SmLayout& layout, const std::vector<uint64_t>& block_cycles);

// Runs the runners' blocks together, the step due first next (ties: the
// lowest block). done(i) when block i ends; failed(i, error) when it throws,
// after which the blocks after it are dropped (dropped(i), their fibers to
// unwind) and the ones before it run on: the launch reports the lowest
// failing block, and those before it must be whole.
void run_together(const std::vector<BlockRunner*>& runners, const std::function<void(size_t)>& done,
                  const std::function<void(size_t, std::exception_ptr)>& failed, const std::function<void(size_t)>& dropped);

} // namespace tklab::sim
