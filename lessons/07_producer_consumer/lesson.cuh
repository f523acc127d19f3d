// Lesson 7, "Producer and consumer warps": the problem every version of the
// kernel solves (the exercise, the solution, and the known-wrong ones the
// checker's tests use), so they all run on the same inputs against the same
// CPU reference.
//
//   A : M x K bf16, seeded random values in [-1, 1)
//   B : K x N bf16, seeded random values in [-1, 1) (another seed)
//   C : M x N float, C = A * B, accumulated in fp32
//
// The GEMM of lesson 5, with the work split by role. All three matrices are
// row-major; M, N and K are multiples of 64. Each block computes one 64x64
// tile of C with 5 warps: warps 0-3 are consumers (2 x 2, 32x32 of C each,
// mma as in lesson 3), warp 4 is the producer (it only copies 64x64 tiles of
// A and B into shared memory). They pass tiles through a ring of kStages
// shared-memory stages, each with two mbarrier semaphores: "full" (the
// producer's copies have landed) and "empty" (every consumer is done with
// it). The grid is N/64 x M/64 blocks (blockIdx.x the tile's column,
// blockIdx.y its row).
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

namespace lesson07 {

constexpr int kBlock = 64;                       // a block's tile of C: 64 x 64; K walked 64 at a time
constexpr int kConsumerWarps = 4;                // warps 0-3: 2 x 2, 32x32 of C each
constexpr int kProducerWarp = kConsumerWarps;    // warp 4: the loads
constexpr int kConsumerThreads = 32 * kConsumerWarps;
constexpr int kProducerThreads = 32;
constexpr int kThreads = kConsumerThreads + kProducerThreads;  // 160
constexpr int kStages = 3;                       // the ring: at most this many stages (kernels may use fewer)

using tile = tk::st_bf<kBlock, kBlock>;  // 64 x 64 bf16 (8 KB), swizzled: no bank conflicts (lesson 4)

// One slot of the ring: a tile of A, a tile of B, and the two semaphores
// that say who may touch them. Allocate with tk::shared_allocator
// (al.allocate<Stage>()): the tiles must sit in the block's dynamic shared
// memory, 1024-byte aligned for their swizzle.
struct Stage {
    static constexpr int alignment = 1024;
    tile a;                // A's 64x64 tile (the block's rows, k-step k)
    tile b;                // B's 64x64 tile (k-step k, the block's columns)
    tk::semaphore full;    // completes a phase when the producer's copies have landed
    tk::semaphore empty;   // completes a phase when every consumer is done with the tiles
};

// The dynamic shared memory each block gets: kStages stages (each rounded up
// to the 1024-byte alignment) plus the 1024 bytes the allocator may skip.
constexpr size_t kStageBytes = (sizeof(Stage) + 1023) / 1024 * 1024;
constexpr size_t kSharedBytes = kStages * kStageBytes + 1024;

// Every kernel of this lesson has this signature: kernel(A, B, C). The data,
// inputs and float64 CPU reference are the GEMM lessons' (lessons/framework/gemm_problem.cuh).
using kernel_fn = tklab::lessons::gemm_problem::kernel_fn;
using Data = tklab::lessons::gemm_problem::Data;

// One block of 5 warps (4 consumers, 1 producer) per 64x64 tile of C.
inline void launch(const char* name, kernel_fn kernel, Data& g) {
    tk::launch(name, kernel, dim3(unsigned(g.n / kBlock), unsigned(g.m / kBlock)), dim3(kThreads), kSharedBytes, g.A(),
               g.B(), g.C());
}

// The program, given its variants (name -> kernel; the first is the default).
// lesson.cu registers it with the exercise, the solution and the one-stage
// version to compare; the tests build the same problem around known-wrong
// kernels.
inline tk::host::program_def<Data> program_def(std::vector<std::pair<std::string, kernel_fn>> kernels,
                                               std::string name = "lesson07") {
    return tklab::lessons::gemm_problem::program_def(
        std::move(name),
        "Lesson 7, producer and consumer warps: C = A * B (bf16 in, fp32 out), 64x64 tiles of C; one warp "
        "loads, four compute, a ring of shared stages with full/empty mbarriers between them",
        {{"M", 128, 64, 4096}, {"N", 128, 64, 4096}, {"K", 512, 64, 4096}}, std::move(kernels),
        [](Data& g, kernel_fn k) { launch("lesson07", k, g); });
}

#if !defined(TK_GPU)
// What `tklab lesson check 7` runs: one block and one k-step (the ring is
// never reused), a wide C with 4 k-steps (the ring wraps once: phase 1), a
// tall C with 7 (wraps twice: phase 0 again) and the default size, 2 x 2
// blocks with 8 k-steps; the goal is read on the last.
//
// The goal, measured in the simulator at M = N = 128, K = 512 (h100 cost
// model, measured figures): the solution (3 stages) spends 46.7% of its warp
// time waiting at barriers, and its slowest block takes 12108 cycles; the same
// kernel with one stage (wrong/one_stage.cuh, `--variant one_stage`: load,
// compute, load, compute) waits 59.1% of the time and takes 15459 cycles.
// (One producer warp's copies are the bottleneck either way: README.md.)
inline tklab::lessons::Lesson lesson() {
    return tklab::lessons::Lesson{
        .number = 7,
        .folder = "lessons/07_producer_consumer",
        .title = "Producer and consumer warps",
        .program = "lesson07",
        .sizes = {{{"M", 64}, {"N", 64}, {"K", 64}},
                  {{"M", 64}, {"N", 128}, {"K", 256}},
                  {{"M", 128}, {"N", 64}, {"K", 448}},
                  {{"M", 128}, {"N", 128}, {"K", 512}}},
        .shape = [](const tk::host::dims_t& d) { return std::pair{d.at("M"), d.at("N")}; },
        .goals = {tklab::lessons::max_barrier_wait_share(0.53)},
    };
}
#endif

} // namespace lesson07
