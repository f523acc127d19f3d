// `tklab`'s own parts (cli/common.h): `run` in the CPU simulator, and the
// commands only this program has -- run --gpu (handed to tklab_gpu), report,
// export, fidelity, view (the visualizer) and lesson (the workshop).
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <new>
#include <string>
#include <sys/resource.h>
#include <unistd.h>
#include "cli/common.h"
#include "cli/lesson.h"
#include "profiler/decode/fidelity.h"
#include "profiler/decode/fidelity_timing.h"
#include "sim/compiler_figures.h"
#include "sim/simulator.h"
#include "sim/trace_recorder.h"
#include "trace/chrome_export.h"
#include "trace/codec.h"
#include "trace/report.h"
#include "tk/host/memory_check.h"

namespace tklab::cli {

namespace {

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

// ", and this process may use at most N GB of address space (ulimit -v)", or "" with no limit.
std::string address_space_limit() {
    rlimit r{};
    if (getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return "";
    return ", and this process may use at most " + tk::host::gigabytes(uint64_t(r.rlim_cur)) + " of address space (ulimit -v)";
}

// A problem size as --size takes it: "M=256,N=256".
template <typename Dims> std::string size_text(const Dims& dims) {
    std::string s;
    for (const auto& [k, v] : dims) s += (s.empty() ? "" : ",") + k + "=" + std::to_string(v);
    return s;
}

std::string human_bytes(uint64_t b) {
    char s[32];
    if (b >= 10ull << 30) std::snprintf(s, sizeof s, "%.1f GB", double(b) / (1 << 30));
    else if (b >= 10u << 20) std::snprintf(s, sizeof s, "%.1f MB", double(b) / (1 << 20));
    else if (b >= 10u << 10) std::snprintf(s, sizeof s, "%.1f KB", double(b) / (1 << 10));
    else std::snprintf(s, sizeof s, "%llu bytes", (unsigned long long)b);
    return s;
}

// What a run will hold at its peak, estimated once its inputs are made and
// before the simulation starts, from what is registered then: the data
// already made (measured), the simulator's working set, and what checking
// the result takes. The check downloads each fresh buffer (an output) and
// turns it into floats, builds the float64 reference of it, and references
// commonly work from float copies of the inputs. Peaks measured beside these
// estimates: scripts/dev/memory_estimate.sh.
struct MemoryEstimate {
    uint64_t data = 0, simulator = 0, check = 0;
    bool data_made = false;  // false: the program's declaration (tk::host::data_size), before making it
    uint64_t total() const { return data + simulator + check; }
};

// Per host thread: the resident blocks' shared memory and its shadow, and
// the touched part of their fibers' stacks; measured under 16 MB a thread.
uint64_t simulator_memory() { return uint64_t(tklab::sim::simulation_threads()) * (16u << 20); }

// Before making the data, when the program declares its size: the data and
// the simulator (what checking takes is known once the outputs exist).
MemoryEstimate estimate_data_memory(const tk::host::program& p, const tk::host::dims_t& dims) {
    MemoryEstimate e;
    if (!p.data) return e;
    e.data = uint64_t(p.data(dims).in_host_memory()) + tk::host::resident_memory_bytes();
    e.simulator = simulator_memory();
    return e;
}

MemoryEstimate estimate_run_memory(bool checked) {
    const tklab::sim::GlobalFootprint f = tklab::sim::registered_footprint();
    MemoryEstimate e;
    e.data_made = true;
    e.data = tk::host::resident_memory_bytes();
    e.simulator = simulator_memory();
    if (checked) e.check = f.fresh_bytes + f.fresh_elements * (sizeof(float) + sizeof(double)) + f.data_elements * sizeof(float);
    return e;
}

struct TooBig : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Throws TooBig when the estimate does not fit the memory available now
// (and the address-space limit, when one is set).
void refuse_if_too_big(const MemoryEstimate& e, const std::string& what, bool checked) {
    if (e.total() == 0) return;  // no estimate
    const uint64_t held = e.data_made ? e.data : tk::host::resident_memory_bytes();
    const uint64_t needed = e.total() > held ? e.total() - held : 0;
    uint64_t available = tk::host::available_memory_bytes();  // 0: unknown
    if (const auto left = tk::host::address_space_left_bytes(); left && (available == 0 || *left < available)) available = *left;
    else if (available == 0) return;  // unknown: run, and catch bad_alloc
    if (needed <= available - available / 16) return;
    using tk::host::gigabytes;
    const bool with_check = e.data_made && checked;
    std::string msg = what + " needs about " + gigabytes(e.total()) + " of memory: " + gigabytes(e.data) +
                      (e.data_made ? " for its data (made)" : " for its data") + (with_check ? ", " : " and ") + gigabytes(e.simulator) +
                      " for the simulator" +
                      (with_check ? " and " + gigabytes(e.check) + " to check the result against the CPU reference" : "") + ". That is " + gigabytes(needed) + " more than it holds now, and the machine has " +
                      gigabytes(tk::host::available_memory_bytes()) + " available" + address_space_limit() +
                      (e.data_made ? ". Nothing was simulated" : ". Nothing was made or simulated") + ". fix: run a smaller size (--size)";
    if (e.data_made && checked && e.simulator <= available - available / 16)
        msg += ", skip the check (--no-check needs " + gigabytes(e.data + e.simulator) + ")";
    throw TooBig(msg + ", or use a machine with more memory");
}

} // namespace

// What to do when the trace file cannot be written.
constexpr const char* kTraceWriteFix =
    "write the trace into a folder that exists and has room (--trace PATH), raise the file size limit (ulimit -f), or "
    "record less (--timeline-blocks none)";

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
    try {
        tklab::sim::CostModel::load(a.arch);
    } catch (const std::exception& e) {
        fail_usage(std::string("--arch: ") + e.what());
    }
    tklab::sim::options().arch = a.arch;
    if (a.l1 >= 0) tklab::sim::options().l1 = a.l1;
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
        std::fprintf(stderr, "%s: error: %s\n  fix: %s\n", tool_name(), e.what(), kTraceWriteFix);
        return 1;
    }
    bool ok = true;
    const auto t0 = std::chrono::steady_clock::now();
    static const char* const checking = "checking the result against the CPU reference";
    const char* phase = "setting up its data";  // what was running, for an out-of-memory message
    MemoryEstimate estimate;
    try {
        refuse_if_too_big(estimate_data_memory(p, dims), p.name + " at " + size_text(dims), !a.no_check);
        auto c = p.make(dims, a.seed);
        estimate = estimate_run_memory(!a.no_check);
        refuse_if_too_big(estimate, p.name + " at " + size_text(dims), !a.no_check);
        for (const auto& v : variants) {
            progress.rename(p.name + " " + v);
            phase = "running the kernel";
            c->run(v);
            if (!a.no_check) {
                phase = checking;
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
    } catch (const TooBig& e) {
        ok = false;
        rec->add_failure("out of memory", e.what());
    } catch (const std::bad_alloc&) {
        // Every big allocation is checked before it is taken (tk/host/memory_check.h);
        // what still runs out is the sum of many smaller ones.
        ok = false;
        rec->add_failure("out of memory", std::string("the run ran out of memory while ") + phase + " (" + p.name + " at " +
                                              size_text(dims) + "); the machine has " +
                                              tk::host::gigabytes(tk::host::available_memory_bytes()) + " available now" +
                                              address_space_limit() + ". fix: run a smaller size (--size)" +
                                              (a.no_check || phase != checking ? "" : ", or skip the CPU reference (--no-check)") +
                                              ", or use a machine with more memory");
    } catch (const std::exception& e) {
        ok = false;
        rec->add_failure("error", e.what());
    }
    progress.done();
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    try {
        rec->close();
    } catch (const std::exception& e) {
        if (rec->write_error().empty()) std::fprintf(stderr, "%s: %s\n", tool_name(), e.what());  // a write error is said below
        ok = false;
    }
    tklab::trace::write_report(std::cout, rec->trace(), {use_color(stdout, a.color), a.top});
    std::cout.flush();
    uint64_t instructions = 0;
    for (const auto& l : rec->trace().launches)
        if (l.summary) instructions += l.summary->warp_instructions;
    // The peak beside the estimate made before the simulation (none when the inputs could not be made).
    std::fprintf(stderr, "%s: simulated %llu warp instructions in %.2f s; memory peak %s%s\n", tool_name(),
                 (unsigned long long)instructions, secs, human_bytes(tk::host::peak_resident_memory_bytes()).c_str(),
                 estimate.total() ? (" (estimated " + human_bytes(estimate.total()) + ")").c_str() : "");
    if (const std::string err = rec->write_error(); !err.empty()) {
        std::fprintf(stderr,
                     "%s: error: %s. The trace is incomplete: `%s report --salvage %s` reads what was written before.\n"
                     "  fix: %s\n",
                     tool_name(), err.c_str(), tool_name(), a.trace.c_str(), kTraceWriteFix);
        return 1;
    }
    if (!a.trace.empty())
        std::fprintf(stderr, "%s: wrote %s (%s, %.1f bytes per warp instruction); `%s report %s` shows this again\n", tool_name(),
                     a.trace.c_str(), human_bytes(rec->bytes_written()).c_str(),
                     instructions ? double(rec->bytes_written()) / double(instructions) : 0.0, tool_name(), a.trace.c_str());
    return ok ? 0 : 1;
}

namespace {

// `timelines`: false for commands that read only totals and regions (report,
// fidelity): the blocks' timelines are checked and dropped, which keeps memory
// to a small multiple of the file's size.
tklab::trace::Loaded load_or_fail(const std::string& file, bool salvage, bool timelines) {
    try {
        tklab::trace::LoadOptions opt;
        opt.salvage = salvage;
        opt.timelines = timelines;
        auto l = tklab::trace::load_trace(file, opt);
        if (!l.warning.empty()) std::fprintf(stderr, "%s: warning: %s\n", tool_name(), l.warning.c_str());
        return l;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", tool_name(), e.what());
        std::exit(1);
    }
}

int cmd_report(const std::string& file, bool salvage, size_t top, const std::string& color) {
    auto l = load_or_fail(file, salvage, false);
    tklab::trace::write_report(std::cout, l.trace, {use_color(stdout, color), top});
    return 0;
}

// The simulator's figures beside the GPU's: shared-memory counts where the GPU
// trace holds hardware counters, the clock and stalls where it holds kernel records.
int cmd_fidelity(const std::string& sim_file, const std::string& gpu_file, const std::string& color, bool summary) {
    const auto sim = load_or_fail(sim_file, false, false);
    const auto gpu = load_or_fail(gpu_file, false, false);
    const bool counters = !gpu.trace.gpu_counters.empty(), timing = !gpu.trace.gpu_kernels.empty();
    if (sim.trace.producer == gpu.trace.producer || (!counters && !timing)) {
        std::fprintf(stderr, "%s: fidelity compares a simulator trace (`tklab run NAME --trace SIM`) with a GPU trace "
                             "holding hardware counters or kernel timing (`tklab run NAME --gpu --profile "
                             "counters,timing,regions,stalls --repeat 5 --trace GPU`); %s %s\n",
                     tool_name(), gpu_file.c_str(),
                     sim.trace.producer == gpu.trace.producer ? "and the first file come from the same producer"
                                                              : "has neither hardware counters nor kernel records");
        return 2;
    }
    const bool paint = use_color(stdout, color);
    if (summary) {
        if (!timing) {
            std::fprintf(stderr, "%s: fidelity --summary needs kernel records in %s (`--profile timing`)\n", tool_name(), gpu_file.c_str());
            return 2;
        }
        tklab::profiler::write_timing_summary(std::cout, tklab::profiler::compare_timing(sim.trace, gpu.trace));
        return 0;
    }
    if (counters) tklab::profiler::write_fidelity(std::cout, tklab::profiler::compare_fidelity(sim.trace, gpu.trace), paint);
    if (counters && timing) std::cout << "\n";
    if (timing) tklab::profiler::write_timing(std::cout, tklab::profiler::compare_timing(sim.trace, gpu.trace), paint);
    return 0;
}

int cmd_export(const std::string& file, const std::string& out, bool salvage, bool instructions) {
    std::error_code ec;
    if (std::filesystem::equivalent(file, out, ec)) {
        std::fprintf(stderr, "%s: export: %s is the trace being read; writing it would overwrite the input.\n  fix: name another "
                     "output file, e.g. %s.chrome.json\n", tool_name(), out.c_str(), file.c_str());
        return 2;
    }
    auto l = load_or_fail(file, salvage, true);
    std::ofstream o(out, std::ios::binary);
    if (!o) {
        std::fprintf(stderr, "%s: %s: cannot create the output file\n", tool_name(), out.c_str());
        return 1;
    }
    tklab::trace::write_chrome(o, l.trace, {instructions});
    o.close();
    if (!o) {
        std::fprintf(stderr, "%s: %s: writing failed\n", tool_name(), out.c_str());
        return 1;
    }
    std::fprintf(stderr, "%s: wrote %s; open it at https://ui.perfetto.dev (Open trace file) or chrome://tracing\n", tool_name(), out.c_str());
    return 0;
}

// `tklab run NAME --gpu ...` is `tklab_gpu run NAME ...`: the GPU build is its
// own program (nvcc-built kernels), beside this one.
int run_on_gpu(int argc, char** argv) {
    const std::string gpu = !tool().gpu_program.empty() ? tool().gpu_program : tklab::cli::executable_dir() + "/tklab_gpu";
    if (access(gpu.c_str(), X_OK) != 0) {
        std::fprintf(stderr, "%s run --gpu: the GPU build is missing (%s): nvcc was not found when the build was\n"
                             "  configured, or it was configured with -DTKLAB_CUDA=OFF. Install the CUDA toolkit (nvcc\n"
                             "  at /usr/local/cuda/bin) and configure again with -DTKLAB_CUDA=ON.\n", tool_name(),
                     (tool().gpu_program.empty() && tool().name != "tklab" ? tool().name + "_gpu" : gpu).c_str());
        return 1;
    }
    std::vector<char*> args{const_cast<char*>(gpu.c_str())};
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--gpu") != 0) args.push_back(argv[i]);
    args.push_back(nullptr);
    execv(gpu.c_str(), args.data());
    std::fprintf(stderr, "%s run --gpu: cannot start %s: %s\n", tool_name(), gpu.c_str(), std::strerror(errno));
    return 1;
}

// The visualizer is its own program (it needs a display and OpenGL; tklab
// does not), built beside this one.
int cmd_view(const std::vector<std::string>& args) {
    const std::string viewer = !tool().viewer.empty() ? tool().viewer : tklab::cli::executable_dir() + "/tklab_view";
    if (access(viewer.c_str(), X_OK) != 0) {
        std::fprintf(stderr, "%s view: the visualizer was not built (%s is missing): Dear ImGui, GLFW or OpenGL\n"
                             "  was not found when the build was configured. Install them (scripts/setup.sh does:\n"
                             "  libimgui-dev libglfw3-dev libstb-dev) and build again. Meanwhile `%s report FILE`\n"
                             "  prints the report.\n", tool_name(), viewer.c_str(), tool_name());
        return 1;
    }
    std::vector<char*> argv{const_cast<char*>(viewer.c_str())};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(viewer.c_str(), argv.data());
    std::fprintf(stderr, "%s view: cannot start %s: %s\n", tool_name(), viewer.c_str(), std::strerror(errno));
    return 1;
}

} // namespace

int cmd_other(const ParsedCommandLine& pc, int argc, char** argv) {
    const TraceArgs& ta = pc.trace;
    switch (pc.command) {
    case Command::run_on_gpu: return run_on_gpu(argc, argv);
    case Command::report: return cmd_report(ta.file, ta.salvage, ta.top, ta.color);
    case Command::export_chrome: return cmd_export(ta.file, ta.out, ta.salvage, !ta.no_instructions);
    case Command::fidelity: return cmd_fidelity(ta.file, ta.gpu_file, ta.color, ta.summary);
    case Command::view: return cmd_view(pc.view_args);
    case Command::lesson: {
        const LessonArgs& la = pc.lesson;
        return cmd_lesson(la, argc, argv, [&](const std::string& program, const std::string& variant,
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
    default: return 2;
    }
}

} // namespace tklab::cli
