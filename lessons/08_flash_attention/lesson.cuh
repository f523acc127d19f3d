// Lesson 8, "Flash attention forward": the problem every version of the
// kernel solves (the exercise, the solution, and the known-wrong ones the
// checker's tests use), so they all run on the same inputs against the same
// CPU reference.
//
//   Q, K, V : N x 64 bf16, row-major (one attention head, head dimension D = 64)
//   O       : N x 64 float, O = softmax(Q K^T / sqrt(D)) V   (non-causal: every
//             query sees every key; the softmax is along each row of Q K^T)
//
// K and V are seeded random values in [-1, 1). Q's rows come in four kinds,
// repeating every 4 rows, with u seeded random in [-1, 1):
//   row 4k     gentle:  Q = u      (scores within about +-1: a nearly flat softmax)
//   row 4k+1   peaky:   Q = 8u     (a few keys take most of the weight)
//   row 4k+2   huge:    Q = 128u   (scores past 100: exp overflows float unless
//                                    the max is subtracted first, as in lesson 2)
//   row 4k+3   sharp:   Q = 32u
//
// A block has 4 warps and covers 64 rows of Q, 16 per warp; the grid has
// N / 64 blocks. Each block walks K and V in tiles of 64 rows through shared
// memory. N is a multiple of 64.
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

namespace lesson08 {

constexpr int kD = 64;             // the head dimension: Q, K, V and O are N x 64
constexpr int kRowsPerWarp = 16;   // one warp's strip of Q (and of O)
constexpr int kWarpsPerBlock = 4;  // 128 threads per block
constexpr int kTileRows = 64;      // a block's rows of Q, and the rows of each K and V tile
// The dynamic shared memory each block gets: a K and a V tile (64 x 64 bf16,
// 8192 bytes each) and room to align the first to 1024 bytes.
constexpr int kSharedBytes = 2 * kTileRows * kD * 2 + 1024;

// Every kernel of this lesson has this signature: kernel(Q, K, V, O).
using kernel_fn = void (*)(tk::gl<tk::bf16>, tk::gl<tk::bf16>, tk::gl<tk::bf16>, tk::gl<float>);

// Q row r is scale * u: the four kinds above.
constexpr float kQueryScales[4] = {1.f, 8.f, 128.f, 32.f};
constexpr int kHugeRow = 2;  // r % 4 of the huge rows: their softmax is all on one key

// The check's limit on |O - reference| (program_def says why).
constexpr double kTolerance = 5e-3;

struct Data {
    int n = 0, d = 0;
    std::vector<tk::bf16> q, k, v;
    std::shared_ptr<tk::device_buffer<tk::bf16>> dq, dk, dv;
    std::shared_ptr<tk::device_buffer<float>> dout;
    tk::gl<tk::bf16> Q() const { return {dq->data(), 1, 1, n, d}; }
    tk::gl<tk::bf16> K() const { return {dk->data(), 1, 1, n, d}; }
    tk::gl<tk::bf16> V() const { return {dv->data(), 1, 1, n, d}; }
    tk::gl<float> O() const { return {dout->data(), 1, 1, n, d}; }
};

inline Data make_inputs(const tk::host::dims_t& dims, unsigned seed) {
    Data g;
    g.n = dims.at("N");
    g.d = dims.at("D");
    const size_t count = size_t(g.n) * g.d;
    g.q = tk::host::random_values<tk::bf16>(count, seed);
    for (int r = 0; r < g.n; ++r)
        for (int c = 0; c < g.d; ++c) {
            tk::bf16& x = g.q[size_t(r) * g.d + c];
            x = tk::from_float<tk::bf16>(kQueryScales[r % 4] * tk::to_float(x));  // a power of 2: exact
        }
    g.k = tk::host::random_values<tk::bf16>(count, seed + 7919);   // not Q's values again
    g.v = tk::host::random_values<tk::bf16>(count, seed + 15485);  // nor K's
    g.dq = std::make_shared<tk::device_buffer<tk::bf16>>(count, g.q, "Q");
    g.dk = std::make_shared<tk::device_buffer<tk::bf16>>(count, g.k, "K");
    g.dv = std::make_shared<tk::device_buffer<tk::bf16>>(count, g.v, "V");
    g.dout = std::make_shared<tk::device_buffer<float>>(count, "O");
    return g;
}

// Attention in float64 from the very bf16 values the kernel reads, the plain
// way: all N scores of a row, their max, their exponentials, the weighted sum.
inline std::vector<double> reference(const Data& g) {
    const int n = g.n, d = g.d;
    const std::vector<float> q = tk::host::to_floats(g.q), k = tk::host::to_floats(g.k), v = tk::host::to_floats(g.v);
    const double scale = 1.0 / std::sqrt(double(d));
    std::vector<double> out(size_t(n) * d, 0.0), s(n);
    for (int i = 0; i < n; ++i) {
        double m = -INFINITY;
        for (int j = 0; j < n; ++j) {
            double dot = 0;
            for (int c = 0; c < d; ++c) dot += double(q[size_t(i) * d + c]) * double(k[size_t(j) * d + c]);
            s[j] = dot * scale;
            m = std::max(m, s[j]);
        }
        double sum = 0;
        for (int j = 0; j < n; ++j) sum += (s[j] = std::exp(s[j] - m));
        double* o = &out[size_t(i) * d];
        for (int j = 0; j < n; ++j)
            for (int c = 0; c < d; ++c) o[c] += s[j] * double(v[size_t(j) * d + c]);
        for (int c = 0; c < d; ++c) o[c] /= sum;
    }
    return out;
}

// 4 warps per block, 64 rows of Q per block, N / 64 blocks.
inline void launch(const char* name, kernel_fn kernel, Data& g) {
    tk::launch(name, kernel, dim3(unsigned(g.n / kTileRows)), dim3(32 * kWarpsPerBlock), kSharedBytes, g.Q(), g.K(), g.V(), g.O());
}

// The program, given its variants (name -> kernel; the first is the default).
// lesson.cu registers it with the exercise and the solution; the tests build
// the same problem around known-wrong kernels.
inline tk::host::program_def<Data> program_def(std::vector<std::pair<std::string, kernel_fn>> kernels,
                                               std::string name = "lesson08") {
    tk::host::program_def<Data> p;
    p.name = std::move(name);
    p.kind = "lesson";
    p.summary = "Lesson 8, flash attention forward: O = softmax(Q K^T / 8) V (N x 64 bf16 in, float out), online softmax over 64-row K/V tiles";
    p.dims = {{"N", 192, 64, 4096}, {"D", kD, kD, kD}};
    p.inputs = make_inputs;
    tk::host::set_variants(p, std::move(kernels), [](Data& g, kernel_fn k) { launch("lesson08", k, g); });
    p.output = [](Data& g) { return g.dout->download(); };
    p.reference = reference;
    p.output_name = "O";
    // O's elements are weighted means of V's (within [-1, 1]), so this is an
    // absolute error. The probabilities go to the tensor cores as bf16 (8
    // significant bits): the solution is off by at most 1.3e-3 (measured at
    // N = 64 to 512, seeds 1 to 3), so this limit leaves a margin of about 4.
    // A missed rescale, scale or divide is off by 0.1 or more.
    p.tolerance = kTolerance;
    p.flops = [](const tk::host::dims_t& d) { return 4.0 * d.at("N") * d.at("N") * d.at("D"); };
    return p;
}

#if !defined(TK_GPU)
// What `tklab lesson check 8` runs: one K/V tile (N = 64: the online softmax
// never has to rescale), two tiles and three tiles (it must); the goals are
// read on the last.
namespace diagnosis {

using tklab::lessons::Symptom;

inline bool row_wrong(const Symptom& s, int r) {
    for (int c = 0; c < s.cols; ++c) {
        const size_t at = size_t(r) * size_t(s.cols) + size_t(c);
        if (!(std::abs(double((*s.got)[at]) - (*s.want)[at]) <= kTolerance)) return true;
    }
    return false;
}

// The share of the rows of one kind (r % 4, the table above) that are wrong.
inline double wrong_share_of_kind(const Symptom& s, int kind) {
    if (!s.got || !s.want || s.got->size() != s.want->size()) return 0;
    int rows = 0, wrong = 0;
    for (int r = kind; r < s.rows; r += 4) ++rows, wrong += row_wrong(s, r);
    return rows ? double(wrong) / rows : 0;
}

// Every wrong row of O is its right row times a factor above 1 (one factor
// per row): the weights were summed right and never divided by their sum.
inline bool wrong_rows_scaled_up(const Symptom& s) {
    if (!s.got || !s.want || s.got->size() != s.want->size() || s.wrong == 0 || s.nan + s.inf > 0) return false;
    for (int r = 0; r < s.rows; ++r) {
        if (!row_wrong(s, r)) continue;
        double gw = 0, ww = 0, gg = 0;
        for (int c = 0; c < s.cols; ++c) {
            const size_t at = size_t(r) * size_t(s.cols) + size_t(c);
            const double g = (*s.got)[at], w = (*s.want)[at];
            gw += g * w, ww += w * w, gg += g * g;
        }
        if (ww == 0) return false;
        const double factor = gw / ww, residual = std::max(gg - factor * gw, 0.0);  // |got - factor * want|^2
        // P's bf16 rounding leaves about 0.2% besides the factor.
        if (factor < 1.01 || residual > 1e-4 * gg) return false;
    }
    return true;
}

// Every element of O is a weighted mean of V's, within [-1, 1]: the weights
// were normalised, whatever they were.
inline bool weighted_means(const Symptom& s) {
    if (!s.got || s.nan + s.inf > 0) return false;
    for (float g : *s.got)
        if (!(std::abs(g) <= 1 + kTolerance)) return false;
    return true;
}

// Every wrong row's norm against the expected row's: a softmax made sharper
// throughout (scores too large) leans on its top keys and gives every row a
// larger norm (the near-flat rows most); a flatter one averages more keys
// and gives smaller norms. +1: all sharper, -1: all flatter, 0: mixed.
inline int sharpness_off(const Symptom& s) {
    if (!s.got || !s.want || s.got->size() != s.want->size() || s.wrong == 0) return 0;
    bool larger = false, smaller = false;
    for (int r = 0; r < s.rows; ++r) {
        if (!row_wrong(s, r)) continue;
        double gg = 0, ww = 0;
        for (int c = 0; c < s.cols; ++c) {
            const size_t at = size_t(r) * size_t(s.cols) + size_t(c);
            gg += double((*s.got)[at]) * (*s.got)[at], ww += (*s.want)[at] * (*s.want)[at];
        }
        const double ratio = ww > 0 ? std::sqrt(gg / ww) : 0;
        larger = larger || ratio > 1.05;
        smaller = smaller || ratio < 0.95;
    }
    return larger == smaller ? 0 : larger ? 1 : -1;
}

inline bool one_k_tile(const Symptom& s) { return s.dims.count("N") && s.dims.at("N") == kTileRows; }

} // namespace diagnosis

// This lesson's known mistakes (lessons/framework/diagnosis.h), most specific
// first; each has its hint in hints.md, and wrong/ holds an example of each
// (the exercise as shipped shows running_max_not_kept).
inline std::vector<tklab::lessons::Mistake> mistakes() {
    using tklab::lessons::Symptom;
    using tklab::sim::ErrorKind;
    using tklab::sim::Op;
    using namespace diagnosis;
    return {
        {"nothing_stored",
         [](const Symptom& s) { return s.part == "correctness" && s.all_nan() && s.ops(Op::st_global) == 0; },
         "O keeps its fill (NaN): the kernel computes each warp's strip and never writes it. After the divide, "
         "store(o, acc, {0, 0, strip, 0})."},
        {"running_max_not_kept",
         [](const Symptom& s) { return s.part == "correctness" && s.all_nan() && s.ops(Op::st_global) > 0; },
         "every element is NaN though O was stored: m is still -inf when the scores are shifted, so sub_row(s, s, m) "
         "makes them +inf and exp(+inf) * V sums to NaN. Keep the running max (HOLE 1): copy(m_old, m), then "
         "row_max(m, s, m)."},
        {"sum_never_added",
         [](const Symptom& s) { return s.part == "correctness" && s.inf > 0 && s.ops(Op::st_global) > 0; },
         "O holds +-inf: acc was divided by l = 0. l starts at 0 and never receives this tile's weights: add each "
         "row's sum of exp(s - m) into it with row_sum(l, s, l) (HOLE 3), after the rescale."},
        {"no_final_divide",
         [](const Symptom& s) { return s.part == "correctness" && wrong_rows_scaled_up(s); },
         "each wrong row of O is its right row times one factor above 1: acc holds the weighted sum of V, never "
         "divided by the sum of the weights. After the loop, div_row(acc, acc, l) (HOLE 4); the rows that are right "
         "have all their weight on one key (l = 1)."},
        {"carry_between_tiles",
         [](const Symptom& s) { return s.part == "correctness" && s.dims.count("N") && s.dims.at("N") > kTileRows; },
         "right with one K tile, wrong with several: what earlier tiles summed into acc and l is not brought onto the "
         "new running max. When m moves, multiply both by scale = exp(m_old - m) before adding this tile's terms "
         "(HOLE 2 and HOLE 3: mul_row(acc, acc, scale), mul(l, l, scale)), and keep m the max over every tile so far."},
        {"wrong_score_scale",
         [](const Symptom& s) {
             return s.part == "correctness" && one_k_tile(s) && weighted_means(s) && sharpness_off(s) != 0;
         },
         "the softmax is sharper (or flatter) than it should be in every row: each row of O leans on too few keys (or "
         "averages too many), so the scores have the wrong size. Attention divides Q K^T by sqrt(D) = 8, once: "
         "mul(s, s, 0.125f) after the mma, before the max."},
        {"shift_not_per_row",
         [](const Symptom& s) {
             return s.part == "correctness" && one_k_tile(s) && weighted_means(s) && wrong_share_of_kind(s, kHugeRow) >= 0.5;
         },
         "every kind of row is wrong, even the one-hot ones, though each row is still a weighted mean of V: each key's "
         "weight is off by its own factor. A row softmax is unchanged only by one shift per row: subtract each row's "
         "max (row_max, sub_row), not each column's (col_max, sub_col)."},
        {"no_barrier_after_loads",
         [](const Symptom& s) { return s.error == ErrorKind::race && s.says("read after write"); },
         "a warp reads K or V before the block's loads of them are done: each thread copies only its share of a tile "
         "(group<4>::load), so the whole tile is there only after a __syncthreads() between the two loads and the "
         "first ldmatrix (a __syncwarp orders one warp's lanes, not the block's)."},
        {"tiles_unswizzled",
         [](const Symptom& s) { return s.part == "goal" && s.goal.find("bank conflicts") != std::string::npos; },
         "the K and V shared tiles are read with bank conflicts: a 64-wide bf16 row is 128 bytes, so without the "
         "128-byte swizzle the 8 rows of each ldmatrix phase start in the same bank. Use st_bf<64, 64> as given "
         "(its default swizzle), not swizzle::none."},
        {"k_and_v_tiles_live_together",
         [](const Symptom& s) { return s.part == "goal" && s.goal.find("registers") != std::string::npos; },
         "too many registers live at the peak: K's and V's register tiles (64 registers per thread each) are alive at "
         "the same time. Load each just before its own mma, inside braces, so K's die before V's are loaded."},
        {"no_barrier_before_next_tile",
         [](const Symptom& s) { return s.error == ErrorKind::race && s.says("write after read"); },
         "a warp loads the next K/V tile over shared memory another warp is still reading: nothing makes the fast "
         "warps wait at the end of a step. Put a __syncthreads() after the P V mma, at the end of the loop body."},
    };
}

inline tklab::lessons::Lesson lesson() {
    return tklab::lessons::Lesson{
        .number = 8,
        .folder = "lessons/08_flash_attention",
        .title = "Flash attention forward",
        .program = "lesson08",
        .sizes = {{{"N", 64}, {"D", kD}}, {{"N", 128}, {"D", kD}}, {{"N", 192}, {"D", kD}}},
        .shape = [](const tk::host::dims_t& d) { return std::pair{d.at("N"), d.at("D")}; },
        .goals = {tklab::lessons::no_bank_conflicts(), tklab::lessons::max_registers(192)},
        .mistakes = mistakes(),
    };
}
#endif

} // namespace lesson08
