// A livelock must not hang the simulator: warps spinning on test_wait for a
// phase nothing can complete are reported at once, as a deadlock is, naming
// the spinning line; a loop that never ends while doing other work is stopped
// by the per-block instruction budget.
#include <catch2/catch.hpp>
#include "tk/tk.h"
#include "sim/simulator.h"

namespace {
int g_spin_line = 0;

__global__ void spin_forever_kernel() {
    tk::shared_allocator al;
    tk::semaphore& s = al.allocate<tk::semaphore>();
    if (threadIdx.x == 0) tk::init_semaphore(s, 32);
    __syncthreads();
    // Nobody ever arrives: phase 0 never completes.
    g_spin_line = __LINE__ + 1;
    while (!tk::test_wait(s, 0)) {}
}

int g_loop_line = 0;

// Reads shared memory forever: not a poll, so only the budget stops it.
__global__ void loop_forever_kernel() {
    const uint32_t at = 4 * uint32_t(threadIdx.x);
    tk::arch::st_shared_b32(at, at);
    uint32_t sum = 0;
    g_loop_line = __LINE__ + 1;
    for (;;) sum += tk::arch::ld_shared_b32(at);
}

__global__ void short_kernel(tk::gl<float> out) {
    tk::rt_fl<16, 16> t;
    tk::one(t);
    for (int i = 0; i < 10; ++i) tk::add(t, t, t);
    tk::store(out, t, {0, 0, 0, 0});
}
} // namespace

TEST_CASE("warps spinning on test_wait for a phase nothing completes are a livelock, reported at once", "[sim][limits]") {
    // The default budget (20 million warp instructions) is not what stops it.
    try {
        tk::launch("spin_forever", spin_forever_kernel, dim3(1), dim3(64), 64);
        FAIL("expected a livelock");
    } catch (const tklab::sim::SimError& e) {
        const std::string msg = e.what();
        INFO(msg);
        CHECK(e.kind == tklab::sim::ErrorKind::deadlock);
        CHECK(e.line == g_spin_line);
        CHECK_THAT(msg, Catch::Contains("livelock") && Catch::Contains("warp 0: polls mbarrier 0x0 for phase parity 0") &&
                            Catch::Contains("warp 1: polls") && Catch::Contains("0 of 32 arrivals") && Catch::Contains("fix:"));
    }
    // A few thousand polls per warp (sim/scheduler.cpp, kLivelockPolls), not millions.
    uint64_t executed = 0;
    for (const auto& b : tklab::sim::last_run().blocks) executed += b.events.size();
    CHECK(executed < 20000);
}

TEST_CASE("a loop that never ends while doing other work is stopped by the instruction budget", "[sim][limits]") {
    auto& opt = tklab::sim::options();
    const uint64_t saved = opt.max_block_instructions;
    opt.max_block_instructions = 20'000;
    try {
        tk::launch("loop_forever", loop_forever_kernel, dim3(1), dim3(64), 256);
        FAIL("expected the instruction limit");
    } catch (const tklab::sim::SimError& e) {
        CHECK(e.kind == tklab::sim::ErrorKind::instruction_limit);
        CHECK(e.line == g_loop_line);
        CHECK_THAT(std::string(e.what()), Catch::Contains("ld.shared"));
        CHECK_THAT(std::string(e.what()), Catch::Contains("max_block_instructions"));
    }
    opt.max_block_instructions = saved;
}

TEST_CASE("the instruction limit leaves ordinary kernels alone", "[sim][limits]") {
    auto& opt = tklab::sim::options();
    const uint64_t saved = opt.max_block_instructions;
    opt.max_block_instructions = 100;  // the kernel below needs a few dozen
    tk::device_buffer<float> out(256, "out");
    tk::launch("short", short_kernel, dim3(1), dim3(32), 0, tk::gl<float>(out.data(), 1, 1, 16, 16));
    CHECK(out.download()[17] == 1024.f);  // 1 doubled ten times
    opt.max_block_instructions = saved;
}
