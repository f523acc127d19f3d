// `tklab lesson list|run|check|hint`: the workshop's commands. Simulator only.
#pragma once
#include <functional>
#include <string>

namespace tklab::cli {

struct LessonArgs {
    std::string action;     // list, run, check, hint
    int number = 0;
    bool solution = false;  // run or check the reference solution instead of the exercise
    bool no_build = false;  // skip rebuilding (set when tklab re-runs itself after a build)
    bool no_view = false;   // `run`: do not open the visualizer even with a display
    bool reset = false;     // `hint`: start the hints again
    int part = 0;           // `run`, `check`: one part of a lesson in parts (0: run the first, check them all)
    unsigned seed = 1;
};

// Runs a registered program's variant like `tklab run` (report, trace). The
// command line's own cmd_run, passed in.
using RunProgram = std::function<int(const std::string& program, const std::string& variant, const std::string& trace)>;

int cmd_lesson(const LessonArgs& a, int argc, char** argv, const RunProgram& run);

// This program's file (read before a rebuild replaces it), and its folder,
// where the build puts tklab_view and keeps lesson progress.
std::string executable_path();
std::string executable_dir();

} // namespace tklab::cli
