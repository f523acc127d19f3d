// The SM model (sim/README.md, "The SM") on small kernels with known answers:
// which blocks are simulated together, blocks on one SM sharing its
// shared-memory pipe and each sub-partition's tensor pipe, a resident block
// hiding another's load latency (and handing its slot on once its stores
// have left the SM, not once they are acknowledged), a warp waiting for its
// data taking the issue slot only when the data comes, and occupancy by registers found before the
// blocks run, without the probe's stores reaching memory.
#include "support/bug_finders_off.h"
#include "support/constant_miss.h"
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "sim/cost_model.h"
#include "sim/simulator.h"
#include "sim/sm.h"
#include "tk/tk.h"

namespace {

using tklab::sim::RunResult;
using tklab::sim::Stall;

// The SM count for one test's scope.
struct sms_as {
    int saved = tklab::sim::options().sms;
    explicit sms_as(int n) { tklab::sim::options().sms = n; }
    ~sms_as() { tklab::sim::options().sms = saved; }
};

// Every lane loads from bank 0 (a 32-way conflict): each load holds the
// shared-memory pipe for 32 wavefronts. The last store uses every load.
__global__ void conflicted_loads_kernel(int n) {
    uint32_t sum[1] = {0};
    for (int i = 0; i < n; ++i) {
        uint32_t r[1];
        tk::arch::ld_shared<1>(r, uint32_t(tk::laneid()) * 128);
        sum[0] += r[0];
    }
    tk::arch::st_shared<1>(uint32_t(tk::laneid()) * 4, sum);
}

// n ldmatrix.x4 whose 8 rows a matrix are 128 bytes apart (8-way conflicts,
// 32 wavefronts each), then a store that uses them all.
__global__ void conflicted_ldmatrix_kernel(int n) {
    uint32_t sum[1] = {0};
    for (int i = 0; i < n; ++i) {
        uint32_t r[4];
        tk::arch::ldmatrix<4>(r, uint32_t(tk::laneid() % 8) * 128 + uint32_t(tk::laneid() / 8) * 16);
        sum[0] += r[0] + r[1] + r[2] + r[3];
    }
    tk::arch::st_shared<1>(uint32_t(tk::laneid()) * 4, sum);
}

// Each iteration loads a word and stores it: the store waits for the load.
__global__ void dependent_loads_kernel(const uint32_t* in, uint32_t* out, int n) {
    const uint32_t t = uint32_t(blockIdx.x * 32 + threadIdx.x);
    for (int i = 0; i < n; ++i) {
        uint32_t w[1];
        tk::arch::ld_global<1>(w, in + t);
        tk::arch::st_global<1>(out + t, w);
    }
}

// Independent mma.sync's, one after another: the sub-partition's tensor pipe is the limit.
__global__ void mma_kernel(int n) {
    const uint32_t a[4] = {0x3f803f80u, 0x3f803f80u, 0x3f803f80u, 0x3f803f80u}, b[2] = {0x3f803f80u, 0x3f803f80u};
    const float c[4] = {};
    for (int i = 0; i < n; ++i) {
        float d[4];
        tk::arch::mma_m16n8k16(d, a, b, c);
    }
}

// Block 0 issues `first` independent mma.sync, every other block `rest`.
__global__ void mma_by_block_kernel(int first, int rest) {
    const uint32_t a[4] = {0x3f803f80u, 0x3f803f80u, 0x3f803f80u, 0x3f803f80u}, b[2] = {0x3f803f80u, 0x3f803f80u};
    const float c[4] = {};
    for (int i = 0, n = blockIdx.x == 0 ? first : rest; i < n; ++i) {
        float d[4];
        tk::arch::mma_m16n8k16(d, a, b, c);
    }
}

// n calls of mma_AB into one RxR accumulator from R x 64 and 64 x R tiles:
// 2 (R/16)^2 independent chains of 4 dependent mma each call, and each call's
// chains go on from the last call's.
template <int R>
__global__ void mma_chain_kernel(int n, float* out) {
    tk::rt_bf<R, 64> a;
    tk::rt_bf<64, R, tk::col_l> b;
    tk::rt_fl<R, R> acc;
    tk::fill(a, tk::bf16(1.0f));
    tk::fill(b, tk::bf16(0.5f));
    tk::zero(acc);
    for (int i = 0; i < n; ++i) tk::mma_AB(acc, a, b, acc);
    out[threadIdx.x] = acc.tiles[0][0].data[0].x;
}

tklab::sim::Stats run_conflicted(unsigned blocks, size_t smem, int n) {
    tk::launch("conflicted_loads", conflicted_loads_kernel, dim3(blocks), dim3(32), smem, n);
    return tklab::sim::last_run().stats;
}

tklab::sim::Stats run_dependent(unsigned blocks, size_t smem, int n, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<uint32_t> host(size_t(blocks) * 32);
    for (uint32_t& x : host) x = rng();
    tk::device_buffer<uint32_t> in(host.size(), host, "in"), out(host.size(), "out");
    tk::launch("dependent_loads", dependent_loads_kernel, dim3(blocks), dim3(32), smem, in.data(), out.data(), n);
    CHECK(out.download() == host);
    return tklab::sim::last_run().stats;
}

} // namespace

TEST_CASE("SM model: blocks are dealt to SMs in groups, full waves first, the last spread evenly", "[sim][sm]") {
    using tklab::sim::sm_layout;
    // 10 blocks, 4 SMs, 2 per SM: a full wave of 4 groups of 2, then 2 blocks over 2 SMs.
    auto l = sm_layout(10, 4, 2);
    CHECK(l.first == std::vector<uint64_t>{0, 2, 4, 6, 8, 9, 10});
    CHECK(l.sm == std::vector<uint32_t>{0, 1, 2, 3, 0, 1});
    // Fewer blocks than SMs: one each.
    l = sm_layout(3, 4, 8);
    CHECK(l.first == std::vector<uint64_t>{0, 1, 2, 3});
    // One wave that fills part of every SM: ceil(9 / 4) = 3 a group.
    l = sm_layout(9, 4, 8);
    CHECK(l.first == std::vector<uint64_t>{0, 3, 6, 9});
    CHECK(l.sm == std::vector<uint32_t>{0, 1, 2});
    // Seeded random shapes: every block in exactly one group, in order, no group over the limit.
    std::mt19937 rng(7);
    for (int trial = 0; trial < 200; ++trial) {
        const uint64_t n = 1 + rng() % 5000;
        const int sms = 1 + int(rng() % 140), k = 1 + int(rng() % 16);
        l = sm_layout(n, sms, k);
        REQUIRE(l.first.size() == l.groups() + 1);
        CHECK(l.first.front() == 0);
        CHECK(l.first.back() == n);
        for (size_t g = 0; g < l.groups(); ++g) {
            CHECK(l.first[g + 1] > l.first[g]);
            CHECK(l.first[g + 1] - l.first[g] <= uint64_t(k));
            CHECK(l.sm[g] < uint32_t(sms));
        }
    }
    // Streams: an SM's groups of consecutive waves, ordered by first wave, then
    // SM; a wave's blocks dealt to its groups in turn, as the GPU deals them.
    l = sm_layout(10, 4, 2);
    auto blocks_of = [](const std::vector<tklab::sim::SmStream>& s) {
        std::vector<std::vector<uint64_t>> b;
        for (const auto& x : s) b.push_back(x.blocks);
        return b;
    };
    auto st = tklab::sim::sm_streams(l, 4, 8);
    CHECK(blocks_of(st) == std::vector<std::vector<uint64_t>>{{0, 4, 8}, {1, 5, 9}, {2, 6}, {3, 7}});
    CHECK(st[1].sm == 1);
    st = tklab::sim::sm_streams(l, 4, 1);
    CHECK(blocks_of(st) == std::vector<std::vector<uint64_t>>{{0, 4}, {1, 5}, {2, 6}, {3, 7}, {8}, {9}});
    // A last wave of uneven groups (3, 3, 3, 1 blocks of 10) deals them evenly
    // (3, 3, 2, 2), block p * 7 mod 10 the p-th (7: coprime to 10, near 0.618 of it).
    l = sm_layout(10, 4, 8);
    CHECK(blocks_of(tklab::sim::sm_streams(l, 4, 1)) == std::vector<std::vector<uint64_t>>{{0, 6, 8}, {3, 5, 7}, {2, 4}, {1, 9}});
    CHECK(st[5].sm == 1);
    // Seeded random shapes: every block in exactly one stream, each stream's in order.
    for (int trial = 0; trial < 50; ++trial) {
        const uint64_t n = 1 + rng() % 3000;
        const int sms = 1 + int(rng() % 140), k = 1 + int(rng() % 16), waves = 1 + int(rng() % 9);
        std::vector<int> seen(n);
        for (const auto& s : tklab::sim::sm_streams(sm_layout(n, sms, k), sms, waves)) {
            CHECK(std::is_sorted(s.blocks.begin(), s.blocks.end()));
            CHECK(s.blocks.size() <= uint64_t(k) * uint64_t(waves));
            for (uint64_t b : s.blocks) ++seen[b];
        }
        CHECK(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
    }
    // Neighbouring blocks (which often read the same rows) rarely share an SM.
    uint64_t pairs = 0, neighbours = 0;
    for (int trial = 0; trial < 50; ++trial) {
        const int sms = 8 + int(rng() % 132), k = 2 + int(rng() % 8);
        for (const auto& s : tklab::sim::sm_streams(sm_layout(uint64_t(sms) * uint64_t(k) * 3, sms, k), sms, 1))
            for (size_t i = 1; i < s.blocks.size(); ++i) ++pairs, neighbours += s.blocks[i] - s.blocks[i - 1] == 1;
    }
    CHECK(pairs > 1000);
    CHECK(neighbours * 20 < pairs);
}

TEST_CASE("SM model: blocks on one SM share its shared-memory pipe", "[sim][sm]") {
    test_support::constant_miss_as no_miss(false);  // (a first-wave block waits for the parameters first)
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // the loads read shared memory nothing wrote: only their banks matter
    sms_as one_sm(1);
    const tklab::sim::CostModel m = tklab::sim::CostModel::load("h100");
    for (int n : {16, 40}) {
        INFO("loads per block: " << n);
        const tklab::sim::Stats alone = run_conflicted(1, 4096, n);
        const uint64_t one = alone.wave_cycles;
        // The pipe's time for every load (the last store waits for them all).
        const uint64_t pipe = uint64_t(n) * 32 * uint64_t(m.shared_cycles_per_wavefront);
        CHECK(one >= pipe);
        // Two blocks fit beside each other: they queue on the same pipe, and the SM takes twice as long.
        const tklab::sim::Stats two = run_conflicted(2, 4096, n);
        CHECK(two.blocks_together == 2);
        CHECK(two.wave_cycles >= 2 * pipe);
        CHECK(double(two.wave_cycles) == Approx(2.0 * double(one)).epsilon(0.1));
        // Each block now also waits for the other's wavefronts.
        CHECK(two.stall_cycles[size_t(Stall::mio_throttle)] > 3 * alone.stall_cycles[size_t(Stall::mio_throttle)]);
        // Shared memory that fits one block per SM: the second runs after the first.
        const tklab::sim::Stats apart = run_conflicted(2, 150 * 1024, n);
        CHECK(apart.blocks_together == 1);
        CHECK(apart.blocks_per_sm == 1);
        CHECK(apart.wave_cycles == 2 * one + uint64_t(m.launch_block_turnaround_cycles));  // the SM starts the second after the first
    }
}

TEST_CASE("SM model: a resident block hides another's load latency", "[sim][sm]") {
    test_support::constant_miss_as no_miss(false);  // (a first-wave block waits for the parameters first)
    sms_as one_sm(1);
    for (unsigned seed = 1; seed <= 2; ++seed) {
        const int n = 8 * int(seed);
        const tklab::sim::Stats alone = run_dependent(1, 0, n, seed);
        const uint64_t one = alone.wave_cycles;
        // Its stores are acknowledged an L2 latency after its warp exits
        // (once they have left the SM): the kernel ends then, the block before.
        const uint64_t acknowledgement = one - alone.max_block_cycles;
        CHECK(acknowledgement == uint64_t(tklab::sim::CostModel::load("h100").global_latency));
        // Four blocks together: each waits on its own loads while the others issue.
        const tklab::sim::Stats together = run_dependent(4, 0, n, seed + 10);
        CHECK(together.blocks_together == 4);
        CHECK(together.wave_cycles < one + one / 10);
        // One block per SM (by shared memory): one after another.
        const tklab::sim::Stats apart = run_dependent(4, 150 * 1024, n, seed + 20);
        CHECK(apart.blocks_together == 1);
        // Each next block starts the SM's turnaround after the one before
        // exits (launch.block_turnaround_cycles, measured on the H100: 385);
        // only the last block's stores are waited for.
        const uint64_t turnaround = uint64_t(tklab::sim::CostModel::load("h100").launch_block_turnaround_cycles);
        CHECK(turnaround > 0);
        CHECK(apart.wave_cycles == 4 * alone.max_block_cycles + 3 * turnaround + acknowledgement);
    }
}

TEST_CASE("SM model: a block of the next wave starts in the slot another leaves, at that cycle", "[sim][sm]") {
    test_support::constant_miss_as no_miss(false);  // (a first-wave block waits for the parameters first)
    sms_as one_sm(1);
    std::mt19937 rng(53);
    // Two slots (shared memory allows two blocks), three blocks: block 0 is
    // long; blocks 1 and 2 are short and take turns in the other slot (block 2
    // starting the SM's turnaround after block 1 leaves), so the SM is as busy
    // as block 0, not block 0 and then block 2.
    const size_t smem = 100 * 1024;
    for (int trial = 0; trial < 3; ++trial) {
        const int rest = 8 + int(rng() % 16), first = 4 * rest + 80 + int(rng() % 32);  // (80 mma: longer than a turnaround)
        tk::launch("mma_by_block", mma_by_block_kernel, dim3(1), dim3(32), smem, first, rest);
        const uint64_t long_one = tklab::sim::last_run().stats.max_block_cycles;
        tk::launch("mma_by_block", mma_by_block_kernel, dim3(3), dim3(32), smem, first, rest);
        const RunResult& r = tklab::sim::last_run();
        INFO("first " << first << ", rest " << rest);
        REQUIRE(r.stats.blocks_together == 2);
        REQUIRE(r.blocks.size() == 3);
        // Each block's trace counts from its own start; block 2's first mma
        // waits only for the tensor pipe block 1's last one left busy.
        const uint64_t pipe_wait = r.blocks[2].events.front().issue;
        CHECK(r.blocks[1].events.front().issue == 0);
        CHECK(pipe_wait < uint64_t(tklab::sim::CostModel::load("h100").mma_pipe_cycles));
        CHECK(r.blocks[2].cycles == r.blocks[1].cycles + pipe_wait);
        CHECK(r.blocks[1].cycles + r.blocks[2].cycles < long_one);
        CHECK(r.stats.wave_cycles == long_one);  // not long_one + block 2's
    }
}

TEST_CASE("SM model: an SM's first-wave blocks start a round of the dispatcher's dealing apart", "[sim][sm]") {
    test_support::constant_miss_as no_miss(false);  // (a first-wave block waits for the parameters first)
    // The GPU deals a launch's first blocks one at a time, one to each SM in
    // turn (launch.dispatch_cycles_per_block each): an SM's second block
    // starts a round, sms x that, after its first. Two one-warp blocks per
    // SM (by shared memory), on sub-partitions of their own: nothing else
    // holds the second back.
    const tklab::sim::CostModel m = tklab::sim::CostModel::load("h100");
    std::mt19937 rng(61);
    for (int trial = 0; trial < 3; ++trial) {
        const int sms = 20 + int(rng() % 120), n = 8 + int(rng() % 24);
        sms_as many(sms);
        tk::launch("mma", mma_kernel, dim3(unsigned(sms)), dim3(32), 100 * 1024, n);
        const tklab::sim::Stats one = tklab::sim::last_run().stats;
        tk::launch("mma", mma_kernel, dim3(unsigned(2 * sms)), dim3(32), 100 * 1024, n);
        const tklab::sim::Stats two = tklab::sim::last_run().stats;
        INFO(sms << " SMs, " << n << " mma");
        REQUIRE(two.blocks_together == 2);
        CHECK(two.wave_cycles - one.wave_cycles == uint64_t(std::llround(m.launch_dispatch_cycles_per_block * sms)));
    }
}

TEST_CASE("SM model: warps of resident blocks share their sub-partition's tensor pipe", "[sim][sm]") {
    test_support::constant_miss_as no_miss(false);  // (a first-wave block waits for the parameters first)
    sms_as one_sm(1);
    const tklab::sim::CostModel m = tklab::sim::CostModel::load("h100");
    const int n = 64;
    tk::launch("mma", mma_kernel, dim3(1), dim3(32), 0, n);
    const uint64_t one = tklab::sim::last_run().stats.wave_cycles;
    CHECK(one >= uint64_t(n - 1) * uint64_t(m.mma_pipe_cycles));  // the warp ends as it issues the last
    // Alone, the warp waits only for its own previous mma: Nsight's "wait", not the pipe.
    CHECK(tklab::sim::last_run().stats.stall_cycles[size_t(Stall::wait)] > 0);
    CHECK(tklab::sim::last_run().stats.stall_cycles[size_t(Stall::math_pipe_throttle)] == 0);
    // Four one-warp blocks: a sub-partition each, no contention.
    tk::launch("mma", mma_kernel, dim3(4), dim3(32), 0, n);
    CHECK(tklab::sim::last_run().stats.blocks_together == 4);
    CHECK(tklab::sim::last_run().stats.wave_cycles < one + one / 10);
    // Five: the fifth block's warp shares sub-partition 0 with the first's.
    tk::launch("mma", mma_kernel, dim3(5), dim3(32), 0, n);
    const RunResult& five = tklab::sim::last_run();  // the last launch's, until the next
    CHECK(five.stats.blocks_together == 5);
    CHECK(double(five.stats.wave_cycles) == Approx(2.0 * double(one)).epsilon(0.1));
    CHECK(five.stats.stall_cycles[size_t(Stall::math_pipe_throttle)] > 0);  // behind the other block's warp
}

TEST_CASE("SM model: an mma adding into an earlier one's result waits its latency", "[sim][sm]") {
    const tklab::sim::CostModel m = tklab::sim::CostModel::load("h100");
    std::mt19937 rng(31);
    tk::device_buffer<float> out(32, "out");
    // Per call: the block's cycles for n + d calls less those for n.
    auto per_call = [&](auto kernel, int n, int d) {
        tk::launch("mma_chain", kernel, dim3(1), dim3(32), 0, n, out.data());
        const uint64_t base = tklab::sim::last_run().stats.max_block_cycles;
        tk::launch("mma_chain", kernel, dim3(1), dim3(32), 0, n + d, out.data());
        CHECK(out.download()[0] == float(64 * 0.5 * (n + d)));  // sums of 1 x 0.5 over K = 64, n + d times
        return double(tklab::sim::last_run().stats.max_block_cycles - base) / d;
    };
    const int n = 2 + int(rng() % 4), d = 4 + int(rng() % 8);
    INFO("n " << n << ", d " << d);
    // 16x16: 2 chains of 4 a call, the pipe's interval between a chain's links
    // is 2 x 6 cycles, less than the 24-cycle latency: the chain sets the pace.
    CHECK(per_call(mma_chain_kernel<16>, n, d) == Approx(4.0 * m.mma_latency).margin(1.0));
    CHECK(tklab::sim::last_run().stats.stall_cycles[size_t(Stall::wait)] >= uint64_t((n + d) * 4 * (m.mma_latency - m.mma_pipe_cycles)) - 64);
    // 32x32: 8 chains, 8 x 6 cycles between links: the pipe sets the pace.
    CHECK(per_call(mma_chain_kernel<32>, n, d) == Approx(32.0 * m.mma_pipe_cycles).margin(1.0));
    CHECK(8 * m.mma_pipe_cycles > m.mma_latency);
}

namespace {

// One warp loads B, then `tiles` A tiles, from one shared tile (ldmatrix: the
// same addresses every call, so no address arithmetic; one issues a cycle
// and holds the pipe for its 4 wavefronts), then multiplies A tile `read` by B.
__global__ void operand_wait_kernel(int tiles, int read, float* out) {
    tk::shared_allocator al;
    auto& s = al.allocate<tk::st_bf<16, 16>>();
    tk::rt_fl<16, 16> acc;
    tk::zero(acc);
    tk::rt_bf<16, 16, tk::col_l> b;
    tk::load(b, s);
    tk::rt_bf<16, 16> a[16];
    for (int i = 0; i < tiles; ++i) tk::load(a[i], s);
    tk::mma_AB(acc, a[read], b, acc);
    out[threadIdx.x] = acc.tiles[0][0].data[0].x;
}

} // namespace

TEST_CASE("SM model: an mma waits for the loads of its own operands, not for every load in flight", "[sim][sm]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // the loads read shared memory nothing wrote: only their timing matters
    const tklab::sim::CostModel m = tklab::sim::CostModel::load("h100");
    std::mt19937 rng(23);
    tk::device_buffer<float> out(32, "out");
    auto operand_wait = [&](int tiles, int read) {
        tk::launch("operand_wait", operand_wait_kernel, dim3(1), dim3(32), 1024, tiles, read, out.data());
        return tklab::sim::last_run().stats.stall_cycles[size_t(Stall::short_scoreboard)];
    };
    for (int trial = 0; trial < 3; ++trial) {
        const int tiles = 8 + int(rng() % 9);
        INFO(tiles << " A tiles");
        // The pipe serves the loads in turn, 4 wavefronts each: the last A tile
        // lands 4 (tiles - 1) wavefronts after the first, and only an mma
        // reading it waits that much longer (the H100's scoreboards are per
        // register: ptxas starts the mma on the first fragments).
        const uint64_t first = operand_wait(tiles, 0), last = operand_wait(tiles, tiles - 1);
        CHECK(first > 0);
        CHECK(double(last - first) == Approx(4.0 * (tiles - 1) * m.shared_cycles_per_wavefront).margin(2.0));
    }
}

namespace {

// Warp 0 loads a word a lane from global memory, then doubles a tile of its
// own (the add waits for the load: the simulator counts any outstanding load
// as read); warp 4, on the same sub-partition, first passes a word along
// `hops` shuffles (their latency, not the issue slot), then fills its tile and
// doubles it `adds` times. Warps 1-3 do nothing.
__global__ void slot_order_kernel(const uint32_t* in, float* out, int hops, int adds) {
    tk::rt_fl<16, 16> t;
    if (tk::warpid() == 0) {
        tk::fill(t, 1.0f);
        uint32_t w[1];
        tk::arch::ld_global<1>(w, in + tk::laneid());
        tk::add(t, t, t);
        out[tk::laneid()] = t.tiles[0][0].data[0].x + float(w[0]);
    } else if (tk::warpid() == 4) {
        uint32_t v = uint32_t(tk::laneid());
        for (int i = 0; i < hops; ++i) v = tk::arch::shfl_xor(0xffffffffu, v, 1);
        tk::fill(t, 1.0f);
        for (int i = 0; i < adds; ++i) tk::add(t, t, t);
        out[32 + tk::laneid()] = t.tiles[0][0].data[0].x + float(v);
    }
}

} // namespace

TEST_CASE("SM model: a warp waiting for its data takes the issue slot when the data comes, not before others", "[sim][sm]") {
    const tklab::sim::CostModel m = tklab::sim::CostModel::load("h100");
    std::mt19937 rng(41);
    std::vector<uint32_t> host(32);
    for (uint32_t& v : host) v = rng() % 1000;
    tk::device_buffer<uint32_t> in(host.size(), host, "in");
    tk::device_buffer<float> out(64, "out");
    const int hops = 4, adds = 1 + int(rng() % 3);
    tk::launch("slot_order", slot_order_kernel, dim3(1), dim3(160), 0, in.data(), out.data(), hops, adds);
    const std::vector<float> got = out.download();
    for (int l = 0; l < 32; ++l) {
        CHECK(got[size_t(l)] == 2.0f + float(host[size_t(l)]));
        CHECK(got[size_t(32 + l)] == float(1 << adds) + float(hops % 2 ? l ^ 1 : l));
    }
    const tklab::sim::Stats& st = tklab::sim::last_run().stats;
    // Warp 0 comes to its add first (right after its load) and waits a memory
    // latency for the data; warp 4's adds, after its shuffles, issue
    // meanwhile and are done before the data comes: neither waits for the
    // other at the sub-partition's issue slot. (Had warp 0 taken the slot at
    // once when it came to the add, warp 4 would wait behind it, not_selected.)
    const uint64_t ls = st.stall_cycles[size_t(Stall::long_scoreboard)], ns = st.stall_cycles[size_t(Stall::not_selected)];
    INFO("adds " << adds << ", long_scoreboard " << ls << ", not_selected " << ns);
    const auto& simple = m.alu[size_t(tklab::sim::AluKind::simple)];
    REQUIRE(hops * m.shfl_latency + (1 + adds) * 8 * simple.latency < 0.75 * m.global_latency);
    CHECK(ls >= uint64_t(m.global_latency) / 2);
    CHECK(ns == 0);
}

namespace {

// Adds 1 to its block's words in place, holding a 64x64 float tile (128
// registers a thread) while it does: one 256-thread block fits per SM by
// registers. (One element is not zero: a tile of one value holds none.)
__global__ void increment_kernel(uint32_t* data) {
    tk::rt_fl<64, 64> big;
    tk::zero(big);
    big.tiles[0][0].data[0].x = 1.0f;
    const uint32_t t = uint32_t(blockIdx.x * blockDim.x + threadIdx.x);
    uint32_t w[1];
    tk::arch::ld_global<1>(w, data + t);
    w[0] += 1;
    tk::arch::st_global<1>(data + t, w);
}

} // namespace

TEST_CASE("SM model: occupancy by registers is known before the blocks run, and the probe changes no memory", "[sim][sm]") {
    sms_as two_sms(2);
    for (unsigned seed = 1; seed <= 2; ++seed) {
        const unsigned blocks = 3 + seed;  // more blocks than SMs: the probe runs
        std::mt19937 rng(seed);
        std::vector<uint32_t> host(size_t(blocks) * 256);
        for (uint32_t& x : host) x = rng() >> 1;
        tk::device_buffer<uint32_t> data(host.size(), host, "data");
        tk::launch("increment", increment_kernel, dim3(blocks), dim3(256), 0, data.data());
        std::vector<uint32_t> want = host;
        for (uint32_t& x : want) x += 1;
        CHECK(data.download() == want);  // block 0's words once, not twice
        const RunResult& r = tklab::sim::last_run();
        CHECK(r.stats.blocks_per_sm == 1);
        CHECK(std::string(r.stats.occupancy_limit) == "registers");
        CHECK(r.stats.blocks_together == 1);
        // One block per SM: the busiest SM runs ceil(blocks / 2) of them in turn.
        CHECK(r.stats.wave_cycles >= uint64_t((blocks + 1) / 2) * r.stats.max_block_cycles - r.stats.max_block_cycles / 2);
    }
}

namespace {

// Block `bad` reads past the buffer after some work; every other block only works.
__global__ void one_bad_block_kernel(const uint32_t* p, int bad, int n) {
    uint32_t r[1];
    for (int i = 0; i < 4; ++i) tk::arch::ld_global<1>(r, p + tk::laneid());
    if (int(blockIdx.x) == bad) tk::arch::ld_global<1>(r, p + n + tk::laneid());
    tk::arch::st_global<1>(const_cast<uint32_t*>(p) + tk::laneid(), r);
}

// Block `stuck` waits at a barrier its second warp never reaches.
__global__ void one_stuck_block_kernel(int stuck) {
    if (int(blockIdx.x) == stuck && tk::warpid() == 1) return;
    tk::arch::syncthreads();
}

// Warps 0-3 (one per sub-partition) queue `many` 32-way-conflicted loads at
// once; warps 4-7, on the same sub-partitions, first wait on a chain of 24
// dependent mma (by then the first warps' queues are full), then issue `few`.
__global__ void queue_owner_kernel(int many, int few) {
    uint32_t sum[1] = {0};
    int n = many;
    if (tk::warpid() >= 4) {
        const uint32_t a[4] = {0x3f803f80u, 0x3f803f80u, 0x3f803f80u, 0x3f803f80u}, b[2] = {0x3f803f80u, 0x3f803f80u};
        float c[4] = {};
        for (int i = 0; i < 24; ++i) {
            float d[4];
            tk::arch::mma_m16n8k16(d, a, b, c);
            for (int j = 0; j < 4; ++j) c[j] = d[j];
        }
        sum[0] = uint32_t(c[0]);
        n = few;
    }
    for (int i = 0; i < n; ++i) {
        uint32_t r[1];
        tk::arch::ld_shared<1>(r, uint32_t(tk::laneid()) * 128);
        sum[0] += r[0];
    }
    tk::arch::st_shared<1>(uint32_t(tk::warpid() * 32 + tk::laneid()) * 4, sum);
}

} // namespace

TEST_CASE("SM model: a failing block among blocks on one SM is the one reported, and those before it are whole", "[sim][sm]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // the blocks store what they loaded; the test is about which block fails
    sms_as one_sm(1);
    std::mt19937 rng(5);
    for (int trial = 0; trial < 4; ++trial) {
        const int blocks = 4 + int(rng() % 5), bad = 1 + int(rng() % unsigned(blocks - 1));
        INFO(blocks << " blocks, block " << bad << " faults");
        std::vector<uint32_t> host(64, 1);
        tk::device_buffer<uint32_t> buf(host.size(), host, "buf");
        const bool kept = tklab::sim::options().keep_blocks;
        tklab::sim::options().keep_blocks = true;
        std::string msg;
        try {
            tk::launch("one_bad_block", one_bad_block_kernel, dim3(blocks), dim3(32), 0, (const uint32_t*)buf.data(), bad, 64);
        } catch (const tklab::sim::SimError& e) {
            msg = e.what();
        }
        tklab::sim::options().keep_blocks = kept;
        CHECK_THAT(msg, Catch::Contains("block (" + std::to_string(bad) + ",0,0)"));
        // The blocks before it ran to their ends, beside it on the same SM.
        const RunResult& r = tklab::sim::last_run();
        REQUIRE(r.blocks.size() == size_t(bad) + 1);
        for (int b = 0; b < bad; ++b) CHECK(r.blocks[size_t(b)].cycles > 0);
        // The failing block's trace has the cycles it reached (its four loads' issue at least), not zero.
        CHECK(r.blocks[size_t(bad)].cycles >= 4);
        CHECK(r.stats.max_block_cycles >= r.blocks[size_t(bad)].cycles);
    }
    // A deadlocked block among them: reported as that block's deadlock, the others not held up.
    std::string msg;
    try {
        tk::launch("one_stuck_block", one_stuck_block_kernel, dim3(6), dim3(64), 0, 2);
    } catch (const tklab::sim::SimError& e) {
        CHECK(e.kind == tklab::sim::ErrorKind::sync_misuse);
        msg = e.what();
    }
    CHECK_THAT(msg, Catch::Contains("block (2,0,0)"));
}

namespace {

__global__ void printing_kernel() {
    if (threadIdx.x == 0) std::printf("tklab-test block %d\n", int(blockIdx.x));
}

} // namespace

TEST_CASE("SM model: the register probe's output is not printed: block 0 prints once", "[sim][sm]") {
    sms_as one_sm(1);
    const std::string path = (std::filesystem::temp_directory_path() / ("tklab_probe_stdout_" + std::to_string(::getpid()))).string();
    std::fflush(stdout);
    const int saved = ::dup(1);
    const int file = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    REQUIRE(file >= 0);
    ::dup2(file, 1);
    tk::launch("printing", printing_kernel, dim3(3), dim3(32), 0);  // 3 blocks on 1 SM: block 0 is probed first
    std::fflush(stdout);
    ::dup2(saved, 1);
    ::close(saved);
    ::close(file);
    std::ifstream in(path);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::filesystem::remove(path);
    CHECK(tklab::sim::last_run().stats.blocks_together == 3);
    auto count = [&](const std::string& s) {
        size_t n = 0;
        for (size_t at = text.find(s); at != std::string::npos; at = text.find(s, at + 1)) ++n;
        return n;
    };
    CHECK(count("tklab-test block 0\n") == 1);
    CHECK(count("tklab-test block 1\n") == 1);
    CHECK(count("tklab-test block 2\n") == 1);
}

TEST_CASE("SM model: a warp queues shared-memory instructions up to the measured depth before mio_throttle", "[sim][sm]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // the loads read shared memory nothing wrote: only their banks matter
    sms_as one_sm(1);
    const tklab::sim::CostModel m = tklab::sim::CostModel::load("h100");
    REQUIRE(m.mio_queue_high > 0);
    std::mt19937 rng(11);
    for (int trial = 0; trial < 3; ++trial) {
        // Up to the queue's depth the warp issues every load at once, and waits
        // only for their data (short_scoreboard, at the store that uses them).
        const int few = 1 + int(rng() % uint32_t(m.mio_queue_high));
        const tklab::sim::Stats a = run_conflicted(1, 4096, few);
        INFO(few << " loads");
        CHECK(a.stall_cycles[size_t(Stall::mio_throttle)] == 0);
        CHECK(a.stall_cycles[size_t(Stall::short_scoreboard)] > 0);
        // Beyond it, the warp stops until the queue has drained to mio_queue_low:
        // it waits for the pipe at issue.
        const int many = m.mio_queue_high + 8 + int(rng() % 16);
        const tklab::sim::Stats b = run_conflicted(1, 4096, many);
        INFO(many << " loads");
        CHECK(b.stall_cycles[size_t(Stall::mio_throttle)] > 0);
        // Either way the pipe serves every wavefront: 32 a load.
        CHECK(b.wave_cycles >= uint64_t(many) * 32 * uint64_t(m.shared_cycles_per_wavefront));
    }
}

TEST_CASE("SM model: no queue of the warp's holds back ldmatrix: conflicted ones past the depth wait only through their data", "[sim][sm]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // the loads read shared memory nothing wrote: only their banks matter
    sms_as one_sm(1);
    const tklab::sim::CostModel m = tklab::sim::CostModel::load("h100");
    std::mt19937 rng(12);
    for (int trial = 0; trial < 3; ++trial) {
        // As on the H100 (results/calibration_mio_depth_h100.txt: 24 such a
        // warp issue in 90 cycles), past the depth ld.shared stops at.
        const int n = m.mio_queue_high + 8 + int(rng() % 16);
        INFO(n << " ldmatrix");
        tk::launch("conflicted_ldmatrix", conflicted_ldmatrix_kernel, dim3(1), dim3(32), 4096, n);
        const tklab::sim::Stats& st = tklab::sim::last_run().stats;
        CHECK(st.stall_cycles[size_t(Stall::mio_throttle)] == 0);
        CHECK(st.stall_cycles[size_t(Stall::short_scoreboard)] > 0);
        // The pipe still serves every wavefront: 32 an instruction.
        CHECK(st.wave_cycles >= uint64_t(n) * 32 * uint64_t(m.shared_cycles_per_wavefront));
    }
}

TEST_CASE("SM model: each warp has a shared-memory queue of its own: another warp's full one holds it back only through the pipe", "[sim][sm]") {
    // Measured on the H100 (results/calibration_mio_share_h100.txt): one
    // warp's load issues as fast behind 32 queued conflicted loads of another
    // warp on its sub-partition as behind none.
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // the loads read shared memory nothing wrote: only their banks matter
    sms_as one_sm(1);
    const tklab::sim::CostModel m = tklab::sim::CostModel::load("h100");
    REQUIRE(m.mio_queue_high > 1);
    std::mt19937 rng(23);
    for (int trial = 0; trial < 3; ++trial) {
        const int many = m.mio_queue_high + 16 + int(rng() % 16), few = 1 + int(rng() % uint32_t(m.mio_queue_high - 1));
        INFO(many << " loads ahead, " << few << " behind");
        const bool kept = tklab::sim::options().keep_blocks;
        tklab::sim::options().keep_blocks = true;
        tk::launch("queue_owner", queue_owner_kernel, dim3(1), dim3(256), 4096, many, few);
        tklab::sim::options().keep_blocks = kept;
        const RunResult& r = tklab::sim::last_run();
        REQUIRE(r.blocks.size() == 1);
        const tklab::sim::BlockTrace& b = r.blocks[0];
        uint64_t throttled[2] = {}, late_loads_after = 0, late_first_load = UINT64_MAX;
        auto add = [&](uint32_t i, uint8_t stall, uint64_t cycles) {
            if (stall == Stall::mio_throttle) throttled[b.events[i].warp >= 4] += cycles;
        };
        std::vector<bool> has_parts(b.events.size());
        for (const auto& p : b.stall_parts) has_parts[p.event] = true, add(p.event, p.stall, p.cycles);
        for (uint32_t i = 0; i < b.events.size(); ++i) {
            const auto& e = b.events[i];
            if (!has_parts[i]) add(i, e.stall, e.stall_cycles);
            if (e.warp >= 4 && e.op == tklab::sim::Op::ld_shared) late_first_load = std::min(late_first_load, e.issue);
        }
        // The late warps' loads came while the first warps' queues were full...
        for (const auto& e : b.events)
            if (e.warp < 4 && e.op == tklab::sim::Op::ld_shared && e.issue > late_first_load) ++late_loads_after;
        CHECK(late_loads_after > 0);
        CHECK(throttled[0] > 0);
        // ...and went in at once: they wait for their data (in the pipe, behind
        // the first warps'), never to issue.
        CHECK(throttled[1] == 0);
    }
}

TEST_CASE("SM model: a first-wave block's warps wait for the launch's parameters once, later waves find them cached", "[sim][sm]") {
    // The constant cache (sim/README.md, "The constant cache"): the first
    // blocks on an SM wait constant.miss_cycles at their first instruction
    // (imc_miss), all of them for the same fetch; a block of a later wave in
    // the same slot does not.
    const tklab::sim::CostModel m = tklab::sim::CostModel::load("h100");
    REQUIRE(m.constant_miss_cycles > 0);
    sms_as one_sm(1);
    std::mt19937 rng(67);
    for (int trial = 0; trial < 3; ++trial) {
        const int n = 4 + int(rng() % 12);
        const unsigned warps = 1 + unsigned(rng() % 4);
        // 120 KiB of shared memory: one block at a time; three blocks, three waves.
        tk::launch("mma", mma_kernel, dim3(3), dim3(32 * warps), 120 * 1024, n);
        REQUIRE(tklab::sim::last_run().stats.blocks_together == 1);
        const RunResult& r = tklab::sim::last_run();
        INFO(warps << " warps, " << n << " mma");
        REQUIRE(r.blocks.size() == 3);
        uint64_t first_waits = 0;
        for (const auto& e : r.blocks[0].events)
            if (e.stall == Stall::imc_miss) {
                CHECK(e.issue == uint64_t(m.constant_miss_cycles));  // every warp's first instruction, at the fetch's end
                first_waits += e.stall_cycles;
            }
        CHECK(first_waits == uint64_t(warps) * uint64_t(m.constant_miss_cycles));
        for (size_t b = 1; b < 3; ++b)
            for (const auto& e : r.blocks[b].events) CHECK(e.stall != Stall::imc_miss);
        CHECK(r.stats.stall_cycles[size_t(Stall::imc_miss)] == first_waits);
        // Without the miss, the first block is as long as the next, whose
        // first mma may wait for the tensor pipe the one before left busy.
        CHECK(r.blocks[0].cycles <= r.blocks[1].cycles + uint64_t(m.constant_miss_cycles));
        CHECK(r.blocks[0].cycles + uint64_t(m.mma_pipe_cycles) >= r.blocks[1].cycles + uint64_t(m.constant_miss_cycles));
    }
}
