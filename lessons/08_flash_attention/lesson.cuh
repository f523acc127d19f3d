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
    p.tolerance = 5e-3;
    p.flops = [](const tk::host::dims_t& d) { return 4.0 * d.at("N") * d.at("N") * d.at("D"); };
    return p;
}

#if !defined(TK_GPU)
// What `tklab lesson check 8` runs: one K/V tile (N = 64: the online softmax
// never has to rescale), two tiles and three tiles (it must); the goals are
// read on the last.
inline tklab::lessons::Lesson lesson() {
    return tklab::lessons::Lesson{
        .number = 8,
        .folder = "lessons/08_flash_attention",
        .title = "Flash attention forward",
        .program = "lesson08",
        .sizes = {{{"N", 64}, {"D", kD}}, {{"N", 128}, {"D", kD}}, {{"N", 192}, {"D", kD}}},
        .shape = [](const tk::host::dims_t& d) { return std::pair{d.at("N"), d.at("D")}; },
        .goals = {tklab::lessons::no_bank_conflicts(), tklab::lessons::max_registers(192)},
    };
}
#endif

} // namespace lesson08
