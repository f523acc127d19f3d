// Lesson 4, part 2, "A GEMM whose ldmatrix loads conflict": the problem every
// version of the kernel solves (the exercise, the solution and the known-wrong
// ones the checker's tests use).
//
//   A : M x K bf16, seeded random values in [-1, 1)
//   B : K x N bf16, seeded random values in [-1, 1) (another seed)
//   C : M x N float, C = A * B, accumulated in fp32
//
// All row-major. A block is 4 warps and computes a 64x64 tile of C (each warp
// a 32x32 quarter), walking K 64 at a time through two 64x64 shared tiles:
// the grid is N/64 x M/64 blocks. M, N and K are multiples of 64.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>
#include "tk/tk.h"
#include "tk/host/registry.h"
#include "lessons/framework/gemm_problem.cuh"
#if !defined(TK_GPU)
#include <set>
#include "lessons/framework/lesson.h"
#endif

namespace lesson04_gemm {

constexpr int kBlock = 64;            // a block's tile of C, and of K per step
constexpr int kWarps = 4;             // 2 x 2 warps, 32 x 32 of C each
constexpr int kThreads = kWarps * 32;

// Every kernel of this lesson has this signature: kernel(A, B, C). The data,
// inputs and float64 CPU reference are the GEMM lessons' (lessons/framework/gemm_problem.cuh).
using kernel_fn = tklab::lessons::gemm_problem::kernel_fn;
using Data = tklab::lessons::gemm_problem::Data;

// Room for two 64x64 bf16 tiles (8 KB each) and the 1024-byte alignment the
// allocator may need for the first.
constexpr size_t kSharedBytes = 2 * kBlock * kBlock * sizeof(tk::bf16) + 1024;

inline void launch(const char* name, kernel_fn kernel, Data& g) {
    tk::launch(name, kernel, dim3(unsigned(g.n / kBlock), unsigned(g.m / kBlock)), dim3(kThreads), kSharedBytes, g.A(), g.B(),
               g.C());
}

inline tk::host::program_def<Data> program_def(std::vector<std::pair<std::string, kernel_fn>> kernels,
                                               std::string name = "lesson04_gemm") {
    return tklab::lessons::gemm_problem::program_def(
        std::move(name),
        "Lesson 4, part 2: C = A * B (bf16 in, fp32 out) through 64x64 shared tiles and ldmatrix; conflicts until swizzled",
        {{"M", 128, 64, 4096}, {"N", 128, 64, 4096}, {"K", 128, 64, 4096}}, std::move(kernels),
        [](Data& g, kernel_fn k) { launch("lesson04_gemm", k, g); });
}

#if !defined(TK_GPU)
// The kernel lines whose ldmatrix conflicted, and those with any ldmatrix,
// over the run's kept blocks: one tile swizzled and the other not leaves
// one of the two load lines (A's, B's) conflicted.
struct LdmatrixLines {
    std::set<uint32_t> all, conflicted;
};
inline LdmatrixLines ldmatrix_lines(const tklab::lessons::Symptom& s) {
    LdmatrixLines l;
    if (!s.run) return l;
    for (const tklab::sim::BlockTrace& b : s.run->blocks) {
        for (const tklab::sim::Event& e : b.events)
            if (e.op == tklab::sim::Op::ldmatrix) l.all.insert(e.loc);
        for (const tklab::sim::SmemRecord& m : b.smem)
            if (m.banks.conflicts() > 0 && m.event < b.events.size() && b.events[m.event].op == tklab::sim::Op::ldmatrix)
                l.conflicted.insert(b.events[m.event].loc);
    }
    return l;
}

// Part 2's known mistakes (lessons/framework/diagnosis.h), most specific
// first; each has its hint in part2_gemm/hints.md, and part2_gemm/wrong/
// holds an example of each. An empty kernel is the framework's own
// "nothing_stored".
inline std::vector<tklab::lessons::Mistake> mistakes() {
    using tklab::lessons::Symptom;
    return {
        {"k_tile_not_advanced",
         [](const Symptom& s) {
             return s.part == "correctness" && s.nan == 0 && s.dims.count("K") && s.dims.at("K") > kBlock;
         },
         "right with one k-step (K = 64), wrong with more: each k-step must bring in its own tiles, A's (blockIdx.y, k) "
         "and B's (k, blockIdx.x). A coordinate that does not follow k multiplies the same tiles again at every step."},
        {"one_tile_unswizzled",
         [](const Symptom& s) {
             if (s.part != "goal" || !s.run || s.run->stats.ldmatrix.conflicts() == 0) return false;
             const LdmatrixLines l = ldmatrix_lines(s);
             return !l.conflicted.empty() && l.conflicted.size() < l.all.size();
         },
         "one tile is swizzled and the other is not: its ldmatrix (B's .trans load reads 8 rows of its tile just as "
         "A's does) still finds the 8 rows of a phase in the same 4 banks, 8-way. Give both shared tiles the 128-byte "
         "swizzle."},
        {"tiles_unswizzled",
         [](const Symptom& s) { return s.part == "goal" && s.run && s.run->stats.ldmatrix.conflicts() > 0; },
         "the shared tiles are unswizzled: a 64-wide bf16 row is 128 bytes, all 32 banks, so the 8 rows an ldmatrix "
         "phase reads put the same 16 bytes in the same 4 banks, 8-way. The tile type's swizzle is the fix: "
         "swizzle::b128 stores row r's 16-byte chunk j in slot j ^ (r % 8)."},
        {"swizzle_narrower_than_row",
         [](const Symptom& s) {
             return s.part == "goal" && s.run && s.run->stats.ldmatrix.conflicts() == 0 &&
                    s.run->stats.st_shared.conflicts() > 0;
         },
         "the ldmatrix loads are conflict-free, but the stores that fill the tile conflict: a swizzle narrower than the "
         "128-byte row (b64, b32) stores the tile as column blocks 64 or 32 bytes wide, so one row's 16-byte stores "
         "land in blocks thousands of bytes apart, in the same banks. Use the swizzle as wide as the row, b128."},
    };
}

// What `tklab lesson check 4` runs after the transpose: one block and one
// k-step, a wide C (two blocks side by side, two k-steps) and a tall one
// (three k-steps); the goal is read on the last.
inline tklab::lessons::Part part() {
    return tklab::lessons::Part{
        .title = "a GEMM whose ldmatrix loads conflict",
        .program = "lesson04_gemm",
        .exercise = "part2_gemm/exercise.cuh",
        .solution = "part2_gemm/solution.cuh",
        .sizes = {{{"M", 64}, {"N", 64}, {"K", 64}}, {{"M", 64}, {"N", 128}, {"K", 128}}, {{"M", 128}, {"N", 64}, {"K", 192}}},
        .shape = [](const tk::host::dims_t& d) { return std::pair{d.at("M"), d.at("N")}; },
        .goals = {tklab::lessons::no_bank_conflicts()},
        .custom_check = {},
        .beside = "",
        .mistakes = mistakes(),
    };
}
#endif

} // namespace lesson04_gemm
