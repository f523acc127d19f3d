// `tklab_gpu`'s own parts (cli/common.h): `run` on the GPU -- each variant
// checked and timed, and with --profile recorded by CUPTI and tk::region
// markers into a trace.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <cuda_runtime.h>
#include "cli/common.h"
#include "profiler/decode/kernel_record.h"
#include "profiler/decode/regions.h"
#include "profiler/gpu/kernel_activity.h"
#include "profiler/gpu/pc_sampling.h"
#include "profiler/gpu/range_profiler.h"
#include "profiler/gpu/regions_session.h"
#include "trace/codec.h"
#include "trace/report.h"

namespace tklab::cli {

namespace {

struct Style {
    bool on = false;
    std::string bold(const std::string& s) const { return on ? "\033[1m" + s + "\033[0m" : s; }
    std::string red(const std::string& s) const { return on ? "\033[31m" + s + "\033[0m" : s; }
    std::string green(const std::string& s) const { return on ? "\033[32m" + s + "\033[0m" : s; }
};

std::string dims_text(const tk::host::dims_t& d, const tk::host::program& p) {
    std::string s;
    for (const auto& dim : p.dims) s += (s.empty() ? "" : " ") + dim.name + "=" + std::to_string(d.at(dim.name));
    return s;
}

// What --profile asks for.
struct Profile {
    bool timing = false, regions = false, counters = false, stalls = false;
    bool any() const { return timing || regions || counters || stalls; }
};

Profile parse_profile(const std::string& list) {
    Profile p;
    std::stringstream in(list);
    for (std::string item; std::getline(in, item, ',');) {
        if (item == "timing") p.timing = true;
        else if (item == "regions") p.regions = true;
        else if (item == "counters") p.counters = true;
        else if (item == "stalls") p.stalls = true;
        else if (!item.empty())
            fail_usage("--profile: '" + item + "' is not one of timing, regions, counters, stalls (comma-separated)");
    }
    return p;
}

// Region names hash to the ids the kernels record; the names come from the
// project's kernel, lesson and tile-library sources (tk::region r("name")),
// headers included: a marker in a template such as tk/templates/ is named too;
// and, in a program of one's own kernels, from its folders (tool().source_dirs).
tklab::profiler::RegionNames project_region_names() {
    std::vector<std::string> names;
    std::vector<std::filesystem::path> roots;
    for (const char* dir : {"kernels", "lessons", "tk"}) roots.push_back(std::filesystem::path(TKLAB_SOURCE_DIR) / dir);
    for (const std::string& dir : tool().source_dirs) roots.emplace_back(dir);  // a user's own kernels
    for (const std::filesystem::path& root : roots) {
        std::error_code ec;
        for (auto it = std::filesystem::recursive_directory_iterator(root, ec); !ec && it != std::filesystem::end(it); ++it) {
            const auto ext = it->path().extension();
            if (ext != ".cu" && ext != ".cuh" && ext != ".h") continue;
            std::ifstream f(it->path());
            std::stringstream text;
            text << f.rdbuf();
            for (auto& n : tklab::profiler::region_names_in(text.str())) names.push_back(n);
        }
    }
    return tklab::profiler::RegionNames(names);
}

} // namespace

// On the GPU: each variant runs, is checked and timed; with --profile, the
// checked run is also recorded (CUPTI kernel records, intra-kernel regions)
// into a trace, reported, and written with --trace.
int cmd_run(const RunArgs& a) {
    const auto& p = find_or_fail(a.name);
    const auto dims = resolve_or_fail(p, a.size);
    const auto variants = variants_to_run(p, a.variant);
    const Profile prof = parse_profile(a.profile);
    if (!a.trace.empty()) {
        try { tklab::trace::encoding_of(a.trace); } catch (const std::exception& e) { fail_usage(e.what()); }
    }
    if (a.stall_period != int(tklab::profiler::PcSamplingOptions{}.period_log2) && !prof.stalls)
        fail_usage("--stall-period sets PC sampling's period: it needs --profile stalls (e.g. --profile stalls --stall-period 9)");
    Style st{use_color(stdout, a.color)};
    int devices = 0;
    if (const cudaError_t e = cudaGetDeviceCount(&devices); e != cudaSuccess || devices == 0) {
        std::fprintf(stderr, "%s: no usable GPU here (%s). The simulator runs the same kernel: `%s run %s`.\n", tool_name(),
                     e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device", sim_tool_name().c_str(), p.name.c_str());
        return 1;
    }
    std::printf("%s %s on the GPU, seed %u\n", p.name.c_str(), dims_text(dims, p).c_str(), a.seed);
    const bool recorded = prof.any();
    if (prof.stalls) {
        // Source lines need each module's cubin, kept from its load on: before any kernel runs.
        try {
            tklab::profiler::PcSampling::watch_modules();
        } catch (const tklab::profiler::CuptiError& e) {
            std::fprintf(stderr, "%s: warning: stall samples will have no source lines: %s\n", tool_name(), e.what());
        }
    }
    bool ok = true;
    tklab::trace::Trace doc;
    try {
        auto c = p.make(dims, a.seed);
        if (recorded || !a.trace.empty()) {
            doc = tklab::profiler::gpu_trace(tklab::profiler::current_gpu_device());
            doc.program = p.name;
            doc.variant = a.variant.empty() ? variants.front() : a.variant;
            for (const auto& [k, v] : dims) doc.problem[k] = v;
            doc.seed = a.seed;
        }
        const auto names = prof.regions ? project_region_names() : tklab::profiler::RegionNames{};
        for (const auto& v : variants) {
            std::printf("\n== %s ==\n", v.c_str());
            // The checked run is the profiled one; the timing loop below runs unprofiled.
            tklab::profiler::KernelActivity activity;
            if (prof.timing) {
                try {
                    activity.start();
                } catch (const std::exception& e) {
                    std::fprintf(stderr, "%s: kernel timing is off: %s\n", tool_name(), e.what());
                }
            }
            if (prof.regions) {
                const auto r = tklab::profiler::record_regions(doc, [&] { c->run(v); }, names);
                if (!r.warning.empty()) std::fprintf(stderr, "%s: warning: %s\n", tool_name(), r.warning.c_str());
                uint64_t n = 0;
                for (const auto& l : r.launches) n += l.regions;
                std::printf("  regions     %llu recorded over %zu launch%s\n", (unsigned long long)n, r.launches.size(),
                            r.launches.size() == 1 ? "" : "es");
            } else {
                c->run(v);
            }
            if (activity.running()) {
                const auto got = activity.stop();
                if (!got.warning().empty()) std::fprintf(stderr, "%s: warning: %s\n", tool_name(), got.warning().c_str());
                tklab::profiler::add_to_trace(doc, got.kernels);
            }
            // Warm runs, each launch timed with --profile timing: the first (checked) run pays for cold
            // caches, the code's first fetch and lazy module loading.
            if (a.repeat > 0) {
                for (int i = 0; i < a.repeat; ++i) {
                    if (!prof.timing) {  // warm runs for a profiler outside tklab (ncu --launch-skip)
                        c->run(v);
                        continue;
                    }
                    tklab::profiler::KernelActivity again;
                    try {
                        again.start();
                    } catch (const std::exception& e) {
                        std::fprintf(stderr, "%s: kernel timing is off: %s\n", tool_name(), e.what());
                        break;
                    }
                    c->run(v);
                    const auto got = again.stop();
                    if (!got.warning().empty()) std::fprintf(stderr, "%s: warning: %s\n", tool_name(), got.warning().c_str());
                    tklab::profiler::add_to_trace(doc, got.kernels);
                }
                std::printf("  %s %d warm run%s after the checked one\n", prof.timing ? "timing     " : "warm runs  ", a.repeat, a.repeat == 1 ? "" : "s");
            }
            // Counters and stall sampling each take a run of their own: the
            // Range Profiler replays each kernel, and sampling slows it down.
            // Stalls first: PC sampling found no samples after a Range
            // Profiler session in the same process (H100, CUDA 13).
            if (prof.stalls) {
                try {
                    tklab::profiler::PcSamplingOptions opt;
                    opt.period_log2 = uint32_t(a.stall_period);
                    const auto got = tklab::profiler::record_stalls([&] { c->run(v); }, opt);
                    if (!got.warning().empty()) std::fprintf(stderr, "%s: warning: %s\n", tool_name(), got.warning().c_str());
                    uint64_t n = 0;
                    for (const auto& k : got.stalls) n += k.samples;
                    if (n == 0)
                        std::fprintf(stderr, "%s: warning: stall sampling took no samples: the kernels ran too briefly for "
                                             "one sample every %s cycles (a lower --stall-period samples more often), or "
                                             "another profiling session in this process held the hardware; run with "
                                             "--profile stalls alone\n", tool_name(),
                                     got.period_cycles ? std::to_string(got.period_cycles).c_str() : "few thousand");
                    doc.gpu_stalls.insert(doc.gpu_stalls.end(), got.stalls.begin(), got.stalls.end());
                    std::printf("  stalls      %llu samples over %zu kernel%s\n", (unsigned long long)n, got.stalls.size(),
                                got.stalls.size() == 1 ? "" : "s");
                } catch (const tklab::profiler::CuptiError& e) {
                    std::fprintf(stderr, "%s: stall sampling is off: %s\n", tool_name(), e.what());
                }
            }
            if (prof.counters) {
                try {
                    const auto got = tklab::profiler::record_counters([&] { c->run(v); });
                    if (!got.warning().empty()) std::fprintf(stderr, "%s: warning: %s\n", tool_name(), got.warning().c_str());
                    doc.gpu_counters.insert(doc.gpu_counters.end(), got.counters.begin(), got.counters.end());
                    std::printf("  counters    %zu launch%s measured (%s, %llu pass%s each)\n", got.counters.size(),
                                got.counters.size() == 1 ? "" : "es", got.chip.c_str(), (unsigned long long)got.passes,
                                got.passes == 1 ? "" : "es");
                } catch (const tklab::profiler::CuptiError& e) {
                    std::fprintf(stderr, "%s: hardware counters are off: %s\n", tool_name(), e.what());
                }
            }
            if (!a.no_check) {
                const auto r = c->check();
                ok = ok && r.passed;
                std::printf("  check       %s max relative error vs float64 reference: %.2e  %s\n", r.output.c_str(), r.max_error,
                            r.passed ? st.green("ok").c_str() : st.red("FAILED (limit " + std::to_string(r.tolerance) + ")").c_str());
                doc.checks.push_back({r.output, r.max_error, r.tolerance, r.passed, v});
            }
            const double ms = c->time_ms(v);
            if (ms > 0) {
                std::printf("  GPU time    %.4f ms per run", ms);
                if (p.flops) std::printf(", %.1f TFLOP/s", p.flops(dims, v) / (ms * 1e-3) / 1e12);
                if (p.bytes) std::printf(", %.1f GB/s", p.bytes(dims) / (ms * 1e-3) / 1e9);
                std::printf("\n");
            }
        }
        doc.complete = true;  // every run finished; the writer closes the file
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s failed: %s\n", tool_name(), p.name.c_str(), e.what());
        return 1;
    }
    if (recorded) {
        std::printf("\n");
        tklab::trace::write_report(std::cout, doc, {use_color(stdout, a.color), a.top});
        std::cout.flush();
    }
    if (!a.trace.empty()) {
        try {
            tklab::trace::write_trace(a.trace, doc);
            const std::string sim = sim_tool_name();
            std::fprintf(stderr, "%s: wrote %s; `%s view %s` opens it (beside a simulator trace: `%s view SIM %s`)\n",
                         tool_name(), a.trace.c_str(), sim.c_str(), a.trace.c_str(), sim.c_str(), a.trace.c_str());
        } catch (const std::exception& e) {
            std::fprintf(stderr, "%s: %s\n", tool_name(), e.what());
            return 1;
        }
    }
    return ok ? 0 : 1;
}

// tklab_gpu's parser offers `list` and `run` only.
int cmd_other(const ParsedCommandLine&, int, char**) { return 2; }

} // namespace tklab::cli
