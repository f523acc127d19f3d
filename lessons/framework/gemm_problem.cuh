// The problem the GEMM lessons share (3, 4's part 2, 5, 6 and 7): what their
// kernels compute, on which inputs, against which CPU reference. Each lesson
// adds only its own launch, sizes and goal.
//
//   A : M x K bf16, seeded random values in [-1, 1)
//   B : K x N bf16, seeded random values in [-1, 1) (another seed)
//   C : M x N float, C = A * B, accumulated in fp32
//
// All three are row-major. Host code, built for the simulator and the GPU.
#pragma once
#include <functional>
#include <type_traits>
#include <string>
#include <utility>
#include <vector>
#include "tk/tk.h"
#include "tk/host/registry.h"
#include "kernels/gemm/gemm_data.cuh"

namespace tklab::lessons::gemm_problem {

// Every GEMM lesson's kernel has this signature: kernel(A, B, C).
using kernel_fn = void (*)(tk::gl<tk::bf16>, tk::gl<tk::bf16>, tk::gl<float>);

using Data = gemm::Data;  // the demo kernel's (kernels/gemm/gemm_data.cuh)

// B's seed is A's plus 7919, so B does not repeat A's values.
inline Data make_inputs(const tk::host::dims_t& d, unsigned seed) { return gemm::make_inputs(d, seed, seed + 7919); }

// A GEMM lesson's program, given its name, summary, sizes, variants (name ->
// kernel; the first is the default) and how it launches one. Kernel is the
// kernels' type: kernel(A, B, C) unless the lesson's kernels take other
// arguments (lesson 10's take one struct), which its launch builds from Data.
template <typename Kernel = kernel_fn>
inline tk::host::program_def<Data> program_def(std::string name, std::string summary, std::vector<tk::host::problem_dim> dims,
                                               std::vector<std::pair<std::string, Kernel>> kernels,
                                               std::type_identity_t<std::function<void(Data&, Kernel)>> launch) {
    tk::host::program_def<Data> p;
    p.name = std::move(name);
    p.kind = "lesson";
    p.summary = std::move(summary);
    p.dims = std::move(dims);
    p.inputs = make_inputs;
    tk::host::set_variants(p, std::move(kernels), std::move(launch));
    p.output = [](Data& g) { return g.dc->download(); };
    p.reference = gemm::reference;
    p.output_name = std::string("C");  // (a std::string: assigning the one-letter literal trips a GCC 12 -Wrestrict false alarm)
    p.tolerance = 1e-3;  // fp32 accumulation is good to ~1e-6 here; a bf16 rounding of the result is not
    p.flops = gemm::flops;
    return p;
}

} // namespace tklab::lessons::gemm_problem
