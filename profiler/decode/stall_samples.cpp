// PC samples into per-line stall counts (see stall_samples.h).
#include "profiler/decode/stall_samples.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string_view>
#include <tuple>
#include "profiler/decode/kernel_record.h"

namespace tklab::profiler {

namespace {

// CUPTI's metric prefixes, longest first (the first is the one CUDA 11-13 use).
constexpr const char* kPrefixes[] = {"smsp__pcsamp_warps_issue_stalled_", "smsp__pcsamp_warps_issue_", "smsp__pcsamp_"};
constexpr std::string_view kNotIssued = "_not_issued";

bool starts_with(const std::string& s, std::string_view p) { return s.size() >= p.size() && s.compare(0, p.size(), p) == 0; }
bool ends_with(const std::string& s, std::string_view p) {
    return s.size() > p.size() && s.compare(s.size() - p.size(), p.size(), p) == 0;
}

using SiteKey = std::tuple<std::string, uint32_t, std::string>;  // file, line, reason

struct Kernel {
    std::map<SiteKey, uint64_t> all, not_issued;
    std::map<SiteKey, uint64_t> inner;  // all, by each instruction's own line
    bool any_inner = false;             // some sample's kernel line is not its own line
    std::set<std::pair<uint64_t, uint64_t>> pcs;  // (cubin, pc offset) seen
    uint64_t samples = 0, without_line = 0;
};

std::vector<trace::GpuStallSite> sites_of(const std::map<SiteKey, uint64_t>& m) {
    std::vector<trace::GpuStallSite> v;
    v.reserve(m.size());
    for (const auto& [k, n] : m) v.push_back({std::get<0>(k), std::get<1>(k), std::get<2>(k), n});
    return v;  // the map's order: (file, line, reason)
}

// Shares `dropped` out in proportion to each kernel's samples; the remainders
// go to the largest fractions (ties: the earlier kernel), so the shares add up.
std::vector<uint64_t> share_out(uint64_t dropped, const std::vector<uint64_t>& samples) {
    std::vector<uint64_t> share(samples.size(), 0);
    unsigned __int128 total = 0;
    for (uint64_t s : samples) total += s;
    if (samples.empty() || dropped == 0) return share;
    if (total == 0) {  // nothing to weigh by: evenly
        for (size_t i = 0; i < share.size(); ++i) share[i] = dropped / share.size() + (i < dropped % share.size());
        return share;
    }
    std::vector<std::pair<unsigned __int128, size_t>> rest;
    uint64_t given = 0;
    for (size_t i = 0; i < samples.size(); ++i) {
        const unsigned __int128 x = (unsigned __int128)dropped * samples[i];
        share[i] = uint64_t(x / total);
        given += share[i];
        rest.push_back({x % total, i});
    }
    std::stable_sort(rest.begin(), rest.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (size_t k = 0; given < dropped; ++k, ++given) ++share[rest[k].second];
    return share;
}

} // namespace

StallReason parse_stall_reason(const std::string& cupti_name) {
    StallReason r{cupti_name, false};
    for (const char* p : kPrefixes)
        if (starts_with(r.name, p) && r.name.size() > std::string_view(p).size()) {
            r.name.erase(0, std::string_view(p).size());
            break;
        }
    if (ends_with(r.name, kNotIssued)) {
        r.name.resize(r.name.size() - kNotIssued.size());
        r.not_issued = true;
    }
    return r;
}

std::string sim_stall_for(const std::string& gpu_reason) {
    const std::string r = parse_stall_reason(gpu_reason).name;
    // The simulator's names were chosen to be Nsight Compute's (sim/events.h):
    // where it models the same wait, the name is the same.
    for (const char* same : {"barrier", "long_scoreboard", "short_scoreboard", "mio_throttle", "math_pipe_throttle", "wait", "selected", "not_selected", "drain", "lg_throttle", "imc_miss"})
        if (r == same) return r;
    return "";
}

bool has_barrier_samples(const RawPcSample& s) {
    for (const auto& [name, n] : s.reasons)
        if (n > 0 && parse_stall_reason(name).name == "barrier") return true;
    return false;
}

std::vector<KernelStallSamples> aggregate_stall_samples(const std::vector<RawPcSample>& samples,
                                                        const LineTable& lines, const SamplingTotals& totals) {
    std::map<std::string, Kernel> by_function;  // mangled name -> sums
    for (const RawPcSample& s : samples) {
        Kernel& k = by_function[s.function];
        const auto at = lines.find(PcKey{s.cubin_crc, s.function, s.pc_offset});
        const SourceLine own = at != lines.end() ? at->second : SourceLine{};
        // A warp waiting at a barrier has issued its BAR: its PC is the next
        // instruction's, often on another line (the code after
        // __syncthreads()). The wait is the BAR's, 16 bytes before, where the
        // simulator puts it too.
        auto bar = s.pc_offset >= kSassInstructionBytes
                       ? lines.find(PcKey{s.cubin_crc, s.function, s.pc_offset - kSassInstructionBytes}) : lines.end();
        if (bar != lines.end() && !bar->second.cta_barrier) bar = lines.end();
        k.pcs.insert({s.cubin_crc, s.pc_offset});
        for (const auto& [name, n] : s.reasons) {
            if (name.empty())
                throw std::invalid_argument("PC sample of " + s.function + " at offset " + std::to_string(s.pc_offset) +
                                            ": a stall reason without a name (CUPTI's reason table was not read)");
            if (n == 0) continue;
            const StallReason r = parse_stall_reason(name);
            const SourceLine& where = r.name == "barrier" && bar != lines.end() ? bar->second : own;
            (r.not_issued ? k.not_issued : k.all)[{where.file, where.line, r.name}] += n;
            if (!r.not_issued) {
                const bool inlined = !where.inner_file.empty();
                k.any_inner = k.any_inner || inlined;
                k.inner[{inlined ? where.inner_file : where.file, inlined ? where.inner_line : where.line, r.name}] += n;
                k.samples += n;
                if (where.file.empty()) k.without_line += n;
            }
        }
    }
    std::vector<KernelStallSamples> out;
    for (auto& [mangled, k] : by_function) {
        KernelStallSamples x;
        x.mangled = mangled;
        x.stalls.kernel = mangled.empty() ? "?" : demangle(mangled);
        x.stalls.period_cycles = totals.period_cycles;
        x.stalls.samples = k.samples;
        x.stalls.sites = sites_of(k.all);
        if (k.any_inner) x.stalls.inner_sites = sites_of(k.inner);
        x.not_issued = sites_of(k.not_issued);
        x.samples_without_line = k.without_line;
        x.pcs = k.pcs.size();
        out.push_back(std::move(x));
    }
    std::stable_sort(out.begin(), out.end(), [](const KernelStallSamples& a, const KernelStallSamples& b) {
        return std::tie(a.stalls.kernel, a.mangled) < std::tie(b.stalls.kernel, b.mangled);
    });
    std::vector<uint64_t> weights;
    for (const KernelStallSamples& x : out) weights.push_back(x.stalls.samples);
    const std::vector<uint64_t> dropped = share_out(totals.dropped, weights);
    for (size_t i = 0; i < out.size(); ++i) out[i].stalls.dropped = dropped[i];
    return out;
}

std::vector<trace::GpuStallSite> top_sites(const trace::GpuStalls& s, size_t n) {
    std::vector<trace::GpuStallSite> v = s.sites;
    std::stable_sort(v.begin(), v.end(), [](const trace::GpuStallSite& a, const trace::GpuStallSite& b) {
        if (a.samples != b.samples) return a.samples > b.samples;
        return std::tie(a.file, a.line, a.reason) < std::tie(b.file, b.line, b.reason);
    });
    if (v.size() > n) v.resize(n);
    return v;
}

std::vector<trace::GpuStalls> to_gpu_stalls(const std::vector<KernelStallSamples>& kernels) {
    std::vector<trace::GpuStalls> v;
    v.reserve(kernels.size());
    for (const KernelStallSamples& k : kernels) v.push_back(k.stalls);
    return v;
}

void add_to_trace(trace::Trace& t, const std::vector<KernelStallSamples>& kernels) {
    for (const KernelStallSamples& k : kernels) t.gpu_stalls.push_back(k.stalls);
}

} // namespace tklab::profiler
