// What `tklab` and `tklab_gpu` share, and the two things each does its own
// way. The shared parts are cli/main.cpp (main, `list`) and cli/common.cpp
// (the helpers below); each program's own parts are one file that
// cli/CMakeLists.txt builds into it: cli/backend_sim.cpp into `tklab` (the
// CPU simulator) and cli/backend_gpu.cpp into `tklab_gpu` (the GPU).
#pragma once
#include <cstdio>
#include <string>
#include <vector>
#include "cli/parser.h"
#include "tk/host/registry.h"

namespace tklab::cli {

// The whole command line, for main(): parses argv and runs the command, for
// the programs registered in this executable (tool() says which program it is).
int run_main(int argc, char** argv);

// Colour only for a terminal, and never when NO_COLOR is set (no-color.org).
bool use_color(FILE* f, const std::string& mode);

// A mistake on the command line: says what, on stderr, and exits with 2.
[[noreturn]] void fail_usage(const std::string& msg);

// `run NAME --size S --variant V`: the program, its sizes and the variants to
// run, or a usage failure that says what is wrong.
const tk::host::program& find_or_fail(const std::string& name);
tk::host::dims_t resolve_or_fail(const tk::host::program& p, const std::string& size);
std::vector<std::string> variants_to_run(const tk::host::program& p, const std::string& v);

// ---- each program's own (backend_sim.cpp or backend_gpu.cpp) ---------------

// `run NAME`: in the simulator (check, trace, report) or on the GPU (check,
// time, and profile with --profile).
int cmd_run(const RunArgs& a);

// The commands other than `list` and `run` that this program's parser offers:
// in `tklab`, run --gpu, report, export, fidelity, view and lesson; in
// `tklab_gpu`, none.
int cmd_other(const ParsedCommandLine& pc, int argc, char** argv);

} // namespace tklab::cli
