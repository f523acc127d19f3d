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
