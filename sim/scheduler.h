// The scheduler of one block: runs its threads' fibers until each parks at
// an instruction, meets the lanes of a warp at their call sites (the
// rendezvous), executes warp instructions in order of the warps' simulated
// clocks, fires asynchronous completions when they fall due, and stops with
// a verdict (diagnostics.h) when no warp can run or one never finishes.
#pragma once
#include <cstdint>
#include <functional>
#include <utility>

#include "sim/kernel_crash.h"
#include "sim/stack_pool.h"
#include "sim/state.h"

namespace tklab::sim {

class BlockRunner {
public:
    BlockRunner(Block& b, StackPool& stacks, const std::function<void()>& body) : b_(b), stacks_(stacks), body_(body) {}

    // Runs the block to its end; sets its trace's cycles. Throws SimError.
    void run() { while (!advance()) {} }
    // One step at a time, for blocks that share an SM (sm.h, run_stream): when the
    // next step happens, and the step itself (true: the block has ended).
    uint64_t next_time();
    bool advance();
    // The cycle its last warp finished (once advance() said it ended).
    uint64_t end_cycle() const { return b_.out->trace.cycles; }
    // Unwinds any fiber still parked (after an error), with its thread current
    // so destructors of register tiles account correctly.
    void unwind();

private:
    Block& b_;
    StackPool& stacks_;
    const std::function<void()>& body_;
    uint64_t executed_ = 0;
    // Warp instructions in a row that were polls finding nothing, with no
    // asynchronous completion in between: past a few rounds of every running
    // warp, nothing can change any more (a livelock).
    uint64_t failed_polls_in_a_row_ = 0;
    // next_time()'s answer, kept until advance() uses it: no other block's
    // step changes this block's warps.
    bool next_known_ = false, fire_ = false;
    uint64_t next_time_ = 0;
    Warp* next_ = nullptr;

    void finish();

    void resume(Thread& t);
    [[noreturn]] void rethrow_from(Thread& t);
    [[noreturn]] void crashed(Thread& t, const kernel_crash::Crash& c);
    void step(Warp& w);
    void exit_warp(Warp& w);
    bool would_block(const LaneOp& op) const;
};

} // namespace tklab::sim
