// Shared-memory bank analysis as the simulator records it for REAL kernels:
// the addresses come from kernel code through the instruction layer, and the
// counts land in RunResult (per-instruction SmemRecord and the Stats totals).
// tests/sim/test_banks.cpp tests the pure analysis function; this file checks
// that the engine feeds it the right lanes/widths and records what it says.
#include "support/bug_finders_off.h"
#include <catch2/catch.hpp>

#include "tk/tk.h"
#include "sim/simulator.h"
#include "support/test_data.h"

#include <cstring>
#include <vector>

namespace {

using tklab::sim::BlockTrace;
using tklab::sim::Event;
using tklab::sim::Op;
using tklab::sim::RunResult;
using tklab::sim::SmemRecord;

// The shared-memory events of one kind in block 0, in issue order.
std::vector<const Event*> events_of(const RunResult& r, Op op) {
    std::vector<const Event*> out;
    for (const Event& e : r.blocks.at(0).events)
        if (e.op == op) out.push_back(&e);
    return out;
}
const SmemRecord& smem_of(const RunResult& r, const Event& e) {
    REQUIRE(e.smem >= 0);
    const BlockTrace& b = r.blocks.at(0);
    REQUIRE(size_t(e.smem) < b.smem.size());
    const SmemRecord& s = b.smem[size_t(e.smem)];
    REQUIRE(&b.events[s.event] == &e);  // the record points back at its event
    return s;
}
int bank_word_sum(const SmemRecord& s) {
    int n = 0;
    for (int b = 0; b < 32; ++b) n += s.banks.bank_words[b];
    return n;
}

// ------------------------------------------------------------ plain ld.shared / st.shared

// One warp. Lane l loads Words 32-bit words at byte address l * stride_bytes
// (lanes outside `active` skip the load: a divergent branch).
template <int Words>
__global__ void strided_load_kernel(uint32_t stride_bytes, uint32_t active) {
    const int lane = tk::laneid();
    if (active >> lane & 1u) {
        uint32_t r[Words];
        tk::arch::ld_shared<Words>(r, uint32_t(lane) * stride_bytes);
    }
}

template <int Words>
const RunResult& run_strided(uint32_t stride_bytes, uint32_t active = 0xffffffffu) {
    const size_t smem = size_t(32) * stride_bytes + 64;
    tk::launch("strided_load", strided_load_kernel<Words>, dim3(1), dim3(32), smem < 1024 ? 1024 : smem, stride_bytes, active);
    return tklab::sim::last_run();
}

void check_one_load(const RunResult& r, int bytes, uint32_t mask, int wavefronts, int ideal, int max_way) {
    auto lds = events_of(r, Op::ld_shared);
    REQUIRE(lds.size() == 1);
    const Event& e = *lds[0];
    CHECK(e.mask == mask);
    CHECK(int(e.aux) == bytes);
    const SmemRecord& s = smem_of(r, e);
    CHECK(s.banks.wavefronts == wavefronts);
    CHECK(s.banks.ideal == ideal);
    CHECK(s.banks.conflicts() == wavefronts - ideal);
    CHECK(s.banks.max_way == max_way);
    // Lane addresses are kept exactly for the conflicted instructions.
    CHECK((s.lanes >= 0) == (wavefronts > ideal));
    // Stats totals agree with the single record; nothing else was counted.
    const auto& st = r.stats;
    CHECK(st.ld_shared.instructions == 1);
    CHECK(st.ld_shared.wavefronts == uint64_t(wavefronts));
    CHECK(st.ld_shared.ideal == uint64_t(ideal));
    CHECK(st.ld_shared.conflicts() == uint64_t(wavefronts - ideal));
    CHECK(st.ld_shared.max_way == max_way);
    CHECK(st.st_shared.instructions == 0);
    CHECK(st.ldmatrix.instructions == 0);
    CHECK(st.by_op[size_t(Op::ld_shared)] == 1);
}

TEST_CASE("banks in kernels: 32-bit loads, stride 64 words -> 32 wavefronts, 31 conflicts", "[sim][banks]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    const RunResult& r = run_strided<1>(64 * 4);
    check_one_load(r, 4, 0xffffffffu, 32, 1, 32);
    const SmemRecord& s = smem_of(r, *events_of(r, Op::ld_shared)[0]);
    // Every lane's word sits in bank 0.
    CHECK(s.banks.bank_words[0] == 32);
    CHECK(bank_word_sum(s) == 32);
    // The kept lane addresses are the ones the kernel computed.
    const BlockTrace& b = r.blocks[0];
    REQUIRE(b.lane_addrs.size() >= size_t(s.lanes) + 32);
    for (int l = 0; l < 32; ++l) CHECK(b.lane_addrs[size_t(s.lanes) + l] == uint32_t(l * 256));
    CHECK(r.stats.ld_shared.conflicts() == 31);
}

TEST_CASE("banks in kernels: 32-bit loads, stride 17 words -> conflict-free", "[sim][banks]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    const RunResult& r = run_strided<1>(17 * 4);
    check_one_load(r, 4, 0xffffffffu, 1, 1, 1);
    const SmemRecord& s = smem_of(r, *events_of(r, Op::ld_shared)[0]);
    for (int b = 0; b < 32; ++b) CHECK(s.banks.bank_words[b] == 1);  // a permutation of the banks
}

TEST_CASE("banks in kernels: 64-bit loads", "[sim][banks]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    SECTION("contiguous: two half-warp phases, conflict-free") {
        check_one_load(run_strided<2>(8), 8, 0xffffffffu, 2, 2, 1);
    }
    SECTION("stride 32 words: each half-warp hits banks 0-1 with 16 words -> 32 wavefronts") {
        check_one_load(run_strided<2>(128), 8, 0xffffffffu, 32, 2, 16);
    }
    SECTION("stride 4 words: two lanes share each bank pair -> 2-way per half") {
        // lane l covers banks 4l%32 .. 4l%32+1; within 16 lanes banks repeat every 8 lanes.
        check_one_load(run_strided<2>(16), 8, 0xffffffffu, 4, 2, 2);
    }
}

TEST_CASE("banks in kernels: 128-bit loads", "[sim][banks]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    SECTION("contiguous: four quarter-warp phases, conflict-free") {
        check_one_load(run_strided<4>(16), 16, 0xffffffffu, 4, 4, 1);
    }
    SECTION("stride 32 words: every quarter lands on banks 0-3 -> 8-way, 32 wavefronts") {
        check_one_load(run_strided<4>(128), 16, 0xffffffffu, 32, 4, 8);
    }
    SECTION("stride 8 words: 2-way per quarter") {
        check_one_load(run_strided<4>(32), 16, 0xffffffffu, 8, 4, 2);
    }
}

TEST_CASE("banks in kernels: a broadcast is one wavefront", "[sim][banks]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    SECTION("all lanes read the same word") {
        const RunResult& r = run_strided<1>(0);
        check_one_load(r, 4, 0xffffffffu, 1, 1, 1);
        const SmemRecord& s = smem_of(r, *events_of(r, Op::ld_shared)[0]);
        CHECK(s.banks.bank_words[0] == 1);
        CHECK(bank_word_sum(s) == 1);
    }
}

// Pairs of lanes read the same word, and the 16 words are 32 words apart:
// the broadcast halves the conflict (16-way, not 32-way).
__global__ void pair_broadcast_kernel() {
    uint32_t r[1];
    tk::arch::ld_shared<1>(r, uint32_t(tk::laneid() / 2) * 128);
}
TEST_CASE("banks in kernels: lanes sharing a word broadcast within a conflicted access", "[sim][banks]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    tk::launch("pair_broadcast", pair_broadcast_kernel, dim3(1), dim3(32), 4096);
    check_one_load(tklab::sim::last_run(), 4, 0xffffffffu, 16, 1, 16);
}

TEST_CASE("banks in kernels: inactive lanes take no part", "[sim][banks]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    SECTION("32-bit, stride 64 words, only lanes 0-15 load -> 16 wavefronts") {
        check_one_load(run_strided<1>(256, 0x0000ffffu), 4, 0x0000ffffu, 16, 1, 16);
    }
    SECTION("32-bit, stride 64 words, only even lanes load -> 16 wavefronts") {
        check_one_load(run_strided<1>(256, 0x55555555u), 4, 0x55555555u, 16, 1, 16);
    }
    SECTION("64-bit contiguous, upper half-warp only -> one phase, conflict-free") {
        // A phase with no active lane costs nothing and is not part of `ideal`.
        check_one_load(run_strided<2>(8, 0xffff0000u), 8, 0xffff0000u, 1, 1, 1);
    }
    SECTION("128-bit, stride 32 words, one lane per quarter -> 4 wavefronts, no conflict") {
        check_one_load(run_strided<4>(128, 0x01010101u), 16, 0x01010101u, 4, 4, 1);
    }
}

// 16-bit accesses count their containing 4-byte word: neighbouring lanes in
// one word broadcast; a stride of 32 words still conflicts 32-way.
__global__ void b16_kernel() {
    const uint32_t lane = uint32_t(tk::laneid());
    (void)tk::arch::ld_shared_b16(lane * 2);          // 16 words, 2 lanes each
    tk::arch::st_shared_b16(lane * 128 + 2, uint16_t(lane));  // 32 words in bank 0
}
TEST_CASE("banks in kernels: 16-bit accesses", "[sim][banks]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    tk::launch("b16", b16_kernel, dim3(1), dim3(32), 4096);
    const RunResult& r = tklab::sim::last_run();
    auto lds = events_of(r, Op::ld_shared);
    auto sts = events_of(r, Op::st_shared);
    REQUIRE(lds.size() == 1);
    REQUIRE(sts.size() == 1);
    CHECK(int(lds[0]->aux) == 2);
    const SmemRecord& l = smem_of(r, *lds[0]);
    CHECK(l.banks.wavefronts == 1);
    CHECK(l.banks.ideal == 1);
    CHECK(bank_word_sum(l) == 16);
    const SmemRecord& st = smem_of(r, *sts[0]);
    CHECK(st.banks.wavefronts == 32);
    CHECK(st.banks.max_way == 32);
    CHECK(st.banks.bank_words[0] == 32);
    CHECK(r.stats.st_shared.conflicts() == 31);
    CHECK(r.stats.ld_shared.conflicts() == 0);
}

// Stores are counted under st_shared, loads under ld_shared.
__global__ void store_then_load_kernel() {
    const uint32_t lane = uint32_t(tk::laneid());
    tk::arch::st_shared_b32(lane * 256, lane + 1000);  // stride 64 words: 32-way store
    tk::arch::st_shared_b32(lane * 256 + 4, lane);     // another conflicted store
    __syncwarp();
    const uint32_t v = tk::arch::ld_shared_b32(((lane + 1) % 32) * 256);  // 32-way load
    uint32_t w[2];
    tk::arch::ld_shared<2>(w, 8 * 1024 + lane * 8);  // conflict-free 64-bit load
    (void)w;
    tk::arch::st_shared_b32(12 * 1024 + lane * 4, v);  // conflict-free store
}
TEST_CASE("banks in kernels: stores and loads are reported separately", "[sim][banks]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    tk::launch("store_then_load", store_then_load_kernel, dim3(1), dim3(32), 16 * 1024);
    const RunResult& r = tklab::sim::last_run();
    const auto& st = r.stats;
    CHECK(st.st_shared.instructions == 3);
    CHECK(st.st_shared.wavefronts == 32 + 32 + 1);
    CHECK(st.st_shared.ideal == 3);
    CHECK(st.st_shared.conflicts() == 62);
    CHECK(st.st_shared.max_way == 32);
    CHECK(st.ld_shared.instructions == 2);
    CHECK(st.ld_shared.wavefronts == 32 + 2);
    CHECK(st.ld_shared.ideal == 1 + 2);
    CHECK(st.ld_shared.conflicts() == 31);
    CHECK(st.ldmatrix.instructions == 0);
    CHECK(st.stmatrix.instructions == 0);
    CHECK(st.by_op[size_t(Op::st_shared)] == 3);
    CHECK(st.by_op[size_t(Op::ld_shared)] == 2);
    // Per-instruction records match, in program order.
    auto sts = events_of(r, Op::st_shared);
    REQUIRE(sts.size() == 3);
    CHECK(smem_of(r, *sts[0]).banks.wavefronts == 32);
    CHECK(smem_of(r, *sts[1]).banks.wavefronts == 32);
    CHECK(smem_of(r, *sts[2]).banks.wavefronts == 1);
    CHECK(smem_of(r, *sts[0]).lanes >= 0);
    CHECK(smem_of(r, *sts[2]).lanes < 0);
    // Every shared record is referenced by exactly one event.
    CHECK(r.blocks[0].smem.size() == 5);
}

// ------------------------------------------------------------ ldmatrix on shared tiles

// One warp: global -> shared tile (st.shared.v4) -> register tile (ldmatrix.x4
// per 16x16 sub-tile) -> global, so the values check the swizzle too.
template <int Swizzle>
__global__ void ldmatrix_tile_kernel(tk::gl<tk::bf16> in, tk::gl<tk::bf16> out) {
    using namespace tk;
    shared_allocator al;
    using st_t = st_bf<16, 64, Swizzle>;
    st_t& s = al.allocate<st_t>();
    group<1>::load(s, in, {0, 0, 0, 0});
    __syncwarp();
    rt_bf<16, 64> r;
    load(r, s);
    store(out, r, {0, 0, 0, 0});
}

template <int Swizzle>
const RunResult& run_ldmatrix_tile() {
    auto a = tktest::random_values<tk::bf16>(16 * 64, 77);
    tk::device_buffer<tk::bf16> din(a.size(), a, "in"), dout(a.size(), "out");
    tk::gl<tk::bf16> gin(din.data(), 1, 1, 16, 64), gout(dout.data(), 1, 1, 16, 64);
    tk::launch("ldmatrix_tile", ldmatrix_tile_kernel<Swizzle>, dim3(1), dim3(32), 4096, gin, gout);
    auto got = dout.download();
    REQUIRE(got.size() == a.size());
    CHECK(std::memcmp(got.data(), a.data(), a.size() * sizeof(tk::bf16)) == 0);
    return tklab::sim::last_run();
}

TEST_CASE("banks in kernels: ldmatrix on an unswizzled 64-column bf16 tile is 8-way", "[sim][banks][ldmatrix]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    using st_t = tk::st_bf<16, 64, tk::swizzle::none>;
    static_assert(st_t::swizzle_bytes == 0 && st_t::row_bytes == 128);
    const RunResult& r = run_ldmatrix_tile<tk::swizzle::none>();
    const auto& st = r.stats;
    // Four 16x16 sub-tiles, one ldmatrix.x4 each.
    CHECK(st.ldmatrix.instructions == 4);
    CHECK(st.ldmatrix.wavefronts == 4 * 32);
    CHECK(st.ldmatrix.ideal == 4 * 4);
    CHECK(st.ldmatrix.conflicts() == 4 * 28);
    CHECK(st.ldmatrix.max_way == 8);
    // The group load's 16-byte stores of whole rows are conflict-free.
    CHECK(st.st_shared.instructions == 4);
    CHECK(st.st_shared.conflicts() == 0);
    CHECK(st.ld_shared.instructions == 0);

    auto lds = events_of(r, Op::ldmatrix);
    REQUIRE(lds.size() == 4);
    const BlockTrace& b = r.blocks[0];
    for (int j = 0; j < 4; ++j) {
        const Event& e = *lds[size_t(j)];
        CHECK(int(e.aux) == 4);  // .x4
        CHECK(e.mask == 0xffffffffu);
        const SmemRecord& s = smem_of(r, e);
        CHECK(s.banks.wavefronts == 32);
        CHECK(s.banks.ideal == 4);
        CHECK(s.banks.conflicts() == 28);
        CHECK(s.banks.max_way == 8);
        // 32 lanes x 16 bytes, on the 8 banks of columns 16j..16j+15.
        CHECK(bank_word_sum(s) == 128);
        for (int k = 0; k < 32; ++k) CHECK(int(s.banks.bank_words[k]) == (k / 8 == j ? 16 : 0));
        // Conflicted: the 32 row addresses are kept, and are the tile's own offsets
        // (the tile is the first allocation, at shared address 0).
        REQUIRE(s.lanes >= 0);
        REQUIRE(b.lane_addrs.size() >= size_t(s.lanes) + 32);
        for (int l = 0; l < 32; ++l) {
            const int row = l % 8 + 8 * ((l / 8) % 2), col = 16 * j + 8 * (l / 16);
            CHECK(b.lane_addrs[size_t(s.lanes) + l] == uint32_t(row * 128 + col * 2));
        }
        // Attributed to the tk::load call (an op), not to an internal header line.
        REQUIRE(e.op_name < r.op_names.size());
        CHECK(r.op_names[e.op_name] == "load");
        REQUIRE(e.loc < r.locations.size());
        CHECK(r.locations[e.loc].file == __FILE__);
    }
}

TEST_CASE("banks in kernels: ldmatrix on the automatically (128B) swizzled tile is conflict-free", "[sim][banks][ldmatrix]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    using st_t = tk::st_bf<16, 64>;
    static_assert(st_t::swizzle_bytes == 128);
    const RunResult& r = run_ldmatrix_tile<tk::swizzle::automatic>();
    const auto& st = r.stats;
    CHECK(st.ldmatrix.instructions == 4);
    CHECK(st.ldmatrix.wavefronts == 16);
    CHECK(st.ldmatrix.ideal == 16);
    CHECK(st.ldmatrix.conflicts() == 0);
    CHECK(st.ldmatrix.max_way == 1);
    CHECK(st.st_shared.instructions == 4);
    CHECK(st.st_shared.conflicts() == 0);
    auto lds = events_of(r, Op::ldmatrix);
    REQUIRE(lds.size() == 4);
    for (const Event* e : lds) {
        const SmemRecord& s = smem_of(r, *e);
        CHECK(s.banks.wavefronts == 4);
        CHECK(s.banks.ideal == 4);
        CHECK(s.banks.max_way == 1);
        // 32 rows x 4 words spread evenly: every bank serves exactly 4 words.
        for (int k = 0; k < 32; ++k) CHECK(s.banks.bank_words[k] == 4);
        CHECK(s.lanes < 0);  // not conflicted: no lane addresses kept by default
    }
}

TEST_CASE("banks in kernels: all_lane_addresses keeps addresses of conflict-free instructions too", "[sim][banks]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    struct Restore {
        bool old = tklab::sim::options().all_lane_addresses;
        ~Restore() { tklab::sim::options().all_lane_addresses = old; }
    } restore;
    tklab::sim::options().all_lane_addresses = true;
    const RunResult& r = run_strided<1>(17 * 4);
    const SmemRecord& s = smem_of(r, *events_of(r, Op::ld_shared)[0]);
    CHECK(s.banks.conflicts() == 0);
    REQUIRE(s.lanes >= 0);
    for (int l = 0; l < 32; ++l) CHECK(r.blocks[0].lane_addrs[size_t(s.lanes) + l] == uint32_t(l * 68));
}

// ------------------------------------------------------------ the classic transpose

// 32x32 floats through shared memory with a block of 32x8 threads: rows are
// written (conflict-free), columns are read. With Pad = 0 a column is 32 words
// apart -> 32-way; padding each row to 33 floats spreads a column over all banks.
template <int Pad>
__global__ void transpose_kernel(const float* in, float* out) {
    constexpr int ld = 32 + Pad;
    tk::shared_allocator al;
    struct tile_t { float v[32 * ld]; };
    tile_t& t = al.allocate<tile_t>();
    const uint32_t base = tk::arch::smem_addr(&t.v[0]);
    const int x = int(threadIdx.x);
    for (int y = int(threadIdx.y); y < 32; y += 8) {
        uint32_t w[1];
        tk::arch::ld_global<1>(w, in + y * 32 + x);
        tk::arch::st_shared_b32(base + uint32_t(y * ld + x) * 4, w[0]);  // row write
    }
    __syncthreads();
    for (int y = int(threadIdx.y); y < 32; y += 8) {
        const uint32_t w[1] = {tk::arch::ld_shared_b32(base + uint32_t(x * ld + y) * 4)};  // column read
        tk::arch::st_global<1>(out + y * 32 + x, w);
    }
}

template <int Pad>
const RunResult& run_transpose() {
    auto a = tktest::random_values<float>(32 * 32, 5 + Pad);
    tk::device_buffer<float> din(a.size(), a, "in"), dout(a.size(), "out");
    tk::launch("transpose", transpose_kernel<Pad>, dim3(1), dim3(32, 8), 8192, din.data(), dout.data());
    auto got = dout.download();
    for (int i = 0; i < 32; ++i)
        for (int j = 0; j < 32; ++j) REQUIRE(got[size_t(i) * 32 + j] == a[size_t(j) * 32 + i]);
    return tklab::sim::last_run();
}

TEST_CASE("banks in kernels: 32x32 float transpose, column reads are 32-way", "[sim][banks][transpose]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    const RunResult& r = run_transpose<0>();
    const auto& st = r.stats;
    // 8 warps x 4 rows each.
    CHECK(st.ld_shared.instructions == 32);
    CHECK(st.ld_shared.wavefronts == 32 * 32);
    CHECK(st.ld_shared.ideal == 32);
    CHECK(st.ld_shared.conflicts() == 32 * 31);
    CHECK(st.ld_shared.max_way == 32);
    CHECK(st.st_shared.instructions == 32);
    CHECK(st.st_shared.wavefronts == 32);
    CHECK(st.st_shared.conflicts() == 0);
    for (const Event* e : events_of(r, Op::ld_shared)) {
        const SmemRecord& s = smem_of(r, *e);
        CHECK(s.banks.wavefronts == 32);
        CHECK(s.lanes >= 0);
    }
}

TEST_CASE("banks in kernels: 32x32 float transpose padded to 33 columns is conflict-free", "[sim][banks][transpose]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    const RunResult& r = run_transpose<1>();
    const auto& st = r.stats;
    CHECK(st.ld_shared.instructions == 32);
    CHECK(st.ld_shared.wavefronts == 32);
    CHECK(st.ld_shared.conflicts() == 0);
    CHECK(st.ld_shared.max_way == 1);
    CHECK(st.st_shared.instructions == 32);
    CHECK(st.st_shared.conflicts() == 0);
    for (const Event* e : events_of(r, Op::ld_shared)) CHECK(smem_of(r, *e).lanes < 0);
}

} // namespace
