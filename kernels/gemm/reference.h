// Inputs and the plain CPU reference for the GEMM demo, its tests and benchmark.
#pragma once
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>
#include "tk/common/dtypes.h"

namespace gemm {

inline std::vector<tk::bf16> random_matrix(size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.f, 1.f);
    std::vector<tk::bf16> v(n);
    for (auto& x : v) x = tk::from_float<tk::bf16>(dist(rng));
    return v;
}

// C = A * B in float64 (i-k-j order, so the inner loop streams rows).
inline std::vector<double> reference(const std::vector<tk::bf16>& a, const std::vector<tk::bf16>& b, int m, int n, int k) {
    std::vector<double> bd(b.size()), c(size_t(m) * n, 0.0);
    for (size_t i = 0; i < b.size(); ++i) bd[i] = tk::to_float(b[i]);
    for (int i = 0; i < m; ++i)
        for (int p = 0; p < k; ++p) {
            const double av = tk::to_float(a[size_t(i) * k + p]);
            const double* brow = &bd[size_t(p) * n];
            double* crow = &c[size_t(i) * n];
            for (int j = 0; j < n; ++j) crow[j] += av * brow[j];
        }
    return c;
}

// max |got - want| / max(|want|, 1): relative for large values, absolute near zero.
inline double max_relative_error(const std::vector<float>& got, const std::vector<double>& want) {
    double worst = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        const double e = std::abs(double(got[i]) - want[i]) / std::max(std::abs(want[i]), 1.0);
        worst = std::isnan(e) ? INFINITY : std::max(worst, e);
    }
    return worst;
}

} // namespace gemm
