// Lesson 10, "The Hopper path": the problem every version of the kernel
// solves (the exercise, the solution, and the known-wrong ones the checker's
// tests use), so they all run on the same inputs against the same CPU
// reference.
//
//   A : M x K bf16, seeded random values in [-1, 1)
//   B : K x N bf16, seeded random values in [-1, 1) (another seed)
//   C : M x N float, C = A * B, accumulated in fp32
//
// Lesson 7's GEMM, the Hopper way. Each block computes a 64 x 128 tile of C
// with two warpgroups (256 threads): warpgroup 0 is the producer, and only
// its first thread works: it moves whole tiles of A (64 x 64) and B
// (64 x 128) into shared memory with bulk tensor copies (TMA). Warpgroup 1
// is the consumer: its four warps multiply the tiles with wgmma, each
// keeping 16 rows of the block's C tile in registers. Tiles pass through a
// ring of kStages slots, each with a "full" semaphore (completes when the
// producer has arrived AND the copies' bytes have landed) and an "empty" one
// (completes when the four consumer warps have released the slot). The grid
// is N/128 x M/64 blocks (blockIdx.x the tile's column, blockIdx.y its row).
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

namespace lesson10 {

constexpr int kBM = 64, kBN = 128, kBK = 64;  // the block's tile of C: 64 x 128; K walked 64 at a time
constexpr int kThreads = 256;                 // warpgroup 0: the producer; warpgroup 1: the consumer
constexpr int kProducer = 0;                  // warpgroup index
constexpr int kConsumerWarps = 4;
constexpr int kStages = 2;                    // the ring (kernels may use fewer)

using a_tile = tk::st_bf<kBM, kBK>;  // 64 x 64 bf16, 128-byte swizzle (what wgmma and TMA both speak)
using b_tile = tk::st_bf<kBK, kBN>;  // 64 x 128 bf16: two 64-column blocks, one bulk copy each

// The kernel's arguments, built on the host from the GEMM data: A and B carry
// the tensor maps their bulk copies need (tk::gl_tma, one per tile type).
struct globals {
    tk::gl_tma<tk::bf16, a_tile> A;
    tk::gl_tma<tk::bf16, b_tile> B;
    tk::gl<float> C;
};

// One slot of the ring. Allocate the ring with tk::shared_allocator (al.allocate<Stage[kStages]>()).
struct alignas(1024) Stage {  // a whole number of KiB, so an array of slots keeps each aligned
    static constexpr int alignment = 1024;
    a_tile a;              // A's 64 x 64 tile (the block's rows, k-step k)
    b_tile b;              // B's 64 x 128 tile (k-step k, the block's columns)
    tk::semaphore full;    // the producer's arrival + the tiles' bytes
    tk::semaphore empty;   // one arrival per consumer warp
};

constexpr size_t kStageBytes = (sizeof(Stage) + 1023) / 1024 * 1024;
constexpr size_t kSharedBytes = kStages * kStageBytes + 1024;

// Every kernel of this lesson has this signature: kernel(globals).
using kernel_fn = void (*)(globals);
using Data = tklab::lessons::gemm_problem::Data;

inline void launch(const char* name, kernel_fn kernel, Data& g) {
    const globals args{{g.da->data(), 1, 1, g.m, g.k}, {g.db->data(), 1, 1, g.k, g.n}, g.C()};
    tk::launch(name, kernel, dim3(unsigned(g.n / kBN), unsigned(g.m / kBM)), dim3(kThreads), kSharedBytes, args);
}

inline tk::host::program_def<Data> program_def(std::vector<std::pair<std::string, kernel_fn>> kernels,
                                               std::string name = "lesson10") {
    return tklab::lessons::gemm_problem::program_def<kernel_fn>(
        std::move(name),
        "Lesson 10, the Hopper path: C = A * B (bf16 in, fp32 out), 64x128 tiles of C; a producer warpgroup's "
        "one thread moves tiles with bulk tensor copies (TMA), a consumer warpgroup multiplies them with wgmma",
        {{"M", 128, 64, 4096}, {"N", 256, 128, 4096}, {"K", 256, 64, 4096}}, std::move(kernels),
        [](Data& g, kernel_fn k) { launch("lesson10", k, g); });
}

#if !defined(TK_GPU)
// What `tklab lesson check 10` runs: one block and one k-step, one block whose
// ring wraps (K = 320: five k-steps, phases 0, 1, 0), and the default size
// (2 x 2 blocks, four k-steps); the goal is read on the last.
//
// The goal, measured in the simulator at M = 128, N = 256, K = 256 (h100 cost
// model, measured figures): the solution's slowest block takes 3804 cycles; the same kernel
// with a ring of one slot (wrong/one_stage.cuh) takes 5247, because the copy
// of the next tiles and the multiply of these never overlap. 4500 lies between.
// This lesson's known mistakes (lessons/framework/diagnosis.h), most specific
// first; each has its hint in hints.md, and wrong/ holds an example of each
// (the exercise as shipped shows full_ignores_bytes too: it expects 0 bytes).
inline std::vector<tklab::lessons::Mistake> mistakes() {
    using tklab::lessons::Symptom;
    using tklab::sim::ErrorKind;
    using tklab::sim::Op;
    return {
        {"nothing_stored",
         [](const Symptom& s) { return s.part == "correctness" && s.all_nan() && s.ops(Op::st_global) == 0; },
         "C keeps its fill (NaN): the consumer warps multiply into acc and never write it. After the k-loop each "
         "consumer warp stores its 16 rows: store(g.C, acc, {0, 0, block_row * 4 + warpgroup::warpid(), block_col})."},
        {"full_ignores_bytes",
         [](const Symptom& s) {
             // Either the consumers' wgmma read a slot before its copies landed, or
             // the copies landed on a phase that had completed without them.
             return (s.error == ErrorKind::uninitialized_read && s.says("wgmma")) ||
                    s.says("bytes that no expect_tx counted") || s.says("counted fewer bytes than the copies deliver");
         },
         "\"full\" completes on the producer's arrival alone, before the bulk copies' bytes land: the arrival did not "
         "announce (all) the bytes the two copies bring, so the consumers' wgmma may read the slot too early. Arrive "
         "with tma::expect<a_tile, b_tile>(st.full), 8192 + 16384 bytes, in place of a plain arrive or a wrong count "
         "(HOLE 1)."},
        {"producer_waits_this_round",
         [](const Symptom& s) {
             return s.error == ErrorKind::deadlock && s.names_line_with("empty") && !s.says("arrivals came from") &&
                    s.says("nothing has arrived on it yet");
         },
         "the producer waits on \"empty\" for this round's phase, which only the consumers complete, after it has "
         "filled the slot: nobody moves. It waits for the previous round's release, parity phase ^ 1 (a fresh mbarrier "
         "counts that phase as complete, so round 0 goes through)."},
        {"ring_too_short",
         [](const Symptom& s) { return s.part == "goal" && s.says("the slowest block took"); },
         "the output is right but loading and multiplying take turns: with a ring of one slot the producer cannot copy "
         "k-step k + 1 until the consumers release k-step k. Use all kStages slots, k-step k in ring[k % kStages], "
         "with the parity (k / kStages) % 2."},
    };
}

inline tklab::lessons::Lesson lesson() {
    return tklab::lessons::Lesson{
        .number = 10,
        .folder = "lessons/10_hopper",
        .title = "The Hopper path: wgmma and bulk copies",
        .program = "lesson10",
        .sizes = {{{"M", 64}, {"N", 128}, {"K", 64}},
                  {{"M", 64}, {"N", 128}, {"K", 320}},
                  {{"M", 128}, {"N", 256}, {"K", 256}}},
        .shape = [](const tk::host::dims_t& d) { return std::pair{d.at("M"), d.at("N")}; },
        .goals = {tklab::lessons::max_cycles(4500)},
        .mistakes = mistakes(),
    };
}
#endif

} // namespace lesson10
