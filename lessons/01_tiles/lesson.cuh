// Lesson 1, "Tiles and warps": the problem every version of the kernel solves
// (the exercise, the solution, and the known-wrong ones the checker's tests
// use), so they all run on the same inputs against the same CPU reference.
//
//   X   : R x 64 bf16, seeded random values in [-1, 1)
//   OUT : R x 64 float, OUT[r][c] = X[r][c] + (the lane of the warp that holds
//         element (r, c) of a row-layout register tile)
//
// Each warp handles one 16x64 strip of rows; a block has 4 warps; the grid has
// ceil(strips / 4) blocks, so when R / 16 is not a multiple of 4 the last
// block has warps with no strip.
#pragma once
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>
#include "tk/tk.h"
#include "tk/host/registry.h"
#if !defined(TK_GPU)
#include "lessons/framework/lesson.h"
#endif

namespace lesson01 {

constexpr int kCols = 64;          // X is R x 64
constexpr int kStripRows = 16;     // one warp's strip: 16 rows
constexpr int kWarpsPerBlock = 4;  // 128 threads per block
constexpr double kTolerance = 1e-3;  // the check's allowed error, relative (absolute below 1)

// Every kernel of this lesson has this signature: kernel(X, OUT).
using kernel_fn = void (*)(tk::gl<tk::bf16>, tk::gl<float>);

struct Data {
    int rows = 0, cols = 0;
    std::vector<tk::bf16> x;
    std::shared_ptr<tk::device_buffer<tk::bf16>> dx;
    std::shared_ptr<tk::device_buffer<float>> dout;
    tk::gl<tk::bf16> X() const { return {dx->data(), 1, 1, rows, cols}; }
    tk::gl<float> OUT() const { return {dout->data(), 1, 1, rows, cols}; }
};

// The lane that holds element (r, c) of a row-layout register tile (tk::row_l,
// the mma.m16n8k16 A/C fragment of the PTX ISA): in each 8x8 quadrant of a
// 16x16 sub-tile, lane = (row % 8) * 4 + (col % 8) / 2. The same as
// tk::rt_base<float>::row_of / col_of read backwards.
constexpr int lane_of(int r, int c) { return (r % 8) * 4 + (c % 8) / 2; }

inline Data make_inputs(const tk::host::dims_t& d, unsigned seed) {
    Data g;
    g.rows = d.at("R");
    g.cols = d.at("C");
    g.x = tk::host::random_values<tk::bf16>(size_t(g.rows) * g.cols, seed);
    g.dx = std::make_shared<tk::device_buffer<tk::bf16>>(g.x.size(), g.x, "X");
    g.dout = std::make_shared<tk::device_buffer<float>>(size_t(g.rows) * g.cols, "OUT");
    return g;
}

inline std::vector<double> reference(const Data& g) {
    std::vector<double> out(size_t(g.rows) * g.cols);
    for (int r = 0; r < g.rows; ++r)
        for (int c = 0; c < g.cols; ++c)
            out[size_t(r) * g.cols + c] = double(tk::to_float(g.x[size_t(r) * g.cols + c])) + lane_of(r, c);
    return out;
}

// One strip per warp, 4 warps per block, as many blocks as the strips need.
inline void launch(const char* name, kernel_fn kernel, Data& g) {
    const int strips = g.rows / kStripRows;
    const int blocks = (strips + kWarpsPerBlock - 1) / kWarpsPerBlock;
    tk::launch(name, kernel, dim3(blocks), dim3(32 * kWarpsPerBlock), 0, g.X(), g.OUT());
}

// The program, given its variants (name -> kernel; the first is the default).
// lesson.cu registers it with the exercise and the solution; the tests build
// the same problem around known-wrong kernels.
inline tk::host::program_def<Data> program_def(std::vector<std::pair<std::string, kernel_fn>> kernels,
                                               std::string name = "lesson01") {
    tk::host::program_def<Data> p;
    p.name = std::move(name);
    p.kind = "lesson";
    p.summary = "Lesson 1, tiles and warps: OUT = X + the lane holding each element (R x 64, one 16x64 strip per warp)";
    p.dims = {{"R", 256, 16, 4096}, {"C", 64, 64, 64}};
    p.inputs = make_inputs;
    tk::host::set_variants(p, std::move(kernels), [](Data& g, kernel_fn k) { launch("lesson01", k, g); });
    p.output = [](Data& g) { return g.dout->download(); };
    p.reference = reference;
    p.output_name = "OUT";
    p.tolerance = kTolerance;
    return p;
}

#if !defined(TK_GPU)
// This lesson's known mistakes (lessons/framework/diagnosis.h), most specific
// first; each has its hint in hints.md, and wrong/ (or the shipped exercise)
// holds an example of each.
inline std::vector<tklab::lessons::Mistake> mistakes() {
    using tklab::lessons::Symptom;
    return {
        {"nothing_stored", [](const Symptom& s) { return s.part == "correctness" && s.all_nan(); },
         "no warp stored its strip: every element of OUT is still the simulator's NaN fill. Computing the tile in "
         "registers is not enough; the kernel must end with store(out, t, {0, 0, strip, 0})."},
        {"no_idle_guard",
         [](const Symptom& s) { return s.error.has_value() && s.says("tile coordinate is outside the global tensor"); },
         "a warp with no strip went on to load one: the grid is rounded up to whole blocks of 4 warps, so when R / 16 "
         "is not a multiple of 4 the last block's extra warps have a strip number past the end of X. Before the load, "
         "those warps return: if (strip >= x.rows / 16) return; (HOLE 2)."},
        {"strip_index", [](const Symptom& s) { return s.whole_row_bands_unstored(kStripRows); },
         "whole strips of 16 rows were never stored while others were right: the strip number does not give each "
         "warp of the grid its own strip, so some warps repeat a strip and some strips get no warp. A block has 4 "
         "warps: warp w of block b takes strip 4 * b + w, blockIdx.x * 4 + warpid() (HOLE 1)."},
        {"thread_not_lane",
         [](const Symptom& s) {
             return s.every_wrong_element([&s](int, int, double g, double w) {
                 const double n = std::round((g - w) / 32.0);
                 return n != 0 && s.within_tolerance(g - 32.0 * n, w);
             });
         },
         "the wrong elements are off by a multiple of 32, the same for a whole warp's strip: you added the thread's "
         "index in the block (threadIdx.x), which counts on across warps. The lane is the thread's place within its "
         "warp, 0..31: tk::laneid(), threadIdx.x % 32."},
        {"lane_not_added",
         [](const Symptom& s) {
             return s.every_wrong_element([&s](int r, int c, double g, double w) { return s.within_tolerance(g + lane_of(r, c), w); });
         },
         "the wrong elements are X itself: the lane that holds them was never added. Every lane holds 16 pairs of its "
         "strip, t.tiles[0][j].data[k] for j and k 0..3, and both halves of a pair, .x and .y, get tk::laneid() "
         "added (HOLE 3)."},
        {"sum_in_bf16",
         [](const Symptom& s) {
             return s.all_bf16_values() &&
                    s.every_wrong_element([](int, int, double g, double w) { return std::abs(g - w) <= std::abs(w) / 128; });
         },
         "OUT is right to within bf16's rounding, and every value in it is a bf16 value: the sum X + lane was made "
         "in bf16 (8 significant bits, so X + 17 is rounded to a multiple of 1/8). Load the strip straight into the "
         "float tile rt_fl<16, 64> (bf16 becomes float on the way) and add the lane there."},
        {"extra_tiles", [](const Symptom& s) { return s.part == "goal" && s.says("registers per thread live"); },
         "the output is right, but more tiles are alive at once than the one strip: a bf16 copy or a separate sum "
         "each cost 16 or 32 registers per thread. One rt_fl<16, 64> is enough: load into it and add the lane to "
         "its own pairs, in place."},
    };
}

// What `tklab lesson check 1` runs: one strip (a single warp does anything),
// three strips (one block, a warp idle), five strips (a second block with
// three idle warps), and the default size; the goal is read on the last.
inline tklab::lessons::Lesson lesson() {
    return tklab::lessons::Lesson{
        .number = 1,
        .folder = "lessons/01_tiles",
        .title = "Tiles and warps",
        .program = "lesson01",
        .sizes = {{{"R", 16}, {"C", 64}}, {{"R", 48}, {"C", 64}}, {{"R", 80}, {"C", 64}}, {{"R", 256}, {"C", 64}}},
        .shape = [](const tk::host::dims_t& d) { return std::pair{d.at("R"), d.at("C")}; },
        .goals = {tklab::lessons::max_registers(64)},
        .mistakes = mistakes(),
    };
}
#endif

} // namespace lesson01
