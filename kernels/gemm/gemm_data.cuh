// A GEMM problem's data, shared by the demo kernel and the GEMM lessons:
// A (M x K) and B (K x N) in bf16 with seeded values in [-1, 1), C (M x N)
// in fp32, all row-major, on the device; and the float64 CPU product they
// are checked against. Host code, for the simulator and the GPU.
#pragma once
#include <memory>
#include <vector>
#include "tk/tk.h"
#include "tk/host/registry.h"

namespace gemm {

struct Data {
    int m = 0, n = 0, k = 0;
    std::vector<tk::bf16> a, b;
    std::shared_ptr<tk::device_buffer<tk::bf16>> da, db;
    std::shared_ptr<tk::device_buffer<float>> dc;
    tk::gl<tk::bf16> A() const { return {da->data(), 1, 1, m, k}; }
    tk::gl<tk::bf16> B() const { return {db->data(), 1, 1, k, n}; }
    tk::gl<float> C() const { return {dc->data(), 1, 1, m, n}; }
};

// A from `seed`, B from `b_seed` (so B does not repeat A's values).
inline Data make_inputs(const tk::host::dims_t& d, unsigned seed, unsigned b_seed) {
    Data g;
    g.m = d.at("M");
    g.n = d.at("N");
    g.k = d.at("K");
    g.a = tk::host::random_values<tk::bf16>(size_t(g.m) * g.k, seed);
    g.b = tk::host::random_values<tk::bf16>(size_t(g.k) * g.n, b_seed);
    g.da = std::make_shared<tk::device_buffer<tk::bf16>>(g.a.size(), g.a, "A");
    g.db = std::make_shared<tk::device_buffer<tk::bf16>>(g.b.size(), g.b, "B");
    g.dc = std::make_shared<tk::device_buffer<float>>(size_t(g.m) * g.n, "C");
    return g;
}

// What make_inputs takes: A and B on the host, and A, B and C on the device.
inline tk::host::data_size data_size(const tk::host::dims_t& d) {
    const double m = d.at("M"), n = d.at("N"), k = d.at("K");
    return {.host = 2 * (m * k + k * n), .device = 2 * (m * k + k * n) + 4 * m * n};
}

// C = A * B in float64, from the very bf16 values the kernel reads.
inline std::vector<double> reference(const Data& g) {
    return tk::host::matmul_reference(tk::host::to_floats(g.a), tk::host::to_floats(g.b), g.m, g.n, g.k);
}

inline double flops(const tk::host::dims_t& d) { return 2.0 * d.at("M") * d.at("N") * d.at("K"); }

} // namespace gemm
