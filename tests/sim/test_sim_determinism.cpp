// Determinism: the same kernel and inputs give the same trace, bit for bit,
// run after run and whatever the number of host threads running blocks.
#include "support/bug_finders_off.h"
#include <catch2/catch.hpp>

#include "tk/tk.h"
#include "sim/simulator.h"
#include "support/test_data.h"

#include <cstring>
#include <string>
#include <vector>

namespace {

using tklab::sim::RunResult;

// A small GEMM, C = A * B with A: M x K, B: K x N (bf16), C fp32. Each block of
// 4 warps computes a 32x32 tile of C; warp w its 16x16 quarter (w/2, w%2).
// A's tiles come in through cp.async, B's through ld.global + st.shared, and
// the shared tiles are unswizzled on purpose so the trace has bank conflicts.
constexpr int K = 64;
struct gemm_smem {
    tk::st_bf<16, K> a[2];
    tk::st_bf<K, 16, tk::swizzle::none> b[2];
};

__global__ void gemm_kernel(tk::gl<tk::bf16> A, tk::gl<tk::bf16> B, tk::gl<float> C) {
    using namespace tk;
    shared_allocator al;
    gemm_smem& s = al.allocate<gemm_smem>();
    const int bm = int(blockIdx.y), bn = int(blockIdx.x), w = warpid();
    for (int i = 0; i < 2; ++i) warpgroup::load_async(s.a[i], A, {0, 0, 2 * bm + i, 0});
    for (int i = 0; i < 2; ++i) warpgroup::load(s.b[i], B, {0, 0, 0, 2 * bn + i});
    load_async_wait<0>();
    __syncthreads();
    rt_bf<16, K> ra;
    rt_bf<K, 16, col_l> rb;
    load(ra, s.a[w / 2]);
    load(rb, s.b[w % 2]);
    rt_fl<16, 16> acc;
    for (int k = 0; k < 4; ++k) acc.tiles[0][0].data[k] = {0.f, 0.f};
    mma_AB(acc, ra, rb, acc);
    store(C, acc, {0, 0, 2 * bm + w / 2, 2 * bn + w % 2});
}

struct Gemm {
    static constexpr int M = 64, N = 64;
    std::vector<tk::bf16> a = tktest::random_values<tk::bf16>(size_t(M) * K, 11);
    std::vector<tk::bf16> b = tktest::random_values<tk::bf16>(size_t(K) * N, 12);
    tk::device_buffer<tk::bf16> da{a.size(), a, "A"}, db{b.size(), b, "B"};
    tk::device_buffer<float> dc{size_t(M) * N, "C"};

    // Runs the kernel (2 x 2 blocks) and returns a copy of its trace.
    RunResult run(std::vector<float>* out = nullptr) {
        tk::gl<tk::bf16> ga(da.data(), 1, 1, M, K), gb(db.data(), 1, 1, K, N);
        tk::gl<float> gc(dc.data(), 1, 1, M, N);
        tk::launch("gemm", gemm_kernel, dim3(N / 32, M / 32), dim3(128), sizeof(gemm_smem) + 1024, ga, gb, gc);
        if (out) *out = dc.download();
        return tklab::sim::last_run();
    }
};

// Field-by-field comparison of two runs (everything but wall time).
void require_same(const RunResult& x, const RunResult& y) {
    REQUIRE(x.kernel == y.kernel);
    CHECK(x.arch == y.arch);
    CHECK(x.smem_bytes == y.smem_bytes);
    CHECK((x.grid.x == y.grid.x && x.grid.y == y.grid.y && x.grid.z == y.grid.z));
    CHECK((x.block.x == y.block.x && x.block.y == y.block.y && x.block.z == y.block.z));

    REQUIRE(x.locations.size() == y.locations.size());
    for (size_t i = 0; i < x.locations.size(); ++i) {
        CHECK(x.locations[i].file == y.locations[i].file);
        CHECK(x.locations[i].line == y.locations[i].line);
    }
    CHECK(x.op_names == y.op_names);

    REQUIRE(x.blocks.size() == y.blocks.size());
    for (size_t bi = 0; bi < x.blocks.size(); ++bi) {
        INFO("block " << bi);
        const auto& a = x.blocks[bi];
        const auto& b = y.blocks[bi];
        CHECK((a.block.x == b.block.x && a.block.y == b.block.y && a.block.z == b.block.z));
        CHECK(a.cycles == b.cycles);
        REQUIRE(a.events.size() == b.events.size());
        for (size_t i = 0; i < a.events.size(); ++i) {
            const auto& e = a.events[i];
            const auto& f = b.events[i];
            INFO("event " << i);
            CHECK(e.issue == f.issue);
            CHECK(e.done == f.done);
            CHECK(e.stall_cycles == f.stall_cycles);
            CHECK(e.mask == f.mask);
            CHECK(e.loc == f.loc);
            CHECK(e.op_seq == f.op_seq);
            CHECK(e.op_name == f.op_name);
            CHECK(e.warp == f.warp);
            CHECK(e.op == f.op);
            CHECK(e.stall == f.stall);
            CHECK(e.aux == f.aux);
            CHECK(e.smem == f.smem);
        }
        REQUIRE(a.smem.size() == b.smem.size());
        for (size_t i = 0; i < a.smem.size(); ++i) {
            const auto& s = a.smem[i];
            const auto& t = b.smem[i];
            INFO("smem record " << i);
            CHECK(s.event == t.event);
            CHECK(s.lanes == t.lanes);
            CHECK(s.banks.wavefronts == t.banks.wavefronts);
            CHECK(s.banks.ideal == t.banks.ideal);
            CHECK(s.banks.max_way == t.banks.max_way);
            CHECK(std::memcmp(s.banks.bank_words, t.banks.bank_words, sizeof s.banks.bank_words) == 0);
        }
        CHECK(a.lane_addrs == b.lane_addrs);
        REQUIRE(a.barriers.size() == b.barriers.size());
        for (size_t i = 0; i < a.barriers.size(); ++i) {
            const auto& p = a.barriers[i];
            const auto& q = b.barriers[i];
            INFO("barrier record " << i);
            CHECK(p.arrive == q.arrive);
            CHECK(p.release == q.release);
            CHECK(p.loc == q.loc);
            CHECK(p.address == q.address);
            CHECK(p.warp == q.warp);
            CHECK(p.last_warp == q.last_warp);
            CHECK(p.id == q.id);
            CHECK(p.mbarrier == q.mbarrier);
            CHECK(p.phase == q.phase);
        }
        REQUIRE(a.regs.size() == b.regs.size());
        for (size_t i = 0; i < a.regs.size(); ++i) {
            CHECK(a.regs[i].cycle == b.regs[i].cycle);
            CHECK(a.regs[i].warp == b.regs[i].warp);
            CHECK(a.regs[i].regs == b.regs[i].regs);
        }
        CHECK(a.warp_peak_regs == b.warp_peak_regs);
    }

    const auto& s = x.stats;
    const auto& t = y.stats;
    CHECK(s.warp_instructions == t.warp_instructions);
    CHECK(std::memcmp(s.by_op, t.by_op, sizeof s.by_op) == 0);
    CHECK(std::memcmp(s.stall_cycles, t.stall_cycles, sizeof s.stall_cycles) == 0);
    for (auto m : {&tklab::sim::Stats::ld_shared, &tklab::sim::Stats::st_shared, &tklab::sim::Stats::ldmatrix,
                   &tklab::sim::Stats::stmatrix}) {
        CHECK((s.*m).instructions == (t.*m).instructions);
        CHECK((s.*m).wavefronts == (t.*m).wavefronts);
        CHECK((s.*m).ideal == (t.*m).ideal);
        CHECK((s.*m).max_way == (t.*m).max_way);
    }
    CHECK(s.barrier_wait_cycles == t.barrier_wait_cycles);
    CHECK(s.max_block_cycles == t.max_block_cycles);
    CHECK(s.sum_block_cycles == t.sum_block_cycles);
    CHECK(s.est_kernel_cycles == t.est_kernel_cycles);
    CHECK(s.blocks_per_sm == t.blocks_per_sm);
    CHECK(s.peak_regs == t.peak_regs);
    CHECK(s.peak_regs_loc == t.peak_regs_loc);
}

// The GEMM's trace must be rich enough for the comparison to mean something.
void check_nontrivial(const RunResult& r) {
    REQUIRE(r.blocks.size() == 4);
    for (const auto& b : r.blocks) {
        CHECK(b.events.size() > 50);
        CHECK(!b.smem.empty());
        CHECK(!b.barriers.empty());
        CHECK(!b.regs.empty());
        CHECK(!b.lane_addrs.empty());  // the unswizzled B tiles conflict
    }
    CHECK(r.stats.by_op[size_t(tklab::sim::Op::mma)] == 4 * 4 * 2 * (K / 16));
    CHECK(r.stats.by_op[size_t(tklab::sim::Op::cp_async)] > 0);
    CHECK(r.stats.ldmatrix.conflicts() > 0);
    CHECK(r.stats.barrier_wait_cycles > 0);
    // Blocks differ in their data but run the same program: identical timings.
    CHECK(r.blocks[0].cycles == r.blocks[3].cycles);
}

struct HostThreads {
    int old = tklab::sim::options().host_threads;
    explicit HostThreads(int n) { tklab::sim::options().host_threads = n; }
    ~HostThreads() { tklab::sim::options().host_threads = old; }
};

TEST_CASE("determinism: the GEMM computes the right product", "[sim][determinism]") {
    Gemm g;
    std::vector<float> c;
    g.run(&c);
    auto ref = tktest::matmul_reference(tktest::to_floats(g.a), tktest::to_floats(g.b), Gemm::M, Gemm::N, K);
    CHECK(tktest::max_relative_error(c, ref) < 1e-5);
}

TEST_CASE("determinism: two runs of the same kernel give identical traces", "[sim][determinism]") {
    HostThreads one(1);
    Gemm g;
    std::vector<float> c1, c2;
    const RunResult r1 = g.run(&c1);
    const RunResult r2 = g.run(&c2);
    check_nontrivial(r1);
    require_same(r1, r2);
    CHECK(c1 == c2);
}

TEST_CASE("determinism: 1 and 2 host threads give identical traces", "[sim][determinism]") {
    const int before = tklab::sim::options().host_threads;
    Gemm g;
    RunResult r1, r2, r4;
    std::vector<float> c1, c2, c4;
    {
        HostThreads t(1);
        r1 = g.run(&c1);
    }
    {
        HostThreads t(2);
        r2 = g.run(&c2);
    }
    {
        HostThreads t(4);
        r4 = g.run(&c4);
    }
    CHECK(tklab::sim::options().host_threads == before);  // restored
    check_nontrivial(r1);
    require_same(r1, r2);
    require_same(r1, r4);
    CHECK(c1 == c2);
    CHECK(c1 == c4);
}

// Determinism holds for errors too: with several host threads the error
// reported is the lowest-numbered failing block's, every time.
__global__ void fault_in_odd_blocks_kernel(const float* p, int n) {
    uint32_t r[1];
    const int i = (blockIdx.x % 2 == 1) ? n + int(blockIdx.x) : tk::laneid();
    tk::arch::ld_global<1>(r, p + i);
}

TEST_CASE("determinism: the reported fault is the first failing block's, with any host threads", "[sim][determinism]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    tk::device_buffer<float> buf(32, "p");
    for (int threads : {1, 2, 3}) {
        HostThreads t(threads);
        for (int rep = 0; rep < 3; ++rep) {
            INFO("host threads " << threads << ", repetition " << rep);
            try {
                tk::launch("fault_in_odd_blocks", fault_in_odd_blocks_kernel, dim3(8), dim3(32), 0, (const float*)buf.data(), 32);
                FAIL("no fault");
            } catch (const tklab::sim::SimError& e) {
                CHECK(e.kind == tklab::sim::ErrorKind::fault);
                CHECK_THAT(std::string(e.what()), Catch::Matchers::Contains("block (1,0,0)"));
            }
            // The blocks up to and including the failing one are kept.
            CHECK(tklab::sim::last_run().blocks.size() == 2);
        }
    }
}

} // namespace
