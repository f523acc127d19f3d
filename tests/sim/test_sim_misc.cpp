// Simulator behaviour: register accounting, divergence, cp.async, shuffles
// and mbarrier semaphores.
#include "support/bug_finders_off.h"
#include <catch2/catch.hpp>

#include "tk/tk.h"
#include "sim/simulator.h"
#include "support/test_data.h"

#include <atomic>
#include <cstring>
#include <random>
#include <set>
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

std::atomic<int> g_line_a{0}, g_line_b{0}, g_line_c{0};

std::vector<uint32_t> random_words(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<uint32_t> v(n);
    for (auto& x : v) x = rng();
    return v;
}

// ------------------------------------------------------------ registers

// A tile holds registers once it holds more than one value (a fresh one holds
// NaN, one value, as ptxas allocates a tile's registers from its first write).
template <typename RT>
void write_one(RT& t) { t.tiles[0][0].data[0].x = typename RT::dtype(float(tk::laneid() + 1)); }

__global__ void registers_kernel() {
    {
        g_line_a = __LINE__; tk::rt_fl<16, 16> a; write_one(a);  // 8 registers per thread
        __syncwarp();
        g_line_b = __LINE__; tk::rt_bf<32, 32> b; write_one(b);  // 16 more
        __syncwarp();
    }
    __syncwarp();  // both freed
    g_line_c = __LINE__; tk::rt_bf<16, 16> c; write_one(c);  // 4: below the peak, which stays at b's line
    __syncwarp();
}

TEST_CASE("registers: peak live registers and the declaration that reached it", "[sim][registers]") {
    static_assert(tk::rt_fl<16, 16>::registers == 8 && tk::rt_bf<32, 32>::registers == 16);
    tk::launch("registers", registers_kernel, dim3(2), dim3(64), 0);
    const RunResult& r = tklab::sim::last_run();
    CHECK(r.stats.peak_regs == 24);
    REQUIRE(r.stats.peak_regs_loc < r.locations.size());
    CHECK(r.locations[r.stats.peak_regs_loc].line == g_line_b.load());
    CHECK(r.locations[r.stats.peak_regs_loc].file == __FILE__);
    REQUIRE(r.blocks.size() == 2);
    for (const auto& b : r.blocks) {
        REQUIRE(b.warp_peak_regs.size() == 2);
        CHECK(b.warp_peak_regs[0] == 24);
        CHECK(b.warp_peak_regs[1] == 24);
        // Register-usage changes per warp, in order: 8, 24, 0, 4.
        for (uint16_t w = 0; w < 2; ++w) {
            std::vector<uint16_t> seq;
            uint64_t last = 0;
            for (const auto& rr : b.regs)
                if (rr.warp == w) {
                    seq.push_back(rr.regs);
                    CHECK(rr.cycle >= last);
                    last = rr.cycle;
                }
            CHECK(seq == std::vector<uint16_t>{8, 24, 0, 4});
        }
        // With each change, the declarations live after it, oldest first.
        auto lines = [&](const tklab::sim::RegRecord& rr) {
            std::vector<std::pair<int, int>> out;  // (line, registers)
            for (const auto& l : rr.live) {
                REQUIRE(l.loc < r.locations.size());
                CHECK(r.locations[l.loc].file == __FILE__);
                out.emplace_back(r.locations[l.loc].line, l.regs);
            }
            return out;
        };
        using Live = std::vector<std::pair<int, int>>;
        REQUIRE(b.regs.size() == 8);
        for (uint16_t w = 0; w < 2; ++w) {
            std::vector<Live> seen;
            for (const auto& rr : b.regs)
                if (rr.warp == w) seen.push_back(lines(rr));
            CHECK(seen == std::vector<Live>{{{g_line_a, 8}},
                                            {{g_line_a, 8}, {g_line_b, 16}},
                                            {},
                                            {{g_line_c, 4}}});
        }
    }
    // The run's table names what was live at the peak the same way.
    REQUIRE(r.stats.peak_live.size() == 2);
    CHECK(r.locations[r.stats.peak_live[1].loc].line == g_line_b.load());
    // Occupancy accounts for them: (24 base + 24) registers x 64 threads per block.
    CHECK(r.stats.blocks_per_sm > 0);
}

// One tile dies and another of the same size takes its place between two
// instructions: the count stays, the live declarations change.
__global__ void same_count_kernel() {
    {
        g_line_a = __LINE__; tk::rt_fl<16, 16> x; write_one(x);
        __syncwarp();
    }
    g_line_b = __LINE__; tk::rt_fl<16, 16> y; write_one(y);
    __syncwarp();
}

TEST_CASE("registers: a new live set with the same count is a change too", "[sim][registers]") {
    tk::launch("same_count", same_count_kernel, dim3(1), dim3(32), 0);
    const RunResult& r = tklab::sim::last_run();
    REQUIRE(r.blocks.size() == 1);
    const auto& regs = r.blocks[0].regs;
    REQUIRE(regs.size() == 2);
    CHECK(regs[0].regs == 8);
    CHECK(regs[1].regs == 8);
    REQUIRE(regs[0].live.size() == 1);
    REQUIRE(regs[1].live.size() == 1);
    CHECK(r.locations[regs[0].live[0].loc].line == g_line_a.load());
    CHECK(r.locations[regs[1].live[0].loc].line == g_line_b.load());
    CHECK(regs[1].cycle > regs[0].cycle);
}

// ------------------------------------------------------------ divergence

// Half the warp reaches a shuffle; the other half has gone on and exited.
__global__ void shfl_half_warp_kernel(uint32_t* out) {
    uint32_t v = uint32_t(tk::laneid());
    if (tk::laneid() < 16) { g_line_a = __LINE__; v = tk::arch::shfl_xor(0xffffffffu, v, 1); }
    const uint32_t w[1] = {v};
    tk::arch::st_global<1>(out + tk::laneid(), w);
}

TEST_CASE("divergence: a full-mask shfl reached by half the warp", "[sim][divergence]") {
    tk::device_buffer<uint32_t> out(32, "out");
    try {
        tk::launch("shfl_half_warp", shfl_half_warp_kernel, dim3(1), dim3(32), 0, out.data());
        FAIL("the divergence was not reported");
    } catch (const SimError& e) {
        CHECK(e.kind == ErrorKind::divergence);
        CHECK(e.line == g_line_a.load());
        CHECK(e.file == __FILE__);
        CHECK_THAT(std::string(e.what()), Contains("shfl"));
    }
}

// A shfl whose member mask names only the lanes that reach it is fine.
__global__ void shfl_half_warp_masked_kernel(uint32_t* out) {
    uint32_t v = uint32_t(tk::laneid());
    if (tk::laneid() < 16) v = tk::arch::shfl_xor(0x0000ffffu, v, 1);
    const uint32_t w[1] = {v};
    tk::arch::st_global<1>(out + tk::laneid(), w);
}

TEST_CASE("divergence: a shfl with a member mask of the lanes that reach it works", "[sim][divergence]") {
    tk::device_buffer<uint32_t> out(32, "out");
    tk::launch("shfl_half_warp_masked", shfl_half_warp_masked_kernel, dim3(1), dim3(32), 0, out.data());
    auto got = out.download();
    for (uint32_t l = 0; l < 32; ++l) CHECK(got[l] == (l < 16 ? (l ^ 1u) : l));
    int shfls = 0;
    for (const Event& e : tklab::sim::last_run().blocks[0].events)
        if (e.op == Op::shfl) { ++shfls; CHECK(e.mask == 0x0000ffffu); }
    CHECK(shfls == 1);
}

// A half-warp shuffle whose xor offset reaches into the other half reads
// lanes its member mask leaves out: undefined on the GPU, a misuse here.
__global__ void shfl_outside_mask_kernel(uint32_t* out, int offset) {
    uint32_t v = uint32_t(tk::laneid()) * 7u + 3u;
    if (tk::laneid() < 16) { g_line_a = __LINE__; v = tk::arch::shfl_xor(0x0000ffffu, v, offset); }
    const uint32_t w[1] = {v};
    tk::arch::st_global<1>(out + tk::laneid(), w);
}

TEST_CASE("bug finders: a shfl that reads a lane outside its member mask is a misuse", "[sim][bug_finders]") {
    tk::device_buffer<uint32_t> out(32, "out");
    // Offset 1 stays inside the half: every lane gets its neighbour's value.
    tk::launch("shfl_inside_mask", shfl_outside_mask_kernel, dim3(1), dim3(32), 0, out.data(), 1);
    const auto got = out.download();
    for (uint32_t l = 0; l < 32; ++l) CHECK(got[l] == (l < 16 ? (l ^ 1u) : l) * 7u + 3u);
    // Offset 16 reads lanes 16-31, which mask 0x0000ffff leaves out.
    try {
        tk::launch("shfl_outside_mask", shfl_outside_mask_kernel, dim3(1), dim3(32), 0, out.data(), 16);
        FAIL("the shuffle outside its mask was not reported");
    } catch (const SimError& e) {
        CHECK(e.kind == ErrorKind::sync_misuse);
        CHECK(e.line == g_line_a.load());
        CHECK_THAT(std::string(e.what()), Contains("lane 0 reads lane 16") && Contains("0xffff") && Contains("undefined"));
    }
}

// Half the warp enters an mma; the other half waits at a __syncwarp after it.
__global__ void mma_half_warp_kernel() {
    tk::rt_bf<16, 16> a;
    tk::rt_bf<16, 16, tk::col_l> b;
    tk::rt_fl<16, 16> c;
    for (int k = 0; k < 4; ++k) {
        a.tiles[0][0].data[k] = {tk::bf16(1.f), tk::bf16(1.f)};
        b.tiles[0][0].data[k] = {tk::bf16(1.f), tk::bf16(1.f)};
        c.tiles[0][0].data[k] = {0.f, 0.f};
    }
    if (tk::laneid() < 16) { g_line_a = __LINE__; tk::mma_AB(c, a, b, c); }
    g_line_b = __LINE__; __syncwarp();
}

TEST_CASE("divergence: an mma reached by half the warp", "[sim][divergence]") {
    try {
        tk::launch("mma_half_warp", mma_half_warp_kernel, dim3(1), dim3(32), 0);
        FAIL("the divergence was not reported");
    } catch (const SimError& e) {
        CHECK(e.kind == ErrorKind::divergence);
        const std::string msg = e.what();
        CHECK_THAT(msg, Contains("mma.sync"));
        CHECK_THAT(msg, Contains(":" + std::to_string(g_line_a.load())));
        CHECK_THAT(msg, Contains(":" + std::to_string(g_line_b.load())));
        // The error names one of the two sites.
        CHECK((e.line == g_line_a.load() || e.line == g_line_b.load()));
    }
}

// The same half-warp mma (and ldmatrix), but with the other half EXITED:
// .aligned instructions need every lane of the warp, so this is divergence too.
__global__ void mma_half_warp_exit_kernel() {
    tk::rt_bf<16, 16> a;
    tk::rt_bf<16, 16, tk::col_l> b;
    tk::rt_fl<16, 16> c;
    for (int k = 0; k < 4; ++k) {
        a.tiles[0][0].data[k] = {tk::bf16(1.f), tk::bf16(1.f)};
        b.tiles[0][0].data[k] = {tk::bf16(1.f), tk::bf16(1.f)};
        c.tiles[0][0].data[k] = {0.f, 0.f};
    }
    if (tk::laneid() < 16) tk::mma_AB(c, a, b, c);
}
__global__ void ldmatrix_half_warp_exit_kernel() {
    tk::shared_allocator al;
    tk::st_bf<16, 16>& s = al.allocate<tk::st_bf<16, 16>>();
    tk::rt_bf<16, 16> a;
    if (tk::laneid() < 16) tk::load(a, s);
}

template <class F>
void check_divergence_with_exited_lanes(F&& launch) {
    try {
        launch();
        FAIL("expected a divergence error");
    } catch (const SimError& e) {
        CHECK(e.kind == ErrorKind::divergence);
        CHECK_THAT(std::string(e.what()), Contains("exited"));
    }
}

TEST_CASE("divergence: an mma or ldmatrix reached by half the warp whose other half exited", "[sim][divergence]") {
    SECTION("mma") {
        check_divergence_with_exited_lanes([] { tk::launch("mma_half_warp_exit", mma_half_warp_exit_kernel, dim3(1), dim3(32), 0); });
    }
    SECTION("ldmatrix") {
        check_divergence_with_exited_lanes([] { tk::launch("ldmatrix_half_warp_exit", ldmatrix_half_warp_exit_kernel, dim3(1), dim3(32), 1024); });
    }
}

// Two halves at two different shuffles (if/else): neither can execute.
__global__ void shfl_if_else_kernel() {
    uint32_t v = uint32_t(tk::laneid());
    if (tk::laneid() % 2 == 0) { g_line_a = __LINE__; v = tk::arch::shfl_down(0xffffffffu, v, 1); }
    else { g_line_b = __LINE__; v = tk::arch::shfl_up(0xffffffffu, v, 1); }
    (void)v;
}

TEST_CASE("divergence: the two sides of a branch at different shuffles", "[sim][divergence]") {
    try {
        tk::launch("shfl_if_else", shfl_if_else_kernel, dim3(1), dim3(32), 0);
        FAIL("the divergence was not reported");
    } catch (const SimError& e) {
        CHECK(e.kind == ErrorKind::divergence);
        CHECK((e.line == g_line_a.load() || e.line == g_line_b.load()));
        const std::string msg = e.what();
        CHECK_THAT(msg, Contains("0x55555555"));
        CHECK_THAT(msg, Contains("0xaaaaaaaa"));
    }
}

// An ordinary divergent if/else with shared stores in each branch runs as two
// partial-warp instructions.
__global__ void if_else_stores_kernel(uint32_t* out) {
    const uint32_t lane = uint32_t(tk::laneid());
    if (lane % 2 == 0) { g_line_a = __LINE__; tk::arch::st_shared_b32(lane * 4, lane * 10); }
    else { g_line_b = __LINE__; tk::arch::st_shared_b32(lane * 4, lane * 10 + 1); }
    __syncwarp();
    const uint32_t w[1] = {tk::arch::ld_shared_b32(((lane + 1) % 32) * 4)};
    tk::arch::st_global<1>(out + lane, w);
}

TEST_CASE("divergence: an if/else with shared stores counts two partial instructions", "[sim][divergence]") {
    tk::device_buffer<uint32_t> out(32, "out");
    tk::launch("if_else_stores", if_else_stores_kernel, dim3(1), dim3(32), 1024, out.data());
    auto got = out.download();
    for (uint32_t l = 0; l < 32; ++l) {
        const uint32_t src = (l + 1) % 32;
        CHECK(got[l] == src * 10 + (src % 2));
    }
    const RunResult& r = tklab::sim::last_run();
    std::vector<const Event*> sts;
    for (const Event& e : r.blocks[0].events)
        if (e.op == Op::st_shared) sts.push_back(&e);
    REQUIRE(sts.size() == 2);
    std::set<std::pair<uint32_t, int>> seen;  // (mask, line)
    for (const Event* e : sts) {
        seen.insert({e->mask, r.locations.at(e->loc).line});
        // Each half covers 16 distinct banks: one conflict-free wavefront.
        const auto& s = r.blocks[0].smem.at(size_t(e->smem));
        CHECK(s.banks.wavefronts == 1);
        CHECK(s.banks.ideal == 1);
    }
    CHECK(seen == std::set<std::pair<uint32_t, int>>{{0x55555555u, g_line_a.load()}, {0xaaaaaaaau, g_line_b.load()}});
    CHECK(r.stats.st_shared.instructions == 2);
    // After the branch the warp reconverges: one full-warp load.
    CHECK(r.stats.ld_shared.instructions == 1);
    for (const Event& e : r.blocks[0].events)
        if (e.op == Op::ld_shared) CHECK(e.mask == 0xffffffffu);
}

// ------------------------------------------------------------ cp.async

// One warp copies 32 x 16 bytes global -> shared with cp.async, waits, then
// reads the shared words back out.
__global__ void cp_async_kernel(const uint32_t* in, uint32_t* out) {
    const uint32_t lane = uint32_t(tk::laneid());
    tk::arch::cp_async<16>(lane * 16, in + lane * 4);
    tk::arch::cp_async_commit();
    g_line_a = __LINE__; tk::arch::cp_async_wait<0>();
    uint32_t v[4];
    tk::arch::ld_shared<4>(v, ((lane + 3) % 32) * 16);
    tk::arch::st_global<4>(out + lane * 4, v);
}

TEST_CASE("cp.async: data is in shared memory after cp_async_wait<0>", "[sim][cp.async]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    auto in = random_words(128, 3);
    tk::device_buffer<uint32_t> din(128, in, "in"), dout(128, "out");
    tk::launch("cp_async", cp_async_kernel, dim3(1), dim3(32), 1024, (const uint32_t*)din.data(), dout.data());
    auto got = dout.download();
    for (uint32_t l = 0; l < 32; ++l)
        for (uint32_t k = 0; k < 4; ++k) CHECK(got[l * 4 + k] == in[((l + 3) % 32) * 4 + k]);
    // The wait is recorded as a long-scoreboard stall of about the copy's latency.
    const RunResult& r = tklab::sim::last_run();
    int waits = 0;
    for (const Event& e : r.blocks[0].events) {
        if (e.op != Op::cp_async_wait) continue;
        ++waits;
        CHECK(e.stall == Stall::long_scoreboard);
        CHECK(e.stall_cycles > 0);
        CHECK(r.locations.at(e.loc).line == g_line_a.load());
        const auto cost = tklab::sim::CostModel::load("h100");
        // (plus its 512 bytes through one SM's share of L2)
        CHECK(e.stall_cycles <= uint32_t(cost.cp_async_latency + 512 / cost.l2_bytes_per_cycle_one_sm + 1));
        CHECK(e.stall_cycles + 10 >= uint32_t(cost.cp_async_latency));
    }
    CHECK(waits == 1);
    CHECK(r.stats.stall_cycles[size_t(Stall::long_scoreboard)] > 0);
    CHECK(r.stats.by_op[size_t(Op::cp_async)] == 1);
    CHECK(r.stats.by_op[size_t(Op::cp_async_commit)] == 1);
}

// Reading shared memory before the wait sees the uninitialised pattern.
//
// Intended behaviour (documented here on purpose): the simulator fills a
// block's shared memory with 0xFF bytes at launch, like the garbage real
// uninitialised shared memory holds (and 0xFFFFFFFF reads as a NaN float),
// and applies a cp.async group's data only when a cp.async.wait_group retires
// it. A kernel that forgets the wait therefore reads 0xFF... in the simulator
// -- deterministically -- where the GPU would read old or new data depending on
// timing. The same applies to groups still allowed in flight by wait<N>.
__global__ void cp_async_read_early_kernel(const uint32_t* in, uint32_t* out) {
    const uint32_t lane = uint32_t(tk::laneid());
    tk::arch::cp_async<4>(lane * 4, in + lane);        // group 0 -> [0, 128)
    tk::arch::cp_async_commit();
    tk::arch::cp_async<8>(256 + lane * 8, in + 32 + 2 * lane);  // group 1 -> [256, 512)
    tk::arch::cp_async_commit();
    uint32_t w[1];
    uint32_t p[2];
    // Before any wait: neither group has landed.
    w[0] = tk::arch::ld_shared_b32(lane * 4);
    tk::arch::st_global<1>(out + lane, w);
    // wait<1>: the older group has landed, the newer one may still be in flight.
    tk::arch::cp_async_wait<1>();
    w[0] = tk::arch::ld_shared_b32(lane * 4);
    tk::arch::st_global<1>(out + 32 + lane, w);
    tk::arch::ld_shared<2>(p, 256 + lane * 8);
    tk::arch::st_global<2>(out + 64 + 2 * lane, p);
    // wait<0>: everything has landed.
    tk::arch::cp_async_wait<0>();
    tk::arch::ld_shared<2>(p, 256 + lane * 8);
    tk::arch::st_global<2>(out + 128 + 2 * lane, p);
}

TEST_CASE("cp.async: reading before the wait sees the uninitialised 0xFF pattern", "[sim][cp.async]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    auto in = random_words(96, 4);
    tk::device_buffer<uint32_t> din(96, in, "in"), dout(192, "out");
    tk::launch("cp_async_read_early", cp_async_read_early_kernel, dim3(1), dim3(32), 1024,
               (const uint32_t*)din.data(), dout.data());
    auto got = dout.download();
    for (uint32_t l = 0; l < 32; ++l) {
        CHECK(got[l] == 0xffffffffu);                      // before any wait
        CHECK(got[32 + l] == in[l]);                       // group 0 after wait<1>
        CHECK(got[64 + 2 * l] == 0xffffffffu);             // group 1 not yet
        CHECK(got[64 + 2 * l + 1] == 0xffffffffu);
        CHECK(got[128 + 2 * l] == in[32 + 2 * l]);         // group 1 after wait<0>
        CHECK(got[128 + 2 * l + 1] == in[32 + 2 * l + 1]);
    }
}

// The tile-level wrapper: group<1>::load_async + load_async_wait into a swizzled tile.
__global__ void load_async_tile_kernel(tk::gl<tk::bf16> in, tk::gl<tk::bf16> out) {
    using namespace tk;
    shared_allocator al;
    st_bf<32, 64>& s = al.allocate<st_bf<32, 64>>();
    group<1>::load_async(s, in, {0, 0, 1, 0});
    load_async_wait<0>();
    rt_bf<32, 64> r;
    load(r, s);
    store(out, r, {0, 0, 0, 0});
}

TEST_CASE("cp.async: group<1>::load_async of a tile, then load_async_wait", "[sim][cp.async]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    auto a = tktest::random_values<tk::bf16>(64 * 64, 8);
    tk::device_buffer<tk::bf16> din(a.size(), a, "in"), dout(32 * 64, "out");
    tk::gl<tk::bf16> gin(din.data(), 1, 1, 64, 64), gout(dout.data(), 1, 1, 32, 64);
    tk::launch("load_async_tile", load_async_tile_kernel, dim3(1), dim3(32), 8192, gin, gout);
    auto got = dout.download();
    CHECK(std::memcmp(got.data(), a.data() + 32 * 64, got.size() * sizeof(tk::bf16)) == 0);
    const RunResult& r = tklab::sim::last_run();
    bool stalled = false;
    for (const Event& e : r.blocks[0].events)
        if (e.op == Op::cp_async_wait) {
            stalled = e.stall == Stall::long_scoreboard && e.stall_cycles > 0;
            CHECK(r.op_names.at(e.op_name) == "load_async_wait");
        }
    CHECK(stalled);
}

// ------------------------------------------------------------ shuffles

__global__ void shfl_modes_kernel(const uint32_t* in, uint32_t* out, int src_mul, int src_add, int up, int down, int xr) {
    const int lane = tk::laneid();
    uint32_t v[1];
    tk::arch::ld_global<1>(v, in + lane);
    uint32_t r[1];
    r[0] = tk::arch::shfl_idx(0xffffffffu, v[0], (lane * src_mul + src_add) % 32);
    tk::arch::st_global<1>(out + 0 * 32 + lane, r);
    r[0] = tk::arch::shfl_up(0xffffffffu, v[0], up);
    tk::arch::st_global<1>(out + 1 * 32 + lane, r);
    r[0] = tk::arch::shfl_down(0xffffffffu, v[0], down);
    tk::arch::st_global<1>(out + 2 * 32 + lane, r);
    r[0] = tk::arch::shfl_xor(0xffffffffu, v[0], xr);
    tk::arch::st_global<1>(out + 3 * 32 + lane, r);
    // A float butterfly reduction: every lane ends with the warp's sum.
    float s = float(v[0] >> 8) * (1.f / 16777216.f);  // exact, in [0, 1)
    for (int o = 16; o > 0; o /= 2) s += tk::arch::u2f(tk::arch::shfl_xor(0xffffffffu, tk::arch::f2u(s), o));
    r[0] = tk::arch::f2u(s);
    tk::arch::st_global<1>(out + 4 * 32 + lane, r);
}

TEST_CASE("shfl: idx/up/down/xor give the right values on random data", "[sim][shfl]") {
    struct Params { int mul, add, up, down, xr; };
    for (Params p : {Params{7, 3, 3, 5, 13}, Params{1, 31, 1, 1, 1}, Params{0, 17, 16, 31, 31}, Params{5, 0, 0, 0, 0}}) {
        INFO("idx lane*" << p.mul << "+" << p.add << ", up " << p.up << ", down " << p.down << ", xor " << p.xr);
        auto in = random_words(32, uint32_t(100 + p.mul * 7 + p.up));
        tk::device_buffer<uint32_t> din(32, in, "in"), dout(5 * 32, "out");
        tk::launch("shfl_modes", shfl_modes_kernel, dim3(1), dim3(32), 0, (const uint32_t*)din.data(), dout.data(),
                   p.mul, p.add, p.up, p.down, p.xr);
        auto got = dout.download();
        float sum_ref = 0;  // a different summation order than the butterfly's: compare with a tolerance
        for (int l = 0; l < 32; ++l) sum_ref += float(in[size_t(l)] >> 8) * (1.f / 16777216.f);
        for (int l = 0; l < 32; ++l) {
            CHECK(got[size_t(l)] == in[size_t((l * p.mul + p.add) % 32)]);
            CHECK(got[size_t(32 + l)] == in[size_t(l - p.up >= 0 ? l - p.up : l)]);
            CHECK(got[size_t(64 + l)] == in[size_t(l + p.down <= 31 ? l + p.down : l)]);
            CHECK(got[size_t(96 + l)] == in[size_t(l ^ p.xr)]);
            float s;
            std::memcpy(&s, &got[size_t(128 + l)], 4);
            CHECK(s == Approx(sum_ref).epsilon(1e-5));
            CHECK(got[size_t(128 + l)] == got[128]);  // all lanes agree bit for bit
        }
        CHECK(tklab::sim::last_run().stats.by_op[size_t(Op::shfl)] == 4 + 5);
    }
}

// ------------------------------------------------------------ mbarrier semaphores

// Warp 0 produces `rounds` 32-word slices into a one-slot shared buffer; warp 1
// consumes them. `full` says a slice is ready, `empty` that it was consumed.
__global__ void producer_consumer_kernel(const uint32_t* in, uint32_t* out, int rounds) {
    using namespace tk;
    shared_allocator al;
    semaphore& full = al.allocate<semaphore>();
    semaphore& empty = al.allocate<semaphore>();
    sv<float, 32>& slot = al.allocate<sv<float, 32>>();
    const uint32_t slot_addr = arch::smem_addr(&slot.data[0]);
    const uint32_t lane = uint32_t(laneid());
    if (thread_id() == 0) {
        init_semaphore(full, 32);
        init_semaphore(empty, 32);
    }
    __syncthreads();
    if (warpid() == 0) {
        for (int i = 0; i < rounds; ++i) {
            if (i > 0) wait(empty, i - 1);
            uint32_t v[1];
            arch::ld_global<1>(v, in + i * 32 + int(lane));
            arch::st_shared_b32(slot_addr + lane * 4, v[0]);
            arrive(full);
        }
    } else {
        for (int i = 0; i < rounds; ++i) {
            g_line_c = __LINE__; wait(full, i);
            // Read a neighbour's word, so the data really crosses lanes.
            const uint32_t v[1] = {arch::ld_shared_b32(slot_addr + ((lane + 1) % 32) * 4)};
            arch::st_global<1>(out + i * 32 + int(lane), v);
            arrive(empty);
        }
    }
}

TEST_CASE("mbarrier: semaphores order a producer and a consumer warp over several phases", "[sim][mbarrier]") {
    const int rounds = 6;
    auto in = random_words(size_t(rounds) * 32, 21);
    tk::device_buffer<uint32_t> din(in.size(), in, "in"), dout(in.size(), "out");
    tk::launch("producer_consumer", producer_consumer_kernel, dim3(1), dim3(64), 1024, (const uint32_t*)din.data(),
               dout.data(), rounds);
    auto got = dout.download();
    for (int i = 0; i < rounds; ++i)
        for (int l = 0; l < 32; ++l) CHECK(got[size_t(i * 32 + l)] == in[size_t(i * 32 + (l + 1) % 32)]);

    const RunResult& r = tklab::sim::last_run();
    // The consumer's waits on `full` are recorded with the phases they waited on.
    std::vector<uint32_t> consumer_phases;
    for (const auto& b : r.blocks[0].barriers) {
        if (!b.mbarrier) continue;
        CHECK(b.arrive <= b.release);
        if (b.warp == 1) {
            consumer_phases.push_back(b.phase);
            CHECK(b.last_warp == 0);  // released by the producer's arrival
            CHECK(r.locations.at(b.loc).line == g_line_c.load());
        } else {
            CHECK(b.warp == 0);
            CHECK(b.last_warp == 1);  // the producer waits on the consumer's `empty` arrivals
        }
    }
    // The consumer must have waited at least for the first slice (a global load away).
    REQUIRE(!consumer_phases.empty());
    CHECK(consumer_phases.front() == 0);
    for (size_t i = 1; i < consumer_phases.size(); ++i) CHECK(consumer_phases[i] > consumer_phases[i - 1]);
    CHECK(r.stats.stall_cycles[size_t(Stall::mbarrier)] > 0);
    CHECK(r.stats.by_op[size_t(Op::mbar_init)] == 2);  // one warp instruction each (lane 0 active)
    CHECK(r.stats.by_op[size_t(Op::mbar_arrive)] == uint64_t(2 * rounds));
}

// test_wait never blocks: it reports whether a phase has completed.
__global__ void test_wait_kernel(uint32_t* out) {
    using namespace tk;
    shared_allocator al;
    semaphore& s = al.allocate<semaphore>();
    if (thread_id() == 0) init_semaphore(s, 32);
    __syncthreads();
    const uint32_t lane = uint32_t(laneid());
    uint32_t w[1];
    w[0] = test_wait(s, 0) ? 1u : 0u;  // phase 0 not complete
    arch::st_global<1>(out + lane, w);
    arrive(s);
    w[0] = test_wait(s, 0) ? 1u : 0u;  // now it is
    arch::st_global<1>(out + 32 + lane, w);
    w[0] = test_wait(s, 1) ? 1u : 0u;  // phase 1 is not
    arch::st_global<1>(out + 64 + lane, w);
}

TEST_CASE("mbarrier: test_wait reports phase completion without blocking", "[sim][mbarrier]") {
    tk::device_buffer<uint32_t> out(96, "out");
    tk::launch("test_wait", test_wait_kernel, dim3(1), dim3(32), 1024, out.data());
    auto got = out.download();
    for (int l = 0; l < 32; ++l) {
        CHECK(got[size_t(l)] == 0u);
        CHECK(got[size_t(32 + l)] == 1u);
        CHECK(got[size_t(64 + l)] == 0u);
    }
}

} // namespace
