// Lesson 2, "Maps and reductions": the problem every version of the kernel
// solves (the exercise, the solution, and the known-wrong ones the checker's
// tests use), so they all run on the same inputs against the same CPU
// reference.
//
//   X   : R x 64 float logits, seeded random, in four kinds of rows (below)
//   OUT : R x 64 float, OUT[r][:] = softmax(X[r][:]):
//         OUT[r][c] = exp(X[r][c]) / sum over c' of exp(X[r][c'])
//
// Each warp handles one 16x64 strip of rows, as in lesson 1; a block has 4
// warps; the grid has ceil(strips / 4) blocks.
//
// The rows come in four kinds, repeating every 4 rows, with u uniform in
// [-1, 1) from the seed:
//   row 4k     gentle:  X = u            (a nearly flat softmax)
//   row 4k+1   peaky:   X = 8u           (a few elements take most of the sum)
//   row 4k+2   large:   X = 96 + 4u      (exp(X) overflows float: exp(89) is already inf)
//   row 4k+3   small:   X = -112 + 4u    (exp(X) underflows float to 0)
// Softmax does not change when a row is shifted by a constant, so the large
// and small rows have ordinary answers -- but only a kernel that subtracts the
// row's max before exp gets them.
#pragma once
#include <algorithm>
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

namespace lesson02 {

constexpr int kCols = 64;          // X is R x 64
constexpr int kStripRows = 16;     // one warp's strip: 16 rows
constexpr int kWarpsPerBlock = 4;  // 128 threads per block
// The check's allowed error. Outputs are probabilities (at most 1), so this
// is an absolute error. Float arithmetic is off by about 1e-7 here;
// exponentials rounded to bf16 make each probability off by up to 0.2% of
// itself, which this catches.
constexpr double kTolerance = 1e-5;

// Every kernel of this lesson has this signature: kernel(X, OUT).
using kernel_fn = void (*)(tk::gl<float>, tk::gl<float>);

// Row r's logits are shift + scale * u: the four kinds above.
struct row_kind {
    float shift, scale;
    const char* name;
};
constexpr row_kind kRowKinds[4] = {{0.f, 1.f, "gentle"}, {0.f, 8.f, "peaky"}, {96.f, 4.f, "large"}, {-112.f, 4.f, "small"}};

struct Data {
    int rows = 0, cols = 0;
    std::vector<float> x;
    std::shared_ptr<tk::device_buffer<float>> dx;
    std::shared_ptr<tk::device_buffer<float>> dout;
    tk::gl<float> X() const { return {dx->data(), 1, 1, rows, cols}; }
    tk::gl<float> OUT() const { return {dout->data(), 1, 1, rows, cols}; }
};

inline Data make_inputs(const tk::host::dims_t& d, unsigned seed) {
    Data g;
    g.rows = d.at("R");
    g.cols = d.at("C");
    g.x = tk::host::random_values<float>(size_t(g.rows) * g.cols, seed);
    for (int r = 0; r < g.rows; ++r) {
        const row_kind& k = kRowKinds[r % 4];
        for (int c = 0; c < g.cols; ++c) {
            float& v = g.x[size_t(r) * g.cols + c];
            v = k.shift + k.scale * v;
        }
    }
    g.dx = std::make_shared<tk::device_buffer<float>>(g.x.size(), g.x, "X");
    g.dout = std::make_shared<tk::device_buffer<float>>(size_t(g.rows) * g.cols, "OUT");
    return g;
}

// Softmax in float64, the stable way (the max subtracted first: float64's
// exp overflows later than float's, but not never).
inline std::vector<double> reference(const Data& g) {
    std::vector<double> out(size_t(g.rows) * g.cols);
    for (int r = 0; r < g.rows; ++r) {
        const float* x = &g.x[size_t(r) * g.cols];
        double m = x[0];
        for (int c = 1; c < g.cols; ++c) m = std::max(m, double(x[c]));
        double sum = 0;
        for (int c = 0; c < g.cols; ++c) sum += std::exp(double(x[c]) - m);
        for (int c = 0; c < g.cols; ++c) out[size_t(r) * g.cols + c] = std::exp(double(x[c]) - m) / sum;
    }
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
                                               std::string name = "lesson02") {
    tk::host::program_def<Data> p;
    p.name = std::move(name);
    p.kind = "lesson";
    p.summary = "Lesson 2, maps and reductions: OUT = row-wise softmax of X (R x 64 float, one 16x64 strip per warp)";
    p.dims = {{"R", 256, 16, 4096}, {"C", 64, 64, 64}};
    p.inputs = make_inputs;
    tk::host::set_variants(p, std::move(kernels), [](Data& g, kernel_fn k) { launch("lesson02", k, g); });
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
         "no warp stored its strip: every element of OUT is still the simulator's NaN fill. The softmax computed in "
         "the registers of t only reaches OUT through the exercise's last line, store(out, t, {0, 0, strip, 0})."},
        {"max_not_subtracted",
         [](const Symptom& s) {
             // NaN or inf only in the rows whose logits sit far from 0 (the large and small kinds).
             return s.every_wrong_element([](int r, int, double g, double) {
                 return !std::isfinite(g) && kRowKinds[r % 4].shift != 0.f;
             });
         },
         "the gentle and peaky rows are right and the large and small ones NaN: exp overflows float to inf on logits "
         "near 96 (inf / inf is NaN) and underflows to 0 near -112 (0 / 0). Subtract each row's max before exp "
         "(HOLE 1: row_max, then sub_row): the largest exponential becomes 1 and the softmax does not change."},
        {"strip_index", [](const Symptom& s) { return s.whole_row_bands_unstored(kStripRows); },
         "whole strips of 16 rows were never stored while others were right: the strip number does not give each "
         "warp of the grid its own strip. A block has 4 warps: warp w of block b takes strip blockIdx.x * 4 + "
         "warpid(), as in lesson 1."},
        {"logits_stored",
         [](const Symptom& s) {
             // OUT - log(softmax) is the same along every row: OUT is X, perhaps shifted per row.
             return s.every_wrong_row([](const float* g, const double* w, size_t cols) {
                 for (size_t c = 0; c < cols; ++c)
                     if (!std::isfinite(g[c]) || !(w[c] > 0) ||
                         std::abs((g[c] - std::log(w[c])) - (g[0] - std::log(w[0]))) > 1e-3)
                         return false;
                 return true;
             });
         },
         "OUT holds the logits (less each row's max, perhaps), not probabilities: the tile reaches the store without "
         "being exponentiated and divided by its row sums. After HOLE 1, exp(t, t) (HOLE 2), then row_sum and "
         "div_row (HOLE 3), each in place on t."},
        {"bf16_rounding",
         [](const Symptom& s) {
             return s.every_wrong_element([](int, int, double g, double w) { return std::abs(g - w) <= 0.01 * w; });
         },
         "every wrong probability is within 1% of the right one: rounding, not a wrong formula. Something in the "
         "softmax went through bf16, which keeps 8 significant bits (0.2% of the value), most likely the exponentials "
         "in an rt_bf tile to save registers. Keep every step in the float tile t; working in place already saves "
         "the registers."},
        {"not_divided_by_sum",
         [](const Symptom& s) {
             // Each wrong row is the right one times its own factor, and that factor is the row's sum: the row
             // was left as its exponentials, divided by 1 (the row max of exp(x - max)) or by nothing.
             return s.every_wrong_row([](const float* g, const double* w, size_t cols) {
                 double sum = 0;
                 for (size_t c = 0; c < cols; ++c) sum += g[c];
                 if (!(sum > 1 + 1e-3)) return false;
                 for (size_t c = 0; c < cols; ++c)
                     if (!std::isfinite(g[c]) || std::abs(g[c] - sum * w[c]) > 1e-3 * std::max(std::abs(double(g[c])), 1e-6))
                         return false;
                 return true;
             });
         },
         "each row is its exponentials exp(x - max), not divided by their sum: the row adds up to more than 1. Dividing "
         "by the row max of the exponentials divides by 1, since the max was subtracted. HOLE 3 is a reduction and a "
         "broadcast: row_sum(v, t), then div_row(t, t, v)."},
        {"new_tile_per_step", [](const Symptom& s) { return s.part == "goal" && s.says("registers per thread live"); },
         "the probabilities are right, but several 16x64 float tiles (32 registers each) are alive at once: each step "
         "writes a new tile. Every tk op takes the destination first and it may be a source, so the whole softmax "
         "works in place on t, with one col_vec reused for the max and the sum."},
    };
}

// What `tklab lesson check 2` runs: one strip (a single warp does anything),
// three strips (one block, a warp idle), five strips (a second block with
// three idle warps), and the default size; the goal is read on the last.
inline tklab::lessons::Lesson lesson() {
    return tklab::lessons::Lesson{
        .number = 2,
        .folder = "lessons/02_softmax",
        .title = "Maps and reductions",
        .program = "lesson02",
        .sizes = {{{"R", 16}, {"C", 64}}, {{"R", 48}, {"C", 64}}, {{"R", 80}, {"C", 64}}, {{"R", 256}, {"C", 64}}},
        .shape = [](const tk::host::dims_t& d) { return std::pair{d.at("R"), d.at("C")}; },
        // One float tile (32) and a couple of 2-register row vectors: the
        // ops work in place, so a second 16x64 float tile is never needed.
        .goals = {tklab::lessons::max_registers(48)},
        .mistakes = mistakes(),
    };
}
#endif

} // namespace lesson02
