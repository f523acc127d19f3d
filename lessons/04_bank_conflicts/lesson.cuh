// Lesson 4, "Shared memory and bank conflicts": the problem every version of
// the kernel solves (the exercise, the solution, the padded alternative and
// the known-wrong ones the checker's tests use), so they all run on the same
// inputs against the same CPU reference.
//
//   X   : M x N float, seeded random values in [-1, 1)
//   OUT : N x M float, the transpose: OUT[c][r] = X[r][c]
//
// Each block moves one 32x32 tile through shared memory: block (bx, by) reads
// the tile of X at rows 32*by.., cols 32*bx.. and writes its transpose to OUT
// at rows 32*bx.., cols 32*by... A block is 32 x 8 threads (8 warps); the
// grid is (N / 32) x (M / 32) blocks.
#pragma once
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>
#include "tk/tk.h"
#include "tk/host/registry.h"
#include "lessons/04_bank_conflicts/part2_gemm/problem.cuh"
#if !defined(TK_GPU)
#include <algorithm>
#include <cmath>
#include "lessons/framework/lesson.h"
#endif

namespace lesson04 {

constexpr int kTile = 32;        // a block's tile: 32 x 32 floats
constexpr int kRowsPerPass = 8;  // a block is 32 x 8 threads: 8 rows at a time
// The dynamic shared memory each block gets: room for a 32 x 33 float tile
// (4224 bytes), so a padded tile fits as well as a plain 32 x 32 one.
constexpr int kSharedBytes = kTile * (kTile + 1) * 4;

// Every kernel of this lesson has this signature: kernel(X, OUT).
using kernel_fn = void (*)(tk::gl<float>, tk::gl<float>);

struct Data {
    int m = 0, n = 0;  // X is m x n, OUT n x m
    std::vector<float> x;
    std::shared_ptr<tk::device_buffer<float>> dx;
    std::shared_ptr<tk::device_buffer<float>> dout;
    tk::gl<float> X() const { return {dx->data(), 1, 1, m, n}; }
    tk::gl<float> OUT() const { return {dout->data(), 1, 1, n, m}; }
};

inline Data make_inputs(const tk::host::dims_t& d, unsigned seed) {
    Data g;
    g.m = d.at("M");
    g.n = d.at("N");
    g.x = tk::host::random_values<float>(size_t(g.m) * g.n, seed);
    g.dx = std::make_shared<tk::device_buffer<float>>(g.x.size(), g.x, "X");
    g.dout = std::make_shared<tk::device_buffer<float>>(size_t(g.n) * g.m, "OUT");
    return g;
}

// OUT[c][r] = X[r][c]: exact, since a transpose only moves values.
inline std::vector<double> reference(const Data& g) {
    std::vector<double> out(size_t(g.n) * g.m);
    for (int r = 0; r < g.m; ++r)
        for (int c = 0; c < g.n; ++c) out[size_t(c) * g.m + r] = double(g.x[size_t(r) * g.n + c]);
    return out;
}

// One 32x32 tile per block, 32 x 8 threads per block.
inline void launch(const char* name, kernel_fn kernel, Data& g) {
    tk::launch(name, kernel, dim3(g.n / kTile, g.m / kTile), dim3(kTile, kRowsPerPass), kSharedBytes, g.X(), g.OUT());
}

// The program, given its variants (name -> kernel; the first is the default).
// lesson.cu registers it with the exercise, the solution and two more to
// compare; the tests build the same problem around known-wrong kernels.
inline tk::host::program_def<Data> program_def(std::vector<std::pair<std::string, kernel_fn>> kernels,
                                               std::string name = "lesson04") {
    tk::host::program_def<Data> p;
    p.name = std::move(name);
    p.kind = "lesson";
    p.summary = "Lesson 4, shared memory and bank conflicts: OUT = X transposed (M x N float), one 32x32 shared tile per block";
    p.dims = {{"M", 128, 32, 4096}, {"N", 192, 32, 4096}};
    p.inputs = make_inputs;
    tk::host::set_variants(p, std::move(kernels), [](Data& g, kernel_fn k) { launch("lesson04", k, g); });
    p.output = [](Data& g) { return g.dout->download(); };
    p.reference = reference;
    p.output_name = "OUT";
    p.tolerance = 0;
    return p;
}

#if !defined(TK_GPU)
// Every wrong element that was stored holds one of X's values (and some
// were stored): the transpose moved values to the wrong place rather than
// computing wrong ones. Exact, since a transpose only moves values.
inline bool values_misplaced(const tklab::lessons::Symptom& s) {
    if (!s.got || !s.want || s.wrong <= s.nan) return false;
    std::vector<double> values(s.want->begin(), s.want->end());
    std::sort(values.begin(), values.end());
    for (size_t k = 0; k < s.want->size() && k < s.got->size(); ++k) {
        const double g = (*s.got)[k];
        if (std::isnan(g) || g == (*s.want)[k]) continue;
        if (!std::binary_search(values.begin(), values.end(), g)) return false;
    }
    return true;
}

// The run's ld.shared totals (nothing when the symptom has no run).
inline const tklab::sim::SmemTotals* ld_shared(const tklab::lessons::Symptom& s) {
    return s.run ? &s.run->stats.ld_shared : nullptr;
}

// This lesson's known mistakes in the transpose (lessons/framework/
// diagnosis.h), most specific first; each has its hint in hints.md, and
// wrong/ holds an example of each. An empty kernel is the framework's own
// "nothing_stored".
inline std::vector<tklab::lessons::Mistake> mistakes() {
    using tklab::lessons::Symptom;
    using tklab::sim::ErrorKind;
    return {
        {"layouts_differ",
         [](const Symptom& s) { return s.error == ErrorKind::uninitialized_read && s.says("(ld.shared)"); },
         "the column read and the row write place element (r, c) at different words: the tile is read where it was "
         "never written (padding in one loop and not the other, say). Both loops must index the tile through the same "
         "at(r, c); change at() alone and both follow."},
        {"tiles_not_mirrored",
         [](const Symptom& s) {
             return s.part == "correctness" && s.dims.count("M") && s.dims.count("N") &&
                    s.dims.at("M") * s.dims.at("N") > kTile * kTile && values_misplaced(s);
         },
         "right with one tile, wrong with several: X's values land in the wrong place. Each tile is transposed inside, "
         "and the tile itself must move too: the block that reads X's tile at rows 32*by.., cols 32*bx.. writes OUT at "
         "rows 32*bx.., cols 32*by.. (col0 + r, row0 + tx), not at the coordinates it came from."},
        {"tile_unpadded",
         [](const Symptom& s) {
             const auto* ld = ld_shared(s);
             return s.part == "goal" && ld && ld->conflicts() > 0 && ld->max_way == 32;
         },
         "the tile is unpadded and unswizzled: with rows 32 floats long, all of column c is in bank c, so the column "
         "read's 32 lanes hit one bank: 32 wavefronts where 1 would do. Change at(r, c) so that a column's 32 rows are "
         "in 32 different banks: pad each row to 33 floats, or swizzle the column with c ^ r."},
        {"column_banks_repeat",
         [](const Symptom& s) {
             const auto* ld = ld_shared(s);
             return s.part == "goal" && ld && ld->conflicts() > 0 && ld->max_way < 32;
         },
         "your at() spreads a column over some banks but not all 32: rows some distance apart still share a bank "
         "(c ^ (r % 8), the GEMM's 16-byte-chunk swizzle, repeats every 8 rows). A 32-float row needs all five bits "
         "of r in the XOR, c ^ r, or a padding of one float, r * 33 + c."},
    };
}

// What `tklab lesson check 4` runs: one tile (one block), a row of three
// tiles (a wide X: the block coordinates must be swapped on the way out), a
// 3 x 2 grid of tiles, and the default size; the goal is read on the last.
inline tklab::lessons::Lesson lesson() {
    return tklab::lessons::Lesson{
        .number = 4,
        .folder = "lessons/04_bank_conflicts",
        .title = "Shared memory and bank conflicts",
        .program = "lesson04",
        .sizes = {{{"M", 32}, {"N", 32}}, {{"M", 32}, {"N", 96}}, {{"M", 96}, {"N", 64}}, {{"M", 128}, {"N", 192}}},
        .shape = [](const tk::host::dims_t& d) { return std::pair{d.at("N"), d.at("M")}; },
        .goals = {tklab::lessons::no_bank_conflicts()},
        .mistakes = mistakes(),
    };
}
#endif

} // namespace lesson04
