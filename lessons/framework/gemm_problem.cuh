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
#include <memory>
#include <string>
#include <utility>
#include <vector>
#include "tk/tk.h"
#include "tk/host/registry.h"

namespace tklab::lessons::gemm_problem {

// Every GEMM lesson's kernel has this signature: kernel(A, B, C).
using kernel_fn = void (*)(tk::gl<tk::bf16>, tk::gl<tk::bf16>, tk::gl<float>);

struct Data {
    int m = 0, n = 0, k = 0;
    std::vector<tk::bf16> a, b;
    std::shared_ptr<tk::device_buffer<tk::bf16>> da, db;
    std::shared_ptr<tk::device_buffer<float>> dc;
    tk::gl<tk::bf16> A() const { return {da->data(), 1, 1, m, k}; }
    tk::gl<tk::bf16> B() const { return {db->data(), 1, 1, k, n}; }
    tk::gl<float> C() const { return {dc->data(), 1, 1, m, n}; }
};

inline Data make_inputs(const tk::host::dims_t& d, unsigned seed) {
    Data g;
    g.m = d.at("M");
    g.n = d.at("N");
    g.k = d.at("K");
    g.a = tk::host::random_values<tk::bf16>(size_t(g.m) * g.k, seed);
    g.b = tk::host::random_values<tk::bf16>(size_t(g.k) * g.n, seed + 7919);  // not A's values again
    g.da = std::make_shared<tk::device_buffer<tk::bf16>>(g.a.size(), g.a, "A");
    g.db = std::make_shared<tk::device_buffer<tk::bf16>>(g.b.size(), g.b, "B");
    g.dc = std::make_shared<tk::device_buffer<float>>(size_t(g.m) * g.n, "C");
    return g;
}

// C = A * B in float64, from the very bf16 values the kernel reads.
inline std::vector<double> reference(const Data& g) {
    return tk::host::matmul_reference(tk::host::to_floats(g.a), tk::host::to_floats(g.b), g.m, g.n, g.k);
}

// A GEMM lesson's program, given its name, summary, sizes, variants (name ->
// kernel; the first is the default) and how it launches one.
inline tk::host::program_def<Data> program_def(std::string name, std::string summary, std::vector<tk::host::problem_dim> dims,
                                               std::vector<std::pair<std::string, kernel_fn>> kernels,
                                               std::function<void(Data&, kernel_fn)> launch) {
    tk::host::program_def<Data> p;
    p.name = std::move(name);
    p.kind = "lesson";
    p.summary = std::move(summary);
    p.dims = std::move(dims);
    p.inputs = make_inputs;
    tk::host::set_variants(p, std::move(kernels), std::move(launch));
    p.output = [](Data& g) { return g.dc->download(); };
    p.reference = reference;
    p.output_name = std::string("C");  // (a std::string: assigning the one-letter literal trips a GCC 12 -Wrestrict false alarm)
    p.tolerance = 1e-3;  // fp32 accumulation is good to ~1e-6 here; a bf16 rounding of the result is not
    p.flops = [](const tk::host::dims_t& d) { return 2.0 * d.at("M") * d.at("N") * d.at("K"); };
    return p;
}

} // namespace tklab::lessons::gemm_problem
