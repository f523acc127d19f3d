// The timing fidelity report: the simulator's clock and stall reasons beside
// the GPU's, per kernel launch. CPU only, like the counter report
// (fidelity.h): it reads a simulator trace and a GPU trace of the same
// program, size and seed, recorded with
//   tklab_gpu run NAME --profile timing,regions,stalls --repeat 5 --trace GPU
// and compares, for each launch:
//   - kernel time: the simulator's estimate against the median of the GPU's
//     warm runs (the checked run's record alone when there are none);
//   - each tk::region's share of the block time;
//   - the stall reasons' shares of warp time: the simulator's stalled cycles
//     against the share of PC samples with that reason. Reasons the
//     simulator does not model ("wait", "selected", ...) are listed as such;
//   - per hot line (>= 5% of the samples), whether the line's top reason in
//     the simulator is the GPU's.
#pragma once
#include <algorithm>
#include <optional>
#include <ostream>
#include <string>
#include <vector>
#include "trace/trace.h"

namespace tklab::profiler {

// The name PC sampling gives what the simulator calls `sim_reason`: a wait on
// an mbarrier phase (mbarrier.try_wait) samples as long_scoreboard on the H100.
std::string hardware_stall_name(const std::string& sim_reason);

struct TimingShare {
    std::string name;                // a region's or a stall reason's
    std::optional<double> sim, gpu;  // share, 0..1; absent where that side has none
};

struct HotLine {
    std::string file;
    int line = 0;
    double gpu_share = 0;        // of the launch's samples
    std::string gpu_reason;      // the most sampled reason on it
    // The simulator's largest reason on it (hardware names): a stall, or
    // "selected" when its instructions' issue cycles outweigh its stalls;
    // "" when the simulator ran nothing there.
    std::string sim_reason;
    bool agrees() const { return gpu_reason == sim_reason; }
    // The simulator issues instructions only for tile-library calls: a line
    // of plain code (index arithmetic, loop control) has none to compare.
    bool modelled() const { return !sim_reason.empty(); }
};

struct TimingLaunch {
    std::string sim_kernel, gpu_kernel;
    std::string problem;                  // why a part could not be compared
    std::string sim_grid, gpu_grid;       // launch shapes, "" when unknown
    std::optional<double> sim_us, gpu_us; // kernel time
    int gpu_runs = 0;                     // records the GPU time is the median of
    std::vector<TimingShare> regions;     // by name
    std::vector<TimingShare> stalls;      // by reason, the GPU's order
    std::vector<HotLine> hot_lines;       // most sampled first
    // Kernel time: simulator / GPU - 1 (0.1: the simulator says 10% longer).
    std::optional<double> time_error() const {
        if (!sim_us || !gpu_us || *gpu_us <= 0) return std::nullopt;
        return *sim_us / *gpu_us - 1.0;
    }
    // How far apart the two stall-reason distributions are: half the sum of
    // the differences of the shares, each side's shares scaled to sum to 1
    // (0: the same, 1: nothing in common; a reason one side lacks counts
    // whole). Absent without both sides' stalls.
    std::optional<double> stall_distance() const;
    // Hot lines whose top reason agrees, and those that hold simulator instructions.
    size_t agreeing_lines() const { return size_t(std::count_if(hot_lines.begin(), hot_lines.end(), [](const HotLine& h) { return h.agrees(); })); }
    size_t modelled_lines() const { return size_t(std::count_if(hot_lines.begin(), hot_lines.end(), [](const HotLine& h) { return h.modelled(); })); }
};

struct TimingFidelity {
    std::string program, variant;
    std::vector<std::string> warnings;
    std::vector<TimingLaunch> launches;
};

// Pairs the simulator's launches with the GPU's kernel records (and stall
// samples) in order; the GPU trace's records repeat once per run.
TimingFidelity compare_timing(const trace::Trace& sim, const trace::Trace& gpu);

// The timing tables, at most 100 columns wide; `color` marks the kernel time
// and each hot line green where they agree (time within 15%) and red elsewhere.
void write_timing(std::ostream& out, const TimingFidelity& f, bool color = false);

// One line a script can gather: "timing: PROGRAM VARIANT launch N sim_us G
// gpu_us G error E hot_lines A/B modelled_lines A/C stall_distance D": A hot
// lines agree, of B, of which C hold simulator instructions; D is
// TimingLaunch::stall_distance ("none" when absent).
void write_timing_summary(std::ostream& out, const TimingFidelity& f);

} // namespace tklab::profiler
