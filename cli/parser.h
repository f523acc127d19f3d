// The command line's grammar: every command, option and help text, parsed
// into plain values. Nothing runs here, so main() dispatches on the result
// and the fuzzer (fuzz/cli_parser.cpp) feeds it arbitrary argument lists.
#pragma once
#include <cstddef>
#include <string>
#include <vector>
#include "cli/lesson.h"

namespace tklab::cli {

inline constexpr const char* kVersion = "tklab 0.1";

// Which program this is. `tklab` and `tklab_gpu` run tklab's own kernels and
// lessons; a program built by tklab_add_kernel() (cmake/tklab.cmake) is the
// same command line with a user's own kernels, and its generated main() fills
// this in before run_main() (cli/common.h) reads the command line.
struct Tool {
#if defined(TKLAB_GPU_BACKEND)
    std::string name = "tklab_gpu";  // in help texts and messages
#else
    std::string name = "tklab";
#endif
    bool lessons = true;      // offers `lesson` (the workshop's lessons are linked in)
    std::string gpu_program;  // what `run --gpu` hands over to; "": tklab_gpu beside this program
    std::string viewer;       // what `view` starts; "": tklab_view beside this program
    // GPU: folders whose sources name tk::region markers, besides tklab's own kernels, lessons and tk/.
    std::vector<std::string> source_dirs;
};
inline Tool& tool() {
    static Tool t;
    return t;
}
inline const char* tool_name() { return tool().name.c_str(); }
// The simulator's program of the same kernels, for messages: tklab for
// tklab_gpu, my_kernel for my_kernel_gpu.
inline std::string sim_tool_name() {
    const std::string& n = tool().name;
    return n.size() > 4 && n.compare(n.size() - 4, 4, "_gpu") == 0 ? n.substr(0, n.size() - 4) : n;
}

// `run NAME ...`: what to run and how to record it.
struct RunArgs {
    std::string name, size, variant, trace, timeline = "first-wave", color = "auto", profile;
    // Bug finders (simulator): all, none, or a comma list of races, uninit, sync.
    std::string checks = "all";
    unsigned seed = 1;
    bool no_check = false, all_lanes = false, snapshots = false;
    size_t top = 5;
    int threads = 0;
    std::string arch = "h100";  // simulator: the cost model, sim/arch/<arch>.json or a file
    int l1 = -1;                // simulator: --l1 1, --no-l1 0, else as the cost model says (sim/README.md, "L1")
    // GPU: with --profile timing, runs of each variant after the checked one,
    // each timed by CUPTI (warm caches and code: the fidelity report's kernel time).
    int repeat = 0;
    int stall_period = 12;  // --stall-period: log2 of the SM cycles between PC samples (PcSamplingOptions' default)
};

// `report`, `export --chrome` and `fidelity`: the trace files they read.
struct TraceArgs {
    std::string file, out, gpu_file, color = "auto";
    bool salvage = false, no_instructions = false, summary = false;
    size_t top = 5;
};

enum class Command { none, list, run, run_on_gpu, report, export_chrome, fidelity, view, lesson };

struct ParsedCommandLine {
    Command command = Command::none;
    RunArgs run;
    TraceArgs trace;
    LessonArgs lesson;                   // lesson.action names the lesson subcommand
    std::vector<std::string> view_args;  // everything after `view`, for the visualizer

    // Set when the command line ends the program by itself (help, version, a
    // mistake): print `out` to stdout and `err` to stderr, exit with `exit_code`.
    bool exits = false;
    int exit_code = 0;
    std::string out, err;
};

// Parses argv (argv[0] is the program); never exits and never prints.
ParsedCommandLine parse_command_line(int argc, const char* const* argv);

// --checks: "all", "none" or a comma list of races, uninit, sync. Returns
// what is wrong with the first unknown or empty name, or "" when valid.
std::string checks_error(const std::string& list);

} // namespace tklab::cli
