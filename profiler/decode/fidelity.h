// The fidelity report: the simulator's shared-memory figures beside the
// hardware's, per kernel launch and per instruction kind. CPU only: it reads
// two traces, a simulator run and a GPU run of the same program, size and
// seed (`tklab_gpu run NAME --profile counters --trace F`), so it runs
// anywhere once the GPU's trace exists (`tklab fidelity SIM GPU`).
//
// The hardware counts the wavefronts of LDS and LDSM in one counter and those
// of STS and STSM in another, so wavefronts and conflicts are compared per
// direction (loads, stores); instructions are compared per kind.
#pragma once
#include <optional>
#include <ostream>
#include <string>
#include <vector>
#include "trace/trace.h"

namespace tklab::profiler {

// One row: a quantity as the simulator counted it and as the GPU did.
struct FidelityRow {
    std::string kind;       // "LDS (ld.shared)", "shared loads (LDS + LDSM)", ...
    std::string quantity;   // "instructions", "wavefronts", "bank conflicts"
    uint64_t sim = 0;
    std::optional<double> gpu;  // absent when the GPU did not measure it
    bool equal() const { return gpu && *gpu == double(sim); }
};

// One launch of the kernel in both runs.
struct FidelityLaunch {
    std::string sim_kernel, gpu_kernel;
    std::vector<FidelityRow> rows;
    std::string problem;    // when the simulator's launch has no summary, or the GPU's record is missing
};

struct Fidelity {
    std::string program, variant;
    std::vector<FidelityLaunch> launches;  // paired in order
    std::vector<std::string> warnings;     // different programs, sizes, seeds or launch counts
    size_t rows = 0, equal_rows = 0;       // over every launch
};

// Pairs the simulator's launches with the GPU's counter records in order.
Fidelity compare_fidelity(const trace::Trace& sim, const trace::Trace& gpu);

// The table, at most 100 columns wide; `color` marks equal rows green and
// differing ones red.
void write_fidelity(std::ostream& out, const Fidelity& f, bool color = false);

} // namespace tklab::profiler
