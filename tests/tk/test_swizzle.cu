// Shared-tile swizzles: the layouts match the hardware's 32/64/128-byte
// patterns, data survives every path through a swizzled tile, and each mode
// removes the ldmatrix bank conflicts of the rows it is meant for.
#include "support/bug_finders_off.h"
#include <catch2/catch.hpp>
#include <set>
#include "tk/tk.h"
#include "support/test_data.h"
#if defined(TK_SIM)
#include "sim/simulator.h"
#endif

using namespace tk;

// The hardware's patterns, written per row for rows exactly one swizzle span
// wide: 16-byte chunk c of row r lands in chunk c ^ (r % 8) for 128B, c ^ ((r / 2) % 4)
// for 64B, c ^ ((r / 4) % 2) for 32B.
template <int S>
uint32_t expected_offset(int r, int c_bytes) {
    const int chunk = c_bytes / 16, within = c_bytes % 16;
    const int x = S == 128 ? r % 8 : S == 64 ? (r / 2) % 4 : S == 32 ? (r / 4) % 2 : 0;
    const int span = S == 0 ? 16 : S;
    return uint32_t(r * span + ((chunk ^ x) * 16) + within);
}

template <typename ST>
void check_layout_is_a_permutation() {
    std::set<uint32_t> seen;
    for (int r = 0; r < ST::rows; ++r)
        for (int c = 0; c < ST::cols; ++c) {
            const uint32_t o = ST::offset(r, c);
            REQUIRE(o < uint32_t(ST::bytes));
            REQUIRE(o % sizeof(typename ST::dtype) == 0);
            seen.insert(o);
            if (c % (16 / sizeof(typename ST::dtype)) != 0)  // 16-byte chunks stay contiguous
                REQUIRE(o == ST::offset(r, c - 1) + sizeof(typename ST::dtype));
        }
    REQUIRE(seen.size() == size_t(ST::rows) * ST::cols);
}

TEST_CASE("swizzle modes follow the hardware patterns", "[tk][swizzle]") {
    STATIC_REQUIRE(st_bf<16, 16>::swizzle_bytes == 32);   // 32-byte rows
    STATIC_REQUIRE(st_bf<16, 32>::swizzle_bytes == 64);   // 64-byte rows
    STATIC_REQUIRE(st_bf<16, 64>::swizzle_bytes == 128);  // 128-byte rows
    STATIC_REQUIRE(st_bf<16, 192>::swizzle_bytes == 128); // 384 = 3 x 128
    STATIC_REQUIRE(st_fl<16, 16>::swizzle_bytes == 64);
    STATIC_REQUIRE(st_bf<16, 64, swizzle::none>::swizzle_bytes == 0);
    for (int r = 0; r < 64; ++r)
        for (int cb = 0; cb < 128; cb += 2) {
            if (cb < 32) REQUIRE(st_bf<64, 16>::offset(r, cb / 2) == expected_offset<32>(r, cb));
            if (cb < 64) REQUIRE(st_bf<64, 32>::offset(r, cb / 2) == expected_offset<64>(r, cb));
            REQUIRE(st_bf<64, 64>::offset(r, cb / 2) == expected_offset<128>(r, cb));
        }
    // Wider than the span: column blocks of R x 128 bytes, each swizzled on its own.
    using wide = st_bf<32, 128>;
    for (int r = 0; r < 32; ++r)
        for (int c = 64; c < 128; ++c) REQUIRE(wide::offset(r, c) == 32 * 128 + expected_offset<128>(r, (c - 64) * 2));
    check_layout_is_a_permutation<st_bf<32, 16>>();
    check_layout_is_a_permutation<st_bf<32, 32>>();
    check_layout_is_a_permutation<st_bf<48, 64>>();
    check_layout_is_a_permutation<st_bf<16, 192>>();
    check_layout_is_a_permutation<st_fl<32, 48>>();
    check_layout_is_a_permutation<st_hf<16, 48, swizzle::b32>>();
    check_layout_is_a_permutation<st_bf<16, 64, swizzle::none>>();
}

// global -> shared (group load) -> registers (ldmatrix) -> global, and
// global -> shared -> global (group store): both must reproduce the input.
template <typename ST, int WARPS>
__global__ void round_trip_kernel(gl<typename ST::dtype> in, gl<typename ST::dtype> out_regs, gl<typename ST::dtype> out_smem) {
    shared_allocator al;
    ST& s = al.allocate<ST>();
    group<WARPS>::load(s, in, {0, 0, 0, 0});
    __syncthreads();
    if (warpid() == 0) {
        rt<typename ST::dtype, ST::rows, ST::cols> t;
        load(t, s);
        store(out_regs, t, {0, 0, 0, 0});
    }
    group<WARPS>::store(out_smem, s, {0, 0, 0, 0});
}

template <typename ST, int WARPS>
void check_round_trip(uint32_t seed) {
    using T = typename ST::dtype;
    auto x = tktest::random_values<T>(size_t(ST::rows) * ST::cols, seed);
    device_buffer<T> din(x.size(), x, "in"), d1(x.size(), "out_regs"), d2(x.size(), "out_smem");
    auto g = [](T* p) { return gl<T>(p, 1, 1, ST::rows, ST::cols); };
    tk::launch("round_trip", round_trip_kernel<ST, WARPS>, dim3(1), dim3(WARPS * 32), sizeof(ST) + 1024, g(din.data()),
               g(d1.data()), g(d2.data()));
    auto a = d1.download(), b = d2.download();
    for (size_t i = 0; i < x.size(); ++i) {
        REQUIRE(detail::bits_of(a[i]) == detail::bits_of(x[i]));
        REQUIRE(detail::bits_of(b[i]) == detail::bits_of(x[i]));
    }
}

TEST_CASE("data survives every swizzle mode", "[tk][swizzle]") {
    check_round_trip<st_bf<32, 16>, 1>(1);                   // 32B
    check_round_trip<st_bf<32, 32>, 2>(2);                   // 64B
    check_round_trip<st_bf<64, 64>, 4>(3);                   // 128B
    check_round_trip<st_bf<16, 192>, 4>(4);                  // 128B, three column blocks
    check_round_trip<st_bf<32, 64, swizzle::none>, 4>(5);    // none
    check_round_trip<st_hf<16, 64, swizzle::b32>, 1>(6);     // narrower than the row, chosen by hand
    check_round_trip<st_fl<32, 32>, 2>(7);                   // fp32: 128B, ld.shared.v2 into registers
}

#if defined(TK_SIM)
template <typename ST>
__global__ void ldmatrix_kernel() {
    shared_allocator al;
    ST& s = al.allocate<ST>();
    rt_bf<ST::rows, ST::cols> t;
    load(t, s);  // reads the uninitialised pattern: only the addresses matter here
}

template <typename ST>
tklab::sim::SmemTotals ldmatrix_totals() {
    tk::launch("ldmatrix", ldmatrix_kernel<ST>, dim3(1), dim3(32), sizeof(ST) + 1024);
    return tklab::sim::last_run().stats.ldmatrix;
}

TEST_CASE("each swizzle removes the ldmatrix conflicts of its row width", "[tk][swizzle][sim]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    // 32-byte rows: rows r and r+4 of a phase share banks -> 2-way unswizzled.
    CHECK(ldmatrix_totals<st_bf<16, 16, swizzle::none>>().max_way == 2);
    CHECK(ldmatrix_totals<st_bf<16, 16>>().conflicts() == 0);
    // 64-byte rows: 4-way unswizzled.
    CHECK(ldmatrix_totals<st_bf<16, 32, swizzle::none>>().max_way == 4);
    CHECK(ldmatrix_totals<st_bf<16, 32>>().conflicts() == 0);
    // 128-byte rows: 8-way unswizzled. A narrower swizzle stores the tile as
    // 64-byte column blocks, whose own pattern is conflict-free too.
    CHECK(ldmatrix_totals<st_bf<16, 64, swizzle::none>>().max_way == 8);
    CHECK(ldmatrix_totals<st_bf<16, 64, swizzle::b64>>().conflicts() == 0);
    CHECK(ldmatrix_totals<st_bf<16, 64>>().conflicts() == 0);
}
#endif
