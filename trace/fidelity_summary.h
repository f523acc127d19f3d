// How far the simulator's kernel time was from a GPU's on the same kernels:
// the committed timing fidelity report of a built-in cost model
// (results/fidelity_timing_NAME.txt, scripts/fidelity/timing.sh), embedded at
// build time, so a simulated trace's report can say it beside its estimate.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace tklab::trace {

// One launch of the report: a program and variant at one size.
struct FidelityLaunch {
    std::string program, variant;
    std::string wave;     // "one" or "many"
    std::string error;    // the simulator's kernel time against the GPU's: "+6%"
};

struct FidelitySummary {
    std::string gpu;                       // "NVIDIA H100 80GB HBM3"
    std::string file;                      // "results/fidelity_timing_h100.txt"
    std::string mean, worst, count;        // its summary: "10%", "27%", "52" launches
    std::vector<FidelityLaunch> launches;
    // The launches of one program and variant, one wave first.
    std::vector<FidelityLaunch> of(const std::string& program, const std::string& variant) const;
};

// The report's text parsed; nullopt when it has no summary line.
std::optional<FidelitySummary> parse_fidelity_report(const std::string& text, const std::string& file);
// The built-in cost model `arch`'s report (nullopt for another model).
const FidelitySummary* builtin_fidelity(const std::string& arch);

} // namespace tklab::trace
