// Host-side API of the simulator: launching a kernel body for every thread of
// a grid, registering global memory, options and errors.
#pragma once
#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include "sim/bug_finders/check_list.h"
#include "sim/events.h"
#include "sim/cost_model.h"

namespace tklab::sim {

struct Options {
    int host_threads = 0;          // 0: $TKLAB_SIM_THREADS, else 1. Results never depend on it.
    std::string arch = "h100";     // cost model: sim/arch/<arch>.json
    // The L1 model (sim/README.md, "L1") on or off whatever the cost model
    // says (-1: as it says; the shipped models have it on; tklab run --no-l1 turns it off).
    int l1 = -1;
    // The constant cache's miss at a launch's first blocks (sim/README.md,
    // "The constant cache"), as the cost model says; false leaves it out
    // (tests of other mechanics, which count from a first instruction at 0).
    bool constant_miss = true;
    // The SM count multiprocessors() reports (0: the cost model's). A small one
    // makes a persistent kernel walk several work items per block in a small run.
    int sms = 0;
    bool all_lane_addresses = false;  // keep per-lane addresses for every shared instruction, not only conflicted ones
    size_t stack_bytes = 256 * 1024;  // per simulated thread
    // A block that executes more warp instructions than this is stopped as a
    // probable endless loop (e.g. spinning on test_wait for a phase that never
    // completes): a livelock must not hang the simulator.
    uint64_t max_block_instructions = 20'000'000;
    // Keep every block's events in RunResult::blocks. A trace recorder streams
    // them instead, and a long run then needs no memory per block.
    bool keep_blocks = true;
    // Gather tk::snapshot() values (in blocks that get a full timeline).
    bool snapshots = false;
    // Bug finders (sim/bug_finders/). Out-of-bounds and misaligned accesses
    // are always faults; these can be switched off, e.g. to time a run.
    using Checks = tklab::sim::Checks;
    Checks checks;
};
Options& options();

enum class ErrorKind {
    fault, deadlock, divergence, kernel_exception, usage, instruction_limit,
    race,                // two accesses to the same shared memory that nothing orders
    uninitialized_read,  // a read of memory nothing wrote
    sync_misuse,         // a barrier or mbarrier used in a way that cannot work
};
const char* error_kind_name(ErrorKind k);

// Parses a list of bug finders: "all", "none", or a comma-separated list of
// races, uninit and sync. Returns false (and says why in `error`) on a bad name.
inline bool parse_checks(const std::string& list, Options::Checks& out, std::string& error) {
    error = parse_check_list(list, out);
    return error.empty();
}

// A simulated kernel stopped. what() names the problem, the kernel line and the fix.
struct SimError : std::runtime_error {
    ErrorKind kind;
    std::string file;
    int line = 0;
    SimError(ErrorKind k, const std::string& msg, std::string f = {}, int l = 0)
        : std::runtime_error(msg), kind(k), file(std::move(f)), line(l) {}
};

// Watches launches: the trace recorder. Calls come from one thread at a time,
// blocks in order (whatever Options::host_threads is), so ids stay deterministic.
class Observer {
public:
    virtual ~Observer() = default;
    // Before any block runs. `r` holds the kernel, shape, arch and first_wave_blocks.
    virtual void launch_begin(const RunResult& r, const CostModel& cost) { (void)r; (void)cost; }
    // Whether block `index` gets a full timeline (others still count in every statistic).
    virtual bool wants_timeline(uint64_t index) { (void)index; return true; }
    // A block finished (or failed: it is then the last one). Its ids are run-wide:
    // r.locations and r.op_names already hold every id it uses.
    virtual void block_done(const BlockTrace& block, const RunResult& r) { (void)block; (void)r; }
    // After the last block; `error` is set when the launch failed. r.stats is final.
    virtual void launch_end(const RunResult& r, const SimError* error) { (void)r; (void)error; }
};
// The observer of the launches that follow (nullptr: none). Not owned.
void set_observer(Observer* o);
Observer* observer();

// Runs `body` once per thread of grid x block, each thread on its own fiber.
// Throws SimError on a fault, a deadlock or an exception in the kernel.
// `kernel_code`: the kernel function, to find the compiler's figures for it
// (sim/compiler_figures.h); nullptr: none.
const RunResult& launch(const std::string& kernel, Dim3 grid, Dim3 block, size_t smem_bytes,
                        const std::function<void()>& body, const void* kernel_code = nullptr);
const RunResult& last_run();

// The host threads a launch runs its blocks on (Options::host_threads, else
// $TKLAB_SIM_THREADS, else 1).
int simulation_threads();

// Global memory the kernel may touch; accesses elsewhere are faults.
// `element_bytes`: the size of one value (tk::device_buffer<T> passes
// sizeof(T)), for the estimate of what checking the output will need.
void register_global(const void* p, size_t bytes, const std::string& name, size_t element_bytes = 1);
void unregister_global(const void* p);
// The registered buffers before a run, split into those holding data (an
// upload wrote them) and fresh ones (the outputs a check will download).
struct GlobalFootprint {
    uint64_t data_bytes = 0, data_elements = 0;
    uint64_t fresh_bytes = 0, fresh_elements = 0;
};
GlobalFootprint registered_footprint();
// The host wrote these bytes (an upload): reading them is not an uninitialised read.
void mark_global_written(const void* p, size_t bytes);

} // namespace tklab::sim
