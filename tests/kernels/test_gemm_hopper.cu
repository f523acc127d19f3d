// The Hopper GEMM (kernels/gemm_hopper) against a float64 CPU product: whole
// outputs at small shapes (several work items per block, uneven bands), and on
// the GPU a 4096^3 product checked at sampled entries.
#include <catch2/catch.hpp>
#include "support/gpu_arch.h"
#include <random>
#include "kernels/gemm_hopper/gemm_hopper_kernel.cuh"
#include "support/test_data.h"

namespace {

struct Problem {
    int m, n, k;
    std::vector<tk::bf16> a, b;
    tk::device_buffer<tk::bf16> da, db, dc;
    enum class kind { bulk_store, direct_store, cluster };
    Problem(int m_, int n_, int k_, uint32_t seed, kind how = kind::bulk_store)
        : m(m_), n(n_), k(k_), a(tktest::random_values<tk::bf16>(size_t(m) * k, seed)),
          b(tktest::random_values<tk::bf16>(size_t(k) * n, seed + 1)), da(a.size(), a, "A"), db(b.size(), b, "B"),
          dc(size_t(m) * n, "C") {
        const gemm_hopper::globals g{{da.data(), 1, 1, m, k}, {db.data(), 1, 1, k, n}, {dc.data(), 1, 1, m, n}};
        if (how == kind::direct_store) gemm_hopper::run<gemm_hopper::layout_direct>(g);
        else if (how == kind::cluster) gemm_hopper::run<gemm_hopper::layout_cluster>(g);
        else gemm_hopper::run<gemm_hopper::layout>(g);
    }
};

} // namespace

TEST_CASE("gemm_hopper matches a float64 reference", "[kernels][hopper]") {
    if (!tktest::hopper_here()) { WARN("skipped: needs an sm_90 GPU"); return; }
    using kind = Problem::kind;
    const int shapes[][3] = {{128, 256, 64}, {256, 512, 192}, {384, 256, 128}, {512, 768, 320}};
    uint32_t seed = 1;
    for (const kind how : {kind::bulk_store, kind::direct_store, kind::cluster})
    for (const auto& s : shapes) {
        // Clusters of 2 (GPU) need an even number of 128-row tiles.
        if (how == kind::cluster && s[0] % (gemm_hopper::BM * gemm_hopper::layout_cluster::cluster) != 0) continue;
        Problem p(s[0], s[1], s[2], seed += 2, how);
        auto ref = tktest::matmul_reference(tktest::to_floats(p.a), tktest::to_floats(p.b), p.m, p.n, p.k);
        INFO(p.m << " x " << p.n << " x " << p.k << (how == kind::direct_store ? ", stored from registers" : how == kind::cluster ? ", clusters" : ", bulk store"));
        // bf16 output: one rounding of each entry, relative 2^-8 at most.
        CHECK(tktest::max_relative_error(tktest::to_floats(p.dc.download()), ref) < 8e-3);
    }
}

TEST_CASE("gemm_hopper: a C its clusters cannot tile is refused, naming the fix", "[kernels][hopper]") {
    if (!tktest::hopper_here()) { WARN("skipped: needs an sm_90 GPU"); return; }
    if (gemm_hopper::layout_cluster::cluster == 1) return;  // the simulator: clusters of one block tile any M
    tk::device_buffer<tk::bf16> da(384 * 64, "A"), db(64 * 256, "B"), dc(384 * 256, "C");
    const gemm_hopper::globals g{{da.data(), 1, 1, 384, 64}, {db.data(), 1, 1, 64, 256}, {dc.data(), 1, 1, 384, 256}};
    CHECK_THROWS_WITH(gemm_hopper::run<gemm_hopper::layout_cluster>(g),
                      Catch::Matchers::Contains("M = 384 is not a multiple of 256") && Catch::Matchers::Contains("gemm_hopper::layout"));
}

#if defined(TK_GPU)
TEST_CASE("gemm_hopper at 4096^3, sampled entries", "[kernels][hopper]") {
    if (!tktest::hopper_here()) { WARN("skipped: needs an sm_90 GPU"); return; }
    Problem p(4096, 4096, 4096, 77, Problem::kind::cluster);
    const auto c = p.dc.download();
    std::mt19937 rng(5);
    double worst = 0;
    for (int t = 0; t < 2000; ++t) {
        const int i = int(rng() % 4096), j = int(rng() % 4096);
        double ref = 0, mag = 0;
        for (int x = 0; x < 4096; ++x) {
            const double v = double(tk::to_float(p.a[size_t(i) * 4096 + x])) * tk::to_float(p.b[size_t(x) * 4096 + j]);
            ref += v;
            mag += v < 0 ? -v : v;
        }
        // Relative to the sum of magnitudes: the product's own rounding scale.
        const double err = (tk::to_float(c[size_t(i) * 4096 + j]) - ref) / mag;
        worst = std::max(worst, err < 0 ? -err : err);
    }
    INFO("worst error relative to the sum of |products|: " << worst);
    CHECK(worst < 4e-3);
}
#endif
