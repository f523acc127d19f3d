// Replaying one block's timeline: a cursor over its events in execution order,
// stepping by instruction, tile op or barrier, for one warp or all, and running
// to breakpoints. No ImGui, no OpenGL: the tests drive it directly.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>
#include "trace/trace.h"

namespace tklab::view {

enum class StepUnit : uint8_t { instruction, tile_op, barrier };
const char* step_unit_name(StepUnit u);                      // "instruction", "tile op", "barrier"
std::optional<StepUnit> parse_step_unit(const std::string&); // "instruction|op|barrier"

// What stops `Replay::run`. Each condition can be switched off on its own.
struct Breakpoints {
    int conflict_way = 0;        // a shared-memory instruction at least this many ways (0 = off)
    uint64_t wait_cycles = 0;    // an instruction that waited at least this long, barrier waits included (0 = off)
    bool fault = true;           // the point where the launch failed in this block
    std::vector<uint32_t> locs;  // any instruction of these kernel lines (Trace::locations)
    bool any() const { return conflict_way > 0 || wait_cycles > 0 || fault || !locs.empty(); }
};

struct Hit {
    long event = -1;   // the event that stopped it; -1 for the fault (after the last event)
    std::string why;   // "4-way bank conflict at gemm_kernel.cuh:61 (warp 2)"
};

class Replay {
public:
    // `block` indexes Launch::blocks; that block should have a timeline (an
    // empty one replays as zero events).
    Replay(const trace::Trace& trace, uint32_t launch, uint32_t block);

    const trace::Trace& trace() const { return *trace_; }
    const trace::Launch& launch() const;
    const trace::Block& block() const;
    uint32_t launch_index() const { return launch_; }
    uint32_t block_index() const { return block_; }
    int warps() const { return warps_; }

    size_t size() const;                 // events in the block
    size_t pos() const { return pos_; }  // events [0, pos) have run
    // The cursor's cycle: the issue cycle of the last event that ran after a
    // step, or any cycle after a seek (playing moves through idle gaps too).
    uint64_t cycle() const { return cycle_; }
    uint64_t end_cycle() const;          // when the block's last warp finished

    // The last event that ran, of `warp` or of any warp when warp < 0; -1 if none.
    long current(int warp = -1) const;
    // The next event to run, of `warp` or of any warp; -1 at the end.
    long next(int warp = -1) const;
    // The last shared-memory event that ran (of `warp` or any); -1 if none.
    long current_smem(int warp = -1) const;

    // One step. False when there is nowhere to go. A step back right after
    // steps forward undoes them exactly, in any mix of units and warps.
    bool step(int dir, StepUnit unit, int warp = -1);
    void seek(size_t pos);                    // forgets the step history
    void seek_cycle(uint64_t cycle);          // every event issued at or before `cycle` has run
    size_t pos_at_cycle(uint64_t cycle) const;

    // Runs forward (dir > 0) or back (dir < 0) to the next event that hits a
    // breakpoint, leaving the cursor just after it. Nothing when it reached
    // the end (or the start) first; at the end, a fault in this block is a hit.
    std::optional<Hit> run(int dir, const Breakpoints& bp, int warp = -1);
    // Why event `e` stops a run, if it does.
    std::optional<std::string> hits(size_t e, const Breakpoints& bp) const;
    // The launch failed in this block, after its last recorded event.
    bool failed_here() const;

    // ---- lookups the panels share ----
    bool is_barrier(size_t e) const;          // bar.sync, bar.arrive, mbarrier waits, cp.async waits
    long barrier_wait(size_t e) const;        // Block::barriers index of event e's wait, -1 if none
    uint64_t wait_cycles(size_t e) const;     // stall before issue, or the barrier wait if longer
    const std::vector<uint32_t>& warp_events(int warp) const;  // event indices of one warp, in order

private:
    long scan(long from, int dir, int warp) const;
    size_t forward_target(StepUnit unit, int warp) const;
    size_t back_target(StepUnit unit, int warp) const;

    const trace::Trace* trace_;
    uint32_t launch_, block_;
    int warps_ = 0;
    size_t pos_ = 0;
    uint64_t cycle_ = 0;
    std::vector<uint64_t> issue_max_;            // prefix maximum of issue cycles, for seeking
    std::vector<std::vector<uint32_t>> by_warp_; // event indices per warp
    std::vector<int32_t> wait_of_;               // event -> Block::barriers index, -1
    std::vector<uint8_t> barrier_op_;            // by Trace::ops index
    struct Undo { size_t from; uint64_t from_cycle; size_t to; };
    std::vector<Undo> history_;                  // forward steps, for exact undo
};

} // namespace tklab::view
