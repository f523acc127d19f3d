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
// Group g sits on SM sm[g]; [first[g], first[g + 1]) says how many blocks it
// holds, and which blocks its wave's groups share between them
// (group_blocks says which are its own).
struct SmLayout {
    std::vector<uint64_t> first;  // one more than the groups: the last is the block count
    std::vector<uint32_t> sm;
    size_t groups() const { return sm.size(); }
    uint64_t largest() const;  // the most blocks in a group
};
SmLayout sm_layout(uint64_t nblocks, int sms, int per_sm);
// Group g's blocks (in order), as the GPU's block scheduler deals a wave: one
// block to each SM in turn, in an order that puts no particular blocks
// together on an SM (sm.cpp says which). Neighbouring blocks, which often
// read the same rows, so sit on different SMs and share no L1, as on the GPU.
std::vector<uint64_t> group_blocks(const SmLayout& layout, size_t g);

// What one host thread simulates at a time: an SM's blocks over up to
// `waves` consecutive waves (its groups of the layout, in order). On the GPU
// a block takes the slot another left once the SM has retired that one
// (launch.block_turnaround_cycles, measured: 385 cycles on the H100), so an
// SM's blocks of consecutive waves overlap; within a stream they do. Streams are
// ordered by their first wave, then SM, so blocks finish near block order
// (the launch hands them on in block order, holding the rest meanwhile):
// `waves` bounds what is held to about that many waves' blocks.
struct SmStream {
    uint32_t sm = 0;
    std::vector<uint64_t> blocks;  // in block order
    bool first_wave = false;       // its first blocks are the SM's first
};
std::vector<SmStream> sm_streams(const SmLayout& layout, int sms, int waves);

// Runs one SM's stream: `slots` blocks at once, each next one starting in the
// slot the last one left, at the cycle it left it. start(i, slot, cycle)
// sets the stream's i-th block up (its warps' clocks at `cycle`) and returns
// its runner, or null to start no more. The step due first runs next (ties:
// the earlier block). done(i, slot) when block i ends; failed(i, slot, error)
// when it throws, after which no more start and the running blocks after it
// are dropped (dropped(i, slot), their fibers to unwind) while the ones
// before it run on: the launch reports the lowest failing block, and those
// before it must be whole.
void run_stream(size_t blocks, int slots, const std::function<BlockRunner*(size_t, size_t, uint64_t)>& start,
                const std::function<void(size_t, size_t)>& done, const std::function<void(size_t, size_t, std::exception_ptr)>& failed,
                const std::function<void(size_t, size_t)>& dropped);

} // namespace tklab::sim
