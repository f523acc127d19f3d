// Lesson 12, "Split-K and atomics": the problem every version of the kernel
// solves (the exercise, the solution, and the known-wrong ones the checker's
// tests use), so they all run on the same inputs against the same CPU
// reference.
//
//   A : M x K bf16, seeded random values in [-1, 1)
//   B : K x N bf16, seeded random values in [-1, 1) (another seed)
//   C : M x N float, C = A * B, accumulated in fp32
//
// All three are row-major; M, N and K are multiples of 64. The shape the
// lesson is about is tall and skinny: a small C (128 x 128 by default, four
// 64x64 tiles) and a long K (4096). A block of 4 warps computes one 64x64
// tile of C over a range of K (2 x 2 warps, 32x32 each), walking it 64 at a
// time, double-buffered as in lesson 5 (multiply() below: this lesson's
// kernels only say which range). The grid is N/64 x M/64 x S blocks:
// blockIdx.x the tile's column, blockIdx.y its row, blockIdx.z its slice of
// K, of S slices. Each variant names its S and a kernel that zeroes C,
// launched before the GEMM.
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
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <regex>
#include "lessons/framework/lesson.h"
#include "sim/simulator.h"
#endif

namespace lesson12 {

constexpr int kBlock = 64;  // a block's tile of C: 64 x 64; K walked 64 at a time (a k-step)
constexpr int kWarps = 4;   // 2 x 2 warps, 32x32 of C each
constexpr int kThreads = 32 * kWarps;

// A shared stage of A or B: 64 x 64 bf16, swizzled (lesson 4).
using tile = tk::st_bf<kBlock, kBlock>;
// Two stages of A and B, plus the 1024 bytes the allocator may skip to align.
constexpr size_t kSharedBytes = 4 * sizeof(tile) + 1024;

// acc += this block's 64x64 tile of C over k-steps [first, last) of K (a
// k-step is 64 columns of A, 64 rows of B), this warp's 32x32 quarter of it.
// Lesson 5's double-buffered loop, from shared memory with ldmatrix and mma.
// An empty range (first >= last) adds nothing. Every thread of the block
// must call it with the same range.
TK_DEVICE void multiply(tk::rt_fl<32, 32>& acc, const tk::gl<tk::bf16>& A, const tk::gl<tk::bf16>& B, int first, int last) {
    using namespace tk;
    if (first >= last) return;
    shared_allocator al;
    auto& a_s = al.allocate<tile[2]>();
    auto& b_s = al.allocate<tile[2]>();
    const int block_row = int(blockIdx.y), block_col = int(blockIdx.x);
    const int warp_row = warpid() / 2, warp_col = warpid() % 2;
    group<kWarps>::load_async(a_s[0], A, {0, 0, block_row, first});
    group<kWarps>::load_async(b_s[0], B, {0, 0, first, block_col});
    for (int k = first; k < last; ++k) {
        const int cur = (k - first) % 2;
        if (k + 1 < last) {
            group<kWarps>::load_async(a_s[1 - cur], A, {0, 0, block_row, k + 1});
            group<kWarps>::load_async(b_s[1 - cur], B, {0, 0, k + 1, block_col});
            load_async_wait<2>();
        } else {
            load_async_wait<0>();
        }
        __syncthreads();
        rt_bf<32, kBlock> a;
        rt_bf<kBlock, 32, col_l> b;
        load(a, subtile<32, kBlock>(a_s[cur], warp_row, 0));
        load(b, subtile<kBlock, 32>(b_s[cur], 0, warp_col));
        mma_AB(acc, a, b, acc);
        __syncthreads();
    }
}

// This warp's 32x32 of C, in C's tile coordinates (32x32 tiles), for store
// or tk::atomic_add.
TK_DEVICE tk::coord warp_tile() {
    return {0, 0, 2 * int(blockIdx.y) + tk::warpid() / 2, 2 * int(blockIdx.x) + tk::warpid() % 2};
}

using kernel_fn = tklab::lessons::gemm_problem::kernel_fn;  // kernel(A, B, C)
using zero_fn = void (*)(tk::gl<float>);                     // zero(C)
using Data = tklab::lessons::gemm_problem::Data;

// A variant of the lesson: the kernel that zeroes C (launched first, one
// block of 4 warps per 64x64 tile of C), the GEMM kernel, and its S.
struct Kernels {
    zero_fn zero;
    kernel_fn gemm;
    int slices;
};

// The yardstick of the lesson's goal: the same GEMM in one slice, the plain
// tiled GEMM of lesson 5 (one block per tile of C walks all of K and stores
// its tile). It needs C zeroed by nobody.
namespace one_slice {
__global__ void zero(tk::gl<float>) {}
__global__ void kernel(tk::gl<tk::bf16> A, tk::gl<tk::bf16> B, tk::gl<float> C) {
    tk::rt_fl<32, 32> acc;
    tk::zero(acc);
    multiply(acc, A, B, 0, A.cols / kBlock);
    tk::store(C, acc, warp_tile());
}
} // namespace one_slice
inline const Kernels one_slice_kernels{one_slice::zero, one_slice::kernel, 1};

#if !defined(TK_GPU)
// The zeroing kernel's simulated time at the last launch, in microseconds
// (the goal counts it with the GEMM's: a split-K GEMM pays for both). It
// runs at the SM's full clock, the GEMM at the lower one of a kernel using
// the tensor cores, so the two add up as times.
inline double& last_zero_us() {
    static double us = 0;
    return us;
}
// That time in cycles of the clock the run `r` ran at (the GEMM's).
inline uint64_t zero_cycles_at(const tklab::sim::RunResult& r) { return uint64_t(std::llround(last_zero_us() * r.stats.clock_mhz)); }
#endif

// Zero C, then the GEMM on N/64 x M/64 x S blocks.
inline void launch(const char* name, const Kernels& k, Data& g) {
    if (k.slices < 1) throw std::invalid_argument(std::string(name) + ": kSlices = " + std::to_string(k.slices) + "; it must be at least 1");
    const dim3 tiles(unsigned(g.n / kBlock), unsigned(g.m / kBlock));
    tk::launch((std::string(name) + "_zero").c_str(), k.zero, tiles, dim3(kThreads), 0, g.C());
#if !defined(TK_GPU)
    const auto& zero = tklab::sim::last_run().stats;
    last_zero_us() = zero.clock_mhz > 0 ? double(zero.est_kernel_cycles) / zero.clock_mhz : 0;
#endif
    tk::launch(name, k.gemm, dim3(tiles.x, tiles.y, unsigned(k.slices)), dim3(kThreads), kSharedBytes, g.A(), g.B(), g.C());
}

// The program, given its variants (name -> kernels; the first is the default).
// lesson.cu registers it with the exercise and the solution; the tests build
// the same problem around known-wrong kernels.
inline tk::host::program_def<Data> program_def(std::vector<std::pair<std::string, Kernels>> kernels, std::string name = "lesson12") {
    auto p = tklab::lessons::gemm_problem::program_def<Kernels>(
        std::move(name),
        "Lesson 12, split-K and atomics: C = A * B (bf16 in, fp32 out) for a small C and a long K: K split into S slices, "
        "each block adds its partial 64x64 tile into C with red.global.add.f32",
        {{"M", 128, 64, 4096}, {"N", 128, 64, 4096}, {"K", 4096, 64, 16384}}, std::move(kernels),
        [n = name](Data& g, const Kernels& k) { launch(n.c_str(), k, g); });
    // The slices' partial tiles are added in an order nobody fixes (on a GPU
    // it changes from run to run): each fp32 add rounds differently, well
    // inside the GEMM lessons' 1e-3.
    return p;
}

#if !defined(TK_GPU)
// Why a wrong C is wrong, when it is a split-K mistake: C holds one slice's
// partial product (plain stores: the last one won), or some k-steps are
// added twice or never (slices that overlap, leave a gap or start at the
// wrong k-step). Read off the inputs (remade from the seed) and the launch's
// S; "" when the difference is none of these.
inline std::string explain(const tk::host::dims_t& d, unsigned seed, const std::vector<float>& got, const std::vector<double>& want) {
    const int m = d.at("M"), n = d.at("N"), k = d.at("K"), steps = k / kBlock;
    const int slices = int(tklab::sim::last_run().grid.z);
    if (got.size() != want.size() || slices < 1) return "";
    for (float v : got)
        if (!std::isfinite(v)) return "";
    const auto a = tk::host::to_floats(tk::host::random_values<tk::bf16>(size_t(m) * k, seed));
    const auto b = tk::host::to_floats(tk::host::random_values<tk::bf16>(size_t(k) * n, seed + 7919));
    const size_t mn = size_t(m) * n;
    // The product of each k-step alone: q[s][i] (i = row * n + col).
    std::vector<std::vector<double>> q(size_t(steps), std::vector<double>(mn, 0.0));
    for (int s = 0; s < steps; ++s)
        for (int r = 0; r < m; ++r)
            for (int kk = s * kBlock; kk < (s + 1) * kBlock; ++kk) {
                const double av = a[size_t(r) * k + kk];
                double* out = &q[size_t(s)][size_t(r) * n];
                const float* brow = &b[size_t(kk) * n];
                for (int c = 0; c < n; ++c) out[c] += av * brow[c];
            }
    const auto close = [](double x, double y) { return std::abs(x - y) <= 1e-3 * std::max(std::abs(y), 1.0); };
    const auto steps_text = [](int s0, int s1) {  // k-steps [s0, s1]
        char t[96];
        if (s0 == s1) std::snprintf(t, sizeof t, "k-step %d (k %d-%d)", s0, s0 * kBlock, (s0 + 1) * kBlock - 1);
        else std::snprintf(t, sizeof t, "k-steps %d-%d (k %d-%d)", s0, s1, s0 * kBlock, (s1 + 1) * kBlock - 1);
        return std::string(t);
    };
    const int per = (steps + slices - 1) / slices;  // k-steps per slice, the last slice's fewer

    // 1. Every wrong element is one slice's partial sum alone.
    if (slices > 1) {
        std::vector<std::vector<double>> part(size_t(slices), std::vector<double>(mn, 0.0));
        for (int s = 0; s < steps; ++s)
            for (size_t i = 0; i < mn; ++i) part[size_t(s / per)][i] += q[size_t(s)][i];
        // Of the wrong elements: how many equal slice z's partial, and how many some slice's.
        std::vector<size_t> matches(size_t(slices), 0);
        size_t wrong = 0, alone = 0;
        for (size_t i = 0; i < mn; ++i) {
            if (close(got[i], want[i])) continue;
            ++wrong;
            bool any = false;
            for (int z = 0; z < slices; ++z)
                if (close(got[i], part[size_t(z)][i])) {
                    ++matches[size_t(z)];
                    any = true;
                }
            alone += any ? 1 : 0;
        }
        if (wrong > 0 && alone == wrong) {
            int best = 0;  // the slice most elements hold; of equals, the last (an empty slice's zeros are every empty slice's)
            for (int z = 0; z < slices; ++z)
                if (matches[size_t(z)] >= matches[size_t(best)]) best = z;
            std::string which = "slice " + std::to_string(best) + "'s, ";
            if (best * per >= steps) which += "zeros: with " + std::to_string(steps) + " k-steps it has none";
            else which += steps_text(best * per, std::min((best + 1) * per, steps) - 1);
            if (matches[size_t(best)] < wrong) which = "each the partial product of some one slice";
            return "  why: " + std::to_string(wrong) + " of " + std::to_string(mn) + " elements of C hold one slice's partial product alone (" +
                   which + "), not the sum of the " + std::to_string(slices) +
                   " slices': each block wrote its partial tile with a plain store, and the last store won (on a GPU which one "
                   "wins changes from run to run).\n"
                   "  fix: add the partial tile into C, tk::atomic_add(C, acc, warp_tile()) (red.global.add.f32), instead of "
                   "store(C, acc, ...), into a C zeroed before the GEMM\n";
        }
    }
    // 2. C is a sum of whole k-steps, some of them counted other than once.
    std::vector<double> diff(mn);
    for (size_t i = 0; i < mn; ++i) diff[i] = double(got[i]) - want[i];
    std::vector<int> times(size_t(steps), 1);
    std::vector<double> rest = diff;
    for (int s = 0; s < steps; ++s) {
        double dot = 0, norm = 0;
        for (size_t i = 0; i < mn; ++i) {
            dot += diff[i] * q[size_t(s)][i];
            norm += q[size_t(s)][i] * q[size_t(s)][i];
        }
        const int extra = norm > 0 ? int(std::lround(dot / norm)) : 0;
        times[size_t(s)] += extra;
        for (size_t i = 0; i < mn; ++i) rest[i] -= extra * q[size_t(s)][i];
    }
    for (size_t i = 0; i < mn; ++i)
        if (std::abs(rest[i]) > 1e-3 * std::max(std::abs(want[i]), 1.0)) return "";
    std::string wrong_steps;
    int listed = 0;
    for (int s = 0; s < steps;) {
        int e = s;
        while (e + 1 < steps && times[size_t(e + 1)] == times[size_t(s)]) ++e;
        if (times[size_t(s)] != 1 && listed++ < 6)
            wrong_steps += std::string(wrong_steps.empty() ? "" : "; ") + steps_text(s, e) + " added " +
                           (times[size_t(s)] == 0 ? std::string("never") : std::to_string(times[size_t(s)]) + " times");
        s = e + 1;
    }
    if (wrong_steps.empty()) return "";
    if (listed > 6) wrong_steps += "; and more";
    return "  why: C is the product with some of K's " + std::to_string(steps) + " k-steps counted other than once: " + wrong_steps +
           ".\n  fix: the " + std::to_string(slices) + " slices must cover every k-step exactly once: slice z = blockIdx.z takes k-steps [z * per, " +
           "min((z + 1) * per, K / 64)) with per = ceil((K / 64) / S) = " + std::to_string(per) + " here; check the slice's first " +
           "k-step, its end, and that the last slice's end is K / 64\n";
}

// The goal: the split-K GEMM (its zeroing kernel included) at least `ratio`
// times faster than the same GEMM in one slice, in the simulator's
// estimated kernel time, at size `at`.
inline tklab::lessons::Goal faster_than_one_slice(double ratio, tk::host::dims_t at) {
    char what[160];
    std::snprintf(what, sizeof what, "an estimated time (the zeroing kernel's and the GEMM's) at least %.0fx shorter than the unsplit GEMM's", ratio);
    return {what, [ratio, at](const tklab::sim::RunResult& r) -> std::optional<std::string> {
                const uint64_t gemm = r.stats.est_kernel_cycles, zero = zero_cycles_at(r);
                const unsigned slices = r.grid.z, blocks = r.grid.x * r.grid.y * r.grid.z;
                const int steps = at.at("K") / kBlock;
                // The yardstick, run now (the run `r` refers to is replaced).
                const tk::host::program p = tk::host::make_program(program_def({{"one slice", one_slice_kernels}}, "lesson12_one_slice"));
                p.make(p.resolve(at), 1)->run("one slice");
                const uint64_t one = tklab::sim::last_run().stats.est_kernel_cycles;
                const double got = double(one) / double(gemm + zero);
                if (got >= ratio) return std::nullopt;
                char t[400];
                std::snprintf(t, sizeof t,
                              "yours: %llu cycles (zeroing %llu + GEMM %llu) on %u blocks, S = %u; one slice: %llu cycles on %u blocks; "
                              "%.2fx (goal: %.0fx)",
                              (unsigned long long)(gemm + zero), (unsigned long long)zero, (unsigned long long)gemm, blocks, slices,
                              (unsigned long long)one, r.grid.x * r.grid.y, got, ratio);
                std::string why = t;
                if (slices == 1)
                    why += ". One block per tile of C leaves most of the GPU's 132 SMs idle: split K into S slices (kSlices), "
                           "one block per tile and slice";
                else
                    why += ". With " + std::to_string(slices) + " slices each block should walk about " +
                           std::to_string((steps + int(slices) - 1) / int(slices)) + " of the " + std::to_string(steps) +
                           " k-steps, its slice only; does yours walk all of K?";
                return why;
            }};
}

// The goal's figures, read off its why ("GEMM 48989) on 64 blocks, S = 16;
// one slice: 42321 cycles"); nothing when the goal was not this one.
struct GoalFigures {
    uint64_t gemm = 0, one_slice = 0;
    int slices = 0;
};
inline std::optional<GoalFigures> goal_figures(const tklab::lessons::Symptom& s) {
    static const std::regex figures(R"(GEMM ([0-9]+)\) on [0-9]+ blocks, S = ([0-9]+); one slice: ([0-9]+) cycles)");
    std::smatch m;
    if (s.part != "goal" || !std::regex_search(s.goal_why, m, figures)) return std::nullopt;
    return GoalFigures{std::stoull(m[1].str()), std::stoull(m[3].str()), std::stoi(m[2].str())};
}

// The explain hook's verdict on k-steps counted other than once (its "why"
// in the report): some added twice or more, some never.
inline bool k_steps_added_more_than_once(const tklab::lessons::Symptom& s) {
    static const std::regex times(R"(added [0-9]+ times)");
    return s.part == "correctness" && std::regex_search(s.report, times);
}
inline bool k_steps_added_never(const tklab::lessons::Symptom& s) { return s.part == "correctness" && s.says(" added never"); }

// This lesson's known mistakes (lessons/framework/diagnosis.h), most specific
// first; each has its hint in hints.md, and wrong/ (or the exercise) holds an
// example of each. A wrong C is read through explain()'s verdict in the
// report (one slice's partial product; k-steps counted twice or never) and
// the output's pattern; the goal through its figures.
inline std::vector<tklab::lessons::Mistake> mistakes() {
    using tklab::lessons::Symptom;
    using tklab::sim::ErrorKind;
    return {
        {"c_not_zeroed",
         [](const Symptom& s) {
             return s.error == ErrorKind::uninitialized_read && s.says("read of global memory nothing wrote") && s.says("red.global");
         },
         "the atomic adds add into a C nobody zeroed: an add reads the value already there, and fresh device memory is "
         "garbage (on a GPU, C would be garbage plus the product). The zero kernel, launched before the GEMM, must "
         "store zeros over every element of C (HOLE 2): each warp a 32x32 tile at warp_tile()."},
        {"plain_store_not_add",
         [](const Symptom& s) { return s.part == "correctness" && s.says("hold one slice's partial product alone"); },
         "HOLE 4 still stores: kSlices blocks hold partial tiles of the same 64x64 of C, and a store replaces what "
         "is there instead of adding to it, so C keeps whichever block stored last. tk::atomic_add sums them, in any "
         "order, into a C the zero kernel cleared first (HOLE 2)."},
        {"every_slice_walks_all_k",
         [](const Symptom& s) {
             // The goal: no faster than one slice though the grid has several
             // (a split GEMM's own time is about 1/S of it).
             if (const auto g = goal_figures(s)) return g->slices > 1 && double(g->gemm) >= 0.8 * double(g->one_slice);
             // Or, adding: every k-step counted S times, C S times too big.
             const int slices = s.run ? int(s.run->grid.z) : 0;
             return s.part == "correctness" && slices > 1 && s.scale && std::abs(*s.scale - slices) < 0.01 * slices;
         },
         "the grid has kSlices slices, but every block walks all of K: kSlices times the work on kSlices times the "
         "blocks, no faster than one slice (and, added up, C kSlices times too big). HOLE 3: block blockIdx.z takes "
         "only its slice's k-steps, [z * per, min((z + 1) * per, K / 64))."},
        {"slices_start_wrong",
         [](const Symptom& s) { return k_steps_added_more_than_once(s) && k_steps_added_never(s); },
         "the slices start at the wrong k-steps: some k-steps are added twice and others never, as when slice z "
         "starts at k-step z (its index) instead of z * per. Slice z's first k-step is z * per, capped at K / 64."},
        {"slices_overlap",
         [](const Symptom& s) { return k_steps_added_more_than_once(s) && !k_steps_added_never(s); },
         "the slices overlap: each runs past its end into the next slice's k-steps, which are then added twice. "
         "Slice z ends where slice z + 1 begins: last = min(first + per, K / 64)."},
        {"k_steps_left_out",
         [](const Symptom& s) { return k_steps_added_never(s) && !k_steps_added_more_than_once(s); },
         "some k-steps are in no slice: most likely per = k-steps / kSlices rounded down, which leaves the last few "
         "out whenever kSlices does not divide the k-steps. Round per up, "
         "(k_steps + kSlices - 1) / kSlices, and cap each slice's end at K / 64."},
        {"k_not_split",
         [](const Symptom& s) {
             const auto g = goal_figures(s);
             return g && g->slices == 1;
         },
         "K is not split yet: one block per 64x64 tile of C makes 4 blocks for the GPU's 132 SMs, each walking all "
         "of K. Cut K into kSlices slices (HOLE 1), give each block its slice (HOLE 3), and add the partial tiles "
         "with atomics (HOLE 4) into a C zeroed first (HOLE 2)."},
        {"nothing_stored",
         [](const Symptom& s) { return s.part == "correctness" && s.all_nan(); },
         "C holds nothing the kernels wrote: neither the zero kernel nor the GEMM writes it. The zero kernel stores "
         "zeros over C, and each GEMM block adds its slice's partial tile into it with tk::atomic_add."},
    };
}

// What `tklab lesson check 12` runs: one tile of C with 32 k-steps; a wide
// C with 19 k-steps (a number S seldom divides: the last slice is shorter,
// or empty); a tall one with 5 (fewer k-steps than most S: some slices have
// none); and the default size, four tiles with 64 k-steps, where the goal
// is read.
inline tklab::lessons::Lesson lesson() {
    const tk::host::dims_t goal_size{{"M", 128}, {"N", 128}, {"K", 4096}};
    return tklab::lessons::Lesson{
        .number = 12,
        .folder = "lessons/12_split_k",
        .title = "Split-K and atomics",
        .program = "lesson12",
        .sizes = {{{"M", 64}, {"N", 64}, {"K", 2048}},
                  {{"M", 64}, {"N", 128}, {"K", 1216}},
                  {{"M", 128}, {"N", 64}, {"K", 320}},
                  goal_size},
        .shape = [](const tk::host::dims_t& d) { return std::pair{d.at("M"), d.at("N")}; },
        .goals = {faster_than_one_slice(2.0, goal_size)},
        .explain = explain,
        .mistakes = mistakes(),
    };
}
#endif

} // namespace lesson12
