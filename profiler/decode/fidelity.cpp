// The fidelity report (see fidelity.h).
#include "profiler/decode/fidelity.h"
#include "profiler/decode/counter_metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tklab::profiler {
namespace {

uint64_t op_count(const trace::Trace& t, const trace::Summary& s, const std::string& op) {
    const int i = t.op_index(op);
    return i >= 0 && size_t(i) < s.by_op.size() ? s.by_op[size_t(i)] : 0;
}

std::string dims_of(const trace::Trace& t) { return t.problem.dump(); }

std::string fit(const std::string& s, size_t n) { return s.size() <= n ? s : s.substr(0, n - 3) + "..."; }

std::string number(double v) {
    char b[32];
    if (v == std::floor(v) && std::fabs(v) < 1e15) std::snprintf(b, sizeof b, "%.0f", v);
    else std::snprintf(b, sizeof b, "%.1f", v);
    return b;
}

} // namespace

Fidelity compare_fidelity(const trace::Trace& sim, const trace::Trace& gpu) {
    Fidelity f;
    f.program = sim.program;
    f.variant = sim.variant;
    if (sim.program != gpu.program)
        f.warnings.push_back("different programs: the simulator ran '" + sim.program + "', the GPU '" + gpu.program + "'");
    if (sim.variant != gpu.variant)
        f.warnings.push_back("different variants: '" + sim.variant + "' in the simulator, '" + gpu.variant + "' on the GPU");
    if (sim.problem != gpu.problem)
        f.warnings.push_back("different sizes: " + dims_of(sim) + " in the simulator, " + dims_of(gpu) + " on the GPU");
    if (sim.seed != gpu.seed)
        f.warnings.push_back("different seeds (" + std::to_string(sim.seed) + " and " + std::to_string(gpu.seed) +
                             "): data-dependent addresses may differ");
    if (gpu.gpu_counters.empty())
        f.warnings.push_back("the GPU trace has no hardware counters: record it with `tklab_gpu run " + gpu.program +
                             " --profile counters --trace FILE`");
    else if (gpu.gpu_counters.size() != sim.launches.size())
        f.warnings.push_back(std::to_string(sim.launches.size()) + " launches in the simulator, " +
                             std::to_string(gpu.gpu_counters.size()) + " profiled on the GPU: paired in order");
    const size_t n = std::max(sim.launches.size(), gpu.gpu_counters.size());
    for (size_t i = 0; i < n; ++i) {
        FidelityLaunch fl;
        const trace::Launch* l = i < sim.launches.size() ? &sim.launches[i] : nullptr;
        const trace::GpuCounters* c = i < gpu.gpu_counters.size() ? &gpu.gpu_counters[i] : nullptr;
        fl.sim_kernel = l ? l->kernel : "";
        fl.gpu_kernel = c ? c->kernel : "";
        if (!l || !l->summary) {
            fl.problem = l ? "the simulator's launch has no summary (its trace ends early)" : "no simulator launch to pair with";
            f.launches.push_back(std::move(fl));
            continue;
        }
        if (!c) fl.problem = "no GPU counters for this launch";
        // Both views of the launch's shared memory (counter_metrics.h): the
        // simulator's kinds, and the hardware's counters.
        const trace::Summary& s = *l->summary;
        const SharedCounters sim_view = simulated_shared(s);
        SharedCounters hw;  // all absent when there are no counters
        if (c) {
            try {
                hw = hardware_shared(*c);
            } catch (const std::invalid_argument& e) {
                fl.problem = e.what();
            }
        }
        auto row = [&](std::string kind, std::string quantity, std::optional<uint64_t> simv, std::optional<uint64_t> gpuv) {
            fl.rows.push_back({std::move(kind), std::move(quantity), simv.value_or(0),
                               gpuv ? std::optional<double>(double(*gpuv)) : std::nullopt});
        };
        // Instructions, per kind.
        row("LDS (ld.shared)", "instructions", sim_view.loads.plain, hw.loads.plain);
        row("LDSM (ldmatrix)", "instructions", sim_view.loads.matrix, hw.loads.matrix);
        row("STS (st.shared)", "instructions", sim_view.stores.plain, hw.stores.plain);
        row("STSM (stmatrix)", "instructions", sim_view.stores.matrix, hw.stores.matrix);
        row("LDGSTS (cp.async)", "instructions", op_count(sim, s, "cp.async"), hw.async_copies);
        // Wavefronts and conflicts, per direction (one hardware counter each).
        row("loads (LDS + LDSM)", "wavefronts", sim_view.loads.wavefronts, hw.loads.wavefronts);
        row("loads (LDS + LDSM)", "bank conflicts", sim_view.loads.conflicts, hw.loads.conflicts);
        row("stores (STS + STSM)", "wavefronts", sim_view.stores.wavefronts, hw.stores.wavefronts);
        row("stores (STS + STSM)", "bank conflicts", sim_view.stores.conflicts, hw.stores.conflicts);
        for (const FidelityRow& r : fl.rows) {
            if (!r.gpu) continue;
            ++f.rows;
            if (r.equal()) ++f.equal_rows;
        }
        f.launches.push_back(std::move(fl));
    }
    return f;
}

void write_fidelity(std::ostream& out, const Fidelity& f, bool color) {
    const auto paint = [&](const std::string& s, bool good) {
        return color ? std::string(good ? "\033[32m" : "\033[31m") + s + "\033[0m" : s;
    };
    out << fit(f.program + " " + f.variant, 60) << ": " << f.equal_rows << " of " << f.rows << " figures equal\n";
    for (const std::string& w : f.warnings) out << "  note: " << fit(w, 92) << "\n";
    for (size_t i = 0; i < f.launches.size(); ++i) {
        const FidelityLaunch& l = f.launches[i];
        out << "  launch " << i << ": " << fit(l.sim_kernel.empty() ? "-" : l.sim_kernel, 30) << " | GPU: "
            << fit(l.gpu_kernel.empty() ? "-" : l.gpu_kernel, 50) << "\n";
        if (!l.problem.empty()) out << "    " << fit(l.problem, 94) << "\n";
        char line[160];
        if (!l.rows.empty()) {
            std::snprintf(line, sizeof line, "    %-22s %-15s %12s %12s  %s\n", "kind", "quantity", "simulator", "GPU", "");
            out << line;
        }
        for (const FidelityRow& r : l.rows) {
            if (!r.gpu && r.sim == 0) continue;  // neither run has any
            std::string verdict;
            if (!r.gpu) verdict = "not measured";
            else if (r.equal()) verdict = paint("equal", true);
            else if (r.sim == 0 || *r.gpu == 0) verdict = paint("differs", false);
            else verdict = paint((*r.gpu > double(r.sim) ? "GPU +" : "GPU -") +
                                     number(std::fabs(*r.gpu - double(r.sim)) / double(r.sim) * 100.0) + "%",
                                 false);
            std::snprintf(line, sizeof line, "    %-22s %-15s %12llu %12s  ", fit(r.kind, 22).c_str(), r.quantity.c_str(),
                          (unsigned long long)r.sim, r.gpu ? number(*r.gpu).c_str() : "-");
            out << line << verdict << "\n";
        }
    }
}

} // namespace tklab::profiler
