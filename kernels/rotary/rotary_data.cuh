// A rotary-embedding problem's data: x (B, H, N, D) bf16 with seeded values in
// [-1, 1); the fp32 tables cos and sin (N x D/2) of the usual angles
// n * 10000^(-2i/D); the output buffer; and the float64 CPU reference. Host
// code, for the simulator and the GPU.
#pragma once
#include <cmath>
#include <memory>
#include <vector>
#include "kernels/rotary/rotary_kernel.cuh"
#include "tk/host/registry.h"

namespace rotary {

struct Data {
    int b = 0, h = 0, n = 0, d = 0;
    std::vector<tk::bf16> x;
    std::vector<float> cos_table, sin_table;
    std::shared_ptr<tk::device_buffer<tk::bf16>> dx, dout;
    std::shared_ptr<tk::device_buffer<float>> dcos, dsin;
    tensors views() const {
        return {{dx->data(), b, h, n, d}, {dcos->data(), 1, 1, n, d / 2}, {dsin->data(), 1, 1, n, d / 2}, {dout->data(), b, h, n, d}};
    }
};

inline Data make_inputs(int b, int h, int n, int d, unsigned seed) {
    Data g;
    g.b = b;
    g.h = h;
    g.n = n;
    g.d = d;
    const size_t count = size_t(b) * h * n * d;
    g.x = tk::host::random_values<tk::bf16>(count, seed);
    g.cos_table.resize(size_t(n) * (d / 2));
    g.sin_table.resize(size_t(n) * (d / 2));
    for (int pos = 0; pos < n; ++pos)
        for (int i = 0; i < d / 2; ++i) {
            const double angle = pos * std::pow(10000.0, -2.0 * i / d);
            g.cos_table[size_t(pos) * (d / 2) + i] = float(std::cos(angle));
            g.sin_table[size_t(pos) * (d / 2) + i] = float(std::sin(angle));
        }
    g.dx = std::make_shared<tk::device_buffer<tk::bf16>>(count, g.x, "x");
    g.dcos = std::make_shared<tk::device_buffer<float>>(g.cos_table.size(), g.cos_table, "cos");
    g.dsin = std::make_shared<tk::device_buffer<float>>(g.sin_table.size(), g.sin_table, "sin");
    g.dout = std::make_shared<tk::device_buffer<tk::bf16>>(count, "out");
    return g;
}

// out = x * cos + rotate_half(x) * sin in float64, from the very bf16 x and
// fp32 table values the kernel reads; unrounded.
inline std::vector<double> reference(const Data& g) {
    const int half = g.d / 2;
    std::vector<double> want(g.x.size());
    for (size_t row = 0; row < size_t(g.b) * g.h * g.n; ++row) {
        const size_t pos = row % size_t(g.n);
        const size_t base = row * size_t(g.d);
        for (int i = 0; i < half; ++i) {
            const double lo = float(g.x[base + i]), hi = float(g.x[base + i + half]);
            const double c = g.cos_table[pos * half + i], s = g.sin_table[pos * half + i];
            want[base + i] = lo * c - hi * s;
            want[base + i + half] = hi * c + lo * s;
        }
    }
    return want;
}

inline std::vector<float> output(const Data& g) { return tk::host::to_floats(g.dout->download()); }

// What make_inputs takes: x and the two fp32 tables (N x D/2) on the host;
// those and out on the device.
inline tk::host::data_size data_size(const tk::host::dims_t& dims) {
    const double count = double(dims.at("B")) * dims.at("H") * dims.at("N") * dims.at("D");
    const double tables = 2.0 * dims.at("N") * (dims.at("D") / 2);
    return {.host = 2 * count + 4 * tables, .device = 2 * 2 * count + 4 * tables};
}

// Bytes one run must move: x in and out back (bf16), the two fp32 tables once.
inline double bytes(int b, int h, int n, int d) { return 2.0 * 2.0 * double(b) * h * n * d + 2.0 * 4.0 * double(n) * (d / 2); }

// The output is rounded once to bf16: at most 2^-8 of the value (8 significant
// bits), so at most 2^-8 = 3.9e-3 relative to max(|value|, 1); fp32 products
// add ~1e-7. 5e-3 passes a correct kernel and fails one with a wrong sign,
// angle or half (errors of order 1) or a bf16 step off (2^-7 near 1).
constexpr double TOLERANCE = 5e-3;

} // namespace rotary
