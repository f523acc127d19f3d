// tklab's commands and options (CLI11). Help texts live here; what each
// command does lives in main.cpp.
#include "cli/parser.h"
#include "sim/bug_finders/check_list.h"

#include <sstream>
#include <CLI/CLI.hpp>

namespace tklab::cli {

std::string checks_error(const std::string& list) {
    tklab::sim::Checks unused;
    return tklab::sim::parse_check_list(list, unused);
}

ParsedCommandLine parse_command_line(int argc, const char* const* argv) {
    ParsedCommandLine pc;
    const std::string what = tool().lessons ? "kernels and lessons" : "kernels";
    CLI::App app{
#if defined(TKLAB_GPU_BACKEND)
        std::string(tool_name()) + ": runs " + (tool().lessons ? "tklab's kernels and lessons" : "its kernels") +
        " on the GPU, checks them against their CPU references and times them."
#else
        std::string(tool_name()) + ": runs tile " + what + " in the CPU simulator, checks them against their CPU references, "
        "reports what is slow and where, and keeps traces for the visualizer and Perfetto."
#endif
    };
    app.set_version_flag("--version", kVersion);
    app.require_subcommand(1);
    app.footer(std::string("Run `") + tool_name() + " COMMAND --help` for a command's options.");

    auto* list = app.add_subcommand("list", "The " + what + " it can run, one line each");

    RunArgs& ra = pc.run;
    auto* run = app.add_subcommand("run", std::string(tool().lessons ? "Run a kernel or lesson" : "Run a kernel") +
                                              " by name, check it, print its report");
    run->add_option("name", ra.name, "What to run (see `list`)")->required();
    run->add_option("--size", ra.size, "Problem size: N for every dimension, AxBxC in order, or M=512,K=128");
    run->add_option("--variant", ra.variant, "Which variant (default: the first listed), or all");
    run->add_option("--seed", ra.seed, "Seed of the random inputs")->capture_default_str();
    run->add_flag("--no-check", ra.no_check, "Skip the comparison with the CPU reference");
    run->add_option("--color", ra.color, "Colour: auto (a terminal without NO_COLOR), always, never")
        ->check(CLI::IsMember({"auto", "always", "never"}))->capture_default_str();
    run->add_option("--trace", ra.trace, "Write the trace here: FILE.json (text) or FILE.cbor (binary, for big runs)");
#if defined(TKLAB_GPU_BACKEND)
    run->add_option("--profile", ra.profile,
                    "Profile, comma-separated: timing (CUPTI kernel records) and regions (tk::region markers' per-warp "
                    "timeline) record the checked run; counters (shared-memory wavefronts, bank conflicts, instructions: "
                    "CUPTI Range Profiler) and stalls (PC sampling: stall reasons per source line) each run the kernel "
                    "once more");
    run->add_option("--top", ra.top, "Rows per report section")->capture_default_str();
    run->add_option("--repeat", ra.repeat,
                    "On the GPU: run each variant this many times more after the checked run (warm caches); with "
                    "--profile timing each launch is timed and `tklab fidelity` takes their median. Without it the runs are "
                    "for a profiler outside tklab (ncu --launch-skip N measures a warm launch)")
        ->check(CLI::Range(0, 1000));
    run->add_option("--stall-period", ra.stall_period,
                    "With --profile stalls: one PC sample per SM every 2^N cycles (CUPTI allows 5-31). Lower samples more: "
                    "a kernel of a few microseconds gets a few hundred samples at 12, too few to name each line's top reason; "
                    "9 gives 8 times as many")
        ->check(CLI::Range(5, 31))->capture_default_str();
#else
    run->add_option("--timeline-blocks", ra.timeline,
                    "Blocks with a full timeline: first-wave, all, none, or a list like 0-3,7 (statistics always cover all)")
        ->capture_default_str();
    auto* l1_on = run->add_flag_callback("--l1", [&ra] { ra.l1 = 1; },
                                         "Model the L1 cache and the load/store unit (sim/README.md, \"L1\"): the shipped cost models do");
    run->add_flag_callback("--no-l1", [&ra] { ra.l1 = 0; },
                           "Leave L1 out: every global load goes to L2, as the model did before L1 was measured")
        ->excludes(l1_on);
    run->add_flag("--all-lanes", ra.all_lanes, "Keep per-lane addresses of every shared-memory instruction, not only conflicted ones");
    run->add_flag("--snapshots", ra.snapshots, "Record tile values at each tk::snapshot() in the kernel");
    run->add_option("--top", ra.top, "Rows per report section")->capture_default_str();
    run->add_option("--threads", ra.threads, "Host threads simulating blocks (results never depend on it)");
    run->add_option("--arch", ra.arch,
                    "The GPU simulated: h100 or h200 (cost models measured on each, sim/arch/), or a cost model's JSON file")
        ->capture_default_str();
    run->add_option("--checks", ra.checks,
                    "Bug finders, comma-separated: races (shared-memory hazards no barrier orders), uninit (reads of "
                    "memory nothing wrote), sync (barrier and mbarrier misuse); all (default) or none")
        ->check(CLI::Validator([](std::string& v) { return checks_error(v); }, "", "bug finders"));
    bool on_gpu = false;
    const std::string gpu_tool = tool().name + "_gpu";  // tklab_gpu, or my_kernel_gpu beside my_kernel
    run->add_flag("--gpu", on_gpu, "Run on the GPU instead (hands the command to " + gpu_tool + ", built beside " + tool().name +
                                   " when nvcc was found; `" + gpu_tool + " run --help` lists its options)");

    TraceArgs& ta = pc.trace;
    auto* report = app.add_subcommand("report", "Print the report of a saved trace");
    report->add_option("file", ta.file, "A trace written by `tklab run --trace`")->required()->check(CLI::ExistingFile);
    report->add_flag("--salvage", ta.salvage, "Read the complete records of a truncated trace");
    report->add_option("--top", ta.top, "Rows per report section")->capture_default_str();
    report->add_option("--color", ta.color, "Colour: auto, always, never")->check(CLI::IsMember({"auto", "always", "never"}));

    bool chrome = false;
    auto* exp = app.add_subcommand("export", "Convert a trace for another tool");
    exp->add_flag("--chrome", chrome, "Chrome trace-event JSON, for Perfetto (ui.perfetto.dev) and chrome://tracing")->required();
    exp->add_option("file", ta.file, "The trace to convert")->required()->check(CLI::ExistingFile);
    exp->add_option("out", ta.out, "The JSON file to write")->required();
    exp->add_flag("--salvage", ta.salvage, "Read the complete records of a truncated trace");
    exp->add_flag("--no-instructions", ta.no_instructions, "Only tile ops, barrier waits, conflicts and registers (much smaller)");

    auto* fid = app.add_subcommand("fidelity", "The simulator's figures beside a GPU's, per launch: shared-memory wavefronts "
                                               "and bank conflicts (hardware counters), kernel time, regions and stall reasons "
                                               "(kernel timing, tk::region markers, PC sampling)");
    fid->add_option("sim", ta.file, "A simulator trace (`tklab run NAME --trace SIM`)")->required()->check(CLI::ExistingFile);
    fid->add_option("gpu", ta.gpu_file, "A GPU trace of the same program, size and seed (`tklab run NAME --gpu --profile "
                                        "counters,timing,regions,stalls --repeat 5 --trace GPU`)")->required()->check(CLI::ExistingFile);
    fid->add_flag("--summary", ta.summary, "One line per launch: kernel times, their error and the hot lines that agree (for scripts)");
    fid->add_option("--color", ta.color, "Colour: auto, always, never")->check(CLI::IsMember({"auto", "always", "never"}));

    // The workshop: `tklab lesson list|run N|check N|hint N`; only where the
    // lessons are linked in (not in a program of one's own kernels).
    LessonArgs& la = pc.lesson;
    CLI::App* lesson = nullptr;
    if (tool().lessons) {
        lesson = app.add_subcommand("lesson", "The workshop's lessons: list, run, check and hints");
        lesson->require_subcommand(1);
        auto* l_list = lesson->add_subcommand("list", "The lessons, in order, and which you passed");
        auto* l_run = lesson->add_subcommand("run", "Build and run a lesson's exercise in the simulator: report, trace, and "
                                                    "the visualizer when there is a display");
        auto* l_check = lesson->add_subcommand("check", "Build and check a lesson's exercise: correct at several sizes, "
                                                        "and its performance goal");
        auto* l_hint = lesson->add_subcommand("hint", "The next hint for a lesson (each call shows one more)");
        for (auto* c : {l_run, l_check, l_hint})
            c->add_option("number", la.number, "The lesson's number (`tklab lesson list`)")->required();
        for (auto* c : {l_run, l_check}) {
            c->add_flag("--solution", la.solution, "The reference solution instead of your exercise");
            c->add_flag("--no-build", la.no_build, "Do not rebuild first");
            c->add_option("--seed", la.seed, "Seed of the random inputs")->capture_default_str();
        }
        for (auto* c : {l_run, l_check, l_hint})
            c->add_option("--part", la.part, "One part of a lesson in parts (lesson 4: 1 the transpose, 2 the GEMM). Without "
                                             "it `check` checks every part, `run` and `hint` take the first not passed yet")
                ->check(CLI::PositiveNumber);
        l_run->add_flag("--no-view", la.no_view, "Do not open the visualizer");
        l_hint->add_flag("--reset", la.reset, "Show the hints from the first again");
        (void)l_list;
    }

    // Everything after `view` goes to the visualizer, --help included.
    auto* view = app.add_subcommand("view", "Open traces in the visualizer (`" + tool().name + " view --help` for its options)");
    view->prefix_command();
    view->set_help_flag();
#endif

    // Help and version print to stdout and exit 0; a mistake prints to stderr
    // and exits 2 (CLI11's own code for it varies by kind).
    std::ostringstream out, err;
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        pc.exit_code = app.exit(e, out, err);
        pc.exits = true;
    } catch (const CLI::CallForAllHelp& e) {
        pc.exit_code = app.exit(e, out, err);
        pc.exits = true;
    } catch (const CLI::CallForVersion& e) {
        pc.exit_code = app.exit(e, out, err);
        pc.exits = true;
    } catch (const CLI::ParseError& e) {
        app.exit(e, out, err);
        pc.exit_code = 2;
        pc.exits = true;
    }
    pc.out = out.str();
    pc.err = err.str();
    if (pc.exits) return pc;

    if (list->parsed()) pc.command = Command::list;
    else if (run->parsed()) pc.command = Command::run;
#if !defined(TKLAB_GPU_BACKEND)
    if (run->parsed() && on_gpu) pc.command = Command::run_on_gpu;
    else if (report->parsed()) pc.command = Command::report;
    else if (exp->parsed()) pc.command = Command::export_chrome;
    else if (fid->parsed()) pc.command = Command::fidelity;
    else if (view->parsed()) {
        pc.command = Command::view;
        pc.view_args = view->remaining();
    } else if (lesson && lesson->parsed()) {
        pc.command = Command::lesson;
        la.action = lesson->get_subcommands().front()->get_name();
    }
#endif
    return pc;
}

} // namespace tklab::cli
