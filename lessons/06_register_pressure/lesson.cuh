// Lesson 6, "Register pressure": the problem every version of the kernel
// solves (the exercise, the solution, the other tile sizes to compare and the
// known-wrong ones the checker's tests use), so they all run on the same
// inputs against the same CPU reference.
//
//   A : M x K bf16, seeded random values in [-1, 1)
//   B : K x N bf16, seeded random values in [-1, 1) (another seed)
//   C : M x N float, C = A * B, accumulated in fp32
//
// All three are row-major. A block is 4 warps (128 threads) and computes one
// 128x128 tile of C: the grid is N/128 x M/128 blocks (blockIdx.x the tile's
// column, blockIdx.y its row). The 4 warps split it 2 x 2: warp w owns the
// 64x64 region at rows 64*(w/2).., cols 64*(w%2).. of the block's tile. How a
// warp cuts its region into warp tiles (16x16, 32x32, 64x64, ...) is the
// lesson. M and N are multiples of 128, K of 16.
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
#include <bit>
#include <cmath>
#include <cstdint>
#include "lessons/framework/lesson.h"
#endif

namespace lesson06 {

constexpr int kBlockTile = 128;    // a block's tile of C: 128 x 128
constexpr int kWarpRegion = 64;    // a warp's region of it: 64 x 64
constexpr int kWarpsPerBlock = 4;  // 2 x 2 warps, 128 threads

// Every kernel of this lesson has this signature: kernel(A, B, C). The data,
// inputs and float64 CPU reference are the GEMM lessons' (lessons/framework/gemm_problem.cuh).
using kernel_fn = tklab::lessons::gemm_problem::kernel_fn;
using Data = tklab::lessons::gemm_problem::Data;

// 4 warps per block, one block per 128x128 tile of C.
inline void launch(const char* name, kernel_fn kernel, Data& g) {
    tk::launch(name, kernel, dim3(unsigned(g.n / kBlockTile), unsigned(g.m / kBlockTile)), dim3(32 * kWarpsPerBlock), 0,
               g.A(), g.B(), g.C());
}

// The program, given its variants (name -> kernel; the first is the default).
// lesson.cu registers it with the exercise, the solution and the three tile
// sizes to compare; the tests build the same problem around known-wrong kernels.
inline tk::host::program_def<Data> program_def(std::vector<std::pair<std::string, kernel_fn>> kernels,
                                               std::string name = "lesson06") {
    return tklab::lessons::gemm_problem::program_def(
        std::move(name),
        "Lesson 6, register pressure: C = A * B (bf16 in, fp32 out), 4 warps per 128x128 tile of C, "
        "each warp's 64x64 cut into warp tiles",
        {{"M", 256, kBlockTile, 4096}, {"N", 256, kBlockTile, 4096}, {"K", 64, 16, 4096}}, std::move(kernels),
        [](Data& g, kernel_fn k) { launch("lesson06", k, g); });
}

#if !defined(TK_GPU)
// The goal's two halves, from the tile sizes' runs at 256 x 256 x 64 (the
// check's last size; README.md, "What the three choices cost"): the slowest
// block takes 25383 cycles with 16x16 warp tiles, 13225 with 32x32 and 9883
// with 64x64; 9, 5 and 2 blocks fit on an SM. At least 4 blocks (16 warps
// to hide each other's waits) and at most 13500 cycles: 32x32 meets both,
// 16x16 misses the cycles, 64x64 the blocks. (32x64 and 64x32, 3 blocks and
// about 11200-11900 cycles, miss the blocks; 16x64 and 64x16, 4 blocks and
// 14740 and 17165 cycles, miss the cycles; the README compares.)
constexpr int kMinBlocksPerSm = 4;
constexpr uint64_t kMaxCycles = 13500;

// Every element of the output is a bf16 value widened (its low 16 bits are
// 0), or every wrong element is off by rounding only (within 5%): the sum
// went through bf16 on its way, rather than landing in the wrong place.
inline bool rounded_like_bf16(const tklab::lessons::Symptom& s) {
    if (!s.got || !s.want || s.nan > 0 || s.inf > 0 || s.wrong == 0) return false;
    return s.all_bf16_values() ||
           s.every_wrong_element([](int, int, double g, double w) { return std::abs(g - w) < 0.05 * std::max(std::abs(w), 1.0); });
}

// This lesson's known mistakes (lessons/framework/diagnosis.h), most
// specific first; each has its hint in hints.md, and wrong/ holds an example
// of each. An empty kernel is the framework's own "nothing_stored".
inline std::vector<tklab::lessons::Mistake> mistakes() {
    using tklab::lessons::Symptom;
    return {
        {"regions_miss_part_of_c",
         [](const Symptom& s) { return s.part == "correctness" && s.nan > 0 && s.nan == s.wrong && s.wrong < s.total; },
         "part of C is never written (it keeps the NaN of fresh memory), the rest is right: the warps' regions or "
         "their warp tiles do not cover the block's 128x128. A warp's region is 64 x 64 whatever the warp tile: "
         "rows 64*(w/2).., cols 64*(w%2).., walked in 64/WM x 64/WN tiles; a 64 that meant the region must not "
         "become the tile's size."},
        {"bf16_accumulator",
         [](const Symptom& s) { return s.part == "correctness" && rounded_like_bf16(s); },
         "the sum was rounded to bf16 on its way (kept in a bf16 tile between k-steps, say): bf16 keeps 8 significant "
         "bits, so even one rounding is a few parts in a thousand, beyond the check's 1e-3. Accumulate in the fp32 "
         "rt_fl for the whole K loop; registers are saved by a smaller warp tile, not a narrower type."},
        {"warp_tile_too_small",
         [](const Symptom& s) { return s.part == "goal" && s.says("the slowest block took"); },
         "the warp tile is too small: a warp walks K once per warp tile of its 64x64 region, and every k-step waits "
         "for its loads whatever the tile's size, so many small tiles mean many waits for few mma. Take a bigger tile "
         "(the README's table measures 32x32) while the blocks per SM stay at 4 or more."},
        {"warp_tile_too_big",
         [](const Symptom& s) {
             return s.part == "goal" && s.run && std::string(s.run->stats.occupancy_limit) == "registers" &&
                    s.says("blocks fit on an SM");
         },
         "the warp tile is too big: its fp32 accumulator (WM x WN / 32 registers per thread) stays live through the "
         "whole K loop, so few blocks fit in an SM's 65536 registers and too few warps are left to hide each other's "
         "waits. Take a smaller tile: 4 blocks per SM need at most 128 registers per thread, tiles, the K loop's "
         "load addresses and the base (the report's \"peak registers\" line adds them up)."},
    };
}

// What `tklab lesson check 6` runs: one block and one k-step, a wide C of
// two blocks with three k-steps, a tall one with five, and 256 x 256 x 64
// (4 blocks, 4 k-steps); the goal is read on the last.
inline tklab::lessons::Lesson lesson() {
    return tklab::lessons::Lesson{
        .number = 6,
        .folder = "lessons/06_register_pressure",
        .title = "Register pressure",
        .program = "lesson06",
        .sizes = {{{"M", 128}, {"N", 128}, {"K", 16}},
                  {{"M", 128}, {"N", 256}, {"K", 48}},
                  {{"M", 256}, {"N", 128}, {"K", 80}},
                  {{"M", 256}, {"N", 256}, {"K", 64}}},
        .shape = [](const tk::host::dims_t& d) { return std::pair{d.at("M"), d.at("N")}; },
        .goals = {tklab::lessons::min_blocks_per_sm(kMinBlocksPerSm), tklab::lessons::max_cycles(kMaxCycles)},
        .mistakes = mistakes(),
    };
}
#endif

} // namespace lesson06
