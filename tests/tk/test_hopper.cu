// The Hopper path on both backends: wgmma through tk::warpgroup (all four
// transpose combinations, A from shared memory or registers, each swizzle),
// and bulk tensor copies (tk::tma) of tiles with each swizzle, completing on
// an mbarrier's transaction count. On the GPU this needs sm_90; elsewhere the
// test is skipped.
#include <catch2/catch.hpp>
#include "support/gpu_arch.h"
#include "tk/tk.h"
#include "support/test_data.h"

namespace {

constexpr size_t slack = 1024;  // the allocator aligns tiles to 1024 bytes

// D (64 x N) = A * B (+ C0): A stored as 64 x K (or K x 64 when AT), B as N x K
// (or K x N when the math wants B untransposed: tile is then K x N, N-major).
template <int N, int K, bool AT, bool BT, bool Accumulate, bool ARegs, int Swizzle>
__global__ void wgmma_kernel(tk::gl<tk::bf16> a, tk::gl<tk::bf16> b, tk::gl<float> c) {
    using namespace tk;
    shared_allocator al;
    using sa_t = st_bf<AT ? K : 64, AT ? 64 : K, Swizzle>;
    using sb_t = st_bf<BT ? N : K, BT ? K : N, Swizzle>;  // mma_AB wants b as K x N; mma_ABt as N x K
    sa_t& sa = al.allocate<sa_t>();
    sb_t& sb = al.allocate<sb_t>();
    warpgroup::load(sa, a, {0, 0, 0, 0});
    warpgroup::load(sb, b, {0, 0, 0, 0});
    __syncthreads();
    rt_fl<16, N> acc;
    if constexpr (Accumulate) load(acc, c, {0, 0, warpgroup::warpid(), 0});
    else fill(acc, 7.0f);  // mm_* must ignore what d held
    if constexpr (ARegs) {
        rt_bf<16, K> ra;
        warpgroup::load(ra, sa);
        if constexpr (BT) { if constexpr (Accumulate) warpgroup::mma_ABt(acc, ra, sb); else warpgroup::mm_ABt(acc, ra, sb); }
        else { if constexpr (Accumulate) warpgroup::mma_AB(acc, ra, sb); else warpgroup::mm_AB(acc, ra, sb); }
    } else if constexpr (!AT && !BT) { if constexpr (Accumulate) warpgroup::mma_AB(acc, sa, sb); else warpgroup::mm_AB(acc, sa, sb); }
    else if constexpr (!AT && BT) { if constexpr (Accumulate) warpgroup::mma_ABt(acc, sa, sb); else warpgroup::mm_ABt(acc, sa, sb); }
    else if constexpr (AT && !BT) { if constexpr (Accumulate) warpgroup::mma_AtB(acc, sa, sb); else warpgroup::mm_AtB(acc, sa, sb); }
    else { if constexpr (Accumulate) warpgroup::mma_AtBt(acc, sa, sb); else warpgroup::mm_AtBt(acc, sa, sb); }
    warpgroup::mma_async_wait<0>();
    store(c, acc, {0, 0, warpgroup::warpid(), 0});
}

template <int N, int K, bool AT, bool BT, bool Accumulate = true, bool ARegs = false, int Swizzle = tk::swizzle::automatic>
void check_wgmma(uint32_t seed) {
    auto a = tktest::random_values<tk::bf16>(size_t(64) * K, seed);
    auto b = tktest::random_values<tk::bf16>(size_t(K) * N, seed + 1);
    auto c0 = tktest::random_values<float>(size_t(64) * N, seed + 2);
    tk::device_buffer<tk::bf16> da(a.size(), a, "A"), db(b.size(), b, "B");
    tk::device_buffer<float> dc(c0.size(), c0, "C");
    tk::gl<tk::bf16> ga(da.data(), 1, 1, AT ? K : 64, AT ? 64 : K), gb(db.data(), 1, 1, BT ? N : K, BT ? K : N);
    tk::gl<float> gc(dc.data(), 1, 1, 64, N);
    const size_t smem = slack + size_t(64 * K + K * N) * 2 + 1024;
    tk::launch("wgmma_kernel", wgmma_kernel<N, K, AT, BT, Accumulate, ARegs, Swizzle>, dim3(1), dim3(128), smem, ga, gb, gc);
    auto ref = tktest::matmul_reference(tktest::to_floats(a), tktest::to_floats(b), 64, N, K, AT, BT);
    if (Accumulate)
        for (size_t i = 0; i < ref.size(); ++i) ref[i] += c0[i];
    INFO("N " << N << " K " << K << " AT " << AT << " BT " << BT << " accumulate " << Accumulate << " A in registers " << ARegs
              << " swizzle " << Swizzle);
    CHECK(tktest::max_relative_error(dc.download(), ref) < 1e-5);
}

// A tile moved global -> shared by a bulk copy, then shared -> global twice:
// by ordinary stores (checks what landed, through the tile's layout) and by a
// bulk store (checks the way back).
template <typename ST>
__global__ void tma_kernel(const __grid_constant__ tk::gl_tma<typename ST::dtype, ST> src, tk::gl<typename ST::dtype> plain,
                           const __grid_constant__ tk::gl_tma<typename ST::dtype, ST> back, tk::coord at) {
    using namespace tk;
    shared_allocator al;
    ST& t = al.allocate<ST>();
    semaphore& full = al.allocate<semaphore>();
    if (threadIdx.x == 0) init_semaphore(full, 1);
    __syncthreads();
    if (threadIdx.x == 0) {
        tma::expect<ST>(full);
        tma::load_async(t, src, at, full);
    }
    wait(full, 0);
    group<4>::store(plain, t, at);
    if (threadIdx.x == 0) {
        tma::store_async(back, t, at);
        tma::store_commit_group();
        tma::store_async_wait<0>();
    }
}

template <typename ST>
void check_tma(uint32_t seed) {
    using T = typename ST::dtype;
    const int rows = 3 * ST::rows, cols = 2 * ST::cols;
    auto v = tktest::random_values<T>(size_t(rows) * cols, seed);
    tk::device_buffer<T> dsrc(v.size(), v, "src"), dplain(v.size(), "plain"), dback(v.size(), "back");
    tk::gl_tma<T, ST> src(dsrc.data(), 1, 1, rows, cols), back(dback.data(), 1, 1, rows, cols);
    tk::gl<T> plain(dplain.data(), 1, 1, rows, cols);
    const tk::coord at{0, 0, 2, 1};
    tk::launch("tma_kernel", tma_kernel<ST>, dim3(1), dim3(128), slack + sizeof(ST) + 64, src, plain, back, at);
    auto got_plain = dplain.download(), got_back = dback.download();
    int wrong_plain = 0, wrong_back = 0;
    for (int r = 0; r < ST::rows; ++r)
        for (int c = 0; c < ST::cols; ++c) {
            const size_t i = size_t(at.r * ST::rows + r) * cols + at.c * ST::cols + c;
            wrong_plain += tk::to_float(got_plain[i]) != tk::to_float(v[i]);
            wrong_back += tk::to_float(got_back[i]) != tk::to_float(v[i]);
        }
    INFO("tile " << ST::rows << " x " << ST::cols << ", " << sizeof(T) << "-byte elements, swizzle " << ST::swizzle_bytes);
    CHECK(wrong_plain == 0);
    CHECK(wrong_back == 0);
}

} // namespace

TEST_CASE("wgmma: the four transpose combinations, A and B in shared memory, 128-byte swizzle", "[tk][hopper]") {
    if (!tktest::hopper_here()) { WARN("skipped: needs an sm_90 GPU"); return; }
    check_wgmma<64, 64, false, false>(11);
    check_wgmma<64, 64, false, true>(12);
    check_wgmma<64, 64, true, false>(13);
    check_wgmma<64, 64, true, true>(14);
    check_wgmma<256, 64, false, false>(15);
    check_wgmma<256, 64, false, true>(16);
    check_wgmma<128, 128, true, false>(17);
    check_wgmma<16, 64, true, true>(18);
}

TEST_CASE("wgmma: 32- and 64-byte swizzles, and overwriting D (mm_*)", "[tk][hopper]") {
    if (!tktest::hopper_here()) { WARN("skipped: needs an sm_90 GPU"); return; }
    check_wgmma<64, 32, false, false, true, false, tk::swizzle::b64>(21);
    check_wgmma<64, 32, false, true, true, false, tk::swizzle::b64>(22);
    check_wgmma<64, 32, true, false, true, false, tk::swizzle::b32>(23);
    check_wgmma<32, 64, true, true, true, false, tk::swizzle::b32>(24);
    check_wgmma<64, 64, false, false, false>(25);
    check_wgmma<128, 64, true, true, false>(26);
}

TEST_CASE("wgmma: A from registers", "[tk][hopper]") {
    if (!tktest::hopper_here()) { WARN("skipped: needs an sm_90 GPU"); return; }
    check_wgmma<64, 64, false, false, true, true>(31);
    check_wgmma<64, 64, false, true, true, true>(32);
    check_wgmma<256, 32, false, true, false, true>(33);
    check_wgmma<128, 64, false, false, true, true, tk::swizzle::b32>(34);
}

TEST_CASE("bulk tensor copies: tiles with each swizzle land in the tile's layout and go back", "[tk][hopper][tma]") {
    if (!tktest::hopper_here()) { WARN("skipped: needs an sm_90 GPU"); return; }
    check_tma<tk::st_bf<64, 64>>(41);                      // 128B swizzle
    check_tma<tk::st_bf<64, 128>>(42);                     // 128B, two column blocks
    check_tma<tk::st_bf<32, 32>>(43);                      // 64B
    check_tma<tk::st_bf<16, 16>>(44);                      // 32B
    check_tma<tk::st_fl<32, 64>>(45);                      // floats, 128B, two blocks
    check_tma<tk::st_bf<64, 64, tk::swizzle::none>>(46);   // no swizzle
    check_tma<tk::st_bf<128, 64, tk::swizzle::b64>>(47);   // 64B forced on a wide row: four blocks
}
