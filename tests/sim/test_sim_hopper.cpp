// The simulator's Hopper instructions: bulk tensor copies (TMA) with their
// swizzles and out-of-bounds fill, mbarrier transaction counts, wgmma through
// matrix descriptors (all transpose forms, A in shared memory or registers),
// wgmma / bulk-store waits, setmaxnreg, and the faults and deadlock reports
// of their misuse. Simulator only: tests/tk/test_hopper.cu runs the same ops
// on the GPU.
#include "support/bug_finders_off.h"
#include <catch2/catch.hpp>

#include <atomic>

#include "tk/tk.h"
#include "sim/simulator.h"
#include "support/test_data.h"

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

using tklab::sim::ErrorKind;
using tklab::sim::Event;
using tklab::sim::Op;
using tklab::sim::RunResult;
using tklab::sim::SimError;
using tklab::sim::Stall;
using Catch::Matchers::Contains;

const tklab::sim::CostModel& h100() {
    static const tklab::sim::CostModel m = tklab::sim::CostModel::load("h100");
    return m;
}

std::vector<const Event*> events_of(const RunResult& r, Op op, int warp = -1) {
    std::vector<const Event*> v;
    for (const Event& e : r.blocks.at(0).events)
        if (e.op == op && (warp < 0 || e.warp == warp)) v.push_back(&e);
    return v;
}

// Seeded random values, never zero-filled: bf16 values are exact in float.
template <typename T>
std::vector<T> random_tensor(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-2.f, 2.f);
    std::vector<T> v(n);
    for (auto& x : v) {
        float f = u(rng);
        if (f == 0.f) f = 0.5f;
        x = T(f);
    }
    return v;
}

template <typename T> uint32_t raw_bits(T v) {
    uint32_t b = 0;
    std::memcpy(&b, &v, sizeof(T));
    return b;
}

// ------------------------------------------------------------ TMA loads

// One thread loads a tile with a bulk copy; after the barrier's phase, thread
// 0 copies the tile out through st::at (the layout tk::st describes).
template <typename ST, typename GL>
__global__ void tma_load_kernel(const GL g, typename ST::dtype* out, tk::coord at) {
    using namespace tk;
    shared_allocator al;
    ST& tile = al.allocate<ST>();
    semaphore& bar = al.allocate<semaphore>();
    if (thread_id() == 0) init_semaphore(bar, 1);
    __syncthreads();
    if (thread_id() == 0) {
        tma::expect<ST>(bar);
        tma::load_async(tile, g, at, bar);
    }
    wait(bar, 0);
    if (thread_id() == 0)
        for (int r = 0; r < ST::rows; ++r)
            for (int c = 0; c < ST::cols; ++c) out[r * ST::cols + c] = tile.at(r, c);
}

template <typename ST>
void check_tma_load(int rows, int cols, tk::coord at, uint32_t seed) {
    using T = typename ST::dtype;
    using GL = tk::gl_tma<T, ST>;
    const auto host = random_tensor<T>(size_t(rows) * cols, seed);
    tk::device_buffer<T> src(host.size(), host, "src");
    tk::device_buffer<T> out(size_t(ST::rows) * ST::cols, "out");
    GL g(src.data(), 1, 1, rows, cols);
    tk::launch("tma_load", tma_load_kernel<ST, GL>, dim3(1), dim3(32), sizeof(ST) + 2048, g, out.data(), at);
    const auto got = out.download();
    int mismatches = 0;
    for (int r = 0; r < ST::rows; ++r)
        for (int c = 0; c < ST::cols; ++c) {
            const int gr = at.r * ST::rows + r, gc = at.c * ST::cols + c;
            const T want = gr < rows && gc < cols ? host[size_t(gr) * cols + gc] : T(0.f);  // outside: zero fill
            if (raw_bits(got[size_t(r) * ST::cols + c]) != raw_bits(want)) ++mismatches;
        }
    CHECK(mismatches == 0);
    // The copy engine's shared writes are recorded, conflict-free in whole 128-byte rows.
    const RunResult& r = tklab::sim::last_run();
    const auto loads = events_of(r, Op::tma_load);
    REQUIRE(loads.size() == size_t(tk::detail::tma_box<ST>::blocks));
    uint32_t wavefronts = 0;
    for (const Event* e : loads) {
        REQUIRE(e->smem >= 0);
        const auto& s = r.blocks[0].smem[size_t(e->smem)];
        CHECK(s.banks.wavefronts == s.banks.ideal);
        wavefronts += s.banks.wavefronts;
    }
    CHECK(wavefronts == uint32_t(ST::bytes / 128));
}

TEST_CASE("tma: bulk tensor loads write tiles with each swizzle as tk::st lays them out", "[sim][hopper][tma]") {
    using tk::bf16;
    SECTION("bf16, 128-byte swizzle") { check_tma_load<tk::st_bf<64, 64>>(128, 128, {0, 0, 1, 1}, 1); }
    SECTION("bf16, 64-byte swizzle") { check_tma_load<tk::st<bf16, 64, 32, 64>>(128, 96, {0, 0, 1, 2}, 2); }
    SECTION("bf16, 32-byte swizzle") { check_tma_load<tk::st<bf16, 32, 16, 32>>(64, 64, {0, 0, 1, 3}, 3); }
    SECTION("bf16, no swizzle") { check_tma_load<tk::st<bf16, 32, 64, tk::swizzle::none>>(64, 128, {0, 0, 1, 1}, 4); }
    SECTION("float, 128-byte swizzle") { check_tma_load<tk::st_fl<32, 32>>(64, 64, {0, 0, 1, 1}, 5); }
    SECTION("float, 64-byte swizzle") { check_tma_load<tk::st<float, 32, 16, 64>>(64, 64, {0, 0, 0, 2}, 6); }
    SECTION("a wide tile: four 128-byte column blocks") { check_tma_load<tk::st_bf<64, 256>>(128, 512, {0, 0, 1, 1}, 7); }
    SECTION("a wide float tile with a 32-byte swizzle: several column blocks") { check_tma_load<tk::st<float, 16, 32, 32>>(32, 64, {0, 0, 1, 1}, 8); }
    SECTION("out of bounds: rows and columns past the tensor read as zero") {
        check_tma_load<tk::st_bf<64, 64>>(100, 72, {0, 0, 1, 1}, 9);
        check_tma_load<tk::st_bf<64, 256>>(80, 200, {0, 0, 1, 0}, 10);
    }
}

// Every SM's block has thread 0 load `loads` tiles back to back onto one
// barrier, then copy one seeded element of the last out.
using l2_tile = tk::st_bf<64, 64>;
using l2_gl = tk::gl_tma<tk::bf16, l2_tile>;
__global__ void tma_stream_kernel(const l2_gl g, tk::bf16* out, int loads, int pick) {
    using namespace tk;
    shared_allocator al;
    l2_tile& tile = al.allocate<l2_tile>();
    semaphore& bar = al.allocate<semaphore>();
    if (thread_id() == 0) init_semaphore(bar, 1);
    __syncthreads();
    if (thread_id() == 0) {
        tma::expect_bytes(bar, uint32_t(loads) * uint32_t(sizeof(l2_tile)));
        for (int k = 0; k < loads; ++k) tma::load_async(tile, g, {0, 0, int(blockIdx.x), k}, bar);
    }
    wait(bar, 0);
    if (thread_id() == 0) out[blockIdx.x] = tile.at(pick / 64, pick % 64);
}

TEST_CASE("memory model: bulk tensor loads take L2's bandwidth at the rate measured with TMA on every SM", "[sim][hopper][tma][cost_model]") {
    const tklab::sim::CostModel& m = h100();
    std::mt19937 rng(17);
    const unsigned blocks = unsigned(m.sms);  // every SM busy: each gets the fair share
    const int loads = 4 + int(rng() % 5), pick = int(rng() % (64 * 64));
    const int rows = int(blocks) * 64, cols = loads * 64;
    const auto host = random_tensor<tk::bf16>(size_t(rows) * cols, 17);
    tk::device_buffer<tk::bf16> src(host.size(), host, "src"), out(blocks, "out");
    const l2_gl g(src.data(), 1, 1, rows, cols);
    tk::launch("tma_stream", tma_stream_kernel, dim3(blocks), dim3(32), sizeof(l2_tile) + 2048, g, out.data(), loads, pick);
    const auto got = out.download();
    for (unsigned b = 0; b < blocks; ++b)  // the last tile's element
        CHECK(raw_bits(got[b]) == raw_bits(host[size_t(b * 64 + pick / 64) * cols + size_t(loads - 1) * 64 + pick % 64]));
    const RunResult& r = tklab::sim::last_run();
    const double tile_bytes = sizeof(l2_tile), tma_share = m.tma_l2_bytes_per_cycle_per_sm;
    // TMA's share is its own: above what the load/store unit's loads get (so the two models differ here).
    REQUIRE(tma_share > 1.2 * m.l2_bytes_per_cycle_per_sm);
    REQUIRE(tma_share < double(m.tma_bytes_per_cycle));  // the share, not the copy engine, paces the loads
    // In a block: the tiles come through the SM's share one after another,
    // the last a copy's latency after its bytes are through; the barrier
    // releases its waiter its own latency later.
    const auto issued = events_of(r, Op::tma_load);
    REQUIRE(issued.size() == size_t(loads) * size_t(tk::detail::tma_box<l2_tile>::blocks));
    bool released = false;
    for (const auto& b : r.blocks[0].barriers)
        if (b.mbarrier) {
            released = true;
            CHECK(double(b.release - issued.front()->issue) == Approx(loads * tile_bytes / tma_share + m.tma_latency + m.mbarrier_latency).margin(loads + 2));
        }
    CHECK(released);
    // The launch's L2 bound counts the copies' bytes at that rate (the
    // element copied out is a plain C++ store: no traffic).
    CHECK(r.stats.global_tma_read_bytes == uint64_t(blocks) * uint64_t(loads) * uint64_t(tile_bytes));
    CHECK(r.stats.global_bytes == r.stats.global_tma_read_bytes);
    CHECK(r.stats.l2_cycles == uint64_t(std::ceil(double(r.stats.global_tma_read_bytes) / (tma_share * m.sms))));
}

// ------------------------------------------------------------ TMA stores

// A tile loaded from `a` at `from` is stored to `b` at `to`, then the bulk
// group is waited on (read, then write completion).
template <typename ST, typename GL>
__global__ void tma_round_trip_kernel(const GL a, const GL b, tk::coord from, tk::coord to) {
    using namespace tk;
    shared_allocator al;
    ST& tile = al.allocate<ST>();
    semaphore& bar = al.allocate<semaphore>();
    if (thread_id() == 0) init_semaphore(bar, 1);
    __syncthreads();
    if (thread_id() == 0) {
        tma::expect<ST>(bar);
        tma::load_async(tile, a, from, bar);
    }
    wait(bar, 0);
    if (thread_id() == 0) {
        tma::store_async(b, tile, to);
        tma::store_commit_group();
        tma::store_async_read_wait<0>();
        tma::store_async_wait<0>();
    }
}

template <typename ST>
void check_round_trip(int rows, int cols, tk::coord from, tk::coord to, uint32_t seed) {
    using T = typename ST::dtype;
    using GL = tk::gl_tma<T, ST>;
    const auto ha = random_tensor<T>(size_t(rows) * cols, seed);
    const auto hb = random_tensor<T>(size_t(rows) * cols, seed + 100);  // what stays where nothing is stored
    tk::device_buffer<T> da(ha.size(), ha, "a"), db(hb.size(), hb, "b");
    GL a(da.data(), 1, 1, rows, cols), b(db.data(), 1, 1, rows, cols);
    tk::launch("tma_round_trip", tma_round_trip_kernel<ST, GL>, dim3(1), dim3(32), sizeof(ST) + 2048, a, b, from, to);
    const auto got = db.download();
    int mismatches = 0;
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            T want = hb[size_t(r) * cols + c];
            const int tr = r - to.r * ST::rows, tc = c - to.c * ST::cols;  // position in the stored tile
            if (tr >= 0 && tr < ST::rows && tc >= 0 && tc < ST::cols) {
                const int sr = from.r * ST::rows + tr, sc = from.c * ST::cols + tc;
                want = sr < rows && sc < cols ? ha[size_t(sr) * cols + sc] : T(0.f);
            }
            if (raw_bits(got[size_t(r) * cols + c]) != raw_bits(want)) ++mismatches;
        }
    CHECK(mismatches == 0);
    const RunResult& r = tklab::sim::last_run();
    // Each wait stalls until its group's reads / writes are done: the write wait at least the copy latency after the store.
    const auto stores = events_of(r, Op::tma_store);
    const auto waits = events_of(r, Op::bulk_wait);
    REQUIRE(!stores.empty());
    REQUIRE(waits.size() == 2);
    CHECK(waits[1]->done >= stores.front()->issue + uint64_t(h100().tma_latency));
    CHECK(waits[0]->done <= waits[1]->done);
}

TEST_CASE("tma: bulk tensor stores write the tile back, unswizzled, and skip elements outside the tensor", "[sim][hopper][tma]") {
    using tk::bf16;
    SECTION("128-byte swizzle") { check_round_trip<tk::st_bf<64, 64>>(128, 128, {0, 0, 1, 0}, {0, 0, 0, 1}, 11); }
    SECTION("64-byte swizzle, wide") { check_round_trip<tk::st<bf16, 32, 64, 64>>(64, 128, {0, 0, 0, 1}, {0, 0, 1, 0}, 12); }
    SECTION("32-byte swizzle, float") { check_round_trip<tk::st<float, 32, 16, 32>>(64, 48, {0, 0, 1, 2}, {0, 0, 0, 1}, 13); }
    SECTION("partly outside the tensor: only the inside is written") {
        check_round_trip<tk::st_bf<64, 64>>(100, 72, {0, 0, 0, 0}, {0, 0, 1, 1}, 14);
    }
}

// ------------------------------------------------------------ mbarrier transaction counts

using tile_t = tk::st_bf<64, 64>;
using tile_gl = tk::gl_tma<tk::bf16, tile_t>;

// Two arrivals and the tile's bytes: lane 0 arrives with the bytes and issues
// the copy, lane 1 arrives later. test_wait is false until all three are in.
__global__ void phase_kernel(const tile_gl g, uint32_t* seen) {
    using namespace tk;
    shared_allocator al;
    tile_t& tile = al.allocate<tile_t>();
    semaphore& bar = al.allocate<semaphore>();
    if (thread_id() == 0) init_semaphore(bar, 2);
    __syncthreads();
    if (thread_id() == 0) {
        tma::expect<tile_t>(bar);
        tma::load_async(tile, g, {0, 0, 0, 0}, bar);
        seen[0] = test_wait(bar, 0);  // one arrival missing, bytes not landed
    }
    __syncwarp();
    if (thread_id() == 1) {
        arrive(bar);
        seen[1] = test_wait(bar, 0);  // arrivals in, bytes still in flight
    }
    __syncwarp();
    wait(bar, 0);
    if (thread_id() == 0) seen[2] = test_wait(bar, 0);
}

// The bytes land before the arrival; then a copy lands before its expect (a
// transiently negative transaction count).
__global__ void bytes_first_kernel(const tile_gl g, uint32_t* seen) {
    using namespace tk;
    shared_allocator al;
    tile_t& tile = al.allocate<tile_t>();
    semaphore& bar = al.allocate<semaphore>();
    if (thread_id() == 0) init_semaphore(bar, 1);
    __syncthreads();
    if (thread_id() == 0) {
        const uint32_t b = arch::smem_addr(&bar);
        arch::mbarrier_expect_tx<false>(b, tile_t::bytes);  // bytes only, no arrival
        tma::load_async(tile, g, {0, 0, 0, 0}, bar);
        uint32_t any = 0;
        for (int i = 0; i < 100; ++i) any |= test_wait(bar, 0) ? 1u : 0u;  // long past the copy: still no arrival
        seen[0] = any;
        arrive(bar);
        seen[1] = test_wait(bar, 0);
        // Phase 1: the copy first, its expect later.
        tma::load_async(tile, g, {0, 0, 1, 0}, bar);
        any = 0;
        for (int i = 0; i < 100; ++i) any |= test_wait(bar, 1) ? 1u : 0u;
        seen[2] = any;
        arch::mbarrier_expect_tx<true>(b, tile_t::bytes);  // arrive + expect: the count returns to zero
        seen[3] = test_wait(bar, 1);
        seen[4] = tile.at(5, 7) == tk::bf16(0.f) ? 0u : 1u;
    }
}

TEST_CASE("mbarrier: a phase completes only when its arrivals and its transaction bytes are all in", "[sim][hopper][mbarrier]") {
    const auto host = random_tensor<tk::bf16>(128 * 64, 21);
    tk::device_buffer<tk::bf16> src(host.size(), host, "src");
    tile_gl g(src.data(), 1, 1, 128, 64);
    SECTION("arrivals, then bytes") {
        tk::device_buffer<uint32_t> seen(3, std::vector<uint32_t>{7, 7, 7}, "seen");
        tk::launch("phase", phase_kernel, dim3(1), dim3(32), sizeof(tile_t) + 2048, g, seen.data());
        const auto s = seen.download();
        CHECK(s[0] == 0);
        CHECK(s[1] == 0);
        CHECK(s[2] == 1);
        const RunResult& r = tklab::sim::last_run();
        const auto loads = events_of(r, Op::tma_load);
        REQUIRE(loads.size() == 1);
        bool released = false;
        for (const auto& b : r.blocks[0].barriers) {
            if (!b.mbarrier) continue;
            released = true;
            CHECK(b.release >= loads[0]->issue + uint64_t(h100().tma_latency));  // not before the copy's latency
            CHECK(b.phase == 0);
        }
        CHECK(released);
        CHECK(r.stats.stall_cycles[size_t(Stall::mbarrier)] > 0);
    }
    SECTION("bytes, then the arrival; a copy before its expect") {
        tk::device_buffer<uint32_t> seen(5, std::vector<uint32_t>{7, 7, 7, 7, 7}, "seen");
        tk::launch("bytes_first", bytes_first_kernel, dim3(1), dim3(32), sizeof(tile_t) + 2048, g, seen.data());
        const auto s = seen.download();
        CHECK(s[0] == 0);
        CHECK(s[1] == 1);
        CHECK(s[2] == 0);
        CHECK(s[3] == 1);
        CHECK(s[4] == 1);
    }
}

// Lanes 1..31 reach the loop's wait (an earlier line) while lane 0 still has
// the arrive that completes the phase: the waiting lanes must not park the
// warp ahead of it (the producer/consumer template's release pattern).
__global__ void lane0_arrive_kernel(uint32_t* rounds) {
    using namespace tk;
    shared_allocator al;
    semaphore& bar = al.allocate<semaphore>();
    if (thread_id() == 0) init_semaphore(bar, 1);
    __syncwarp();
    for (int i = 0; i < 4; ++i) {
        if (i > 0) wait(bar, (i - 1) & 1);
        if (laneid() == 0) arrive(bar);
    }
    wait(bar, 1);
    if (laneid() == 0) rounds[0] = 4;
}

TEST_CASE("mbarrier: lanes about to block on a wait let the warp's other lanes arrive first", "[sim][hopper][mbarrier]") {
    tk::device_buffer<uint32_t> rounds(1, std::vector<uint32_t>{0}, "rounds");
    tk::launch("lane0_arrive", lane0_arrive_kernel, dim3(1), dim3(32), 1024, rounds.data());
    CHECK(rounds.download()[0] == 4);
    CHECK(tklab::sim::last_run().stats.by_op[size_t(Op::mbar_arrive)] == 4);
}

// ------------------------------------------------------------ misuse

enum class Misuse { load_then_arrive, arrive_then_load, too_many_bytes, not_a_map, misaligned, uninitialised };
std::atomic<int> g_expect_line{0};  // the too_many_bytes case's expect line

__global__ void misuse_kernel(const tile_gl g, const tk::bf16* plain, Misuse what) {
    using namespace tk;
    shared_allocator al;
    tile_t& tile = al.allocate<tile_t>();
    semaphore& bar = al.allocate<semaphore>();
    semaphore& never = al.allocate<semaphore>();
    if (thread_id() == 0) init_semaphore(bar, 1);
    __syncthreads();
    const uint32_t b = arch::smem_addr(&bar), dst = arch::smem_addr(&tile.data[0]);
    if (thread_id() == 0) {
        switch (what) {
        case Misuse::load_then_arrive:  // no expect: the arrival completes the phase with the copy in flight
            tma::load_async(tile, g, {0, 0, 0, 0}, bar);
            arrive(bar);
            break;
        case Misuse::arrive_then_load:  // no expect: the phase completes before the copy is issued
            arrive(bar);
            tma::load_async(tile, g, {0, 0, 0, 0}, bar);
            break;
        case Misuse::too_many_bytes:  // expects two tiles, loads one
            g_expect_line = __LINE__ + 1;
            tma::expect_bytes(bar, 2 * tile_t::bytes);
            tma::load_async(tile, g, {0, 0, 0, 0}, bar);
            break;
        case Misuse::not_a_map:
            tma::expect<tile_t>(bar);
            arch::tma_load_4d(dst, plain, 0, 0, 0, 0, b);
            break;
        case Misuse::misaligned:
            tma::expect<tile_t>(bar);
            arch::tma_load_4d(dst + 128, &g.map<tile_t>(), 0, 0, 0, 0, b);
            break;
        case Misuse::uninitialised:
            arch::mbarrier_expect_tx<true>(arch::smem_addr(&never), 128);
            break;
        }
    }
    wait(bar, 0);
}

std::string misuse_error(Misuse what, ErrorKind& kind) {
    const auto host = random_tensor<tk::bf16>(64 * 64, 31);
    tk::device_buffer<tk::bf16> src(host.size(), host, "src");
    tile_gl g(src.data(), 1, 1, 64, 64);
    try {
        tk::launch("misuse", misuse_kernel, dim3(1), dim3(32), sizeof(tile_t) + 2048, g, (const tk::bf16*)src.data(), what);
    } catch (const SimError& e) {
        kind = e.kind;
        return e.what();
    }
    return "";
}

TEST_CASE("mbarrier and tma: misuse is a fault or a deadlock report naming the barrier and the bytes", "[sim][hopper][faults]") {
    ErrorKind kind{};
    SECTION("a copy with no expect, then the arrival") {
        const std::string e = misuse_error(Misuse::load_then_arrive, kind);
        CHECK(kind == ErrorKind::fault);
        CHECK_THAT(e, Contains("still in flight") && Contains("mbarrier 0x") && Contains("8192 bytes") && Contains("fix:"));
    }
    SECTION("the arrival with no expect, then the copy") {
        const std::string e = misuse_error(Misuse::arrive_then_load, kind);
        CHECK(kind == ErrorKind::fault);
        CHECK_THAT(e, Contains("no expect_tx counted") && Contains("mbarrier 0x") && Contains("8192 bytes"));
    }
    SECTION("more bytes expected than copied: a deadlock naming the barrier and the bytes outstanding") {
        const std::string e = misuse_error(Misuse::too_many_bytes, kind);
        CHECK(kind == ErrorKind::sync_misuse);  // no warp is left to bring the bytes: it can never complete
        CHECK_THAT(e, Contains("waits on mbarrier 0x") && Contains("8192 expected transaction bytes outstanding"));
        // The report starts at the expect_tx that counted too many bytes (issue 25), and names it.
        CHECK(e.rfind(std::string(__FILE__) + ":" + std::to_string(g_expect_line.load()) + ": error:", 0) == 0);
        CHECK_THAT(e, Contains("counted 8192 bytes more than the bulk copies issued on the barrier deliver"));
    }
    SECTION("a global pointer passed as the tensor map") {
        const std::string e = misuse_error(Misuse::not_a_map, kind);
        CHECK(kind == ErrorKind::fault);
        CHECK_THAT(e, Contains("no tensor map is there") && Contains("a tensor, not its map"));
    }
    SECTION("a destination off the swizzle pattern's alignment") {
        const std::string e = misuse_error(Misuse::misaligned, kind);
        CHECK(kind == ErrorKind::fault);
        CHECK_THAT(e, Contains("not 1024-byte aligned"));
    }
    SECTION("expect_tx on an uninitialised barrier") {
        const std::string e = misuse_error(Misuse::uninitialised, kind);
        CHECK(kind == ErrorKind::fault);
        CHECK_THAT(e, Contains("mbarrier.expect_tx") && Contains("not an initialised mbarrier"));
    }
}

// ------------------------------------------------------------ wgmma

enum class Form { AB, ABt, AtB, AtBt, reg_AB, reg_ABt };

// D (64 x N) = A (64 x K) * B (K x N) through tk::warpgroup on tiles that
// thread 0 fills from row-major A and B (transposed where the form reads a
// transposed tile). Each warp writes its 16 rows of D out of its fragments.
template <Form F, typename AT, typename BT, int N, int K>
__global__ void wgmma_kernel(const float* A, const float* B, float* D, int accumulate_twice) {
    using namespace tk;
    shared_allocator al;
    AT& a = al.allocate<AT>();
    BT& b = al.allocate<BT>();
    constexpr bool ta = F == Form::AtB || F == Form::AtBt, tb = F == Form::ABt || F == Form::AtBt || F == Form::reg_ABt;
    if (thread_id() == 0) {
        for (int m = 0; m < 64; ++m)
            for (int k = 0; k < K; ++k) (ta ? a.at(k, m) : a.at(m, k)) = bf16(A[m * K + k]);
        for (int k = 0; k < K; ++k)
            for (int n = 0; n < N; ++n) (tb ? b.at(n, k) : b.at(k, n)) = bf16(B[k * N + n]);
    }
    __syncthreads();
    rt_fl<16, N> d;
    if constexpr (F == Form::reg_AB || F == Form::reg_ABt) {
        rt_bf<16, K> ar;
        warpgroup::load(ar, a);
        if constexpr (F == Form::reg_AB) warpgroup::mm_AB(d, ar, b);
        else warpgroup::mm_ABt(d, ar, b);
        if (accumulate_twice) {
            if constexpr (F == Form::reg_AB) warpgroup::mma_AB(d, ar, b);
            else warpgroup::mma_ABt(d, ar, b);
        }
    } else {
        if constexpr (F == Form::AB) warpgroup::mm_AB(d, a, b);
        else if constexpr (F == Form::ABt) warpgroup::mm_ABt(d, a, b);
        else if constexpr (F == Form::AtB) warpgroup::mm_AtB(d, a, b);
        else warpgroup::mm_AtBt(d, a, b);
        if (accumulate_twice) {
            if constexpr (F == Form::AB) warpgroup::mma_AB(d, a, b);
            else if constexpr (F == Form::ABt) warpgroup::mma_ABt(d, a, b);
            else if constexpr (F == Form::AtB) warpgroup::mma_AtB(d, a, b);
            else warpgroup::mma_AtBt(d, a, b);
        }
    }
    warpgroup::mma_async_wait<0>();
    const int lane = laneid(), row0 = 16 * warpgroup::warpid();
    using base = typename rt_fl<16, N>::base;
    for (int j = 0; j < N / 16; ++j)
        for (int i = 0; i < 4; ++i) {
            const float2 v = d.tiles[0][j].data[i];
            D[(row0 + base::row_of(lane, i, 0)) * N + 16 * j + base::col_of(lane, i, 0)] = v.x;
            D[(row0 + base::row_of(lane, i, 1)) * N + 16 * j + base::col_of(lane, i, 1)] = v.y;
        }
}

template <Form F, int N, int K, int Swizzle>
void check_wgmma(uint32_t seed, bool twice = false) {
    constexpr bool ta = F == Form::AtB || F == Form::AtBt, tb = F == Form::ABt || F == Form::AtBt || F == Form::reg_ABt;
    using AT = std::conditional_t<ta, tk::st<tk::bf16, K, 64, Swizzle>, tk::st<tk::bf16, 64, K, Swizzle>>;
    using BT = std::conditional_t<tb, tk::st<tk::bf16, N, K, Swizzle>, tk::st<tk::bf16, K, N, Swizzle>>;
    auto fa = tktest::to_floats(tktest::random_values<tk::bf16>(size_t(64) * K, seed));
    auto fb = tktest::to_floats(tktest::random_values<tk::bf16>(size_t(K) * N, seed + 1));
    tk::device_buffer<float> da(fa.size(), fa, "A"), db(fb.size(), fb, "B"), dd(size_t(64) * N, "D");
    tk::launch("wgmma", wgmma_kernel<F, AT, BT, N, K>, dim3(1), dim3(128), sizeof(AT) + sizeof(BT) + 2048, (const float*)da.data(),
               (const float*)db.data(), dd.data(), twice ? 1 : 0);
    auto want = tktest::matmul_reference(fa, fb, 64, N, K);
    if (twice)
        for (auto& w : want) w *= 2;
    CHECK(tktest::max_relative_error(dd.download(), want) < 1e-5);

    const RunResult& r = tklab::sim::last_run();
    const auto mmas = events_of(r, Op::wgmma);
    CHECK(mmas.size() == size_t(4 * (K / 16) * (twice ? 2 : 1)));
    // Shared operand reads: one phase per 8 x 16-byte core matrix, conflict-free in
    // these layouts; B counted once per warpgroup (warp 0), A per warp.
    const bool a_shared = F != Form::reg_AB && F != Form::reg_ABt;
    for (const Event* e : mmas) {
        const int want_phases = (a_shared ? 4 : 0) + (e->warp == 0 ? 2 * N / 8 : 0);
        if (want_phases == 0) { CHECK(e->smem < 0); continue; }
        REQUIRE(e->smem >= 0);
        const auto& s = r.blocks[0].smem[size_t(e->smem)];
        CHECK(s.banks.ideal == want_phases);
        CHECK(s.banks.wavefronts == s.banks.ideal);
    }
}

TEST_CASE("wgmma: every transpose form, A from shared memory or registers, against a CPU product", "[sim][hopper][wgmma]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    SECTION("N = 64, 128-byte swizzle") {
        check_wgmma<Form::AB, 64, 64, 128>(41);
        check_wgmma<Form::ABt, 64, 64, 128>(42);
        check_wgmma<Form::AtB, 64, 64, 128>(43);
        check_wgmma<Form::AtBt, 64, 64, 128>(44);
        check_wgmma<Form::reg_AB, 64, 64, 128>(45);
        check_wgmma<Form::reg_ABt, 64, 64, 128>(46);
    }
    SECTION("N = 256, 128-byte swizzle") {
        check_wgmma<Form::AB, 256, 64, 128>(51);
        check_wgmma<Form::ABt, 256, 64, 128>(52);
        check_wgmma<Form::AtB, 256, 64, 128>(53);
        check_wgmma<Form::AtBt, 256, 64, 128>(54);
        check_wgmma<Form::reg_AB, 256, 64, 128>(55);
        check_wgmma<Form::reg_ABt, 256, 64, 128>(56);
    }
    SECTION("64-byte swizzle (several column blocks)") {
        check_wgmma<Form::AB, 64, 64, 64>(61);
        check_wgmma<Form::ABt, 64, 64, 64>(62);
        check_wgmma<Form::AtB, 256, 32, 64>(63);
        check_wgmma<Form::AtBt, 64, 64, 64>(64);
        check_wgmma<Form::reg_AB, 64, 32, 64>(65);
    }
    SECTION("32-byte swizzle (several column blocks)") {
        check_wgmma<Form::AB, 64, 32, 32>(71);
        check_wgmma<Form::ABt, 256, 32, 32>(72);
        check_wgmma<Form::AtB, 64, 32, 32>(73);
        check_wgmma<Form::AtBt, 64, 32, 32>(74);
        check_wgmma<Form::reg_ABt, 64, 32, 32>(75);
    }
    SECTION("accumulating: mm then mma doubles the product") {
        check_wgmma<Form::AB, 64, 64, 128>(81, true);
        check_wgmma<Form::reg_ABt, 64, 32, 64>(82, true);
    }
}

TEST_CASE("wgmma: wait_group stalls until the group's tensor-pipe work and latency are done", "[sim][hopper][wgmma]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    check_wgmma<Form::AB, 256, 64, 128>(91);
    const RunResult& r = tklab::sim::last_run();
    for (int w = 0; w < 4; ++w) {
        const auto mmas = events_of(r, Op::wgmma, w);
        const auto waits = events_of(r, Op::wgmma_wait, w);
        REQUIRE(mmas.size() == 4);
        REQUIRE(waits.size() == 1);
        // Four m64n256k16 back to back on the sub-partition's pipe: 4 x 16*256*16 FMAs at a quarter of the SM's rate.
        const uint64_t pipe = 4 * uint64_t(16 * 256 * 16) / uint64_t(h100().wgmma_fma_per_cycle / 4);
        CHECK(waits[0]->done >= mmas[0]->issue + pipe + uint64_t(h100().wgmma_latency));
        CHECK(waits[0]->stall == Stall::barrier);  // Nsight's name for it (sim/README.md, wgmma)
        CHECK(waits[0]->stall_cycles > 0);
        // The wgmmas themselves do not stall the warp: they issue back to back.
        CHECK(mmas[3]->issue - mmas[0]->issue < 16);
    }
}

// wgmma from a warp outside a whole warpgroup, an unsupported N, a descriptor past shared memory.
__global__ void wgmma_misuse_kernel(int what) {
    using namespace tk;
    shared_allocator al;
    st_bf<64, 64>& b = al.allocate<st_bf<64, 64>>();
    float d[32] = {};
    const uint32_t base = arch::smem_addr(&b.data[0]);
    if (what == 0) {
        arch::wgmma_ss<64, 0, 0>(d, arch::make_wgmma_descriptor(base, 16, 1024, arch::wgmma_swizzle::b128),
                                 arch::make_wgmma_descriptor(base, 16, 1024, arch::wgmma_swizzle::b128), 0);
    } else {
        tklab::sim::LaneOp op{tklab::sim::Op::wgmma};
        op.n = what == 1 ? 12 : 64;
        op.out = d;
        op.desc[0] = arch::make_wgmma_descriptor(base, 16, 1024, arch::wgmma_swizzle::b128);
        op.desc[1] = arch::make_wgmma_descriptor(what == 2 ? base + 60000 : base, 16, 1024, arch::wgmma_swizzle::b128);
        op.file = __FILE__;
        op.line = __LINE__;
        tklab::sim::issue(op);
    }
}

TEST_CASE("wgmma: faults for a partial warpgroup, an unsupported N and a descriptor outside shared memory", "[sim][hopper][faults]") {
    auto error = [](int what, unsigned threads) -> std::string {
        try {
            tk::launch("wgmma_misuse", wgmma_misuse_kernel, dim3(1), dim3(threads), 8192 + 2048, what);
        } catch (const SimError& e) {
            CHECK(e.kind == ErrorKind::fault);
            return e.what();
        }
        return "";
    };
    CHECK_THAT(error(0, 64), Contains("warpgroup instruction") && Contains("multiple of 128"));
    CHECK_THAT(error(1, 128), Contains("N = 12"));
    CHECK_THAT(error(2, 128), Contains("B descriptor") && Contains("outside the block's"));
}

// ------------------------------------------------------------ setmaxnreg

__global__ void setmaxnreg_kernel(int mismatch) {
    using namespace tk;
    if (warpgroup::groupid() == 0) {
        if (mismatch && warpid() == 2) warpgroup::decrease_registers<56>();
        else warpgroup::decrease_registers<40>();
    } else {
        warpgroup::increase_registers<232>();
    }
}

TEST_CASE("setmaxnreg: one instruction per warp, the same count across the warpgroup", "[sim][hopper]") {
    tk::launch("setmaxnreg", setmaxnreg_kernel, dim3(1), dim3(256), 0, 0);
    const RunResult& r = tklab::sim::last_run();
    CHECK(r.stats.by_op[size_t(Op::setmaxnreg)] == 8);
    for (const Event* e : events_of(r, Op::setmaxnreg)) CHECK(e->mask == 0xffffffffu);
    // A kernel that reallocates is estimated at the most its threads may each
    // have (the pool setmaxnreg moves registers from): 65536 / 256, by 8s.
    CHECK(r.stats.estimated_registers == 255);
    for (unsigned threads : {384u, 512u, 640u}) {
        tk::launch("setmaxnreg", setmaxnreg_kernel, dim3(1), dim3(threads), 0, 0);
        CHECK(tklab::sim::last_run().stats.estimated_registers == int(65536 / threads / 8 * 8));
    }
    try {
        tk::launch("setmaxnreg", setmaxnreg_kernel, dim3(1), dim3(256), 0, 1);
        FAIL("a warpgroup asking two different counts must fault");
    } catch (const SimError& e) {
        CHECK(e.kind == ErrorKind::fault);
        CHECK_THAT(std::string(e.what()), Contains("setmaxnreg.dec") && Contains("of its warpgroup asked"));
    }
    try {
        tk::launch("setmaxnreg", setmaxnreg_kernel, dim3(1), dim3(96), 0, 0);
        FAIL("a partial warpgroup must fault");
    } catch (const SimError& e) {
        CHECK_THAT(std::string(e.what()), Contains("warpgroup instruction"));
    }
}

// ------------------------------------------------------------ a producer / consumer pipeline, twice

// A producer warp streams K/64 pairs of tiles through two stages with TMA;
// a consumer warpgroup multiplies them with wgmma and stores C with TMA.
using pa_t = tk::st_bf<64, 64>;
using pb_t = tk::st_bf<64, 64>;
using pc_t = tk::st_fl<64, 64>;
using pa_gl = tk::gl_tma<tk::bf16, pa_t>;
using pc_gl = tk::gl_tma<float, pc_t>;

__global__ void pipeline_kernel(const pa_gl A, const pa_gl B, const pc_gl C, int k_tiles) {
    using namespace tk;
    shared_allocator al;
    pa_t* a[2] = {&al.allocate<pa_t>(), &al.allocate<pa_t>()};
    pb_t* b[2] = {&al.allocate<pb_t>(), &al.allocate<pb_t>()};
    pc_t& c = al.allocate<pc_t>();
    semaphore* full[2] = {&al.allocate<semaphore>(), &al.allocate<semaphore>()};
    semaphore* empty[2] = {&al.allocate<semaphore>(), &al.allocate<semaphore>()};
    if (thread_id() == 0)
        for (int s = 0; s < 2; ++s) {
            init_semaphore(*full[s], 1);
            init_semaphore(*empty[s], 128);
        }
    __syncthreads();
    if (warpgroup::groupid() == 1) {  // producer
        if (warpgroup::laneid() == 0)
            for (int k = 0; k < k_tiles; ++k) {
                const int s = k % 2;
                if (k >= 2) wait(*empty[s], (k / 2 - 1) % 2);
                tma::expect<pa_t, pb_t>(*full[s]);
                tma::load_async(*a[s], A, {0, 0, 0, k}, *full[s]);
                tma::load_async(*b[s], B, {0, 0, k, 0}, *full[s]);
            }
    } else {  // consumer
        rt_fl<16, 64> d;
        for (int k = 0; k < k_tiles; ++k) {
            const int s = k % 2;
            wait(*full[s], (k / 2) % 2);
            if (k == 0) warpgroup::mm_AB(d, *a[s], *b[s]);
            else warpgroup::mma_AB(d, *a[s], *b[s]);
            warpgroup::mma_async_wait<0>();
            arrive(*empty[s]);
        }
        warpgroup::store(c, d);
        tma::store_fence();
        named_barrier{1, 128}.sync();
        if (warpgroup::laneid() == 0) {
            tma::store_async(C, c, {0, 0, 0, 0});
            tma::store_commit_group();
            tma::store_async_wait<0>();
        }
    }
}

RunResult run_pipeline(std::vector<float>& out, int K, uint32_t seed) {
    auto fa = tktest::to_floats(tktest::random_values<tk::bf16>(size_t(64) * K, seed));
    auto fb = tktest::to_floats(tktest::random_values<tk::bf16>(size_t(K) * 64, seed + 1));
    std::vector<tk::bf16> ha(fa.begin(), fa.end()), hb(fb.begin(), fb.end());
    tk::device_buffer<tk::bf16> da(ha.size(), ha, "A"), db(hb.size(), hb, "B");
    tk::device_buffer<float> dc(64 * 64, "C");
    pa_gl A(da.data(), 1, 1, 64, K), B(db.data(), 1, 1, K, 64);
    pc_gl C(dc.data(), 1, 1, 64, 64);
    const size_t smem = 2 * sizeof(pa_t) + 2 * sizeof(pb_t) + sizeof(pc_t) + 4096;
    tk::launch("pipeline", pipeline_kernel, dim3(1), dim3(256), smem, A, B, C, K / 64);
    out = dc.download();
    const auto want = tktest::matmul_reference(fa, fb, 64, 64, K);
    CHECK(tktest::max_relative_error(out, want) < 1e-5);
    return tklab::sim::last_run();
}

TEST_CASE("hopper: a TMA + wgmma producer/consumer pipeline is correct and deterministic", "[sim][hopper][determinism]") {
    std::vector<float> out1, out2;
    const RunResult r1 = run_pipeline(out1, 320, 101);
    const RunResult r2 = run_pipeline(out2, 320, 101);
    CHECK(out1 == out2);
    REQUIRE(r1.blocks.size() == 1);
    REQUIRE(r2.blocks.size() == 1);
    const auto& e1 = r1.blocks[0].events;
    const auto& e2 = r2.blocks[0].events;
    REQUIRE(e1.size() == e2.size());
    bool same = true;
    for (size_t i = 0; i < e1.size(); ++i)
        same = same && e1[i].issue == e2[i].issue && e1[i].done == e2[i].done && e1[i].op == e2[i].op && e1[i].warp == e2[i].warp;
    CHECK(same);
    CHECK(r1.blocks[0].cycles == r2.blocks[0].cycles);
    CHECK(r1.stats.by_op[size_t(Op::tma_load)] == 2 * 5);
    CHECK(r1.stats.by_op[size_t(Op::wgmma)] == 4 * 5 * 4);
    // The consumer waited on the producer's copies, released by the copy engine on the producer's behalf.
    bool consumer_waited = false;
    for (const auto& b : r1.blocks[0].barriers)
        if (b.mbarrier && b.warp < 4 && b.last_warp == 4) consumer_waited = true;
    CHECK(consumer_waited);
    // Five k-steps: at least the copies' serialised bytes and one latency.
    const uint64_t bytes = 5 * uint64_t(pa_t::bytes + pb_t::bytes);
    CHECK(r1.blocks[0].cycles >= bytes / uint64_t(h100().tma_bytes_per_cycle) + uint64_t(h100().tma_latency));
}

} // namespace
