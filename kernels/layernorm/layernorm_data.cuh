// A layernorm problem's data: x and residual (rows x D), weight and bias (D),
// all bf16 with seeded values in [-1, 1), on the device with the two outputs;
// and the float64 CPU reference they are checked against. Host code, for the
// simulator and the GPU.
#pragma once
#include <cmath>
#include <memory>
#include <vector>
#include "kernels/layernorm/layernorm_kernel.cuh"
#include "tk/host/registry.h"

namespace layernorm {

struct Data {
    int rows = 0, d = 0;
    std::vector<tk::bf16> x, residual, weight, bias;
    std::shared_ptr<tk::device_buffer<tk::bf16>> dx, dres, dw, db, dres_out, dout;
    tensors views() const {
        return {{dx->data(), 1, 1, rows, d},       {dres->data(), 1, 1, rows, d},     {dw->data(), 1, 1, 1, d},
                {db->data(), 1, 1, 1, d},          {dres_out->data(), 1, 1, rows, d}, {dout->data(), 1, 1, rows, d}};
    }
};

inline Data make_inputs(int rows, int d, unsigned seed) {
    Data g;
    g.rows = rows;
    g.d = d;
    const size_t n = size_t(rows) * d;
    g.x = tk::host::random_values<tk::bf16>(n, seed);
    g.residual = tk::host::random_values<tk::bf16>(n, seed + 1);
    g.weight = tk::host::random_values<tk::bf16>(size_t(d), seed + 2);
    g.bias = tk::host::random_values<tk::bf16>(size_t(d), seed + 3);
    g.dx = std::make_shared<tk::device_buffer<tk::bf16>>(n, g.x, "x");
    g.dres = std::make_shared<tk::device_buffer<tk::bf16>>(n, g.residual, "residual");
    g.dw = std::make_shared<tk::device_buffer<tk::bf16>>(size_t(d), g.weight, "weight");
    g.db = std::make_shared<tk::device_buffer<tk::bf16>>(size_t(d), g.bias, "bias");
    g.dres_out = std::make_shared<tk::device_buffer<tk::bf16>>(n, "residual_out");
    g.dout = std::make_shared<tk::device_buffer<tk::bf16>>(n, "out");
    return g;
}

// The reference of both outputs, out then residual_out (rows x D each):
// residual_out = x + residual rounded to bf16 (as the kernel stores it), and
// out = layernorm of those bf16 values, all in float64, unrounded.
inline std::vector<double> reference(const Data& g) {
    const size_t n = size_t(g.rows) * g.d;
    std::vector<double> want(2 * n);
    std::vector<double> s(size_t(g.d));
    for (int r = 0; r < g.rows; ++r) {
        double mean = 0;
        for (int c = 0; c < g.d; ++c) {
            const size_t i = size_t(r) * g.d + c;
            s[c] = double(tk::bf16(double(float(g.x[i])) + double(float(g.residual[i]))));
            mean += s[c];
        }
        mean /= g.d;
        double var = 0;
        for (int c = 0; c < g.d; ++c) var += (s[c] - mean) * (s[c] - mean);
        var /= g.d;
        const double rstd = 1.0 / std::sqrt(var + double(EPS));
        for (int c = 0; c < g.d; ++c) {
            const size_t i = size_t(r) * g.d + c;
            want[i] = (s[c] - mean) * rstd * double(float(g.weight[c])) + double(float(g.bias[c]));
            want[n + i] = s[c];
        }
    }
    return want;
}

// The kernel's outputs in the reference's order: out, then residual_out.
inline std::vector<float> output(const Data& g) {
    std::vector<float> got = tk::host::to_floats(g.dout->download());
    const std::vector<float> res = tk::host::to_floats(g.dres_out->download());
    got.insert(got.end(), res.begin(), res.end());
    return got;
}

// Bytes one run must move: x and residual in, residual_out and out back (rows
// x D bf16 each), weight and bias once.
// What make_inputs takes: x, residual, weight and bias on the host; those and
// the two outputs on the device.
inline tk::host::data_size data_size(const tk::host::dims_t& dims) {
    const double n = double(dims.at("rows")) * dims.at("D"), d = dims.at("D");
    return {.host = 2 * (2 * n + 2 * d), .device = 2 * (4 * n + 2 * d)};
}

inline double bytes(int rows, int d) { return 4.0 * 2.0 * double(rows) * d + 2.0 * 2.0 * d; }

// One bf16 rounding of each stored value is at most 2^-8 of it (8 significant
// bits); relative to max(|value|, 1) that bounds both outputs' error by 2^-8
// = 3.9e-3. fp32 statistics add ~1e-6 (D <= 2048 terms of unit size), so
// 5e-3 passes a correct kernel and fails one whose values are a bf16 step
// (2^-7 near 1) or more off.
constexpr double TOLERANCE = 5e-3;

} // namespace layernorm
