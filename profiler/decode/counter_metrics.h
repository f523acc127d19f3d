// Hardware counters of shared memory, and the simulator's figures in the same
// shape. CPU only: profiler/gpu/range_profiler.h collects the counters into
// trace::GpuCounters (CUPTI metric name -> value); this file says which
// metrics tklab asks for, what each counts, and turns a launch's values into
// the quantities the simulator reports, so a report or the fidelity script
// puts like beside like.
//
// The hardware counts the wavefronts of LDS and LDSM in one counter (op_ld)
// and those of STS and STSM in another (op_st); the simulator keeps ld_shared,
// ldmatrix, st_shared and stmatrix apart. So the comparable view has two
// directions, loads (LDS + LDSM) and stores (STS + STSM), with the
// instruction counts still split where both sides can split them.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include "trace/gpu_metrics.h"
#include "trace/trace.h"

namespace tklab::profiler {

// CUPTI's names (Nsight Compute's), with the .sum rollup: the whole launch.
// One source of truth: trace/gpu_metrics.h, which the report reads.
namespace metric {
namespace g = trace::gpu_metrics;
inline constexpr const char* shared_ld_wavefronts = g::kLoadWavefronts;
inline constexpr const char* shared_st_wavefronts = g::kStoreWavefronts;
inline constexpr const char* shared_ld_conflicts = g::kLoadConflicts;
inline constexpr const char* shared_st_conflicts = g::kStoreConflicts;
inline constexpr const char* shared_wavefronts = g::kSharedWavefronts;
inline constexpr const char* instructions = g::kInstructions;
inline constexpr const char* lds_instructions = g::kLdsInstructions;
inline constexpr const char* sts_instructions = g::kStsInstructions;
inline constexpr const char* ldsm_instructions = g::kLdsmInstructions;
inline constexpr const char* stsm_instructions = g::kStsmInstructions;
inline constexpr const char* ldgsts_instructions = g::kLdgstsInstructions;
} // namespace metric

struct CounterMetric {
    std::string_view name;     // as CUPTI takes it
    std::string_view meaning;  // one line, for reports and --help
};

// The metrics `--profile counters` collects, in report order (all present on
// the H100: `ncu --query-metrics --chip gh100`).
const std::vector<CounterMetric>& counter_metrics();
std::vector<std::string> default_metric_names();
// The meaning of a metric of the list above; "" for any other.
std::string_view metric_meaning(std::string_view name);

// One direction of shared-memory traffic. Absent = not measured (a metric
// missing from the launch's counters), never 0.
struct SharedTraffic {
    std::optional<uint64_t> plain;       // LDS / STS warp instructions
    std::optional<uint64_t> matrix;      // LDSM / STSM warp instructions
    std::optional<uint64_t> wavefronts;  // of both kinds together
    std::optional<uint64_t> conflicts;   // wavefronts beyond one per bank-distinct pass
    std::optional<uint64_t> instructions() const;  // plain + matrix
    std::optional<uint64_t> ideal() const;         // wavefronts - conflicts (0 if conflicts exceed them)
    bool operator==(const SharedTraffic&) const = default;
};

// A launch's shared memory, from the hardware or the simulator.
struct SharedCounters {
    SharedTraffic loads;   // LDS + LDSM
    SharedTraffic stores;  // STS + STSM
    std::optional<uint64_t> instructions;     // warp instructions of every kind
    // Hardware only (absent in the simulator's view): every shared wavefront,
    // the data path of cp.async (LDGSTS) and wgmma operands included, and
    // cp.async warp instructions. all_wavefronts beyond loads + stores is
    // traffic the simulator's four kinds do not model.
    std::optional<uint64_t> all_wavefronts;
    std::optional<uint64_t> async_copies;
    bool operator==(const SharedCounters&) const = default;
};

// The hardware's view of one launch. Throws std::invalid_argument naming the
// metric and the launch for a value no counter has (negative, not finite).
SharedCounters hardware_shared(const trace::GpuCounters& c);
// The simulator's view of one launch: loads = ld_shared + ldmatrix, stores =
// st_shared + stmatrix, everything present.
SharedCounters simulated_shared(const trace::Summary& s);

// One profiled range as CUPTI gave it, into the trace's record: `range_name`
// is CUPTI's name of the range (in auto-range mode a number, the launch's
// index; a kernel symbol is demangled), `launched` the kernel symbols seen at
// launch, in order, that a numeric name indexes. `values[i]` belongs to
// `metrics[i]`; a value that is not finite (CUPTI could not evaluate it) is
// left out and named in `problems`.
trace::GpuCounters counters_of_range(uint32_t index, const std::string& range_name,
                                     const std::vector<std::string>& launched,
                                     const std::vector<std::string>& metrics, const std::vector<double>& values,
                                     std::vector<std::string>* problems = nullptr);

} // namespace tklab::profiler
