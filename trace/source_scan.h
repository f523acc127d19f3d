// What both the simulator and the GPU report read from a kernel's source
// text: where a function ends. The GPU's line table puts a kernel's EXIT at
// a line ptxas chooses, the closing brace of its function by default; the
// simulator records its warps' exit there (sim/kernel_source.h), and the
// timing fidelity report puts the GPU's samples of warps waiting after EXIT
// (`drain`) there too (profiler/decode/fidelity_timing.cpp).
#pragma once

namespace tklab::trace {

// The line of the `}` that closes the outermost function body around `line`
// of a source text (namespaces, classes and structs are not function
// bodies). Comments, string and character literals are skipped. `line`
// itself when no body encloses it.
int function_end_line_in(const char* text, int line);

} // namespace tklab::trace
