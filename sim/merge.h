// The merger: folds finished blocks, in block order, into the run's result --
// run-wide location and name ids (deterministic whatever host thread ran
// each block) and the run's statistics -- and, at the end, occupancy and the
// kernel's estimated time.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/state.h"

namespace tklab::sim {

// What the register estimate reads from a run.
struct RegisterUse {
    int tiles = 0;           // tile registers live at the peak (per thread)
    int loaded = 0;          // the most registers loads filled before anything read them
    int loop_addresses = 0;  // global-memory instructions per pass of the hottest loop
    bool reallocates = false;  // a warp called setmaxnreg
    bool idle = false;         // no warp issued anything but its exit
    int from_shared = 0;       // of the tiles, those filled from shared memory (mma operands)
    int run_addresses = 0;     // global-memory instructions of the longest straight run (one tile op call)
};
// A block's (one block, before the others run) or a whole run's.
RegisterUse register_use(const BlockTrace& b);
RegisterUse register_use(const Stats& st);
// Registers per thread the compiler is estimated to allocate, when its own
// figures are not at hand (sim/README.md, "Registers").
int register_estimate(const CostModel& cost, const RegisterUse& use, unsigned threads_per_block);
// Registers of operand tiles filled from shared memory that the estimate
// leaves out: (1 - registers_from_shared_share) of them.
int from_shared_saving(const CostModel& cost, int from_shared_regs);
// The registers the estimate gives the hottest loop's addresses.
int loop_address_registers(const CostModel& cost, int loop_addresses);
// What a kernel holds while the compiler computes a straight run's addresses
// before its first instruction: at least this many (0 without one).
int run_address_registers(const CostModel& cost, int run_addresses);
// What ptxas gives a kernel that does nothing: the estimate of an idle one.
constexpr int kIdleKernelRegisters = 4;

// Blocks an SM holds at once by their registers: `regs` per thread (allocated
// 8 at a time), or what a block that reallocates (setmaxnreg) holds in all.
int blocks_per_sm_by_registers(const CostModel& cost, int regs, int setmaxnreg_registers, unsigned threads_per_block);

class Merger {
public:
    explicit Merger(RunResult& r) : r_(r) {
        r_.locations = {Location{}};
        r_.op_names = {std::string{}};
    }
    // The next block in order; its ids become run-wide.
    void add(BlockResult& br);
    // Occupancy from threads, registers (rounded to the allocation unit of 8)
    // and shared memory, and the kernel time: the busiest SM's, its blocks run
    // `simulated_per_sm` at a time (sm.h), or the memory model's bandwidth bounds.
    void finish(const CostModel& cost, unsigned threads_per_block, uint64_t nblocks, const MemoryPath& memory, int simulated_per_sm,
                uint64_t busiest_sm_cycles, uint64_t busiest_sm_ack_cycles);

private:
    // Run-wide location ids for a block's table, adding the ones not seen yet.
    std::vector<uint32_t> run_ids(const Interner& locs);

    RunResult& r_;
    std::map<std::pair<std::string, int>, uint32_t> loc_ids_;
    std::map<std::string, uint16_t> name_ids_;
};

} // namespace tklab::sim
