// The timing fidelity reports, embedded (fidelity_summary.h).
#include "trace/fidelity_summary.h"

#include <map>
#include <mutex>
#include <sstream>

namespace tklab::trace {

const char* builtin_fidelity_report(const std::string& arch);  // generated: cmake/tklab.cmake

std::vector<FidelityLaunch> FidelitySummary::of(const std::string& program, const std::string& variant) const {
    std::vector<FidelityLaunch> v;
    for (const std::string wave : {"one", "many"})
        for (const FidelityLaunch& l : launches)
            if (l.program == program && l.variant == variant && l.wave == wave) v.push_back(l);
    return v;
}

std::optional<FidelitySummary> parse_fidelity_report(const std::string& text, const std::string& file) {
    FidelitySummary f;
    f.file = file;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        std::istringstream ws(line);
        std::vector<std::string> w;
        for (std::string x; ws >> x;) w.push_back(x);
        if (const size_t at = line.find("GPU: "); f.gpu.empty() && at != std::string::npos && line.rfind("tklab timing fidelity report", 0) == 0)
            f.gpu = line.substr(at + 5, line.find(" (", at) - at - 5);
        // "  one   gemm  swizzled  7.54 us  7.14 us  +6%  hot lines ..."
        if (w.size() >= 8 && (w[0] == "one" || w[0] == "many") && w[4] == "us" && w[6] == "us" && w[7].back() == '%')
            f.launches.push_back({w[1], w[2], w[0], w[7]});
        // "Kernel time: mean absolute error 10% over 52 launches, worst 27% (lesson04 solution one). Hot lines: ..."
        if (w.size() > 10 && w[0] == "Kernel" && w[2] == "mean" && w[6] == "over" && w[9] == "worst")
            f.mean = w[5], f.count = w[7], f.worst = w[10];
    }
    if (f.mean.empty()) return std::nullopt;
    return f;
}

const FidelitySummary* builtin_fidelity(const std::string& arch) {
    static std::mutex m;
    static std::map<std::string, std::optional<FidelitySummary>> parsed;
    std::lock_guard<std::mutex> lock(m);
    auto it = parsed.find(arch);
    if (it == parsed.end()) {
        const char* text = builtin_fidelity_report(arch);
        it = parsed.emplace(arch, text ? parse_fidelity_report(text, "results/fidelity_timing_" + arch + ".txt") : std::nullopt).first;
    }
    return it->second ? &*it->second : nullptr;
}

} // namespace tklab::trace
