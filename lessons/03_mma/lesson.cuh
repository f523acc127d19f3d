// Lesson 3, "Tensor cores": the problem every version of the kernel solves
// (the exercise, the solution, and the known-wrong ones the checker's tests
// use), so they all run on the same inputs against the same CPU reference.
//
//   A : M x K bf16, seeded random values in [-1, 1)
//   B : K x N bf16, seeded random values in [-1, 1) (another seed)
//   C : M x N float, C = A * B, accumulated in fp32
//
// All three are row-major. Each block is one warp and computes one 16x16
// tile of C: the grid is N/16 x M/16 blocks (blockIdx.x the tile's column,
// blockIdx.y its row). M, N and K are multiples of 16.
#pragma once
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>
#include "tk/tk.h"
#include "tk/host/registry.h"
#if !defined(TK_GPU)
#include "lessons/framework/lesson.h"
#endif

namespace lesson03 {

constexpr int kTile = 16;  // one warp's output tile: 16 x 16 of C; K walked 16 at a time

// Every kernel of this lesson has this signature: kernel(A, B, C).
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

// One warp (32 threads) per block, one block per 16x16 tile of C.
inline void launch(const char* name, kernel_fn kernel, Data& g) {
    tk::launch(name, kernel, dim3(unsigned(g.n / kTile), unsigned(g.m / kTile)), dim3(32), 0, g.A(), g.B(), g.C());
}

// The program, given its variants (name -> kernel; the first is the default).
// lesson.cu registers it with the exercise and the solution; the tests build
// the same problem around known-wrong kernels.
inline tk::host::program_def<Data> program_def(std::vector<std::pair<std::string, kernel_fn>> kernels,
                                               std::string name = "lesson03") {
    tk::host::program_def<Data> p;
    p.name = std::move(name);
    p.kind = "lesson";
    p.summary = "Lesson 3, tensor cores: C = A * B (bf16 in, fp32 out), one warp per 16x16 tile of C, mma over K";
    p.dims = {{"M", 64, 16, 4096}, {"N", 64, 16, 4096}, {"K", 64, 16, 4096}};
    p.inputs = make_inputs;
    tk::host::set_variants(p, std::move(kernels), [](Data& g, kernel_fn k) { launch("lesson03", k, g); });
    p.output = [](Data& g) { return g.dc->download(); };
    p.reference = reference;
    p.output_name = std::string("C");  // (a std::string: assigning the one-letter literal trips a GCC 12 -Wrestrict false alarm)
    p.tolerance = 1e-3;  // fp32 accumulation is good to ~1e-6 here; bf16 output rounding is not
    p.flops = [](const tk::host::dims_t& d) { return 2.0 * d.at("M") * d.at("N") * d.at("K"); };
    return p;
}

#if !defined(TK_GPU)
// What `tklab lesson check 3` runs: one tile and one k-step (the smallest
// GEMM there is), a wide 16x48 C with two k-steps, a tall 48x16 C with five,
// and 64x96 with four; the goal is read on the last.
inline tklab::lessons::Lesson lesson() {
    return tklab::lessons::Lesson{
        .number = 3,
        .folder = "lessons/03_mma",
        .title = "Tensor cores",
        .program = "lesson03",
        .sizes = {{{"M", 16}, {"N", 16}, {"K", 16}},
                  {{"M", 16}, {"N", 48}, {"K", 32}},
                  {{"M", 48}, {"N", 16}, {"K", 80}},
                  {{"M", 64}, {"N", 96}, {"K", 64}}},
        .shape = [](const tk::host::dims_t& d) { return std::pair{d.at("M"), d.at("N")}; },
        // An accumulator (rt_fl<16,16>: 8 registers) and one A and one B tile
        // (rt_bf<16,16>: 4 each) are all a 16x16 output tile needs.
        .goals = {tklab::lessons::max_registers(16)},
    };
}
#endif

} // namespace lesson03
