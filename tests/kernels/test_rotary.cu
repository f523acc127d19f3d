// Rotary position embedding: against the float64 reference at several shapes
// (both head sizes, head counts that leave a partial step or block), on both
// backends; in the simulator, every global access is a full 16-byte piece.
#include <catch2/catch.hpp>
#include <cmath>
#include "kernels/rotary/rotary_data.cuh"
#include "kernels/rotary/rotary_kernel.cuh"
#include "tk/host/reference.h"
#if defined(TK_SIM)
#include "sim/simulator.h"
#endif

namespace {

double run_case(int b, int h, int n, int d, unsigned seed) {
    auto g = rotary::make_inputs(b, h, n, d, seed);
    rotary::run(g.views());
    return tk::host::max_relative_error(rotary::output(g), rotary::reference(g));
}

} // namespace

TEST_CASE("rotary matches the float64 reference", "[kernels][rotary]") {
    // (B, H, N, D). 2 x 4 heads: one full head block; 3 x 5: two head blocks, the
    // second with a partial step; 2 x 17: five head blocks; D = 64: 8 rows per warp.
    const int shapes[][4] = {{2, 4, 64, 128}, {3, 5, 32, 128}, {2, 17, 16, 128}, {1, 3, 64, 64}, {2, 9, 32, 64}};
    unsigned seed = 41;
    for (const auto& s : shapes) {
        INFO("B " << s[0] << ", H " << s[1] << ", N " << s[2] << ", D " << s[3]);
        CHECK(run_case(s[0], s[1], s[2], s[3], seed++) <= rotary::TOLERANCE);
    }
}

TEST_CASE("rotary keeps each pair's norm and rotates by the position's angle", "[kernels][rotary]") {
    // A rotation keeps |(lo, hi)|; position 0 (angle 0) is the identity.
    const int b = 1, h = 2, n = 32, d = 128, half = d / 2;
    auto g = rotary::make_inputs(b, h, n, d, 8);
    rotary::run(g.views());
    const auto out = g.dout->download();
    for (int row = 0; row < b * h * n; ++row) {
        for (int i = 0; i < half; ++i) {
            const size_t lo = size_t(row) * d + i, hi = lo + half;
            const double before = std::hypot(float(g.x[lo]), float(g.x[hi]));
            const double after = std::hypot(float(out[lo]), float(out[hi]));
            INFO("row " << row << ", i " << i);
            REQUIRE(std::abs(after - before) <= 1e-2 * std::max(before, 1.0));
            if (row % n == 0) {
                REQUIRE(tk::as_bits(out[lo]) == tk::as_bits(g.x[lo]));
                REQUIRE(tk::as_bits(out[hi]) == tk::as_bits(g.x[hi]));
            }
        }
    }
}

TEST_CASE("rotary rejects shapes its grid cannot cover", "[kernels][rotary]") {
    auto g = rotary::make_inputs(1, 1, 32, 128, 3);
    auto t = g.views();
    t.x.rows = t.out.rows = 24;  // 16 positions per block at D = 128
    CHECK_THROWS_WITH(rotary::run(t), Catch::Contains("multiple of 16"));
    t = g.views();
    t.x.depth = t.out.depth = 65535 * rotary::HEADS_PER_BLOCK + 1;  // one block too many along y (checked before launching)
    CHECK_THROWS_WITH(rotary::run(t), Catch::Contains("over the GPU's 65535"));
}

#if defined(TK_SIM)
TEST_CASE("rotary moves every byte of x in 16-byte pieces", "[kernels][rotary]") {
    const int b = 2, h = 6, n = 64, d = 128;
    run_case(b, h, n, d, 12);
    const auto& st = tklab::sim::last_run().stats;
    const uint64_t x_instructions = uint64_t(b) * h * n * d * 2 / 512;  // 512 bytes per warp instruction
    const uint64_t head_blocks = (b * h + rotary::HEADS_PER_BLOCK - 1) / rotary::HEADS_PER_BLOCK;
    const uint64_t warps = uint64_t(n / rotary::positions_per_block<128>()) * head_blocks * rotary::WARPS;
    // The fp32 tables: 32 bytes of cos and of sin per lane (2 + 2 loads), once per warp.
    CHECK(st.by_op[size_t(tklab::sim::Op::ld_global)] == x_instructions + warps * 4);
    CHECK(st.by_op[size_t(tklab::sim::Op::st_global)] == x_instructions);
}
#endif
