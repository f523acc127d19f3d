// Fused residual add + layernorm: both outputs against the float64 reference
// at several widths and row counts, on both backends; in the simulator, every
// global access is a full 16-byte piece (the kernel's bandwidth design).
#include <catch2/catch.hpp>
#include <cmath>
#include "kernels/layernorm/layernorm_data.cuh"
#include "kernels/layernorm/layernorm_kernel.cuh"
#include "tk/host/reference.h"
#if defined(TK_SIM)
#include "sim/simulator.h"
#endif

namespace {

double run_case(int rows, int d, unsigned seed) {
    auto g = layernorm::make_inputs(rows, d, seed);
    layernorm::run(g.views());
    return tk::host::max_relative_error(layernorm::output(g), layernorm::reference(g));
}

} // namespace

TEST_CASE("layernorm matches the float64 reference at several widths", "[kernels][layernorm]") {
    // (rows, D): the default width, the smallest, odd piece counts, the widest;
    // row counts that leave some warps of the grid without a row or with several.
    const int shapes[][2] = {{64, 1024}, {16, 256}, {48, 768}, {40, 1280}, {32, 2048}, {200, 512}};
    unsigned seed = 31;
    for (const auto& s : shapes) {
        INFO("rows " << s[0] << ", D " << s[1]);
        CHECK(run_case(s[0], s[1], seed++) <= layernorm::TOLERANCE);
    }
}

TEST_CASE("layernorm stores residual_out bit-exactly and normalises each row", "[kernels][layernorm]") {
    const int rows = 24, d = 768;
    auto g = layernorm::make_inputs(rows, d, 77);
    layernorm::run(g.views());
    const auto res = g.dres_out->download();
    const auto out = g.dout->download();
    for (size_t i = 0; i < res.size(); ++i) {
        const tk::bf16 want = tk::bf16(double(float(g.x[i])) + double(float(g.residual[i])));
        REQUIRE(tk::as_bits(res[i]) == tk::as_bits(want));
    }
    // With weight 1 and bias 0 each row of out would have mean 0 and variance 1;
    // undo the affine part with the known weight and bias to check that.
    for (int r = 0; r < rows; ++r) {
        double mean = 0, sq = 0;
        int used = 0;
        for (int c = 0; c < d; ++c) {
            const double w = float(g.weight[c]);
            if (std::abs(w) < 0.25) continue;  // dividing by a small weight magnifies bf16 rounding
            const double z = (double(float(out[size_t(r) * d + c])) - double(float(g.bias[c]))) / w;
            mean += z;
            sq += z * z;
            ++used;
        }
        mean /= used;
        INFO("row " << r);
        CHECK(std::abs(mean) < 0.1);
        CHECK(std::abs(sq / used - 1.0) < 0.1);
    }
}

TEST_CASE("layernorm catches a wrong output", "[kernels][layernorm]") {
    // The check has teeth: one bf16 step on one element of out fails it.
    auto g = layernorm::make_inputs(16, 256, 5);
    layernorm::run(g.views());
    auto got = layernorm::output(g);
    const auto want = layernorm::reference(g);
    REQUIRE(tk::host::max_relative_error(got, want) <= layernorm::TOLERANCE);
    size_t i = 0;
    while (std::abs(want[i]) < 0.5 || std::abs(want[i]) >= 1.0) ++i;  // a value in [0.5, 1): its bf16 step is 2^-8
    got[i] += float(2 * (want[i] > 0 ? 1 : -1)) / 256.f;
    CHECK(tk::host::max_relative_error(got, want) > layernorm::TOLERANCE);
}

#if defined(TK_SIM)
TEST_CASE("layernorm moves every byte in 16-byte pieces", "[kernels][layernorm]") {
    const int rows = 96, d = 1024, pieces = d / 256;
    run_case(rows, d, 9);
    const auto& st = tklab::sim::last_run().stats;
    const uint64_t warps = uint64_t(layernorm::grid_blocks<1024>(rows)) * layernorm::WARPS;
    // Per row: x and residual in, residual_out and out back; per warp, weight and bias once.
    // One warp instruction per 256 columns: 512 bytes, 16 per lane.
    CHECK(st.by_op[size_t(tklab::sim::Op::ld_global)] == uint64_t(rows) * 2 * pieces + warps * 2 * pieces);
    CHECK(st.by_op[size_t(tklab::sim::Op::st_global)] == uint64_t(rows) * 2 * pieces);
    CHECK(st.ld_shared.instructions == 0);
    CHECK(st.st_shared.instructions == 0);
}
#endif
