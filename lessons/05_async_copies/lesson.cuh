// Lesson 5, "Asynchronous copies and double buffering": the problem every
// version of the kernel solves (the exercise, the solution, and the
// known-wrong ones the checker's tests use), so they all run on the same
// inputs against the same CPU reference.
//
//   A : M x K bf16, seeded random values in [-1, 1)
//   B : K x N bf16, seeded random values in [-1, 1) (another seed)
//   C : M x N float, C = A * B, accumulated in fp32
//
// All three are row-major; M, N and K are multiples of 64. Each block has 4
// warps and computes one 64x64 tile of C (2 x 2 warps, 32x32 each), walking
// K 64 at a time through 64x64 shared tiles of A and B. The grid is
// N/64 x M/64 blocks (blockIdx.x the tile's column, blockIdx.y its row).
// Every block gets room for two stages (two A tiles and two B tiles).
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

namespace lesson05 {

constexpr int kBlock = 64;            // a block's tile of C: 64 x 64; K walked 64 at a time
constexpr int kWarps = 4;             // 2 x 2 warps, 32x32 of C each
constexpr int kThreads = 32 * kWarps;

// A shared stage of A or B: 64 x 64 bf16 (8 KB), swizzled so that ldmatrix
// has no bank conflicts (lesson 4): the timeline then shows only what this
// lesson is about.
using tile = tk::st_bf<kBlock, kBlock>;

// The dynamic shared memory each block gets: two stages of A and B, plus the
// 1024 bytes the allocator may skip to align a swizzled tile.
constexpr size_t kSharedBytes = 4 * sizeof(tile) + 1024;

// Every kernel of this lesson has this signature: kernel(A, B, C). The data,
// inputs and float64 CPU reference are the GEMM lessons' (lessons/framework/gemm_problem.cuh).
using kernel_fn = tklab::lessons::gemm_problem::kernel_fn;
using Data = tklab::lessons::gemm_problem::Data;

// One block of 4 warps per 64x64 tile of C.
inline void launch(const char* name, kernel_fn kernel, Data& g) {
    tk::launch(name, kernel, dim3(unsigned(g.n / kBlock), unsigned(g.m / kBlock)), dim3(kThreads), kSharedBytes, g.A(),
               g.B(), g.C());
}

// The program, given its variants (name -> kernel; the first is the default).
// lesson.cu registers it with the exercise and the solution; the tests build
// the same problem around known-wrong kernels.
inline tk::host::program_def<Data> program_def(std::vector<std::pair<std::string, kernel_fn>> kernels,
                                               std::string name = "lesson05") {
    return tklab::lessons::gemm_problem::program_def(
        std::move(name),
        "Lesson 5, asynchronous copies and double buffering: C = A * B (bf16 in, fp32 out), 64x64 tiles of C, "
        "K through shared memory 64 at a time",
        {{"M", 128, 64, 4096}, {"N", 128, 64, 4096}, {"K", 512, 64, 4096}}, std::move(kernels),
        [](Data& g, kernel_fn k) { launch("lesson05", k, g); });
}

#if !defined(TK_GPU)
// This lesson's known mistakes (lessons/framework/diagnosis.h), most
// specific first; each has its hint in hints.md, and wrong/ holds an example
// of each but the synchronous loop, which is the exercise as shipped. An
// empty kernel is the framework's own "nothing_stored".
inline std::vector<tklab::lessons::Mistake> mistakes() {
    using tklab::lessons::Symptom;
    using tklab::sim::ErrorKind;
    using tklab::sim::Op;
    return {
        {"refill_before_reads_done",
         [](const Symptom& s) {
             return s.error == ErrorKind::race && s.says("write after read") && s.says("cp.async");
         },
         "the next k-step's copies start into the stage other warps may still be reading: the __syncthreads() at the "
         "end of each k-step is missing. Iteration k + 1 refills the stage iteration k read, and a cp.async may land "
         "at once; keep the barrier after the math (HOLE 4)."},
        {"copies_never_waited",
         [](const Symptom& s) { return s.error == ErrorKind::uninitialized_read && s.ops(Op::cp_async_wait) == 0; },
         "the copies are started and nothing waits for them: a cp.async's data is in shared memory only once "
         "load_async_wait retires its group, so the stage is read before it has landed. Wait for k-step k before the "
         "barrier and the math: load_async_wait<N>() with N the groups still allowed in flight."},
        {"wait_leaves_this_step_in_flight",
         [](const Symptom& s) { return s.error == ErrorKind::uninitialized_read && s.ops(Op::cp_async_wait) > 0; },
         "the stage is read while its own copies may still be in flight: the wait's N leaves this k-step's groups "
         "unretired (or they were never started). load_async_wait<N> lets the N newest groups fly; that is k + 1's "
         "two only when k + 1 was started, so the last k-step (and a single one) needs N = 0. And k-step 0 needs its "
         "prologue."},
        {"stage_holds_wrong_k_step",
         [](const Symptom& s) {
             return s.part == "correctness" && s.nan == 0 && s.dims.count("K") && s.dims.at("K") > kBlock;
         },
         "right with one k-step, wrong with more: the stage the math reads does not hold k-step k's tiles. The copies "
         "started in iteration k are for k-step k + 1 (A's {block_row, k + 1}, B's {k + 1, block_col}) into stage "
         "1 - cur, and k-step k is read from stage cur = k % 2."},
        {"loads_synchronous",
         [](const Symptom& s) { return s.part == "goal" && s.run && s.ops(Op::cp_async) == 0; },
         "the loads are still synchronous: each k-step waits out a whole global-memory latency while the tensor cores "
         "idle. Start the next k-step's tiles with group<kWarps>::load_async into the other stage before computing on "
         "this one, so they travel during the math."},
        {"waits_for_next_stage_too",
         [](const Symptom& s) { return s.part == "goal" && s.run && s.ops(Op::cp_async) > 0; },
         "the copies are asynchronous, but none is in flight while the tensor cores work: each wait retires every "
         "group, the next k-step's too (load_async_wait<0>()), so each k-step waits out a whole latency again. Start "
         "k + 1 into the other stage first, then load_async_wait<2>() to let its two groups fly; <0> only on the last "
         "k-step."},
    };
}

// What `tklab lesson check 5` runs: one block and one k-step (no next stage
// to start at all), a wide C with three k-steps, a tall C with five, and the
// default size, 2 x 2 blocks with eight k-steps; the goal is read on the last.
inline tklab::lessons::Lesson lesson() {
    return tklab::lessons::Lesson{
        .number = 5,
        .folder = "lessons/05_async_copies",
        .title = "Asynchronous copies and double buffering",
        .program = "lesson05",
        .sizes = {{{"M", 64}, {"N", 64}, {"K", 64}},
                  {{"M", 64}, {"N", 128}, {"K", 192}},
                  {{"M", 128}, {"N", 64}, {"K", 320}},
                  {{"M", 128}, {"N", 128}, {"K", 512}}},
        .shape = [](const tk::host::dims_t& d) { return std::pair{d.at("M"), d.at("N")}; },
        // Measured at 128 x 128 x 512 (the share of warp time spent waiting for
        // global / cp.async data, long scoreboard):
        //   exercise as shipped (synchronous loads)         39.7%  10932 cycles
        //   wrong/wait_all.cuh (two stages, wait<0>)        27.2%   8312 cycles
        //   solution (two stages, wait<2>)                   0.3%   6070 cycles
        // 15% sits well above the solution's share and well below the nearest miss's.
        .goals = {tklab::lessons::max_memory_wait_share(0.15)},
        .mistakes = mistakes(),
    };
}
#endif

} // namespace lesson05
