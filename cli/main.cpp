// tklab: run kernels and lessons by name, read reports, export traces.
//
// The same file builds two programs: `tklab` runs in the CPU simulator and
// records traces; `tklab_gpu` (built by nvcc when CUDA is found) runs the same
// registered kernels on the GPU and times them.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cerrno>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <unistd.h>
#include "cli/parser.h"
#include "tk/host/registry.h"
#include "trace/codec.h"
#include "trace/report.h"
#if defined(TKLAB_GPU_BACKEND)
#include <filesystem>
#include <cuda_runtime.h>
#include "profiler/decode/kernel_record.h"
#include "profiler/decode/regions.h"
#include "profiler/gpu/kernel_activity.h"
#include "profiler/gpu/pc_sampling.h"
#include "profiler/gpu/range_profiler.h"
#include "profiler/gpu/regions_session.h"
#else
#include "cli/lesson.h"
#include "profiler/decode/fidelity.h"
#include "sim/simulator.h"
#include "sim/trace_recorder.h"
#include "trace/chrome_export.h"
#endif

namespace {

using tklab::cli::kTool;
using tklab::cli::RunArgs;

// Colour only for a terminal, and never when NO_COLOR is set (no-color.org).
bool use_color(FILE* f, const std::string& mode) {
    if (mode == "always") return true;
    if (mode == "never") return false;
    const char* no = std::getenv("NO_COLOR");
    const char* term = std::getenv("TERM");
    return isatty(fileno(f)) && !(no && *no) && !(term && std::string(term) == "dumb");
}

[[noreturn]] void fail_usage(const std::string& msg) {
    std::fprintf(stderr, "%s: %s\n", kTool, msg.c_str());
    std::exit(2);
}

// A progress bar on stderr for work that takes longer than a second; drawn
// only on a terminal, so logs and pipes stay clean.
class Progress {
public:
    explicit Progress(std::string what) : what_(std::move(what)), tty_(isatty(fileno(stderr))) {}
    ~Progress() { done(); }
    void update(uint64_t done, uint64_t total) {
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
        if (!tty_ || secs < 1.0 || total == 0) return;
        const int width = 30, filled = int(double(done) / double(total) * width);
        std::string bar(size_t(filled), '#');
        bar.resize(size_t(width), '.');
        std::fprintf(stderr, "\r%s [%s] %llu/%llu blocks  %.1f s ", what_.c_str(), bar.c_str(),
                     (unsigned long long)done, (unsigned long long)total, secs);
        std::fflush(stderr);
        drawn_ = true;
    }
    void done() {
        if (drawn_) std::fprintf(stderr, "\r\033[K");
        drawn_ = false;
    }
    void rename(std::string what) { what_ = std::move(what); }

private:
    std::string what_;
    bool tty_, drawn_ = false;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// --size: "256" sets every dimension, "512x256x128" sets them in order,
// "M=512,K=128" sets the ones named.
tk::host::dims_t parse_size(const tk::host::program& p, const std::string& s) {
    tk::host::dims_t out;
    if (s.empty()) return out;
    auto number = [&](const std::string& v) {
        if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || v.size() > 9)
            fail_usage("--size " + s + ": '" + v + "' is not a positive whole number");
        return std::stoi(v);
    };
    if (s.find('=') != std::string::npos) {
        std::stringstream ss(s);
        std::string part;
        while (std::getline(ss, part, ',')) {
            const size_t eq = part.find('=');
            if (eq == std::string::npos) fail_usage("--size " + s + ": '" + part + "' should look like NAME=VALUE" + p.dims_help());
            out[part.substr(0, eq)] = number(part.substr(eq + 1));
        }
        return out;
    }
    std::vector<std::string> parts;
    std::stringstream ss(s);
    std::string part;
    while (std::getline(ss, part, 'x')) parts.push_back(part);
    if (parts.size() == 1) {
        for (const auto& d : p.dims) out[d.name] = number(parts[0]);
    } else if (parts.size() == p.dims.size()) {
        for (size_t i = 0; i < parts.size(); ++i) out[p.dims[i].name] = number(parts[i]);
    } else {
        fail_usage("--size " + s + ": " + p.name + " takes one size for all or " + std::to_string(p.dims.size()) +
                   " separated by 'x'" + p.dims_help());
    }
    return out;
}

int cmd_list() {
    size_t w = 4;
    for (const auto& p : tk::host::registry()) w = std::max(w, p.name.size());
    for (const char* kind : {"kernel", "lesson"}) {
        bool any = false;
        for (const auto& p : tk::host::registry()) {
            if (p.kind != kind) continue;
            if (!any) std::printf("%ss:\n", kind);
            any = true;
            std::string variants;
            for (const auto& v : p.variants) variants += (variants.empty() ? "" : "|") + v;
            std::printf("  %-*s  %s\n  %-*s  variants %s; sizes", int(w), p.name.c_str(), p.summary.c_str(), int(w), "",
                        variants.c_str());
            for (const auto& d : p.dims) std::printf(" %s=%d", d.name.c_str(), d.default_value);
            std::printf(" (multiples of %d)\n", p.dims.empty() ? 1 : p.dims[0].multiple);
        }
    }
    if (tk::host::registry().empty()) std::printf("nothing registered\n");
    return 0;
}

std::vector<std::string> variants_to_run(const tk::host::program& p, const std::string& v) {
    if (v.empty()) return {p.variants.front()};
    if (v == "all") return p.variants;
    for (const auto& x : p.variants)
        if (x == v) return {v};
    std::string known;
    for (const auto& x : p.variants) known += " " + x;
    fail_usage(p.name + " has no variant '" + v + "'; it has:" + known + " (or all)");
}

const tk::host::program& find_or_fail(const std::string& name) {
    const tk::host::program* p = tk::host::find_program(name);
    if (!p) fail_usage("nothing called '" + name + "' to run; `" + kTool + " list` shows the kernels and lessons");
    return *p;
}

tk::host::dims_t resolve_or_fail(const tk::host::program& p, const std::string& size) {
    try {
        return p.resolve(parse_size(p, size));
    } catch (const std::invalid_argument& e) {
        fail_usage(e.what());
    }
}

#if defined(TKLAB_GPU_BACKEND)

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
// headers included: a marker in a template such as tk/templates/ is named too.
tklab::profiler::RegionNames project_region_names() {
    std::vector<std::string> names;
    for (const char* dir : {"kernels", "lessons", "tk"}) {
        const std::filesystem::path root = std::filesystem::path(TKLAB_SOURCE_DIR) / dir;
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
    Style st{use_color(stdout, a.color)};
    int devices = 0;
    if (const cudaError_t e = cudaGetDeviceCount(&devices); e != cudaSuccess || devices == 0) {
        std::fprintf(stderr, "%s: no usable GPU here (%s). The simulator runs the same kernel: `tklab run %s`.\n", kTool,
                     e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device", p.name.c_str());
        return 1;
    }
    std::printf("%s %s on the GPU, seed %u\n", p.name.c_str(), dims_text(dims, p).c_str(), a.seed);
    const bool recorded = prof.any();
    if (prof.stalls) {
        // Source lines need each module's cubin, kept from its load on: before any kernel runs.
        try {
            tklab::profiler::PcSampling::watch_modules();
        } catch (const tklab::profiler::CuptiError& e) {
            std::fprintf(stderr, "%s: warning: stall samples will have no source lines: %s\n", kTool, e.what());
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
                    std::fprintf(stderr, "%s: kernel timing is off: %s\n", kTool, e.what());
                }
            }
            if (prof.regions) {
                const auto r = tklab::profiler::record_regions(doc, [&] { c->run(v); }, names);
                if (!r.warning.empty()) std::fprintf(stderr, "%s: warning: %s\n", kTool, r.warning.c_str());
                uint64_t n = 0;
                for (const auto& l : r.launches) n += l.regions;
                std::printf("  regions     %llu recorded over %zu launch%s\n", (unsigned long long)n, r.launches.size(),
                            r.launches.size() == 1 ? "" : "es");
            } else {
                c->run(v);
            }
            if (activity.running()) {
                const auto got = activity.stop();
                if (!got.warning().empty()) std::fprintf(stderr, "%s: warning: %s\n", kTool, got.warning().c_str());
                tklab::profiler::add_to_trace(doc, got.kernels);
            }
            // Counters and stall sampling each take a run of their own: the
            // Range Profiler replays each kernel, and sampling slows it down.
            // Stalls first: PC sampling found no samples after a Range
            // Profiler session in the same process (H100, CUDA 13).
            if (prof.stalls) {
                try {
                    const auto got = tklab::profiler::record_stalls([&] { c->run(v); });
                    if (!got.warning().empty()) std::fprintf(stderr, "%s: warning: %s\n", kTool, got.warning().c_str());
                    uint64_t n = 0;
                    for (const auto& k : got.stalls) n += k.samples;
                    if (n == 0)
                        std::fprintf(stderr, "%s: warning: stall sampling took no samples: the kernels ran too briefly for "
                                             "one sample every %s cycles, or another profiling session in this process "
                                             "held the hardware; run with --profile stalls alone\n", kTool,
                                     got.period_cycles ? std::to_string(got.period_cycles).c_str() : "few thousand");
                    doc.gpu_stalls.insert(doc.gpu_stalls.end(), got.stalls.begin(), got.stalls.end());
                    std::printf("  stalls      %llu samples over %zu kernel%s\n", (unsigned long long)n, got.stalls.size(),
                                got.stalls.size() == 1 ? "" : "s");
                } catch (const tklab::profiler::CuptiError& e) {
                    std::fprintf(stderr, "%s: stall sampling is off: %s\n", kTool, e.what());
                }
            }
            if (prof.counters) {
                try {
                    const auto got = tklab::profiler::record_counters([&] { c->run(v); });
                    if (!got.warning().empty()) std::fprintf(stderr, "%s: warning: %s\n", kTool, got.warning().c_str());
                    doc.gpu_counters.insert(doc.gpu_counters.end(), got.counters.begin(), got.counters.end());
                    std::printf("  counters    %zu launch%s measured (%s, %llu pass%s each)\n", got.counters.size(),
                                got.counters.size() == 1 ? "" : "es", got.chip.c_str(), (unsigned long long)got.passes,
                                got.passes == 1 ? "" : "es");
                } catch (const tklab::profiler::CuptiError& e) {
                    std::fprintf(stderr, "%s: hardware counters are off: %s\n", kTool, e.what());
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
        std::fprintf(stderr, "%s: %s failed: %s\n", kTool, p.name.c_str(), e.what());
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
            std::fprintf(stderr, "%s: wrote %s; `tklab view %s` opens it (beside a simulator trace: `tklab view SIM %s`)\n",
                         kTool, a.trace.c_str(), a.trace.c_str(), a.trace.c_str());
        } catch (const std::exception& e) {
            std::fprintf(stderr, "%s: %s\n", kTool, e.what());
            return 1;
        }
    }
    return ok ? 0 : 1;
}

#else

std::string human_bytes(uint64_t b) {
    char s[32];
    if (b >= 10u << 20) std::snprintf(s, sizeof s, "%.1f MB", double(b) / (1 << 20));
    else if (b >= 10u << 10) std::snprintf(s, sizeof s, "%.1f KB", double(b) / (1 << 10));
    else std::snprintf(s, sizeof s, "%llu bytes", (unsigned long long)b);
    return s;
}

// In the simulator: runs, checks, records the trace and prints the report.
int cmd_run(const RunArgs& a) {
    const auto& p = find_or_fail(a.name);
    const auto dims = resolve_or_fail(p, a.size);
    const auto variants = variants_to_run(p, a.variant);
    if (!a.trace.empty()) {
        try { tklab::trace::encoding_of(a.trace); } catch (const std::exception& e) { fail_usage(e.what()); }
    }
    try { tklab::sim::parse_timeline_blocks(a.timeline); } catch (const std::exception& e) { fail_usage(std::string("--timeline-blocks: ") + e.what()); }
    if (a.threads > 0) tklab::sim::options().host_threads = a.threads;
    tklab::sim::options().keep_blocks = false;  // the recorder streams them
    {
        std::string why;  // the parser has checked the names already
        if (!tklab::sim::parse_checks(a.checks, tklab::sim::options().checks, why)) fail_usage("--checks: " + why);
    }

    Progress progress(p.name);
    tklab::sim::RecorderOptions ro;
    ro.path = a.trace;
    ro.recording.timeline_blocks = a.timeline;
    ro.recording.all_lane_addresses = a.all_lanes;
    ro.recording.snapshots = a.snapshots;
    ro.program = p.name;
    ro.variant = a.variant.empty() ? variants.front() : a.variant;
    for (const auto& [k, v] : dims) ro.problem[k] = v;
    ro.seed = a.seed;
    ro.progress = [&](uint64_t done, uint64_t total) { progress.update(done, total); };

    std::unique_ptr<tklab::sim::TraceRecorder> rec;
    try {
        rec = std::make_unique<tklab::sim::TraceRecorder>(ro);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", kTool, e.what());
        return 1;
    }
    bool ok = true;
    const auto t0 = std::chrono::steady_clock::now();
    try {
        auto c = p.make(dims, a.seed);
        for (const auto& v : variants) {
            progress.rename(p.name + " " + v);
            c->run(v);
            if (!a.no_check) {
                const auto r = c->check();
                ok = ok && r.passed;
                rec->add_check({r.output, r.max_error, r.tolerance, r.passed, v});
            }
        }
    } catch (const tklab::sim::SimError& e) {
        ok = false;
        // A failure inside a launch is already in the trace, with its block.
        const auto& launches = rec->trace().launches;
        if (launches.empty() || !launches.back().failure) rec->add_failure("error", e.what(), e.file, e.line);
    } catch (const std::exception& e) {
        ok = false;
        rec->add_failure("error", e.what());
    }
    progress.done();
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    try {
        rec->close();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", kTool, e.what());
        ok = false;
    }
    tklab::trace::write_report(std::cout, rec->trace(), {use_color(stdout, a.color), a.top});
    std::cout.flush();
    uint64_t instructions = 0;
    for (const auto& l : rec->trace().launches)
        if (l.summary) instructions += l.summary->warp_instructions;
    std::fprintf(stderr, "%s: simulated %llu warp instructions in %.2f s\n", kTool, (unsigned long long)instructions, secs);
    if (!a.trace.empty())
        std::fprintf(stderr, "%s: wrote %s (%s, %.1f bytes per warp instruction); `tklab report %s` shows this again\n", kTool,
                     a.trace.c_str(), human_bytes(rec->bytes_written()).c_str(),
                     instructions ? double(rec->bytes_written()) / double(instructions) : 0.0, a.trace.c_str());
    return ok ? 0 : 1;
}

tklab::trace::Loaded load_or_fail(const std::string& file, bool salvage) {
    try {
        auto l = tklab::trace::load_trace(file, {salvage});
        if (!l.warning.empty()) std::fprintf(stderr, "%s: warning: %s\n", kTool, l.warning.c_str());
        return l;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", kTool, e.what());
        std::exit(1);
    }
}

int cmd_report(const std::string& file, bool salvage, size_t top, const std::string& color) {
    auto l = load_or_fail(file, salvage);
    tklab::trace::write_report(std::cout, l.trace, {use_color(stdout, color), top});
    return 0;
}

// The simulator's shared-memory figures beside the GPU's hardware counters.
int cmd_fidelity(const std::string& sim_file, const std::string& gpu_file, const std::string& color) {
    const auto sim = load_or_fail(sim_file, false);
    const auto gpu = load_or_fail(gpu_file, false);
    if (sim.trace.producer == gpu.trace.producer || gpu.trace.gpu_counters.empty()) {
        std::fprintf(stderr, "%s: fidelity compares a simulator trace (`tklab run NAME --trace SIM`) with a GPU trace "
                             "holding hardware counters (`tklab run NAME --gpu --profile counters --trace GPU`); %s %s\n",
                     kTool, gpu_file.c_str(),
                     gpu.trace.gpu_counters.empty() ? "has no hardware counters" : "and the first file come from the same producer");
        return 2;
    }
    const auto f = tklab::profiler::compare_fidelity(sim.trace, gpu.trace);
    tklab::profiler::write_fidelity(std::cout, f, use_color(stdout, color));
    return 0;
}

int cmd_export(const std::string& file, const std::string& out, bool salvage, bool instructions) {
    auto l = load_or_fail(file, salvage);
    std::ofstream o(out, std::ios::binary);
    if (!o) {
        std::fprintf(stderr, "%s: %s: cannot create the output file\n", kTool, out.c_str());
        return 1;
    }
    tklab::trace::write_chrome(o, l.trace, {instructions});
    o.close();
    if (!o) {
        std::fprintf(stderr, "%s: %s: writing failed\n", kTool, out.c_str());
        return 1;
    }
    std::fprintf(stderr, "%s: wrote %s; open it at https://ui.perfetto.dev (Open trace file) or chrome://tracing\n", kTool, out.c_str());
    return 0;
}

#endif

} // namespace

#if !defined(TKLAB_GPU_BACKEND)
// The visualizer is its own program (it needs a display and OpenGL; tklab
// does not), built beside this one.
// `tklab run NAME --gpu ...` is `tklab_gpu run NAME ...`: the GPU build is its
// own program (nvcc-built kernels), beside this one.
int run_on_gpu(int argc, char** argv) {
    const std::string gpu = tklab::cli::executable_dir() + "/tklab_gpu";
    if (access(gpu.c_str(), X_OK) != 0) {
        std::fprintf(stderr, "%s run --gpu: the GPU build is missing (%s): nvcc was not found when the build was\n"
                             "  configured, or it was configured with -DTKLAB_CUDA=OFF. Install the CUDA toolkit (nvcc\n"
                             "  at /usr/local/cuda/bin) and configure again with -DTKLAB_CUDA=ON.\n", kTool, gpu.c_str());
        return 1;
    }
    std::vector<char*> args{const_cast<char*>(gpu.c_str())};
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--gpu") != 0) args.push_back(argv[i]);
    args.push_back(nullptr);
    execv(gpu.c_str(), args.data());
    std::fprintf(stderr, "%s run --gpu: cannot start %s: %s\n", kTool, gpu.c_str(), std::strerror(errno));
    return 1;
}

int cmd_view(const std::vector<std::string>& args) {
    const std::string viewer = tklab::cli::executable_dir() + "/tklab_view";
    if (access(viewer.c_str(), X_OK) != 0) {
        std::fprintf(stderr, "%s view: the visualizer was not built (%s is missing): Dear ImGui, GLFW or OpenGL\n"
                             "  was not found when the build was configured. Install them (scripts/setup.sh does:\n"
                             "  libimgui-dev libglfw3-dev libstb-dev) and build again. Meanwhile `tklab report FILE`\n"
                             "  prints the report.\n", kTool, viewer.c_str());
        return 1;
    }
    std::vector<char*> argv{const_cast<char*>(viewer.c_str())};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(viewer.c_str(), argv.data());
    std::fprintf(stderr, "%s view: cannot start %s: %s\n", kTool, viewer.c_str(), std::strerror(errno));
    return 1;
}
#endif

int main(int argc, char** argv) {
    const tklab::cli::ParsedCommandLine pc = tklab::cli::parse_command_line(argc, argv);
    if (pc.exits) {
        std::cout << pc.out << std::flush;
        std::cerr << pc.err << std::flush;
        return pc.exit_code;
    }
    using tklab::cli::Command;
    [[maybe_unused]] const tklab::cli::TraceArgs& ta = pc.trace;
    switch (pc.command) {
    case Command::list: return cmd_list();
    case Command::run: return cmd_run(pc.run);
#if !defined(TKLAB_GPU_BACKEND)
    case Command::run_on_gpu: return run_on_gpu(argc, argv);
    case Command::report: return cmd_report(ta.file, ta.salvage, ta.top, ta.color);
    case Command::export_chrome: return cmd_export(ta.file, ta.out, ta.salvage, !ta.no_instructions);
    case Command::fidelity: return cmd_fidelity(ta.file, ta.gpu_file, ta.color);
    case Command::view: return cmd_view(pc.view_args);
    case Command::lesson: {
        const tklab::cli::LessonArgs& la = pc.lesson;
        return tklab::cli::cmd_lesson(la, argc, argv, [&](const std::string& program, const std::string& variant,
                                                          const std::string& trace) {
            RunArgs ra2;
            ra2.name = program;
            ra2.variant = variant;
            ra2.trace = trace;
            ra2.seed = la.seed;
            ra2.snapshots = true;   // the tile inspector shows the lesson's tiles
            ra2.all_lanes = true;   // and the shared-memory panel every instruction's lanes
            return cmd_run(ra2);
        });
    }
#endif
    default: return 2;
    }
}
