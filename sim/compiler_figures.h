// The compiler's own figures for a simulated kernel: registers, local memory
// and spills as ptxas allocates them for the GPU. When the build finds nvcc,
// every runnable source is also compiled for sm_90a with `ptxas -v`
// (cmake/ptxas_figures.cmake); each report lands in the build's
// compiler_figures/ folder. A launch finds its kernel's entry there by name:
// the simulator's symbol for the kernel (dladdr) and ptxas's entry name,
// both demangled, with the parameter list dropped (the two backends spell
// bf16 differently). Without a report the simulator's estimate is all there is.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include "trace/records.h"

namespace tklab::sim {

struct CompiledKernel {
    std::string key;                  // kernel_key() of the demangled entry name
    std::string name;                 // demangled, as ptxas named it
    trace::CompilerFigures figures;
};

// Every entry function of a `ptxas -v` report compiled for `arch` (the
// report's first line may name the tool: "tklab compiler figures: nvcc 13.0").
std::vector<CompiledKernel> parse_ptxas_report(std::string_view text, const std::string& arch = "sm_90a");

// A demangled function name without its parameter list and return type:
// "void ns::k<16, 16>(tk::gl<tk::bf16>)" -> "ns::k<16, 16>".
std::string kernel_key(std::string_view demangled);

// The folder the reports are read from: $TKLAB_COMPILER_FIGURES when set
// (empty: none), else the one set_compiler_figures_dir() named (`tklab` names
// its build's compiler_figures/ when the build had nvcc; tests name none).
std::string compiler_figures_dir();
// Before the first launch (the reports are read once).
void set_compiler_figures_dir(const std::string& dir);

// The figures for the kernel whose code is at `kernel` in this program, from
// the reports in compiler_figures_dir() (read once). nullopt: no reports, the
// kernel's symbol is not visible (internal linkage), or no entry of that name,
// or several entries of that name that disagree.
std::optional<trace::CompilerFigures> compiler_figures_for(const void* kernel);

// The demangled name of the function at `code` in this program ("" when unknown).
std::string function_name(const void* code);

} // namespace tklab::sim
