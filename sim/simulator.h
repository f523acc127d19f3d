// Host-side API of the simulator: launching a kernel body for every thread of
// a grid, registering global memory, options and errors.
#pragma once
#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include "sim/events.h"
#include "sim/cost_model.h"

namespace tklab::sim {

struct Options {
    int host_threads = 0;          // 0: $TKLAB_SIM_THREADS, else 1. Results never depend on it.
    std::string arch = "h100";     // cost model: sim/arch/<arch>.json
    bool all_lane_addresses = false;  // keep per-lane addresses for every shared instruction, not only conflicted ones
    size_t stack_bytes = 256 * 1024;  // per simulated thread
    // A block that executes more warp instructions than this is stopped as a
    // probable endless loop (e.g. spinning on test_wait for a phase that never
    // completes): a livelock must not hang the simulator.
    uint64_t max_block_instructions = 20'000'000;
};
Options& options();

enum class ErrorKind { fault, deadlock, divergence, kernel_exception, usage, instruction_limit };

// A simulated kernel stopped. what() names the problem, the kernel line and the fix.
struct SimError : std::runtime_error {
    ErrorKind kind;
    std::string file;
    int line = 0;
    SimError(ErrorKind k, const std::string& msg, std::string f = {}, int l = 0)
        : std::runtime_error(msg), kind(k), file(std::move(f)), line(l) {}
};

// Runs `body` once per thread of grid x block, each thread on its own fiber.
// Throws SimError on a fault, a deadlock or an exception in the kernel.
const RunResult& launch(const std::string& kernel, Dim3 grid, Dim3 block, size_t smem_bytes,
                        const std::function<void()>& body);
const RunResult& last_run();

// Global memory the kernel may touch; accesses elsewhere are faults.
void register_global(const void* p, size_t bytes, const std::string& name);
void unregister_global(const void* p);

} // namespace tklab::sim
