// The race finder and cp.async: on a GPU a copy may land in shared memory at
// any moment from its issue until the wait_group that retires its group, so
// the finder counts the write from the issue. A refill that overtakes another
// warp's read is a race at the cp.async's line; a read of a destination
// before its wait is a race at the read; with the barriers and waits in
// place there is none. (Lesson 5's wrong/no_second_sync.cuh is the same bug
// in a double-buffered GEMM.)
#include <catch2/catch.hpp>

#include "tk/tk.h"
#include "tk/host/reference.h"
#include "sim/simulator.h"

#include <atomic>
#include <string>
#include <vector>

namespace {

using tklab::sim::ErrorKind;
using tklab::sim::SimError;
using Catch::Matchers::Contains;

std::atomic<int> g_copy_line{0}, g_read_line{0};

// Every warp reads 32 words of a staged chunk, then warp 0 refills the chunk
// with cp.async for the next round; `barrier_after_reads` says whether the
// reads are ordered before the refill.
__global__ void refill_kernel(const uint32_t* in, uint32_t* out, int rounds, bool barrier_after_reads) {
    const uint32_t lane = uint32_t(tk::laneid()), w = uint32_t(tk::warpid());
    const uint32_t base = tk::arch::smem_addr(tk::dynamic_shared_memory());
    uint32_t acc = 0;
    for (int r = 0; r < rounds; ++r) {
        if (w == 0) {
            g_copy_line = __LINE__ + 1;
            tk::arch::cp_async<4>(base + 4 * lane, in + 32 * r + lane);
            tk::arch::cp_async_commit();
            tk::arch::cp_async_wait<0>();
        }
        tk::arch::syncthreads();
        uint32_t v[1];
        g_read_line = __LINE__ + 1;
        tk::arch::ld_shared<1>(v, base + 4 * ((lane + w) % 32));
        acc += v[0];
        if (barrier_after_reads) tk::arch::syncthreads();
    }
    const uint32_t o[1] = {acc};
    tk::arch::st_global<1>(out + 32 * w + lane, o);
}

// One warp stages a chunk with plain stores, then starts a cp.async over it
// and reads it back before (or after) the wait that retires the copy.
__global__ void read_before_wait_kernel(const uint32_t* in, uint32_t* out, bool wait_first) {
    const uint32_t lane = uint32_t(tk::laneid());
    const uint32_t base = tk::arch::smem_addr(tk::dynamic_shared_memory());
    const uint32_t zero[1] = {0};
    tk::arch::st_shared<1>(base + 4 * lane, zero);
    tk::arch::syncwarp();
    tk::arch::cp_async<4>(base + 4 * lane, in + lane);
    tk::arch::cp_async_commit();
    if (wait_first) tk::arch::cp_async_wait<0>();
    uint32_t v[1];
    g_read_line = __LINE__ + 1;
    tk::arch::ld_shared<1>(v, base + 4 * lane);
    tk::arch::cp_async_wait<0>();
    tk::arch::st_global<1>(out + lane, v);
}

std::vector<uint32_t> random_words(size_t n, uint32_t seed) {
    std::vector<uint32_t> v;
    for (float f : tk::host::random_values<float>(n, seed)) v.push_back(uint32_t(int32_t(f * 1000.f)));
    return v;
}

} // namespace

TEST_CASE("bug finders: a cp.async refill that overtakes another warp's read is a race at the copy", "[sim][bug_finders]") {
    const int rounds = 3;
    const std::vector<uint32_t> in = random_words(32 * rounds, 41);
    tk::device_buffer<uint32_t> d_in(in.size(), in, "in"), out(128, "out");

    // With the barrier after the reads: no finding, and every warp summed each round's chunk.
    tk::launch("refill_ordered", refill_kernel, dim3(1), dim3(128), 128, (const uint32_t*)d_in.data(), out.data(), rounds, true);
    const std::vector<uint32_t> got = out.download();
    for (uint32_t w = 0; w < 4; ++w)
        for (uint32_t lane = 0; lane < 32; ++lane) {
            uint32_t sum = 0;
            for (int r = 0; r < rounds; ++r) sum += in[size_t(32 * r) + (lane + w) % 32];
            CHECK(got[32 * w + lane] == sum);
        }

    // Without it: the second round's cp.async races the first round's reads,
    // even though the simulator lands the data only at the wait (after which
    // the next barrier would have ordered a landing-time write).
    try {
        tk::launch("refill_too_soon", refill_kernel, dim3(1), dim3(128), 128, (const uint32_t*)d_in.data(), out.data(), rounds, false);
        FAIL("the refill's race was not reported");
    } catch (const SimError& e) {
        const std::string msg = e.what();
        INFO(msg);
        CHECK(e.kind == ErrorKind::race);
        CHECK(e.line == g_copy_line.load());
        CHECK_THAT(msg, Contains("write after read") && Contains("a cp.async issued by warp 0") &&
                            Contains(":" + std::to_string(g_read_line.load())) && Contains("reads (ld.shared)") &&
                            Contains("refills it"));
    }
}

TEST_CASE("bug finders: reading a cp.async's destination before its wait is a race", "[sim][bug_finders]") {
    const std::vector<uint32_t> in = random_words(32, 42);
    tk::device_buffer<uint32_t> d_in(in.size(), in, "in"), out(32, "out");

    tk::launch("read_after_wait", read_before_wait_kernel, dim3(1), dim3(32), 128, (const uint32_t*)d_in.data(), out.data(), true);
    const std::vector<uint32_t> got = out.download();
    for (uint32_t lane = 0; lane < 32; ++lane) CHECK(got[lane] == in[lane]);

    try {
        tk::launch("read_before_wait", read_before_wait_kernel, dim3(1), dim3(32), 128, (const uint32_t*)d_in.data(), out.data(), false);
        FAIL("the read before the wait was not reported");
    } catch (const SimError& e) {
        const std::string msg = e.what();
        INFO(msg);
        CHECK(e.kind == ErrorKind::race);
        CHECK(e.line == g_read_line.load());
        CHECK_THAT(msg, Contains("read after write") && Contains("earlier: a cp.async issued by warp 0") &&
                            Contains("cp.async.wait_group"));
    }
}
