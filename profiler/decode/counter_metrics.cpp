// Shared-memory counters, hardware and simulated, in one shape (see counter_metrics.h).
#include "profiler/decode/counter_metrics.h"

#include <charconv>
#include <cmath>
#include <stdexcept>
#include "profiler/decode/kernel_record.h"

namespace tklab::profiler {

const std::vector<CounterMetric>& counter_metrics() {
    static const std::vector<CounterMetric> list = {
        {metric::shared_ld_wavefronts, "shared-memory wavefronts of loads: LDS, LD to shared, LDSM (ldmatrix)"},
        {metric::shared_ld_conflicts, "of those, wavefronts added by bank conflicts"},
        {metric::shared_st_wavefronts, "shared-memory wavefronts of stores: STS, ST to shared, STSM (stmatrix)"},
        {metric::shared_st_conflicts, "of those, wavefronts added by bank conflicts"},
        {metric::shared_wavefronts, "every shared-memory wavefront, cp.async (LDGSTS) and wgmma operands included"},
        {metric::lds_instructions, "LDS warp instructions (plain shared loads)"},
        {metric::ldsm_instructions, "LDSM warp instructions (ldmatrix)"},
        {metric::sts_instructions, "STS warp instructions (plain shared stores)"},
        {metric::stsm_instructions, "STSM warp instructions (stmatrix)"},
        {metric::ldgsts_instructions, "LDGSTS warp instructions (cp.async global to shared)"},
        {metric::instructions, "warp instructions executed, every kind"},
    };
    return list;
}

std::vector<std::string> default_metric_names() {
    std::vector<std::string> names;
    for (const CounterMetric& m : counter_metrics()) names.emplace_back(m.name);
    return names;
}

std::string_view metric_meaning(std::string_view name) {
    for (const CounterMetric& m : counter_metrics())
        if (m.name == name) return m.meaning;
    return {};
}

namespace {

std::optional<uint64_t> sum(std::optional<uint64_t> a, std::optional<uint64_t> b) {
    if (!a || !b) return std::nullopt;
    return *a + *b;
}

// A counter's value as a count. CUPTI evaluates sums in double; counts stay
// exact up to 2^53, so rounding only removes representation noise.
std::optional<uint64_t> count(const trace::GpuCounters& c, const char* name) {
    auto it = c.metrics.find(name);
    if (it == c.metrics.end()) return std::nullopt;
    const double v = it->second;
    if (!std::isfinite(v) || v < 0)
        throw std::invalid_argument("hardware counters of launch " + std::to_string(c.launch) + " (" + c.kernel +
                                    "): " + name + " = " + std::to_string(v) +
                                    ", which no counter can be: the counter data was misread or damaged");
    return uint64_t(std::llround(v));
}

uint64_t minus(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

SharedTraffic simulated(const trace::SmemTotals& plain, const trace::SmemTotals& matrix) {
    SharedTraffic t;
    t.plain = plain.instructions;
    t.matrix = matrix.instructions;
    t.wavefronts = plain.wavefronts + matrix.wavefronts;
    t.conflicts = minus(plain.wavefronts, plain.ideal) + minus(matrix.wavefronts, matrix.ideal);
    return t;
}

bool is_number(const std::string& s, uint64_t& n) {
    if (s.empty()) return false;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    return ec == std::errc() && end == s.data() + s.size();
}

} // namespace

std::optional<uint64_t> SharedTraffic::instructions() const { return sum(plain, matrix); }

std::optional<uint64_t> SharedTraffic::ideal() const {
    if (!wavefronts || !conflicts) return std::nullopt;
    return minus(*wavefronts, *conflicts);
}

SharedCounters hardware_shared(const trace::GpuCounters& c) {
    SharedCounters s;
    s.loads.plain = count(c, metric::lds_instructions);
    s.loads.matrix = count(c, metric::ldsm_instructions);
    s.loads.wavefronts = count(c, metric::shared_ld_wavefronts);
    s.loads.conflicts = count(c, metric::shared_ld_conflicts);
    s.stores.plain = count(c, metric::sts_instructions);
    s.stores.matrix = count(c, metric::stsm_instructions);
    s.stores.wavefronts = count(c, metric::shared_st_wavefronts);
    s.stores.conflicts = count(c, metric::shared_st_conflicts);
    s.instructions = count(c, metric::instructions);
    s.all_wavefronts = count(c, metric::shared_wavefronts);
    s.async_copies = count(c, metric::ldgsts_instructions);
    return s;
}

SharedCounters simulated_shared(const trace::Summary& summary) {
    SharedCounters s;
    s.loads = simulated(summary.ld_shared, summary.ldmatrix);
    s.stores = simulated(summary.st_shared, summary.stmatrix);
    s.instructions = summary.warp_instructions;
    return s;
}

trace::GpuCounters counters_of_range(uint32_t index, const std::string& range_name,
                                     const std::vector<std::string>& launched,
                                     const std::vector<std::string>& metrics, const std::vector<double>& values,
                                     std::vector<std::string>* problems) {
    if (metrics.size() != values.size())
        throw std::invalid_argument("counters of range " + std::to_string(index) + ": " +
                                    std::to_string(values.size()) + " values for " + std::to_string(metrics.size()) +
                                    " metrics (a tklab bug)");
    trace::GpuCounters c;
    c.launch = index;
    uint64_t n = 0;
    if (is_number(range_name, n)) {
        // Auto-range mode names a range by its launch's position; the launch
        // callbacks saw the symbol. None seen (e.g. a kernel in a CUDA graph): "?".
        c.kernel = n < launched.size() ? demangle(launched[n]) : "?";
    } else {
        c.kernel = range_name.empty() ? "?" : demangle(range_name);
    }
    for (size_t i = 0; i < metrics.size(); ++i) {
        if (std::isfinite(values[i])) {
            c.metrics[metrics[i]] = values[i];
        } else if (problems) {
            problems->push_back("launch " + std::to_string(index) + " (" + c.kernel + "): CUPTI gave no value for " +
                                metrics[i] + "; left out");
        }
    }
    return c;
}

} // namespace tklab::profiler
