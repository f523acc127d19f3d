// The instruction table (sim/instructions.h) and the hooks every executor
// reaches the bug finders through (sim/hooks.h): the facts the scheduler, the
// merger and the report read agree with the kernels' recorded behaviour, and
// an executor that touches shared memory without telling the finders is caught.
#include <catch2/catch.hpp>

#include "sim/hooks.h"
#include "sim/instructions.h"
#include "sim/simulator.h"
#include "tk/tk.h"
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using tklab::sim::Instruction;
using tklab::sim::Meet;
using tklab::sim::Op;
using tklab::sim::SmemTotal;
using tklab::sim::instruction;
using tklab::sim::instruction_named;

// Each thread loads a word, half the warp's first 16 lanes exchange theirs in
// a masked shuffle, every thread stages its word in shared memory, and each
// sums all 64 staged words.
__global__ void stage_and_sum_kernel(const uint32_t* in, uint32_t* out) {
    const uint32_t t = uint32_t(threadIdx.x);
    uint32_t w[1];
    tk::arch::ld_global<1>(w, in + t);
    uint32_t v = w[0];
    if (t < 16) v += tk::arch::shfl_xor(0x0000ffffu, v, 1);
    tk::arch::st_shared_b32(t * 4, v);
    __syncthreads();
    uint32_t sum = 0;
    for (uint32_t i = 0; i < 64; ++i) sum += tk::arch::ld_shared_b32(i * 4);
    const uint32_t s[1] = {sum};
    tk::arch::st_global<1>(out + t, s);
}

} // namespace

TEST_CASE("instructions: one row per op, found by its name, with the facts the engine records", "[sim][instructions]") {
    std::set<std::string> names;
    for (int i = 0; i < int(Op::count_); ++i) {
        const Instruction& row = instruction(Op(i));
        CHECK(row.op == Op(i));
        CHECK(names.insert(row.name).second);  // names are unique: traces and reports look rows up by them
        CHECK(instruction_named(row.name) == &row);
        CHECK(std::string(tklab::sim::op_name(Op(i))) == row.name);
        // A warp-synchronous row is one whose lanes must meet; only ldmatrix and stmatrix draw 8-row phases.
        CHECK(row.warp_synchronous() == (row.meet != Meet::arrived));
        CHECK(row.matrix_phases() == (Op(i) == Op::ldmatrix || Op(i) == Op::stmatrix));
    }
    CHECK(instruction_named("no.such.instruction") == nullptr);
    CHECK(instruction(Op::ld_shared).smem_total == SmemTotal::ld_shared);
    CHECK(instruction(Op::stmatrix).smem_total == SmemTotal::stmatrix);
    CHECK(instruction(Op::shfl).meet == Meet::member_mask);
    CHECK(instruction(Op::bar_sync).meet == Meet::running);
}

TEST_CASE("instructions: a kernel's events and totals follow the table's rows", "[sim][instructions]") {
    std::mt19937 rng(91);
    std::vector<uint32_t> in(64);
    for (uint32_t& x : in) x = rng() % 1000;
    tk::device_buffer<uint32_t> d_in(64, in, "in"), d_out(64, "out");
    tk::launch("stage_and_sum", stage_and_sum_kernel, dim3(1), dim3(64), 64 * 4, d_in.data(), d_out.data());
    const tklab::sim::RunResult& r = tklab::sim::last_run();
    uint32_t sum = 0;
    for (uint32_t t = 0; t < 64; ++t) sum += t < 16 ? in[t] + in[t ^ 1] : in[t];
    const std::vector<uint32_t> out = d_out.download();
    for (uint32_t t = 0; t < 64; ++t) CHECK(out[t] == sum);

    // The shuffle ran with its member mask's lanes (Meet::member_mask); its
    // aux is its mode (xor), a shared store's and load's their width in bytes.
    int shuffles = 0;
    for (const auto& e : r.blocks.at(0).events) {
        if (e.op == Op::shfl) {
            ++shuffles;
            CHECK(e.mask == 0x0000ffffu);
            CHECK(e.aux == uint8_t(tklab::sim::ShflMode::bfly));
        }
        if (e.op == Op::st_shared || e.op == Op::ld_shared) CHECK(e.aux == 4);
    }
    CHECK(shuffles == 1);
    // The merger totals ld.shared and st.shared where the rows say.
    CHECK(r.stats.st_shared.instructions == 2);       // one per warp
    CHECK(r.stats.ld_shared.instructions == 2 * 64);  // 64 per warp
    CHECK(r.stats.ldmatrix.instructions == 0);
}

TEST_CASE("hooks: an executor that touches shared memory without showing the finders is a simulator bug", "[sim][instructions]") {
    tklab::sim::bugs::SharedShadow shadow;
    shadow.begin_block(1024, 1, true, true);
    tklab::sim::BlockTrace trace;
    tklab::sim::Hooks hooks;
    hooks.attach(nullptr, &trace, &shadow);
    tklab::sim::bugs::VectorClock clock(size_t(shadow.agents().count()), 0u);
    clock[0] = 1;

    // A row that touches shared memory, with no access shown: refused, naming the instruction.
    hooks.instruction_begin();
    CHECK_THROWS_WITH(hooks.instruction_done(clock, 0, 1, false, 1u, true, "ld.shared", 1u, 1u),
                      Catch::Contains("ld.shared") && Catch::Contains("bug finders"));

    // The same with one access shown (a lane writing 4 bytes): accepted.
    hooks.instruction_begin();
    const tklab::sim::bugs::Accessor lane0{0, 0, clock[0], 2, &clock, 0};
    hooks.access(lane0, 64, 4, true, Op::st_shared, "kernel.cu", 1, dim3(0, 0, 0));
    CHECK_NOTHROW(hooks.instruction_done(clock, 0, 2, false, 1u, true, "st.shared", 1u, 1u));

    // An access shown before the instruction began does not count for it.
    hooks.access(lane0, 68, 4, true, Op::st_shared, "kernel.cu", 2, dim3(0, 0, 0));
    hooks.instruction_begin();
    CHECK_THROWS_AS(hooks.instruction_done(clock, 0, 3, false, 1u, true, "ldmatrix", 1u, 1u), std::logic_error);

    // A row that does not touch shared memory needs none.
    hooks.instruction_begin();
    CHECK_NOTHROW(hooks.instruction_done(clock, 0, 4, false, 1u, false, "mma.sync", 1u, 1u));

    // A release ends the warp's epoch once, at the instruction's end.
    tklab::sim::bugs::VectorClock barrier_clock;
    hooks.instruction_begin();
    hooks.release(clock, barrier_clock);
    CHECK(barrier_clock.at(0) == 1);
    CHECK(clock[0] == 1);
    hooks.instruction_done(clock, 0, 5, false, 1u, false, "bar.sync", 1u, 1u);
    CHECK(clock[0] == 2);
    CHECK(barrier_clock.at(0) == 1);
}
