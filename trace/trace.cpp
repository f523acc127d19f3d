// Small helpers of the in-memory trace.
#include "trace/trace.h"

#include <cmath>
#include <optional>

namespace tklab::trace {

namespace {
// A number at the top of the trace's cost model (absent in older traces).
std::optional<double> number_at(const Trace& t, const char* key) {
    auto it = t.arch.is_object() ? t.arch.find(key) : t.arch.end();
    if (it == t.arch.end() || !it->is_number()) return std::nullopt;
    return it->get<double>();
}
} // namespace

RegisterEstimate register_estimate(const Trace& t, const Summary& s) {
    RegisterEstimate e;
    e.base = std::llround(number_at(t, "base_registers_per_thread").value_or(0));
    e.addresses = std::llround(number_at(t, "registers_per_loop_address").value_or(0) * s.loop_addresses);
    if (auto share = number_at(t, "registers_from_shared_share"))
        e.from_shared = std::llround((1.0 - *share) * s.peak_from_shared_regs);
    // A straight run's addresses, up to full occupancy (sim/merge.cpp run_address_registers).
    const double threads = number_at(t, "max_threads_per_sm").value_or(0);
    if (s.run_addresses > 0 && threads > 0) {
        const double base = number_at(t, "registers_run_base").value_or(0), per = number_at(t, "registers_per_run_address").value_or(0);
        e.run_base = std::llround(base);
        e.run_per_address = std::llround(per);
        const long long all = std::llround(base + per * s.run_addresses);
        const long long full = (long long)(number_at(t, "registers_per_sm").value_or(0) / threads);
        e.run = std::min(all, full);
        e.run_capped = full < all;
    }
    e.total = s.estimated_registers > 0 ? s.estimated_registers : e.base + s.peak_regs;
    using From = RegisterEstimate::From;
    e.from = e.total == e.base + e.addresses + s.peak_regs - e.from_shared ? From::tiles
             : e.total == e.base + e.addresses + s.peak_loaded_regs ? From::loaded
             : e.run > 0 && e.total == e.run                        ? From::run
             : e.total < e.base                                     ? From::idle  // below the base: a kernel that issued nothing
                                                                    : From::setmaxnreg;
    return e;
}

double clock_mhz(const Trace& t, const Summary* s) {
    if (s && s->clock_mhz > 0) return s->clock_mhz;
    auto it = t.arch.is_object() ? t.arch.find("clock_mhz") : t.arch.end();
    return it != t.arch.end() && it->is_number() && it->get<double>() > 0 ? it->get<double>() : 0;
}

std::string Trace::where(uint32_t loc) const {
    if (loc == 0 || loc >= locations.size()) return "?";
    const Location& l = locations[loc];
    const std::string& path = l.file < files.size() ? files[l.file].path : std::string("?");
    return path + ":" + std::to_string(l.line);
}

std::string Trace::line_text(uint32_t loc) const {
    if (loc == 0 || loc >= locations.size()) return {};
    const Location& l = locations[loc];
    if (l.file >= files.size() || !files[l.file].text || l.line <= 0) return {};
    const std::string& t = *files[l.file].text;
    size_t pos = 0;
    for (int i = 1; i < l.line; ++i) {
        pos = t.find('\n', pos);
        if (pos == std::string::npos) return {};
        ++pos;
    }
    size_t end = t.find('\n', pos);
    std::string s = t.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t\r");
    return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

int Trace::op_index(const std::string& name) const {
    for (size_t i = 0; i < ops.size(); ++i)
        if (ops[i] == name) return int(i);
    return -1;
}

bool Trace::from_gpu() const {
    const auto it = arch.find("gpu");
    return it != arch.end() && it->is_boolean() && it->get<bool>();
}

std::map<std::string, uint64_t> GpuStalls::by_reason() const {
    std::map<std::string, uint64_t> m;
    for (const GpuStallSite& x : sites) m[x.reason] += x.samples;
    return m;
}

} // namespace tklab::trace
