// Seeded random test data and plain CPU references shared by the kernel tests.
#pragma once
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>
#include "tk/common/dtypes.h"

namespace tktest {

// Values in [-1, 1), never all zero, rounded to T so references see what the kernel sees.
template <typename T>
std::vector<T> random_values(size_t n, uint32_t seed, float lo = -1.f, float hi = 1.f) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<T> v(n);
    for (auto& x : v) x = tk::from_float<T>(dist(rng));
    return v;
}

template <typename T> std::vector<float> to_floats(const std::vector<T>& v) {
    std::vector<float> f(v.size());
    for (size_t i = 0; i < v.size(); ++i) f[i] = tk::to_float(v[i]);
    return f;
}

// Largest |a-b| / max(1, |b|) over all elements.
inline double max_rel_error(const std::vector<float>& got, const std::vector<double>& want) {
    double worst = 0;
    for (size_t i = 0; i < got.size(); ++i)
        worst = std::max(worst, std::abs(double(got[i]) - want[i]) / std::max(1.0, std::abs(want[i])));
    return worst;
}

// C[M x N] = A[M x K] * B (B is K x N, or N x K when b_transposed), in float64.
inline std::vector<double> matmul_ref(const std::vector<float>& a, const std::vector<float>& b, int M, int N, int K,
                                      bool a_transposed = false, bool b_transposed = false) {
    std::vector<double> c(size_t(M) * N, 0.0);
    for (int m = 0; m < M; ++m)
        for (int k = 0; k < K; ++k) {
            const double av = a_transposed ? a[size_t(k) * M + m] : a[size_t(m) * K + k];
            for (int n = 0; n < N; ++n) c[size_t(m) * N + n] += av * (b_transposed ? b[size_t(n) * K + k] : b[size_t(k) * N + n]);
        }
    return c;
}

} // namespace tktest
