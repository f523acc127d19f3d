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
// (nullopt when neither reads). Traces embed kernels' sources through it too.
std::optional<std::string> read_source_text(const std::string& path);

// The line of the `}` that closes the outermost function body around `line`
// of `file` (namespaces, classes and structs are not function bodies).
// Comments, string and character literals are skipped. `line` itself when
// the file cannot be read or no body encloses it. Cached: safe to call from
// the simulator's threads.
int function_end_line(const char* file, int line);

// The same on a source text, for tests.
int function_end_line_in(const char* text, int line);

} // namespace tklab::sim
