// The timing fidelity report (see fidelity_timing.h).
#include "profiler/decode/fidelity_timing.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "trace/region_stats.h"
#include "trace/source_scan.h"

namespace tklab::profiler {
namespace {

std::string fit(const std::string& s, size_t n) { return s.size() <= n ? s : s.substr(0, n - 3) + "..."; }
// For "file:line": the end (file name and line) is what tells the place.
std::string fit_tail(const std::string& s, size_t n) { return s.size() <= n ? s : "..." + s.substr(s.size() - (n - 3)); }

std::string grid_text(const trace::Dim3& g) {
    return std::to_string(g.x) + "x" + std::to_string(g.y) + "x" + std::to_string(g.z);
}

std::string percent(std::optional<double> v) {
    if (!v) return "-";
    char b[16];
    std::snprintf(b, sizeof b, "%.1f%%", *v * 100.0);
    return b;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// A file path as both traces name it: relative to the project root.
std::string file_of(const trace::Trace& t, uint32_t loc) {
    if (loc >= t.locations.size()) return "";
    const uint32_t f = t.locations[loc].file;
    return f < t.files.size() ? t.files[f].path : "";
}

// The text of `path` as either trace embeds it (nullptr when neither does).
const std::string* source_text(const trace::Trace& a, const trace::Trace& b, const std::string& path) {
    for (const trace::Trace* t : {&a, &b})
        for (const trace::SourceFile& f : t->files)
            if (f.path == path && f.text) return &*f.text;
    return nullptr;
}

} // namespace

std::string hardware_stall_name(const std::string& sim_reason) {
    return sim_reason == "mbarrier" ? "long_scoreboard" : sim_reason;
}

TimingFidelity compare_timing(const trace::Trace& sim, const trace::Trace& gpu) {
    TimingFidelity f;
    f.program = sim.program;
    f.variant = sim.variant;
    if (sim.program != gpu.program)
        f.warnings.push_back("different programs: the simulator ran '" + sim.program + "', the GPU '" + gpu.program + "'");
    if (sim.variant != gpu.variant)
        f.warnings.push_back("different variants: '" + sim.variant + "' in the simulator, '" + gpu.variant + "' on the GPU");
    if (sim.problem != gpu.problem)
        f.warnings.push_back("different sizes: " + sim.problem.dump() + " in the simulator, " + gpu.problem.dump() + " on the GPU");
    if (gpu.gpu_kernels.empty())
        f.warnings.push_back("the GPU trace has no kernel records: record it with `tklab_gpu run " + gpu.program +
                             " --profile timing,regions,stalls --repeat 5 --trace FILE`");
    const size_t launches = sim.launches.size();
    // The GPU's records repeat once per run (the checked run, then --repeat
    // warm ones): record r * launches + i is launch i of run r.
    const bool whole_runs = launches && gpu.gpu_kernels.size() % launches == 0;
    if (launches && !whole_runs)
        f.warnings.push_back(std::to_string(gpu.gpu_kernels.size()) + " GPU kernel records are not a whole number of runs of " +
                             std::to_string(launches) + " launches: paired in order, first run only");
    const size_t runs = !launches ? 0 : whole_runs ? gpu.gpu_kernels.size() / launches : 1;
    for (size_t i = 0; i < launches; ++i) {
        TimingLaunch tl;
        const trace::Launch& l = sim.launches[i];
        tl.sim_kernel = l.kernel;
        tl.sim_grid = grid_text(l.grid);
        // At the launch's clock: lower when it uses the tensor cores (trace::clock_mhz).
        if (const double mhz = l.summary ? trace::clock_mhz(sim, &*l.summary) : 0; mhz > 0) tl.sim_us = double(l.summary->est_kernel_cycles) / mhz;
        else tl.problem = "the simulator's launch has no summary (its trace ends early)";
        // Kernel time: the median of the warm runs (run 0 is the checked, cold one).
        std::vector<double> times;
        for (size_t r = runs > 1 ? 1 : 0; r < runs; ++r) {
            const size_t k = r * launches + i;
            if (k >= gpu.gpu_kernels.size()) break;
            const trace::GpuKernel& g = gpu.gpu_kernels[k];
            if (tl.gpu_kernel.empty()) {
                tl.gpu_kernel = g.name;
                tl.gpu_grid = grid_text(g.grid);
            }
            times.push_back(double(g.duration_ns()) / 1000.0);
        }
        if (!times.empty()) {
            tl.gpu_us = median(times);
            tl.gpu_runs = int(times.size());
        }
        if (!tl.gpu_grid.empty() && tl.gpu_grid != tl.sim_grid)
            f.warnings.push_back("launch " + std::to_string(i) + " ran a " + tl.sim_grid + " grid in the simulator and " + tl.gpu_grid +
                                 " on the GPU: kernel times are of different launches");
        // Regions: each name's share of block time, on both sides.
        std::map<std::string, TimingShare> regions;
        const trace::RegionStats rs = trace::region_stats(sim, l);
        for (const trace::RegionStat& r : rs.rows) {
            const std::string name = r.name < sim.op_names.size() ? sim.op_names[r.name] : "?";
            regions[name].name = name;
            regions[name].sim = rs.share(r);
        }
        // And the time in no region, last: on the GPU, mostly the markers' own
        // memory traffic between regions, which the simulator's markers do not cost.
        TimingShare outside{"(in no region)", rs.rows.empty() ? std::nullopt : std::optional<double>(rs.outside_share()), std::nullopt};
        if (i < gpu.launches.size()) {
            const trace::RegionStats gs = trace::region_stats(gpu, gpu.launches[i]);
            for (const trace::RegionStat& r : gs.rows) {
                const std::string name = r.name < gpu.op_names.size() ? gpu.op_names[r.name] : "?";
                regions[name].name = name;
                regions[name].gpu = gs.share(r);
            }
            if (!gs.rows.empty()) outside.gpu = gs.outside_share();
        }
        for (auto& [name, share] : regions) tl.regions.push_back(share);
        std::stable_sort(tl.regions.begin(), tl.regions.end(),
                         [](const TimingShare& a, const TimingShare& b) { return a.gpu.value_or(-1) > b.gpu.value_or(-1); });
        if (!tl.regions.empty()) tl.regions.push_back(outside);
        // Stalls: the simulator's stalled warp-cycles per reason, the GPU's samples per reason.
        const trace::GpuStalls* gs = i < gpu.gpu_stalls.size() ? &gpu.gpu_stalls[i] : nullptr;
        std::map<std::string, TimingShare> stalls;
        if (gs && gs->samples > 0) {
            for (const auto& [reason, n] : gs->by_reason()) {
                stalls[reason].name = reason;
                stalls[reason].gpu = double(n) / double(gs->samples);
            }
        }
        std::map<std::pair<std::string, int>, std::map<std::string, uint64_t>> sim_lines;
        if (l.summary && l.summary->warp_cycles > 0) {
            const trace::Summary& s = *l.summary;
            // A warp's issue cycles are what PC sampling calls "selected": the
            // simulator's are its instructions' (issue_cycles each).
            const uint64_t issue = sim.arch.is_object() && sim.arch.contains("issue_cycles") && sim.arch["issue_cycles"].is_number_unsigned()
                                       ? sim.arch["issue_cycles"].get<uint64_t>()
                                       : 1;
            if (s.warp_instructions) {
                stalls["selected"].name = "selected";
                stalls["selected"].sim = double(s.warp_instructions * issue) / double(s.warp_cycles);
            }
            for (size_t k = 1; k < s.stall_cycles.size() && k < sim.stalls.size(); ++k) {
                if (!s.stall_cycles[k]) continue;
                const std::string name = hardware_stall_name(sim.stalls[k]);
                stalls[name].name = name;
                stalls[name].sim = stalls[name].sim.value_or(0) + double(s.stall_cycles[k]) / double(s.warp_cycles);
            }
            for (const trace::LineStalls& ls : s.line_stalls) {
                if (ls.loc >= sim.locations.size()) continue;
                auto& m = sim_lines[{file_of(sim, ls.loc), sim.locations[ls.loc].line}];
                if (ls.instructions) m["selected"] += ls.instructions * issue;
                for (size_t k = 1; k < ls.cycles.size() && k < sim.stalls.size(); ++k)
                    if (ls.cycles[k]) m[hardware_stall_name(sim.stalls[k])] += ls.cycles[k];
            }
        }
        // A reason the simulator models but did not see in this launch is 0%,
        // not "not modelled": its trace's stall table lists what it models.
        if (l.summary)
            for (size_t k = 1; k < sim.stalls.size(); ++k)
                if (auto it = stalls.find(hardware_stall_name(sim.stalls[k])); it != stalls.end() && !it->second.sim) it->second.sim = 0.0;
        for (auto& [name, share] : stalls) tl.stalls.push_back(share);
        std::stable_sort(tl.stalls.begin(), tl.stalls.end(), [](const TimingShare& a, const TimingShare& b) {
            return std::max(a.gpu.value_or(0), a.sim.value_or(0)) > std::max(b.gpu.value_or(0), b.sim.value_or(0));
        });
        // Hot lines: >= 5% of the launch's samples.
        if (gs && gs->samples > 0) {
            std::map<std::pair<std::string, int>, std::map<std::string, uint64_t>> gpu_lines;
            // A warp samples `drain` only after its EXIT, which ptxas puts on a
            // line of its choosing (in a kernel with tk::region markers, often an
            // early one). Those samples go to the closing brace of the kernel
            // function that line is in, where the simulator records its warps'
            // exit (sim/kernel_source.h), so the two sides name one place.
            for (const trace::GpuStallSite& x : gs->sites) {
                int line = int(x.line);
                if (x.reason == "drain")
                    if (const std::string* text = source_text(sim, gpu, x.file)) line = trace::function_end_line_in(text->c_str(), line);
                gpu_lines[{x.file, line}][x.reason] += x.samples;
            }
            for (const auto& [where, reasons] : gpu_lines) {
                uint64_t n = 0;
                for (const auto& [r, c] : reasons) n += c;
                if (where.first.empty() || double(n) < 0.05 * double(gs->samples)) continue;
                HotLine h;
                h.file = where.first;
                h.line = where.second;
                h.gpu_share = double(n) / double(gs->samples);
                h.gpu_reason = std::max_element(reasons.begin(), reasons.end(), [](auto& a, auto& b) { return a.second < b.second; })->first;
                if (auto it = sim_lines.find(where); it != sim_lines.end() && !it->second.empty())
                    h.sim_reason = std::max_element(it->second.begin(), it->second.end(), [](auto& a, auto& b) { return a.second < b.second; })->first;
                tl.hot_lines.push_back(h);
            }
            std::stable_sort(tl.hot_lines.begin(), tl.hot_lines.end(), [](const HotLine& a, const HotLine& b) { return a.gpu_share > b.gpu_share; });
        }
        f.launches.push_back(std::move(tl));
    }
    return f;
}

void write_timing(std::ostream& out, const TimingFidelity& f, bool color) {
    const auto paint = [&](const std::string& s, bool good) {
        return color ? std::string(good ? "\033[32m" : "\033[31m") + s + "\033[0m" : s;
    };
    char line[200];
    out << fit(f.program + " " + f.variant, 60) << ": timing\n";
    for (const std::string& w : f.warnings) out << "  note: " << fit(w, 92) << "\n";
    for (size_t i = 0; i < f.launches.size(); ++i) {
        const TimingLaunch& l = f.launches[i];
        out << "  launch " << i << ": " << fit(l.sim_kernel, 30) << " | GPU: " << fit(l.gpu_kernel.empty() ? "-" : l.gpu_kernel, 50) << "\n";
        if (!l.problem.empty()) out << "    " << fit(l.problem, 94) << "\n";
        if (l.sim_us && l.gpu_us) {
            const double e = *l.time_error();
            std::snprintf(line, sizeof line, "    kernel time   simulator %.2f us   GPU %.2f us (median of %d run%s)   ", *l.sim_us, *l.gpu_us,
                          l.gpu_runs, l.gpu_runs == 1 ? "" : "s");
            char err[48];
            std::snprintf(err, sizeof err, "simulator %+.0f%%", e * 100.0);
            out << line << paint(err, std::fabs(e) <= 0.15) << "\n";
        } else if (l.sim_us) {
            std::snprintf(line, sizeof line, "    kernel time   simulator %.2f us   GPU not timed\n", *l.sim_us);
            out << line;
        }
        if (!l.regions.empty()) {
            out << "    region                   simulator       GPU   (share of block time)\n";
            for (const TimingShare& r : l.regions) {
                std::snprintf(line, sizeof line, "      %-22s %9s %9s\n", fit(r.name, 22).c_str(), percent(r.sim).c_str(), percent(r.gpu).c_str());
                out << line;
            }
        }
        if (!l.stalls.empty()) {
            out << "    stall reason             simulator       GPU   (share of warp time; GPU: of PC samples)\n";
            for (const TimingShare& s : l.stalls) {
                if (s.gpu.value_or(0) < 0.01 && s.sim.value_or(0) < 0.01) continue;
                std::snprintf(line, sizeof line, "      %-22s %9s %9s%s\n", fit(s.name, 22).c_str(),
                              s.sim ? percent(s.sim).c_str() : "not modelled", percent(s.gpu).c_str(), "");
                out << line;
            }
            if (const auto d = l.stall_distance()) {
                std::snprintf(line, sizeof line, "      the two distributions %.0f%% apart (half the sum of the differences, each scaled to 100%%)\n",
                              *d * 100.0);
                out << line;
            }
        }
        if (!l.hot_lines.empty()) {
            const size_t plain = l.hot_lines.size() - l.modelled_lines();
            out << "    hot lines (>= 5% of samples): top reason agrees on " << l.agreeing_lines() << " of " << l.hot_lines.size();
            if (plain)
                out << "; " << plain << (plain == 1 ? " is" : " are")
                    << " plain code (no instruction): the simulator issues none for index arithmetic or loop control";
            out << "\n";
            for (const HotLine& h : l.hot_lines) {
                std::snprintf(line, sizeof line, "      %5.1f%%  %-40s GPU %-17s simulator %-17s ", h.gpu_share * 100.0,
                              fit_tail(h.file + ":" + std::to_string(h.line), 40).c_str(), h.gpu_reason.c_str(),
                              h.modelled() ? h.sim_reason.c_str() : "(no instruction)");
                out << line << paint(h.agrees() ? "agrees" : "differs", h.agrees()) << "\n";
            }
        }
    }
}

std::optional<double> TimingLaunch::stall_distance() const {
    double sim_sum = 0, gpu_sum = 0;
    for (const TimingShare& s : stalls) {
        sim_sum += s.sim.value_or(0);
        gpu_sum += s.gpu.value_or(0);
    }
    if (sim_sum <= 0 || gpu_sum <= 0) return std::nullopt;
    double d = 0;
    for (const TimingShare& s : stalls) d += std::fabs(s.sim.value_or(0) / sim_sum - s.gpu.value_or(0) / gpu_sum);
    return d / 2;
}

void write_timing_summary(std::ostream& out, const TimingFidelity& f) {
    for (size_t i = 0; i < f.launches.size(); ++i) {
        const TimingLaunch& l = f.launches[i];
        const size_t agree = l.agreeing_lines();
        char line[320];
        const auto distance = l.stall_distance();
        std::snprintf(line, sizeof line,
                      "timing: %s %s launch %zu sim_us %.3f gpu_us %.3f error %s hot_lines %zu/%zu modelled_lines %zu/%zu stall_distance %s\n",
                      f.program.c_str(), f.variant.c_str(), i, l.sim_us.value_or(-1), l.gpu_us.value_or(-1),
                      l.time_error() ? std::to_string(*l.time_error()).c_str() : "none", agree, l.hot_lines.size(), agree, l.modelled_lines(),
                      distance ? std::to_string(*distance).c_str() : "none");
        out << line;
    }
}

} // namespace tklab::profiler
