// What the simulator reads from a kernel's source file. The GPU's line table
// puts a kernel's EXIT at the closing brace of its function, and PC sampling
// shows a warp that waits there for its stores (`drain`) on that line; the
// simulator, which sees only the lines of the instructions it runs, finds the
// same line here to record that wait where the GPU does.
#pragma once
#include <optional>
#include <string>

namespace tklab::sim {

// A source file's text: `path` as given, else relative to the project's root
// or a root add_source_root() added (nullopt when none reads). Traces embed
// kernels' sources through it too.
std::optional<std::string> read_source_text(const std::string& path);

// Traces and reports name a file inside tklab's folder relative to it, so they
// read the same on every machine. A program of one's own kernels
// (tklab_add_kernel) adds its project's folder, before the first launch, so
// its files are named the same way.
void add_source_root(const std::string& dir);
// `path` relative to the first root it is inside (tklab's, then the added
// ones), else as given.
std::string source_relative(const std::string& path);

// trace::function_end_line_in (trace/source_scan.h) on `file`'s text: the
// line of the `}` that closes the outermost function body around `line`;
// `line` itself when the file cannot be read or no body encloses it.
// Cached: safe to call from the simulator's threads.
int function_end_line(const char* file, int line);

} // namespace tklab::sim
