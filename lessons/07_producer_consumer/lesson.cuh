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
// (al.allocate<Stage[kStages]>()): the tiles must sit in the block's dynamic shared
// memory, 1024-byte aligned for their swizzle.
struct alignas(1024) Stage {  // a whole number of KiB, so an array of slots keeps each aligned
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
// model, measured figures): the solution (3 stages) spends 46.3% of its warp
// time waiting at barriers, and its slowest block takes 9610 cycles; the same
// kernel with one stage (wrong/one_stage.cuh, `--variant one_stage`: load,
// compute, load, compute) waits 58.2% of the time and takes 12046 cycles.
// (One producer warp's copies are the bottleneck either way: README.md.)
// Waits on an mbarrier by the consumer warps (0-3), in the run's kept blocks.
inline uint64_t consumer_waits(const tklab::lessons::Symptom& s) {
    uint64_t n = 0;
    if (s.run)
        for (const auto& b : s.run->blocks)
            for (const auto& e : b.events)
                n += (e.op == tklab::sim::Op::mbar_wait || e.op == tklab::sim::Op::mbar_test_wait) && e.warp < kProducerWarp;
    return n;
}

// This lesson's known mistakes (lessons/framework/diagnosis.h), most specific
// first; each has its hint in hints.md, and wrong/ holds an example of each.
inline std::vector<tklab::lessons::Mistake> mistakes() {
    using tklab::lessons::Symptom;
    using tklab::sim::ErrorKind;
    const std::string consumers = std::to_string(kConsumerThreads) + " arrivals";
    return {
        {"arrival_count",
         [](const Symptom& s) { return s.error == ErrorKind::sync_misuse && s.says("lanes arrived at once on mbarrier"); },
         "a semaphore's arrival count does not match who arrives. init_semaphore(sem, n) completes a phase after n "
         "arrivals, and arrive() from a warp is 32 arrivals, one per thread: \"full\" counts the producer's " +
             std::to_string(kProducerThreads) + " threads, \"empty\" the consumers' " + std::to_string(kConsumerThreads) + "."},
        {"parity_counts_k_steps",
         [](const Symptom& s) { return s.says("went on at once: that barrier had completed no phase yet"); },
         "the phase counts k-steps instead of rounds of the ring. Slot k % kStages is used for the (k / kStages)-th time "
         "at k-step k, so it waits for parity (k / kStages) % 2; k % 2 waits for parity 1 on a slot whose semaphore "
         "has completed nothing yet, and a fresh mbarrier lets a wait for parity 1 through at once."},
        {"consumers_do_not_wait",
         [](const Symptom& s) { return s.error == ErrorKind::uninitialized_read && consumer_waits(s) == 0; },
         "the consumers load the slot without waiting for it to be full, so they read tiles the producer's copies have "
         "not written yet. Before loading, wait(st.full, phase); the producer arrive(st.full)s once its copies landed."},
        {"full_before_copies_land",
         [](const Symptom& s) { return s.error == ErrorKind::uninitialized_read && consumer_waits(s) > 0; },
         "the consumers waited for \"full\" and still read tiles nothing had written: the producer arrives on \"full\" "
         "before its copies have landed. cp.async copies land only at load_async_wait<0>(); arrive(st.full) after it."},
        {"producer_waits_this_round",
         [consumers](const Symptom& s) {
             return s.error == ErrorKind::deadlock && s.names_line_with("empty") && !s.says("arrivals came from") &&
                    s.says("0 of " + consumers + "; nothing has arrived on it yet");
         },
         "the producer waits on \"empty\" for this round's phase, which only the consumers can complete after it "
         "filled the slot: nobody moves. It waits for the previous round's release, phase ^ 1 (a fresh mbarrier counts "
         "parity 1 as done, so round 0 goes through)."},
        {"consumers_never_release",
         [consumers](const Symptom& s) {
             return s.error == ErrorKind::deadlock && s.says("arrivals came from") &&
                    s.says("0 of " + consumers + "; nothing has arrived on it yet");
         },
         "the ring ran once around and stopped: nobody ever arrived on \"empty\", so the producer waits for a free "
         "slot for ever. Each consumer warp arrive(st.empty)s after its mma on the slot."},
        {"phase_never_flips",
         [](const Symptom& s) {
             return s.part == "correctness" && s.nan == 0 && s.dims.count("K") && s.dims.at("K") / kBlock > kStages;
         },
         "right while the ring has not wrapped, wrong once it has (more than kStages k-steps): in round 1 the waits "
         "still ask for phase 0, which completed in round 0, so they go on with the old tiles. The phase flips every "
         "round: (k / kStages) % 2."},
        {"ring_too_short",
         [](const Symptom& s) { return s.part == "goal" && s.says("waiting at barriers"); },
         "the warps take turns instead of overlapping: with too few slots in the ring (one) the producer cannot load "
         "the next k-step while the consumers compute on this one. Use all kStages slots, k-step k in slot "
         "k % kStages."},
    };
}

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
        .mistakes = mistakes(),
    };
}
#endif

} // namespace lesson07
