// What the compiler does around the instructions (sim/README.md, "What the
// compiler does around the instructions"), on small kernels with known
// answers: a tile op's register arithmetic priced per element by kind, warps
// sharing a sub-partition's issue slot, a tile op's global loads issued
// together, and a warp's exit waiting for its stores to drain.
#include "support/bug_finders_off.h"
#include "support/constant_miss.h"
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "sim/cost_model.h"
#include "sim/kernel_source.h"
#include "sim/simulator.h"
#include "sim/trace_recorder.h"
#include "support/l1_model.h"
#include "tk/tk.h"
#include "trace/source_scan.h"

namespace {

using tklab::sim::AluKind;

enum class Arith { add, exp, div, exp2, lambda_ex2 };

// n of one op on a 16x64 float register tile (32 elements a lane), after one fill.
template <Arith A>
__global__ void arithmetic_kernel(float* out, int n) {
    tk::rt_fl<16, 64> t;
    tk::fill(t, 1.0f);
    for (int i = 0; i < n; ++i) {
        if constexpr (A == Arith::add) tk::add(t, t, t);
        else if constexpr (A == Arith::exp) tk::exp(t, t);
        else if constexpr (A == Arith::exp2) tk::exp2(t, t);
        else if constexpr (A == Arith::lambda_ex2) tk::unary_map(t, t, [](float x) { return tk::arch::ex2_approx(x * 0.5f); });
        else tk::div(t, t, t);
    }
    out[threadIdx.x] = t.tiles[0][0].data[0].x;
}

template <Arith A>
uint64_t block_cycles(int warps, int n, unsigned seed) {
    std::vector<float> host(size_t(warps) * 32, float(seed));
    tk::device_buffer<float> out(host.size(), host, "out");
    tk::launch("arithmetic", arithmetic_kernel<A>, dim3(1), dim3(32 * warps), 0, out.data(), n);
    return tklab::sim::last_run().stats.max_block_cycles;
}

// A 16x64 tile from global memory into a float register tile (bf16: a
// conversion an element, in the load; float: none), then stored.
const int converting_load_line = __LINE__ + 5;
template <typename T>
__global__ void converting_load_kernel(tk::gl<T> in, tk::gl<float> out) {
    tk::rt_fl<16, 64> t;
    // (the load's line is converting_load_line)
    tk::load(t, in, {0, 0, 0, 0});
    tk::store(out, t, {0, 0, 0, 0});
}

// Two bf16 rows of 256 loaded, added (a warp_row map) and stored, and their sum.
const int row_map_line = __LINE__ + 6;
__global__ void row_map_kernel(tk::gl<tk::bf16> x, tk::gl<tk::bf16> r, tk::gl<tk::bf16> out, float* total) {
    using row = tk::warp_row<tk::bf16, 256>;
    row a, b, s;
    tk::load(a, x, {0, 0, 0, 0});
    tk::load(b, r, {0, 0, 0, 0});
    tk::map(s, [](float u, float v) { return u + v; }, a, b);
    tk::store(out, s, {0, 0, 0, 0});
    const float t = tk::sum(s);
    if (threadIdx.x == 0) *total = t;
}

// One warp loads a 64x64 bf16 tile into shared memory: 16 steps of 16 bytes a lane.
__global__ void tile_load_kernel(tk::gl<tk::bf16> g) {
    tk::shared_allocator al;
    tk::st_bf<64, 64>& s = al.allocate<tk::st_bf<64, 64>>();
    tk::group<1>::load(s, g, {0, 0, 0, 0});
}

// Each lane stores `lines` words 128 bytes apart (one line each), or nothing.
const int store_kernel_first_line = __LINE__ + 1;
__global__ void store_kernel(uint32_t* out, int lines) {
    for (int i = 0; i < lines; ++i) {
        const uint32_t v[1] = {uint32_t(i)};
        tk::arch::st_global<1>(out + 32 * i + threadIdx.x, v);
    }
}
const int store_kernel_end_line = __LINE__ - 1;  // its closing brace: where the GPU's EXIT is

// `passes` loads of a bf16 operand from a swizzled shared tile (ldmatrix),
// each added into a float tile. Mode 0: 16x64 from the same tile's rows 0-15
// every pass; 1: the same rows of one of two tiles, pass % 2 (two stages of a
// buffer); 2: 16x32 from columns 32 * (pass % 2) of the same tile.
__global__ void ldmatrix_loop_kernel(tk::gl<tk::bf16> g, tk::gl<float> out, int passes, int mode) {
    tk::shared_allocator al;
    auto& s = al.allocate<tk::st_bf<32, 64>[2]>();
    tk::group<1>::load(s[0], g, {0, 0, 0, 0});
    tk::group<1>::load(s[1], g, {0, 0, 0, 0});
    __syncwarp();
    tk::rt_fl<16, 64> sum;
    tk::zero(sum);
    tk::rt_fl<16, 32> half;
    tk::zero(half);
    for (int p = 0; p < passes; ++p) {
        if (mode < 2) {
            tk::rt_bf<16, 64> a;
            tk::load(a, tk::subtile<16, 64>(s[mode ? p % 2 : 0], 0, 0));
            tk::rt_fl<16, 64> f;
            tk::copy(f, a);
            tk::add(sum, sum, f);
        } else {
            tk::rt_bf<16, 32> a;
            tk::load(a, tk::subtile<16, 32>(s[0], 0, p % 2));
            tk::rt_fl<16, 32> f;
            tk::copy(f, a);
            tk::add(half, half, f);
        }
    }
    if (mode < 2) tk::store(out, sum, {0, 0, 0, 0});
    else tk::store(out, half, {0, 0, 0, 0});
}

// A tile loaded from global memory and stored, with or without a tile of
// zeros filled between the load and the store.
__global__ void fill_after_load_kernel(tk::gl<float> in, tk::gl<float> out, int fill) {
    tk::rt_fl<16, 64> t;
    tk::load(t, in, {0, 0, 0, 0});
    tk::rt_fl<16, 64> z;
    if (fill) tk::zero(z);
    tk::store(out, t, {0, 0, 0, 0});
}

} // namespace

TEST_CASE("compiler effects: ldmatrix addresses the same every pass are computed once, before the loop, and another stage's its base only", "[sim][memory]") {
    const tklab::sim::CostModel m = tklab::sim::CostModel::load("h100");
    std::mt19937 rng(37);
    std::vector<tk::bf16> host(32 * 64);
    for (tk::bf16& v : host) v = tk::from_float<tk::bf16>(float(int(rng() % 9) - 4));
    tk::device_buffer<tk::bf16> g(host.size(), host, "g");
    tk::device_buffer<float> out(16 * 64, "out");
    const int passes = 3 + int(rng() % 6);
    auto overhead = [&](int mode) {
        tk::launch("ldmatrix_loop", ldmatrix_loop_kernel, dim3(1), dim3(32), 2 * 32 * 64 * 2 + 1024, tk::gl<tk::bf16>{g.data(), 1, 1, 32, 64},
                   tk::gl<float>{out.data(), 1, 1, 16, 64}, passes, mode);
        // The sum is right in every mode.
        const std::vector<float> got = out.download();
        for (int i = 0; i < 16; ++i)
            for (int j = 0; j < (mode < 2 ? 64 : 32); ++j) {
                float want = 0;
                for (int p = 0; p < passes; ++p)
                    want += float(host[size_t(i * 64 + (mode < 2 ? 0 : 32 * (p % 2)) + j)]);
                CHECK(got[size_t(i * 64 + j)] == want);
            }
        return double(tklab::sim::last_run().stats.overhead_instructions);
    };
    // A 16x64 operand is 4 ldmatrix.x4, a 16x32 one 2; the group load's
    // arithmetic is the same in all, the store's (16 st.global, 8 for mode 2) not.
    const auto& o = m.ov_ldmatrix;
    const double same = overhead(0), stages = overhead(1), varying = overhead(2);
    INFO("passes = " << passes);
    // The same rows: the first call's arithmetic only. Two stages: each later
    // call computes its stage's base. Another window of the swizzled tile:
    // every call's, in full.
    CHECK(stages - same == Approx((passes - 1) * o.per_call).margin(1.0));
    CHECK(varying - same == Approx(passes * (o.per_call + 2 * o.per_instruction) - (o.per_call + 4 * o.per_instruction) -
                                   8 * m.ov_st_global.per_instruction).margin(1.0));
}

TEST_CASE("compiler effects: a fill reads no registers, so it waits for no load", "[sim][alu]") {
    std::mt19937 rng(38);
    std::vector<float> host(16 * 64);
    for (float& v : host) v = float(rng() % 1000) / 8.0f;
    tk::device_buffer<float> in(host.size(), host, "in"), out(host.size(), "out");
    auto cycles = [&](int fill) {
        tk::launch("fill_after_load", fill_after_load_kernel, dim3(1), dim3(32), 0, tk::gl<float>{in.data(), 1, 1, 16, 64},
                   tk::gl<float>{out.data(), 1, 1, 16, 64}, fill);
        CHECK(out.download() == host);
        return tklab::sim::last_run().stats.max_block_cycles;
    };
    const uint64_t without = cycles(0), with = cycles(1);
    const tklab::sim::CostModel m = tklab::sim::CostModel::load("h100");
    // The zeros issue while the load is in flight: the store waits for the
    // load as before, and the block is no longer by the fill's 32 elements.
    CHECK(with >= without);
    CHECK(double(with - without) < 0.25 * 32 * m.alu[size_t(AluKind::simple)].latency);
}

TEST_CASE("compiler effects: a tile op's arithmetic costs its elements at its kind's measured rate", "[sim][alu]") {
    const tklab::sim::CostModel m = tklab::sim::CostModel::load("h100");
    std::mt19937 rng(23);
    for (int trial = 0; trial < 3; ++trial) {
        const int n = 4 + int(rng() % 12);
        // One warp alone: each op is 32 elements at the kind's latency.
        const double per_op_add = double(block_cycles<Arith::add>(1, n, rng()) - block_cycles<Arith::add>(1, 0, rng())) / n;
        const double per_op_exp = double(block_cycles<Arith::exp>(1, n, rng()) - block_cycles<Arith::exp>(1, 0, rng())) / n;
        const double per_op_div = double(block_cycles<Arith::div>(1, n, rng()) - block_cycles<Arith::div>(1, 0, rng())) / n;
        INFO("n = " << n);
        CHECK(per_op_add == Approx(32 * m.alu[size_t(AluKind::simple)].latency).margin(1.0));
        CHECK(per_op_exp == Approx(32 * m.alu[size_t(AluKind::exp)].latency).margin(1.0));
        CHECK(per_op_div == Approx(32 * m.alu[size_t(AluKind::div)].latency).margin(1.0));
    }
}

TEST_CASE("compiler effects: an element function's ex2_approx calls are charged with its op, once", "[sim][alu]") {
    const tklab::sim::CostModel m = tklab::sim::CostModel::load("h100");
    std::mt19937 rng(41);
    const int n = 4 + int(rng() % 8);
    const auto& simple = m.alu[size_t(AluKind::simple)];
    const auto& ex2 = m.alu[size_t(AluKind::exp2)];
    // A lambda is one simple instruction an element, plus the ex2 it calls.
    const double lambda = double(block_cycles<Arith::lambda_ex2>(1, n, rng()) - block_cycles<Arith::lambda_ex2>(1, 0, rng())) / n;
    CHECK(lambda == Approx(32 * (simple.latency + ex2.latency)).margin(2.0));
    // tk::exp2 calls ex2_approx itself: its kind's price, not twice.
    const double op = double(block_cycles<Arith::exp2>(1, n, rng()) - block_cycles<Arith::exp2>(1, 0, rng())) / n;
    CHECK(op == Approx(32 * ex2.latency).margin(1.0));
}

TEST_CASE("compiler effects: warps on one sub-partition take turns at its issue slot", "[sim][alu]") {
    test_support::constant_miss_as no_miss(false);  // (a first-wave block waits for the parameters first)
    const tklab::sim::CostModel m = tklab::sim::CostModel::load("h100");
    const int n = 32;
    // 16 warps: four on each sub-partition. Division's throughput is a third
    // of its latency, so four warps overlap into 4 x throughput, not 4 x latency.
    const auto& div = m.alu[size_t(AluKind::div)];
    const double one = double(block_cycles<Arith::div>(1, n, 5));
    const double sixteen = double(block_cycles<Arith::div>(16, n, 6));
    CHECK(sixteen / one == Approx(std::max(1.0, 4 * div.throughput / div.latency)).epsilon(0.05));
    // Adds, whose throughput is nearly their latency: four warps take four times one.
    const auto& add = m.alu[size_t(AluKind::simple)];
    const double one_add = double(block_cycles<Arith::add>(1, n, 7));
    const double sixteen_add = double(block_cycles<Arith::add>(16, n, 8));
    CHECK(sixteen_add / one_add == Approx(4 * add.throughput / add.latency).epsilon(0.05));
}

TEST_CASE("compiler effects: a tile op's arithmetic shows as PC sampling shows it: issuing, waiting, other warps' turns", "[sim][alu]") {
    const tklab::sim::CostModel m = tklab::sim::CostModel::load("h100");
    std::mt19937 rng(29);
    const int n = 2 + int(rng() % 6);
    // The events of warp 0's ops after the fill.
    auto ops = [](const tklab::sim::RunResult& r) {
        std::vector<tklab::sim::Event> out;
        int seen = 0;
        for (const auto& e : r.blocks.at(0).events)
            if (e.op == tklab::sim::Op::alu && e.warp == 0 && seen++ > 0) out.push_back(e);
        return out;
    };
    // One warp alone: each op's 32 elements take their latency, as the event's
    // stall (the next starts at its end), named by its longer part: issuing
    // the kind's instructions (`selected`) or waiting for them (`wait`).
    // Division issues 11 an element and waits most of its 59 cycles; exp
    // issues 8 of its 14 (results/alu_instructions_h200.txt).
    for (AluKind kind : {AluKind::div, AluKind::exp}) {
        const auto& c = m.alu[size_t(kind)];
        if (kind == AluKind::div) block_cycles<Arith::div>(1, n, rng());
        else block_cycles<Arith::exp>(1, n, rng());
        const double issuing = 32 * c.instructions * m.issue_cycles;
        const auto want = issuing >= 32 * c.latency - issuing ? tklab::sim::Stall::selected : tklab::sim::Stall::wait;
        const auto events = ops(tklab::sim::last_run());
        INFO(int(kind) << ", " << n << " ops");
        CHECK(events.size() == size_t(n));
        for (const auto& e : events) {
            CHECK(e.done == e.issue);
            CHECK(e.stall == want);
            CHECK(double(e.stall_cycles) == Approx(32 * c.latency).margin(1));
        }
    }
    CHECK(m.alu[size_t(AluKind::div)].instructions > 2);  // else the two kinds could not show both names
    // Sixteen warps, four to a sub-partition: adds, whose issue slot is nearly
    // all their time alone, wait mostly for the other three warps' turns.
    block_cycles<Arith::add>(16, n, rng());
    const tklab::sim::RunResult& r = tklab::sim::last_run();
    const auto events = ops(r);
    REQUIRE(events.size() == size_t(n));
    CHECK(events.back().stall == tklab::sim::Stall::not_selected);
    CHECK(r.stats.stall_cycles[size_t(tklab::sim::Stall::not_selected)] > 0);
}

TEST_CASE("compiler effects: an instruction that waits for two reasons counts each part under its own", "[sim][alu]") {
    const tklab::sim::CostModel m = tklab::sim::CostModel::load("h100");
    std::mt19937 rng(43);
    const int n = 2 + int(rng() % 6);
    // One warp alone: each exp issues its instructions (`selected`) and waits
    // for the rest of its latency (`wait`). The event names the longer part;
    // the run's totals and the report's lines count both, as PC sampling
    // counts each cycle.
    std::vector<float> host(32, float(rng() % 10));
    tk::device_buffer<float> out(host.size(), host, "out");
    auto run = [&](int ops) {
        tklab::sim::TraceRecorder rec(tklab::sim::RecorderOptions{});
        tk::launch("arithmetic", arithmetic_kernel<Arith::exp>, dim3(1), dim3(32), 0, out.data(), ops);
        rec.close();
        const tklab::sim::RunResult& r = tklab::sim::last_run();
        uint64_t events = 0, totals = 0, lines = 0;
        for (const auto& e : r.blocks.at(0).events) events += e.stall_cycles;
        for (uint64_t c : r.stats.stall_cycles) totals += c;
        const tklab::trace::Summary& s = *rec.trace().launches.back().summary;
        for (const auto& ls : s.line_stalls)
            for (uint64_t c : ls.cycles) lines += c;
        // Every cycle waited is counted once, under one reason.
        CHECK(totals == events);
        CHECK(lines == events);
        return std::pair{r.stats.stall_cycles[size_t(tklab::sim::Stall::selected)], r.stats.stall_cycles[size_t(tklab::sim::Stall::wait)]};
    };
    const auto [sel0, wait0] = run(n);
    const auto [sel1, wait1] = run(n + 1);
    const auto& c = m.alu[size_t(AluKind::exp)];
    const double issuing = 32 * c.instructions * m.issue_cycles;
    REQUIRE(issuing < 32 * c.latency);
    CHECK(double(sel1 - sel0) == Approx(issuing).margin(1));
    CHECK(double(wait1 - wait0) == Approx(32 * c.latency - issuing).margin(1));
}

TEST_CASE("compiler effects: a tile op's global loads wait one latency together", "[sim][memory]") {
    test_support::constant_miss_as no_miss(false);  // (a first-wave block waits for the parameters first)
    const tklab::sim::CostModel m = tklab::sim::CostModel::load("h100");
    std::mt19937 rng(31);
    std::vector<tk::bf16> host(64 * 64);
    for (tk::bf16& v : host) v = tk::from_float<tk::bf16>(float(rng() % 100) / 64.0f);
    tk::device_buffer<tk::bf16> g(host.size(), host, "g");
    tk::launch("tile_load", tile_load_kernel, dim3(1), dim3(32), 64 * 64 * 2, tk::gl<tk::bf16>{g.data(), 1, 1, 64, 64});
    const uint64_t cycles = tklab::sim::last_run().stats.max_block_cycles;
    // 16 loads of 16 bytes a lane, each stored as it arrives: one latency and
    // the issue of 32 instructions with their address arithmetic (the cost
    // model's overhead), not 16 latencies one after another.
    const double arithmetic = (m.ov_group_copy.per_call + 32 * m.ov_group_copy.per_instruction) * m.overhead_latency;
    CHECK(cycles >= uint64_t(m.global_latency));
    CHECK(double(cycles) < m.global_latency + arithmetic + 200);
    CHECK(double(cycles) < 2.0 * m.global_latency + arithmetic);
}

// A kernel's own loop: `n` words loaded and stored to shared memory (lesson
// 4's first loop), with arithmetic between the two when `work`.
__global__ void loop_load_kernel(const uint32_t* in, int n, int work) {
    const uint32_t tile = tk::arch::smem_addr(tk::dynamic_shared_memory());
    for (int i = 0; i < n; ++i) {
        uint32_t v[1];
        tk::arch::ld_global<1>(v, in + i * 32 + int(threadIdx.x));
        if (work) tk::arch::alu(tk::arch::alu_kind::simple, work);
        tk::arch::st_shared<1>(tile + 4 * uint32_t(i * 32 + int(threadIdx.x)), v);
    }
}

TEST_CASE("compiler effects: a loop's loads that only go on to shared memory wait one latency together, 16 at a time", "[sim][memory]") {
    test_support::constant_miss_as no_miss(false);  // (a first-wave block waits for the parameters first)
    const tklab::sim::CostModel m = tklab::sim::CostModel::load("h100");
    std::mt19937 rng(37);
    std::vector<uint32_t> host(64 * 32);
    for (uint32_t& v : host) v = rng();
    tk::device_buffer<uint32_t> g(host.size(), host, "g");
    auto cycles = [&](int n, int work) {
        tk::launch("loop_load", loop_load_kernel, dim3(1), dim3(32), 64 * 32 * 4, g.data(), n, work);
        return double(tklab::sim::last_run().stats.max_block_cycles);
    };
    for (int round = 0; round < 3; ++round) {
        const int n = 2 + int(rng() % 15);  // 2..16: one run of loads
        INFO("n " << n);
        // ptxas issues the unrolled loop's loads ahead of its stores: one latency, not n.
        CHECK(cycles(n, 0) < m.global_latency + 40.0 * n);
        // Arithmetic between a load and its store: each iteration waits its own latency.
        CHECK(cycles(n, 1) > n * double(m.global_latency));
    }
    // Past 16 loads a new run begins: two latencies for 17 to 32.
    const double two = cycles(17 + int(rng() % 16), 0);
    CHECK(two > 2.0 * m.global_latency);
    CHECK(two < 3.0 * m.global_latency);
}

TEST_CASE("compiler effects: a load that converts waits for its data in the op, at its own line", "[sim][memory][alu]") {
    const int l1 = GENERATE(0, 1);  // with the L1 model off (tklab run --no-l1) and on (as shipped)
    const test_support::l1_model_as l1_model(l1 == 1);
    INFO("L1 model " << (l1 ? "on" : "off"));
    const tklab::sim::CostModel m = tklab::sim::CostModel::load("h100");
    std::mt19937 rng(37);
    std::vector<float> values(16 * 64);
    for (float& v : values) v = float(rng() % 256) / 16.0f;
    tk::device_buffer<float> out(values.size(), "out");
    const tk::gl<float> out_gl{out.data(), 1, 1, 16, 64};
    // What warp 0 waited for at each op, by the op and its line.
    struct Waits { uint64_t load_long = 0, store_long = 0; bool alu_at_load = false; };
    auto waits = [](const tklab::sim::RunResult& r) {
        Waits w;
        for (const auto& e : r.blocks.at(0).events) {
            if (e.warp != 0) continue;
            const bool at_load = r.locations[e.loc].line == converting_load_line;
            const bool long_wait = e.stall == tklab::sim::Stall::long_scoreboard;
            if (e.op == tklab::sim::Op::alu && at_load) { w.alu_at_load = true; if (long_wait) w.load_long += e.stall_cycles; }
            if (e.op == tklab::sim::Op::st_global && long_wait) w.store_long += e.stall_cycles;
        }
        return w;
    };
    // bf16 into floats: the conversions (the alu charge) wait for the loads
    // at the load's line (what is left of L2's latency after issuing them);
    // the store then finds the registers filled.
    std::vector<tk::bf16> halves(values.size());
    for (size_t i = 0; i < values.size(); ++i) halves[i] = tk::from_float<tk::bf16>(values[i]);
    tk::device_buffer<tk::bf16> in16(halves.size(), halves, "in");
    tk::launch("converting_load", converting_load_kernel<tk::bf16>, dim3(1), dim3(32), 0, tk::gl<tk::bf16>{in16.data(), 1, 1, 16, 64}, out_gl);
    CHECK(out.download() == values);  // (every value is exact in bf16)
    Waits w = waits(tklab::sim::last_run());
    CHECK(w.alu_at_load);
    CHECK(w.load_long > 0);
    CHECK(w.store_long == 0);
    const uint64_t converting_wait = w.load_long;
    // floats into floats: nothing to convert, no wait at the load; the store
    // is the first to read the registers and waits there.
    tk::device_buffer<float> in32(values.size(), values, "in");
    tk::launch("converting_load", converting_load_kernel<float>, dim3(1), dim3(32), 0, tk::gl<float>{in32.data(), 1, 1, 16, 64}, out_gl);
    CHECK(out.download() == values);
    w = waits(tklab::sim::last_run());
    CHECK_FALSE(w.alu_at_load);
    CHECK(w.load_long == 0);
    CHECK(w.store_long > 0);
    // The same loads' data, waited for once either way: the two waits differ
    // by what is issued between (the conversions, the store's addresses), far
    // less than a memory latency.
    const uint64_t gap = converting_wait > w.store_long ? converting_wait - w.store_long : w.store_long - converting_wait;
    CHECK(double(gap) < m.global_latency);
}

TEST_CASE("compiler effects: a warp_row map is charged as a tile's and waits for the rows it reads", "[sim][alu]") {
    std::mt19937 rng(41);
    std::vector<tk::bf16> x(256), r(256);
    std::vector<tk::bf16> want(256);
    for (int i = 0; i < 256; ++i) {
        x[size_t(i)] = tk::from_float<tk::bf16>(float(int(rng() % 64) - 32) / 8.0f);
        r[size_t(i)] = tk::from_float<tk::bf16>(float(int(rng() % 64) - 32) / 8.0f);
        want[size_t(i)] = tk::from_float<tk::bf16>(tk::to_float(x[size_t(i)]) + tk::to_float(r[size_t(i)]));
    }
    tk::device_buffer<tk::bf16> xb(256, x, "x"), rb(256, r, "r"), ob(256, "out");
    tk::device_buffer<float> total(1, "total");
    tk::launch("row_map", row_map_kernel, dim3(1), dim3(32), 0, tk::gl<tk::bf16>{xb.data(), 1, 1, 1, 256}, tk::gl<tk::bf16>{rb.data(), 1, 1, 1, 256},
               tk::gl<tk::bf16>{ob.data(), 1, 1, 1, 256}, total.data());
    CHECK(ob.download() == want);
    const tklab::sim::RunResult& run = tklab::sim::last_run();
    // At the map's line: its arithmetic (8 elements a lane) and the rounding
    // into bf16, the first waiting for both rows' loads (long_scoreboard).
    std::vector<tklab::sim::Event> at_map;
    for (const auto& e : run.blocks.at(0).events)
        if (e.op == tklab::sim::Op::alu && run.locations[e.loc].line == row_map_line) at_map.push_back(e);
    REQUIRE(at_map.size() == 2);
    CHECK(at_map[0].stall == tklab::sim::Stall::long_scoreboard);
    CHECK(at_map[0].stall_cycles > 0);
    // The sum's adds are charged too: an alu instruction before its shuffles.
    int sum_alu = 0;
    for (const auto& e : run.blocks.at(0).events)
        if (e.op == tklab::sim::Op::alu && run.locations[e.loc].line == row_map_line + 2) ++sum_alu;
    CHECK(sum_alu == 1);
}

TEST_CASE("compiler effects: a warp's exit waits for its stores to drain", "[sim][memory]") {
    test_support::constant_miss_as no_miss(false);  // (a first-wave block waits for the parameters first)
    const tklab::sim::CostModel m = tklab::sim::CostModel::load("h100");
    tk::device_buffer<uint32_t> out(32 * 64, "out");
    tk::launch("store", store_kernel, dim3(1), dim3(32), 0, out.data(), 0);
    const uint64_t none = tklab::sim::last_run().stats.max_block_cycles;
    for (int lines : {1, 16, 64}) {
        tk::launch("store", store_kernel, dim3(1), dim3(32), 0, out.data(), lines);
        const uint64_t cycles = tklab::sim::last_run().stats.max_block_cycles;
        INFO(lines << " lines");
        // The warp exits when the last store's bytes have left the SM, at one
        // SM's write rate (one block: few SMs busy)...
        const double drain = double(lines * 128) / m.l2_write_bytes_per_cycle_one_sm;
        CHECK(double(cycles) >= drain - 1);  // rounded to whole cycles
        CHECK(double(cycles) <= drain + double(lines * m.global_issue_cycles) + 2);
        CHECK(cycles > none + uint64_t(drain) - 1);
        // ...and the kernel ends an L2 latency later, when they are acknowledged.
        CHECK(tklab::sim::last_run().stats.wave_cycles == cycles + uint64_t(m.global_latency));
        // The wait is the warp's `exit`, a drain at the function's closing
        // brace, from its last store's issue to the block's end.
        const tklab::sim::RunResult& r = tklab::sim::last_run();
        const auto& ev = r.blocks.at(0).events;
        REQUIRE(ev.size() == size_t(lines) + 1);
        const auto& exit = ev.back();
        CHECK(exit.op == tklab::sim::Op::exit);
        CHECK(exit.stall == tklab::sim::Stall::drain);
        CHECK(r.locations[exit.loc].line == store_kernel_end_line);
        CHECK(r.locations[exit.loc].file == __FILE__);
        CHECK(exit.issue == cycles);
        CHECK(exit.stall_cycles == cycles - ev[ev.size() - 2].done);
        CHECK(r.stats.stall_cycles[size_t(tklab::sim::Stall::drain)] == exit.stall_cycles);
    }
    // No stores, nothing to wait for: no exit event.
    tk::launch("store", store_kernel, dim3(1), dim3(32), 0, out.data(), 0);
    CHECK(tklab::sim::last_run().blocks.at(0).events.empty());
    CHECK(store_kernel_first_line < store_kernel_end_line);
}

TEST_CASE("compiler effects: the kernel exit's line is its function's closing brace", "[sim][memory]") {
    using tklab::trace::function_end_line_in;
    const char* src =
        "namespace a { namespace b {\n"                      // 1
        "struct params { int n; };\n"                        // 2
        "template <int N>\n"                                 // 3
        "__global__ void __launch_bounds__(128) k(int* p) {\n" // 4
        "    const char* s = \"} not a brace {\";  // }\n"   // 5
        "    /* { */ for (int i = 0; i < N; ++i) {\n"        // 6
        "        auto f = [](int x) { return x + '}'; };\n"  // 7
        "        p[i] = f(i);\n"                              // 8
        "    }\n"                                              // 9
        "}\n"                                                  // 10
        "void host() { k<1><<<1, 1>>>(nullptr); }\n"         // 11
        "} }\n";                                               // 12
    for (int line : {4, 5, 6, 7, 8, 9, 10}) {
        INFO("line " << line);
        CHECK(function_end_line_in(src, line) == 10);
    }
    CHECK(function_end_line_in(src, 11) == 11);  // a one-line function
    CHECK(function_end_line_in(src, 2) == 2);    // in a struct, not a function: the line itself
    CHECK(function_end_line_in(src, 12) == 12);
    CHECK(function_end_line_in("", 3) == 3);
    CHECK(tklab::sim::function_end_line("/no/such/file.cuh", 7) == 7);
}
