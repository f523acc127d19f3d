// A livelock must not hang the simulator: a warp spinning on test_wait for a
// phase that never completes is stopped by the per-block instruction budget,
// with the spinning line named.
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

__global__ void short_kernel(tk::gl<float> out) {
    tk::rt_fl<16, 16> t;
    tk::one(t);
    for (int i = 0; i < 10; ++i) tk::add(t, t, t);
    tk::store(out, t, {0, 0, 0, 0});
}
} // namespace

TEST_CASE("a warp spinning on test_wait forever is stopped, not hung", "[sim][limits]") {
    auto& opt = tklab::sim::options();
    const uint64_t saved = opt.max_block_instructions;
    opt.max_block_instructions = 20'000;
    try {
        tk::launch("spin_forever", spin_forever_kernel, dim3(1), dim3(64), 64);
        FAIL("expected the instruction limit");
    } catch (const tklab::sim::SimError& e) {
        CHECK(e.kind == tklab::sim::ErrorKind::instruction_limit);
        CHECK(e.line == g_spin_line);
        CHECK_THAT(std::string(e.what()), Catch::Contains("mbarrier.test_wait"));
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
