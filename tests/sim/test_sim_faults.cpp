// Faults: a bad memory access in a simulated kernel is a SimError of kind
// fault naming the kernel's own source line and the address, never a crash.
#include "support/bug_finders_off.h"
#include <catch2/catch.hpp>

#include "tk/tk.h"
#include "sim/simulator.h"

#include <atomic>
#include <cstdint>
#include <sstream>
#include <string>

namespace {

using tklab::sim::ErrorKind;
using tklab::sim::Op;
using tklab::sim::SimError;
using Catch::Matchers::Contains;

// The kernel line of the offending call, stored by the kernel on that same line.
std::atomic<int> g_line{0};

std::string hex(uintptr_t v) {
    std::ostringstream s;
    s << "0x" << std::hex << v;
    return s.str();
}

// Runs `launch` expecting a fault at g_line of this file; returns the message.
template <class F>
std::string expect_fault(F&& launch) {
    g_line = -1;
    try {
        launch();
    } catch (const SimError& e) {
        CHECK(e.kind == ErrorKind::fault);
        CHECK(e.line == g_line.load());
        CHECK(e.line > 0);
        CHECK(e.file == __FILE__);
        const std::string msg = e.what();
        // The message starts with file:line, like a compiler diagnostic.
        CHECK_THAT(msg, Contains(std::string(__FILE__) + ":" + std::to_string(g_line.load())));
        return msg;
    }
    FAIL("the fault was not reported");
    return {};
}

// ------------------------------------------------------------ global memory

__global__ void global_load_oob_kernel(const float* p, int n) {
    const int lane = tk::laneid();
    uint32_t ok[1];
    tk::arch::ld_global<1>(ok, p + lane);  // in bounds
    uint32_t bad[1];
    g_line = __LINE__; tk::arch::ld_global<1>(bad, p + n + lane);  // one past the end, and beyond
}

TEST_CASE("faults: out-of-bounds global load names the line and the address", "[sim][fault]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    tk::device_buffer<float> buf(64, "weights");
    const std::string msg = expect_fault([&] {
        tk::launch("global_load_oob", global_load_oob_kernel, dim3(1), dim3(32), 0, (const float*)buf.data(), 64);
    });
    CHECK_THAT(msg, Contains("out-of-bounds global-memory load"));
    CHECK_THAT(msg, Contains(hex(uintptr_t(buf.data() + 64))));  // lane 0's address
    CHECK_THAT(msg, Contains("'weights'"));
    CHECK_THAT(msg, Contains("256 bytes past the start"));
    CHECK_THAT(msg, Contains("lane 0"));
    // The trace up to the fault stays inspectable: the in-bounds load is there,
    // from its own line (the faulting instruction may be recorded after it).
    const auto& r = tklab::sim::last_run();
    REQUIRE(r.blocks.size() == 1);
    REQUIRE(r.stats.by_op[size_t(Op::ld_global)] >= 1);
    const auto& first = r.blocks[0].events.at(0);
    CHECK(first.op == Op::ld_global);
    CHECK(r.locations.at(first.loc).line == g_line.load() - 2);
}

__global__ void global_store_oob_kernel(float* p, int n) {
    const uint32_t v[1] = {uint32_t(tk::laneid())};
    if (tk::laneid() == 7) { g_line = __LINE__; tk::arch::st_global<1>(p + n + 3, v); }
}

TEST_CASE("faults: out-of-bounds global store names the line and the address", "[sim][fault]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    tk::device_buffer<float> buf(100, "out");
    const std::string msg = expect_fault([&] {
        tk::launch("global_store_oob", global_store_oob_kernel, dim3(1), dim3(32), 0, buf.data(), 100);
    });
    CHECK_THAT(msg, Contains("out-of-bounds global-memory store"));
    CHECK_THAT(msg, Contains(hex(uintptr_t(buf.data() + 103))));
    CHECK_THAT(msg, Contains("lane 7"));
}

__global__ void global_load_in_later_block_kernel(const float* p, int n) {
    uint32_t r[1];
    const int i = int(blockIdx.x) * 32 + tk::laneid();
    if (i < n + 32) { g_line = __LINE__; tk::arch::ld_global<1>(r, p + i); }
}

TEST_CASE("faults: a fault in a later block reports that block", "[sim][fault]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    tk::device_buffer<float> buf(96, "x");
    const std::string msg = expect_fault([&] {
        tk::launch("global_load_in_later_block", global_load_in_later_block_kernel, dim3(4), dim3(32), 0,
                   (const float*)buf.data(), 96);
    });
    CHECK_THAT(msg, Contains("block (3,0,0)"));
    CHECK_THAT(msg, Contains(hex(uintptr_t(buf.data() + 96))));
}

// ------------------------------------------------------------ shared memory

__global__ void shared_load_oob_kernel(uint32_t smem_bytes) {
    uint32_t r[1];
    tk::arch::ld_shared<1>(r, uint32_t(tk::laneid()) * 4);  // in bounds
    g_line = __LINE__; tk::arch::ld_shared<1>(r, smem_bytes + uint32_t(tk::laneid()) * 4);
}

TEST_CASE("faults: shared load beyond the launch's shared bytes", "[sim][fault][shared]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    const std::string msg = expect_fault([&] {
        tk::launch("shared_load_oob", shared_load_oob_kernel, dim3(1), dim3(32), 1024, uint32_t(1024));
    });
    CHECK_THAT(msg, Contains("out-of-bounds shared-memory load"));
    CHECK_THAT(msg, Contains("shared address 0x400"));
    CHECK_THAT(msg, Contains("1024 bytes of dynamic shared memory"));
}

__global__ void shared_store_straddles_end_kernel() {
    const uint32_t v[4] = {1, 2, 3, 4};
    // Lane 31's 16 bytes start inside the arena but end past it.
    g_line = __LINE__; tk::arch::st_shared<4>(512 + uint32_t(tk::laneid()) * 16, v);
}

TEST_CASE("faults: shared store whose bytes run past the end", "[sim][fault][shared]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    // Lanes write 16 bytes each at 512 + 16*lane: lane 31 covers 1008..1023 of a
    // 1016-byte arena.
    const std::string msg = expect_fault([&] {
        tk::launch("shared_store_straddles_end", shared_store_straddles_end_kernel, dim3(1), dim3(32), 1016);
    });
    CHECK_THAT(msg, Contains("out-of-bounds shared-memory store of 16 bytes"));
    CHECK_THAT(msg, Contains("shared address 0x3f0"));
    CHECK_THAT(msg, Contains("lane 31"));
}

__global__ void shared_misaligned_kernel() {
    uint32_t r[4];
    g_line = __LINE__; tk::arch::ld_shared<4>(r, 8 + uint32_t(tk::laneid()) * 16);  // 8 mod 16
}

TEST_CASE("faults: misaligned 16-byte shared access", "[sim][fault][shared]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    const std::string msg = expect_fault([&] {
        tk::launch("shared_misaligned", shared_misaligned_kernel, dim3(1), dim3(32), 4096);
    });
    CHECK_THAT(msg, Contains("misaligned shared-memory load of 16 bytes"));
    CHECK_THAT(msg, Contains("shared address 0x8"));
    CHECK_THAT(msg, Contains("16 bytes"));
}

__global__ void shared_misaligned_store_kernel() {
    const uint32_t v[2] = {1, 2};
    g_line = __LINE__; tk::arch::st_shared<2>(uint32_t(tk::laneid()) * 8 + (tk::laneid() == 5 ? 4 : 0), v);
}

TEST_CASE("faults: misaligned 8-byte shared store by one lane", "[sim][fault][shared]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    const std::string msg = expect_fault([&] {
        tk::launch("shared_misaligned_store", shared_misaligned_store_kernel, dim3(1), dim3(32), 4096);
    });
    CHECK_THAT(msg, Contains("misaligned shared-memory store of 8 bytes"));
    CHECK_THAT(msg, Contains("shared address 0x2c"));  // 5 * 8 + 4
    CHECK_THAT(msg, Contains("lane 5"));
}

__global__ void cp_async_dst_oob_kernel(const float* src) {
    const uint32_t lane = uint32_t(tk::laneid());
    g_line = __LINE__; tk::arch::cp_async<16>(2048 + lane * 16, src + lane * 4);  // arena is 2048 bytes
    tk::arch::cp_async_commit();
    tk::arch::cp_async_wait<0>();
}

TEST_CASE("faults: cp.async into shared memory beyond the arena", "[sim][fault][shared]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    tk::device_buffer<float> buf(128, "src");
    const std::string msg = expect_fault([&] {
        tk::launch("cp_async_dst_oob", cp_async_dst_oob_kernel, dim3(1), dim3(32), 2048, (const float*)buf.data());
    });
    CHECK_THAT(msg, Contains("cp.async destination"));
    CHECK_THAT(msg, Contains("shared address 0x800"));
}

// A shared tile reference that points into global memory: the shared-address
// conversion itself faults, at the tile op's calling line.
__global__ void not_shared_tile_kernel(tk::bf16* global_tile) {
    auto& fake = *reinterpret_cast<tk::st_bf<16, 16>*>(global_tile);
    tk::rt_bf<16, 16> r;
    g_line = __LINE__; tk::load(r, fake);
}

TEST_CASE("faults: a tile op given a shared tile that is not in shared memory", "[sim][fault][shared]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    tk::device_buffer<tk::bf16> buf(256, "g");
    const std::string msg = expect_fault([&] {
        tk::launch("not_shared_tile", not_shared_tile_kernel, dim3(1), dim3(32), 1024, buf.data());
    });
    CHECK_THAT(msg, Contains("not into the block's shared memory"));
}

// ------------------------------------------------------------ tile ops

__global__ void tile_load_outside_kernel(tk::gl<float> g, int row_tile) {
    tk::rt_fl<16, 16> r;
    tk::load(r, g, {0, 0, 0, 0});  // fine
    g_line = __LINE__; tk::load(r, g, {0, 0, row_tile, 0});
}

TEST_CASE("faults: tk::load of a register tile at a coord outside the tensor reports the calling line", "[sim][fault][tile]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    tk::device_buffer<float> buf(32 * 32, "t");
    tk::gl<float> g(buf.data(), 1, 1, 32, 32);
    // Row tile 1 is the last valid one; 2 is outside.
    CHECK_NOTHROW(tk::launch("tile_load_outside", tile_load_outside_kernel, dim3(1), dim3(32), 0, g, 1));
    const std::string msg = expect_fault([&] {
        tk::launch("tile_load_outside", tile_load_outside_kernel, dim3(1), dim3(32), 0, g, 2);
    });
    CHECK_THAT(msg, Contains("tile coordinate is outside the global tensor"));
    CHECK_THAT(msg, Contains("fix:"));
}

__global__ void tile_store_outside_kernel(tk::gl<float> g) {
    tk::rt_fl<16, 16> r;
    tk::load(r, g, {0, 0, 0, 0});
    g_line = __LINE__; tk::store(g, r, {0, 0, 0, 2});
}

TEST_CASE("faults: tk::store of a register tile at a coord outside the tensor reports the calling line", "[sim][fault][tile]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    tk::device_buffer<float> buf(32 * 32, "t");
    tk::gl<float> g(buf.data(), 1, 1, 32, 32);
    const std::string msg = expect_fault([&] {
        tk::launch("tile_store_outside", tile_store_outside_kernel, dim3(1), dim3(32), 0, g);
    });
    CHECK_THAT(msg, Contains("tile coordinate is outside the global tensor"));
}

// A tile op whose coordinate is inside the tensor's declared shape, but whose
// declared shape is larger than the allocation: the instruction-level bounds
// check catches it, still at the calling kernel line.
__global__ void tile_load_past_allocation_kernel(tk::gl<float> g) {
    tk::rt_fl<16, 16> r;
    g_line = __LINE__; tk::load(r, g, {0, 0, 1, 0});
}

TEST_CASE("faults: a tile op reading past the allocation faults at the calling line", "[sim][fault][tile]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    tk::device_buffer<float> buf(16 * 16, "small");
    tk::gl<float> g(buf.data(), 1, 1, 32, 16);  // claims 32 rows, has 16
    const std::string msg = expect_fault([&] {
        tk::launch("tile_load_past_allocation", tile_load_past_allocation_kernel, dim3(1), dim3(32), 0, g);
    });
    CHECK_THAT(msg, Contains("out-of-bounds global-memory load"));
    CHECK_THAT(msg, Contains("'small'"));
}

} // namespace
