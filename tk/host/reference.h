// Host-side helpers for checking a kernel: seeded random inputs, a plain
// float64 matrix product, and the error metric every check uses.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>
#include "tk/common/dtypes.h"
#include "tk/host/memory_check.h"

namespace tk::host {

// n values uniform in [lo, hi), rounded to T so a reference sees exactly what
// the kernel sees; the same seed gives the same values everywhere.
template <typename T>
std::vector<T> random_values(size_t n, uint32_t seed, float lo = -1.f, float hi = 1.f) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    check_fits(uint64_t(n) * sizeof(T), "an input of " + std::to_string(n) + " values");
    std::vector<T> v(n);
    for (auto& x : v) x = from_float<T>(dist(rng));
    return v;
}

template <typename T> std::vector<float> to_floats(const std::vector<T>& v) {
    std::vector<float> f(v.size());
    for (size_t i = 0; i < v.size(); ++i) f[i] = to_float(v[i]);
    return f;
}

// C[M x N] = A * B in float64. A is M x K (K x M when a_transposed), B is
// K x N (N x K when b_transposed), all row-major. i-k-j order, so the inner
// loop streams rows in the common case.
inline std::vector<double> matmul_reference(const std::vector<float>& a, const std::vector<float>& b, int M, int N, int K,
                                            bool a_transposed = false, bool b_transposed = false) {
    check_fits(uint64_t(M) * uint64_t(N) * sizeof(double), "the float64 reference of a " + std::to_string(M) + " x " + std::to_string(N) + " product");
    std::vector<double> c(size_t(M) * N, 0.0);
    for (int m = 0; m < M; ++m) {
        double* crow = &c[size_t(m) * N];
        for (int k = 0; k < K; ++k) {
            const double av = a_transposed ? a[size_t(k) * M + m] : a[size_t(m) * K + k];
            if (!b_transposed) {
                const float* brow = &b[size_t(k) * N];
                for (int n = 0; n < N; ++n) crow[n] += av * brow[n];
            } else {
                for (int n = 0; n < N; ++n) crow[n] += av * b[size_t(n) * K + k];
            }
        }
    }
    return c;
}

// max |got - want| / max(|want|, 1): relative for large values, absolute near
// zero. A NaN anywhere makes it infinite, so NaN output never passes a check.
inline double max_relative_error(const std::vector<float>& got, const std::vector<double>& want) {
    double worst = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        const double e = std::abs(double(got[i]) - want[i]) / std::max(std::abs(want[i]), 1.0);
        worst = std::isnan(e) ? INFINITY : std::max(worst, e);
    }
    return worst;
}

} // namespace tk::host
