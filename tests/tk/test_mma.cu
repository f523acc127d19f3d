// mma_AB / mma_ABt / mma_AtB / mma_AtBt through shared memory (ldmatrix,
// with .trans for col layouts) against a float64 reference, at several shapes.
#include <catch2/catch.hpp>
#include "tk/tk.h"
#include "support/test_data.h"

template <int M, int N, int K, bool AT, bool BT>
__global__ void mma_kernel(tk::gl<tk::bf16> a, tk::gl<tk::bf16> b, tk::gl<float> c) {
    using namespace tk;
    shared_allocator al;
    // Stored as they lie in memory: A is M x K (or K x M when AT), B is K x N (or N x K when BT).
    using sa_t = st_bf<AT ? K : M, AT ? M : K>;
    using sb_t = st_bf<BT ? N : K, BT ? K : N>;
    sa_t& sa = al.allocate<sa_t>();
    sb_t& sb = al.allocate<sb_t>();
    group<1>::load(sa, a, {0, 0, 0, 0});
    group<1>::load(sb, b, {0, 0, 0, 0});
    __syncwarp();
    rt<bf16, sa_t::rows, sa_t::cols, std::conditional_t<AT, col_l, row_l>> ra;
    rt<bf16, sb_t::rows, sb_t::cols, std::conditional_t<BT, row_l, col_l>> rb;
    load(ra, sa);
    load(rb, sb);
    rt_fl<M, N> acc;
    load(acc, c, {0, 0, 0, 0});  // accumulate onto C
    if constexpr (!AT && !BT) mma_AB(acc, ra, rb, acc);
    else if constexpr (!AT && BT) mma_ABt(acc, ra, rb, acc);
    else if constexpr (AT && !BT) mma_AtB(acc, ra, rb, acc);
    else mma_AtBt(acc, ra, rb, acc);
    store(c, acc, {0, 0, 0, 0});
}

template <int M, int N, int K, bool AT, bool BT>
void check_mma(uint32_t seed) {
    auto a = tktest::random_values<tk::bf16>(size_t(M) * K, seed);
    auto b = tktest::random_values<tk::bf16>(size_t(K) * N, seed + 1);
    auto c0 = tktest::random_values<float>(size_t(M) * N, seed + 2);
    tk::device_buffer<tk::bf16> da(a.size(), a, "A"), db(b.size(), b, "B");
    tk::device_buffer<float> dc(c0.size(), c0, "C");
    tk::gl<tk::bf16> ga(da.data(), 1, 1, AT ? K : M, AT ? M : K), gb(db.data(), 1, 1, BT ? N : K, BT ? K : N);
    tk::gl<float> gc(dc.data(), 1, 1, M, N);
    const size_t smem = 2048 + size_t(M * K + K * N) * 2 + 2048;
    tk::launch("mma_kernel", mma_kernel<M, N, K, AT, BT>, dim3(1), dim3(32), smem, ga, gb, gc);
    auto ref = tktest::matmul_reference(tktest::to_floats(a), tktest::to_floats(b), M, N, K, AT, BT);
    for (size_t i = 0; i < ref.size(); ++i) ref[i] += c0[i];
    auto got = dc.download();
    CHECK(tktest::max_relative_error(got, ref) < 1e-5);
}

TEST_CASE("mma_AB matches a float64 reference", "[tk][mma]") {
    check_mma<16, 16, 16, false, false>(1);
    check_mma<32, 16, 32, false, false>(2);
    check_mma<16, 48, 64, false, false>(3);
}
TEST_CASE("mma_ABt matches a float64 reference", "[tk][mma]") {
    check_mma<16, 16, 16, false, true>(4);
    check_mma<32, 32, 16, false, true>(5);
    check_mma<16, 32, 48, false, true>(6);
}
TEST_CASE("mma_AtB matches a float64 reference", "[tk][mma]") {
    check_mma<16, 16, 16, true, false>(7);
    check_mma<32, 16, 32, true, false>(8);
    check_mma<48, 16, 16, true, false>(9);
}
TEST_CASE("mma_AtBt matches a float64 reference", "[tk][mma]") {
    check_mma<16, 16, 16, true, true>(10);
    check_mma<32, 32, 32, true, true>(11);
    check_mma<16, 64, 16, true, true>(12);
}
