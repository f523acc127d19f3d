// Barriers in the simulator: waits recorded for the warps that arrive early,
// and deadlocks (warps waiting on a barrier or mbarrier phase that can never
// complete) reported as SimError kind deadlock naming the waiting line,
// instead of hanging.
#include "support/bug_finders_off.h"
#include <catch2/catch.hpp>

#include "tk/tk.h"
#include "sim/simulator.h"

#include <atomic>
#include <string>

namespace {

using tklab::sim::BarrierRecord;
using tklab::sim::ErrorKind;
using tklab::sim::Event;
using tklab::sim::Op;
using tklab::sim::RunResult;
using tklab::sim::SimError;
using tklab::sim::Stall;
using Catch::Matchers::Contains;

// Kernel source lines, captured by the kernels themselves (every lane stores
// the same value; atomics keep it race-free when blocks run on host threads).
std::atomic<int> g_line_a{0}, g_line_b{0};

const tklab::sim::CostModel& h100() {
    static const tklab::sim::CostModel m = tklab::sim::CostModel::load("h100");
    return m;
}

// ------------------------------------------------------------ waits at __syncthreads

// Four warps; warp 0 does `extra` 32-way conflicted shared loads (32 cycles
// of the shared pipe each) before the barrier, so warps 1..3 arrive early and
// wait for it.
__global__ void unbalanced_kernel(int extra) {
    const uint32_t lane = uint32_t(tk::laneid());
    tk::arch::st_shared_b32(4096 + uint32_t(tk::thread_id()) * 4, lane);
    if (tk::warpid() == 0) {
        uint32_t v = 0;
        for (int i = 0; i < extra; ++i) v += tk::arch::ld_shared_b32(lane * 128 + uint32_t(i % 32) * 4);
        tk::arch::st_shared_b32(5120 + lane * 4, v);
    }
    g_line_a = __LINE__; __syncthreads();
    tk::arch::st_shared_b32(6144 + uint32_t(tk::thread_id()) * 4, lane);
}

TEST_CASE("barriers: the fast warps of an unbalanced kernel wait for the slow one", "[sim][barrier]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    const int extra = 40;
    tk::launch("unbalanced", unbalanced_kernel, dim3(1), dim3(128), 8192, extra);
    const RunResult& r = tklab::sim::last_run();
    REQUIRE(r.blocks.size() == 1);
    const auto& bars = r.blocks[0].barriers;
    REQUIRE(bars.size() == 4);  // one record per waiting warp
    const BarrierRecord* rec[4] = {};
    for (const BarrierRecord& b : bars) {
        REQUIRE(b.warp < 4);
        CHECK(rec[b.warp] == nullptr);
        rec[b.warp] = &b;
        CHECK_FALSE(b.mbarrier);
        CHECK(b.id == 0);
        CHECK(b.last_warp == 0);  // warp 0 arrived last and released everyone
        REQUIRE(b.loc < r.locations.size());
        CHECK(r.locations[b.loc].line == g_line_a.load());
        CHECK(r.locations[b.loc].file == __FILE__);
    }
    for (int w = 0; w < 4; ++w) REQUIRE(rec[w] != nullptr);
    // All released together, no earlier than the last arrival plus the barrier latency.
    const uint64_t release = rec[0]->release;
    for (int w = 1; w < 4; ++w) CHECK(rec[w]->release == release);
    CHECK(release == rec[0]->arrive + uint64_t(h100().barrier_latency));
    // The slow warp waited only the barrier's own latency (~0).
    CHECK(rec[0]->release - rec[0]->arrive <= uint64_t(h100().barrier_latency));
    // The fast warps waited for the 40 conflicted loads (32 wavefronts each): far longer.
    CHECK(r.stats.ld_shared.instructions == uint64_t(extra));
    CHECK(r.stats.ld_shared.wavefronts == uint64_t(extra) * 32);
    for (int w = 1; w < 4; ++w) {
        CHECK(rec[w]->arrive < rec[w]->release);
        CHECK(rec[w]->arrive < rec[0]->arrive);
        CHECK(rec[w]->release - rec[w]->arrive >= uint64_t(extra - 1) * 32 * uint64_t(h100().shared_cycles_per_wavefront));
    }
    uint64_t total = 0;
    for (const BarrierRecord& b : bars) total += b.release - b.arrive;
    CHECK(r.stats.barrier_wait_cycles == total);
    CHECK(r.stats.barrier_wait_cycles > 0);
    // The bar.sync events carry the wait as a `barrier` stall, for the fast warps.
    int bar_events = 0;
    for (const Event& e : r.blocks[0].events) {
        if (e.op != Op::bar_sync) continue;
        ++bar_events;
        const BarrierRecord& b = *rec[e.warp];
        CHECK(e.done == b.release);
        if (e.warp != 0) {
            CHECK(e.stall == Stall::barrier);
            CHECK(uint64_t(e.stall_cycles) >= b.release - b.arrive);
        }
    }
    CHECK(bar_events == 4);
    CHECK(r.stats.stall_cycles[size_t(Stall::barrier)] > 0);
    // No warp issues anything after its bar.sync before the release.
    bool past[4] = {};
    int after = 0;
    for (const Event& e : r.blocks[0].events) {
        if (past[e.warp]) { CHECK(e.issue >= release); ++after; }
        if (e.op == Op::bar_sync) past[e.warp] = true;
    }
    CHECK(after == 4);
}

TEST_CASE("barriers: a balanced kernel waits (almost) nothing", "[sim][barrier]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    tk::launch("balanced", unbalanced_kernel, dim3(1), dim3(128), 8192, 0);
    const RunResult& r = tklab::sim::last_run();
    REQUIRE(r.blocks[0].barriers.size() == 4);
    for (const BarrierRecord& b : r.blocks[0].barriers)
        CHECK(b.release - b.arrive <= uint64_t(h100().barrier_latency) + 8);
}

// Producer/consumer on a named barrier: warp 0 bar.arrive's (never waits),
// warp 1 bar.sync's on the same id and waits for the producer's data.
__global__ void named_barrier_kernel(uint32_t* out) {
    const uint32_t lane = uint32_t(tk::laneid());
    if (tk::warpid() == 0) {
        uint32_t v = lane;
        for (int i = 0; i < 10; ++i) v += tk::arch::ld_shared_b32(lane * 128 + uint32_t(i) * 4);  // slow: 32-way loads
        (void)v;
        tk::arch::st_shared_b32(4096 + lane * 4, lane * 3 + 1);
        tk::arch::bar_arrive(1, 64);
    } else {
        g_line_b = __LINE__; tk::arch::bar_sync(1, 64);
        const uint32_t w[1] = {tk::arch::ld_shared_b32(4096 + ((lane + 5) % 32) * 4)};
        tk::arch::st_global<1>(out + lane, w);
    }
}

TEST_CASE("barriers: bar.arrive / bar.sync order a producer and a consumer warp", "[sim][barrier]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    tk::device_buffer<uint32_t> out(32, "out");
    tk::launch("named_barrier", named_barrier_kernel, dim3(1), dim3(64), 8192, out.data());
    auto got = out.download();
    for (uint32_t l = 0; l < 32; ++l) CHECK(got[l] == ((l + 5) % 32) * 3 + 1);
    const RunResult& r = tklab::sim::last_run();
    const auto& bars = r.blocks[0].barriers;
    REQUIRE(bars.size() == 1);  // only the consumer waited
    CHECK(bars[0].warp == 1);
    CHECK(bars[0].last_warp == 0);
    CHECK(bars[0].id == 1);
    CHECK(bars[0].arrive < bars[0].release);
    CHECK(r.locations.at(bars[0].loc).line == g_line_b.load());
    CHECK(r.stats.by_op[size_t(Op::bar_arrive)] == 1);
    CHECK(r.stats.by_op[size_t(Op::bar_sync)] == 1);
}

// ------------------------------------------------------------ deadlocks

__global__ void partial_named_barrier_kernel() {
    tk::arch::st_shared_b32(uint32_t(tk::thread_id()) * 4, 1u);
    if (tk::warpid() < 2) { g_line_a = __LINE__; tk::arch::bar_sync(1, 128); }
}

TEST_CASE("deadlock: only 2 of 4 warps reach a 128-thread named barrier", "[sim][barrier][deadlock]") {
    try {
        tk::launch("partial_named_barrier", partial_named_barrier_kernel, dim3(1), dim3(128), 1024);
        FAIL("the deadlock was not reported");
    } catch (const SimError& e) {
        CHECK(e.kind == ErrorKind::sync_misuse);  // a barrier part of the block never reaches
        CHECK(e.line == g_line_a.load());
        CHECK(e.file == __FILE__);
        const std::string msg = e.what();
        CHECK_THAT(msg, Contains("synchronisation misuse") && Contains("warps 2-3 exited without reaching it"));
        CHECK_THAT(msg, Contains("partial_named_barrier"));
        CHECK_THAT(msg, Contains("bar.sync 1"));
        CHECK_THAT(msg, Contains("64 of 128 threads arrived"));
        CHECK_THAT(msg, Contains("warp 2: has exited"));
        CHECK_THAT(msg, Contains(":" + std::to_string(g_line_a.load())));
    }
    // What ran before the deadlock stays inspectable.
    const RunResult& r = tklab::sim::last_run();
    REQUIRE(r.blocks.size() == 1);
    CHECK(r.stats.by_op[size_t(Op::st_shared)] == 4);
}

__global__ void early_return_kernel(int blocks_ok) {
    tk::arch::st_shared_b32(uint32_t(tk::thread_id()) * 4, 1u);
    if (int(blockIdx.x) >= blocks_ok && tk::warpid() == 1) return;
    g_line_b = __LINE__; __syncthreads();
}

TEST_CASE("deadlock: a warp returns early before __syncthreads", "[sim][barrier][deadlock]") {
    // Block 0 and 1 are fine; block 2 deadlocks. The error names block 2.
    try {
        tk::launch("early_return", early_return_kernel, dim3(3), dim3(128), 1024, 2);
        FAIL("the deadlock was not reported");
    } catch (const SimError& e) {
        CHECK(e.kind == ErrorKind::sync_misuse);  // part of the block never reaches the barrier
        CHECK(e.line == g_line_b.load());
        CHECK(e.file == __FILE__);
        const std::string msg = e.what();
        CHECK_THAT(msg, Contains("block (2,0,0)"));
        CHECK_THAT(msg, Contains("warp 1: has exited"));
        CHECK_THAT(msg, Contains("96 of 128 threads arrived"));
    }
    const RunResult& r = tklab::sim::last_run();
    CHECK(r.blocks.size() == 3);
    // And the same kernel with no early return runs.
    CHECK_NOTHROW(tk::launch("early_return", early_return_kernel, dim3(3), dim3(128), 1024, 3));
}

__global__ void mbarrier_never_completes_kernel() {
    using namespace tk;
    shared_allocator al;
    semaphore& s = al.allocate<semaphore>();
    if (thread_id() == 0) init_semaphore(s, 64);  // expects 64 arrivals per phase
    __syncthreads();
    if (warpid() == 0) arrive(s);  // but only 32 threads ever arrive
    g_line_a = __LINE__; wait(s, 0);
}

TEST_CASE("deadlock: an mbarrier phase that can never complete", "[sim][barrier][deadlock][mbarrier]") {
    try {
        tk::launch("mbarrier_never_completes", mbarrier_never_completes_kernel, dim3(1), dim3(64), 1024);
        FAIL("the deadlock was not reported");
    } catch (const SimError& e) {
        CHECK(e.kind == ErrorKind::sync_misuse);
        CHECK(e.line == g_line_a.load());
        CHECK(e.file == __FILE__);
        const std::string msg = e.what();
        CHECK_THAT(msg, Contains("mbarrier"));
        CHECK_THAT(msg, Contains("32 of 64 arrivals"));
    }
}

__global__ void mbarrier_wrong_parity_kernel() {
    using namespace tk;
    shared_allocator al;
    semaphore& s = al.allocate<semaphore>();
    if (thread_id() == 0) init_semaphore(s, 32);
    __syncthreads();
    arrive(s);          // phase 0 completes
    wait(s, 0);         // fine
    g_line_b = __LINE__; wait(s, 1);  // phase 1 needs 32 more arrivals that never come
}

TEST_CASE("deadlock: waiting on the next mbarrier phase with no arrivals", "[sim][barrier][deadlock][mbarrier]") {
    try {
        tk::launch("mbarrier_wrong_parity", mbarrier_wrong_parity_kernel, dim3(1), dim3(32), 1024);
        FAIL("the deadlock was not reported");
    } catch (const SimError& e) {
        CHECK(e.kind == ErrorKind::sync_misuse);
        CHECK(e.line == g_line_b.load());
        CHECK_THAT(std::string(e.what()), Contains("parity 1"));
    }
}

} // namespace
