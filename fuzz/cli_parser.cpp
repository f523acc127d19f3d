// libFuzzer target: tklab's command-line grammar (cli/parser.cpp), without
// running any command.
//
// The input is an argument list, one argument per line ("\n" separates them;
// a line may be empty, and "\0" bytes stay inside it). The parser must
// answer every list with a command or an exit (help, version, a mistake),
// never throw or crash; a mistake exits 2 and says something on stderr.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include "cli/parser.h"

namespace {

[[noreturn]] void finding(const std::string& what) {
    std::fprintf(stderr, "cli_parser fuzzer: %s\n", what.c_str());
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 4096) return 0;  // longer lists find nothing shorter ones do not
    std::vector<std::string> args{"tklab"};
    std::string cur;
    for (size_t i = 0; i < size; ++i) {
        if (data[i] == '\n') {
            args.push_back(cur);
            cur.clear();
        } else {
            cur += char(data[i]);
        }
    }
    if (size) args.push_back(cur);
    std::vector<const char*> argv;
    for (const auto& a : args) argv.push_back(a.c_str());  // C strings end at an embedded NUL, as a real argv does
    argv.push_back(nullptr);

    using tklab::cli::Command;
    const tklab::cli::ParsedCommandLine pc = tklab::cli::parse_command_line(int(args.size()), argv.data());
    if (pc.exits) {
        if (pc.exit_code != 0 && pc.exit_code != 2) finding("exit status " + std::to_string(pc.exit_code));
        if (pc.exit_code == 2 && pc.err.empty()) finding("a mistake with no message");
        if (pc.exit_code == 0 && pc.out.empty()) finding("help or version with no text");
        if (pc.command != Command::none) finding("an exit that also chose a command");
        return 0;
    }
    if (pc.command == Command::none) finding("a parse that chose no command and no exit");
    if (pc.command == Command::run && !tklab::cli::checks_error(pc.run.checks).empty())
        finding("run accepted --checks " + pc.run.checks);
    if (pc.command == Command::lesson && pc.lesson.action.empty()) finding("a lesson command without its action");
    return 0;
}
