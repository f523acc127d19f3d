// The kernel shown in README.md ("Writing a kernel"), verbatim, checked
// against a CPU reference so the README never shows code that doesn't work.
#include <catch2/catch.hpp>
#include <cmath>
#include "tk/tk.h"
#include "support/test_data.h"

using namespace tk;

__global__ void scale_rows(gl<bf16> x, gl<float> out) {
    rt_bf<16, 64> t;                    // a warp's 16x64 register tile
    load(t, x, {0, 0, int(blockIdx.x), 0});
    rt_fl<16, 64> f;
    copy(f, t);                          // convert to fp32
    rt_fl<16, 64>::col_vec m;
    row_max(m, f);                       // one value per row, shuffled across lanes
    div_row(f, f, m);
    store(out, f, {0, 0, int(blockIdx.x), 0});
}

TEST_CASE("the README's example kernel divides each row by its maximum", "[tk][readme]") {
    const int rows = 48, cols = 64;
    // Positive values so the row maximum is a safe divisor.
    auto x = tktest::random_values<bf16>(size_t(rows) * cols, 77, 0.25f, 2.f);
    device_buffer<bf16> dx(x.size(), x, "x");
    device_buffer<float> dout(x.size(), "out");
    tk::launch("scale_rows", scale_rows, dim3(rows / 16), dim3(32), 0, gl<bf16>(dx.data(), 1, 1, rows, cols),
               gl<float>(dout.data(), 1, 1, rows, cols));
    auto got = dout.download();
    for (int r = 0; r < rows; ++r) {
        float mx = -INFINITY;
        for (int c = 0; c < cols; ++c) mx = std::max(mx, to_float(x[size_t(r) * cols + c]));
        for (int c = 0; c < cols; ++c) CHECK(got[size_t(r) * cols + c] == Approx(to_float(x[size_t(r) * cols + c]) / mx).epsilon(1e-6));
    }
}
