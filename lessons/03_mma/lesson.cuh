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
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>
#include "tk/tk.h"
#include "tk/host/registry.h"
#include "lessons/framework/gemm_problem.cuh"
#if !defined(TK_GPU)
#include "lessons/framework/lesson.h"
#endif

namespace lesson03 {

constexpr int kTile = 16;  // one warp's output tile: 16 x 16 of C; K walked 16 at a time

// Every kernel of this lesson has this signature: kernel(A, B, C). The data,
// inputs and float64 CPU reference are the GEMM lessons' (lessons/framework/gemm_problem.cuh).
using kernel_fn = tklab::lessons::gemm_problem::kernel_fn;
using Data = tklab::lessons::gemm_problem::Data;

// One warp (32 threads) per block, one block per 16x16 tile of C.
inline void launch(const char* name, kernel_fn kernel, Data& g) {
    tk::launch(name, kernel, dim3(unsigned(g.n / kTile), unsigned(g.m / kTile)), dim3(32), 0, g.A(), g.B(), g.C());
}

// The program, given its variants (name -> kernel; the first is the default).
// lesson.cu registers it with the exercise and the solution; the tests build
// the same problem around known-wrong kernels.
inline tk::host::program_def<Data> program_def(std::vector<std::pair<std::string, kernel_fn>> kernels,
                                               std::string name = "lesson03") {
    return tklab::lessons::gemm_problem::program_def(
        std::move(name),
        "Lesson 3, tensor cores: C = A * B (bf16 in, fp32 out), one warp per 16x16 tile of C, mma over K",
        {{"M", 64, 16, 4096}, {"N", 64, 16, 4096}, {"K", 64, 16, 4096}}, std::move(kernels),
        [](Data& g, kernel_fn k) { launch("lesson03", k, g); });
}

#if !defined(TK_GPU)
constexpr double kTolerance = 1e-3;  // the GEMM lessons' allowed error (gemm_problem.cuh), relative above 1

// Is `got` within the check's tolerance of `want`?
inline bool within_tolerance(double got, double want) { return std::abs(got - want) <= kTolerance * std::max(std::abs(want), 1.0); }

// What a wrong C is, when it is made of the k-steps' products in a way the
// K loop gets wrong: the last k-step's product alone (the sum so far was
// thrown away each step), or K/16 times the first k-step's (every step
// loaded the same tiles). Read off the inputs, remade from the seed as
// gemm_problem::make_inputs makes them; "" when C is neither.
inline std::string explain(const tk::host::dims_t& d, unsigned seed, const std::vector<float>& got, const std::vector<double>& want) {
    const int m = d.at("M"), n = d.at("N"), k = d.at("K"), steps = k / kTile;
    if (steps < 2 || got.size() != want.size() || got.size() != size_t(m) * size_t(n)) return "";
    for (float v : got)
        if (!std::isfinite(v)) return "";
    const auto a = tk::host::to_floats(tk::host::random_values<tk::bf16>(size_t(m) * k, seed));
    const auto b = tk::host::to_floats(tk::host::random_values<tk::bf16>(size_t(k) * n, seed + 7919));
    // The product of k-step s alone, A's columns 16s..16s+15 times B's rows 16s..16s+15.
    const auto step_product = [&](int s) {
        std::vector<double> q(size_t(m) * n, 0.0);
        for (int r = 0; r < m; ++r)
            for (int kk = s * kTile; kk < (s + 1) * kTile; ++kk)
                for (int c = 0; c < n; ++c) q[size_t(r) * n + c] += double(a[size_t(r) * k + kk]) * b[size_t(kk) * n + c];
        return q;
    };
    const auto is = [&](const std::vector<double>& q, double times) {
        for (size_t i = 0; i < got.size(); ++i)
            if (!within_tolerance(got[i], times * q[i])) return false;
        return true;
    };
    char text[200];
    if (is(step_product(steps - 1), 1)) {
        std::snprintf(text, sizeof text, "  why: C is the last k-step's product alone (k %d-%d, the last of %d k-steps): ",
                      (steps - 1) * kTile, k - 1, steps);
        return text + std::string("the earlier k-steps' products were not added to it\n");
    }
    if (is(step_product(0), steps)) {
        std::snprintf(text, sizeof text, "  why: C is %d times the first k-step's product (k 0-%d): ", steps, kTile - 1);
        return text + std::string("every k-step multiplied the same tiles of A and B\n");
    }
    return "";
}

// This lesson's known mistakes (lessons/framework/diagnosis.h), most specific
// first; each has its hint in hints.md, and wrong/ holds an example of each.
inline std::vector<tklab::lessons::Mistake> mistakes() {
    using tklab::lessons::Symptom;
    return {
        {"nothing_stored", [](const Symptom& s) { return s.part == "correctness" && s.all_nan(); },
         "no warp stored its tile: every element of C is still the simulator's NaN fill. The accumulator lives in the "
         "warp's registers until HOLE 4 stores it to C at this warp's tile, store(c, acc, {0, 0, row, col})."},
        {"store_coordinates_swapped",
         [](const Symptom& s) {
             return s.error.has_value() && s.says("tile coordinate is outside the global tensor") && s.line_has("store");
         },
         "the store's tile coordinates run past C: a coordinate is {0, 0, tile row, tile column}, and this warp's tile "
         "is row blockIdx.y, column blockIdx.x. Swapped, they agree on a square C of one tile, write into another "
         "warp's tile on a larger square one, and run off a wide or tall one."},
        {"accumulator_reset_each_step", [](const Symptom& s) { return s.says("C is the last k-step's product alone"); },
         "each k-step starts the accumulator from zero again, so only the last product is left: zero(acc) sits "
         "inside the K loop (or the mma's c is not acc). Zero it once, before the loop, and let mma_AB(acc, at, bt, "
         "acc) add every step's product to it."},
        {"k_tile_fixed", [](const Symptom& s) { return s.says("times the first k-step's product"); },
         "every k-step loads the same tiles, A's and B's first along K, instead of walking K: C's tile (row, col) is "
         "the sum over k of A's tile (row, k) times B's tile (k, col), so A's coordinates are {0, 0, row, k} and B's "
         "{0, 0, k, col}."},
        {"bf16_result",
         [](const Symptom& s) {
             if (s.part != "correctness" || !s.got || !s.want || s.wrong == 0 || !s.all_bf16_values()) return false;
             for (size_t i = 0; i < s.want->size(); ++i)
                 if (std::abs((*s.got)[i] - (*s.want)[i]) > std::abs((*s.want)[i]) / 128 + kTolerance) return false;
             return true;
         },
         "C is right to within bf16's rounding, and every element is a bf16 value: the fp32 accumulator was rounded "
         "to bf16 (8 significant bits) before the store. Store the rt_fl accumulator itself; C is float."},
        {"separate_product", [](const Symptom& s) { return s.part == "goal" && s.says("registers per thread live"); },
         "C is right, but more tiles are alive at once than the accumulator and one A and one B tile: most likely a "
         "product tile per k-step added to acc afterwards. mma_AB(d, a, b, c) computes d = a * b + c, so "
         "mma_AB(acc, at, bt, acc) multiplies and accumulates in one."},
    };
}

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
        .explain = explain,
        .mistakes = mistakes(),
    };
}
#endif

} // namespace lesson03
