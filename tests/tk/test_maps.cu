// Element-wise maps on register tiles (zero ... binary_map) and make_causal,
// against plain CPU references on seeded random data, at several shapes, both
// layouts, float and bf16. One kernel launch per configuration runs every op
// and stores each result as one depth slice of the output.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include "tk/tk.h"
#include "support/test_data.h"

namespace {

// The ops, in the order the kernel stores them.
enum map_op : int {
    M_ZERO, M_ONE, M_NEG_INFTY, M_FILL, M_COPY, M_EXP, M_EXP2, M_LOG, M_ABS, M_RELU,
    M_ADD, M_SUB, M_MUL, M_DIV, M_MAX, M_MIN,
    M_ADD_S, M_SUB_S, M_MUL_S, M_DIV_S, M_MAX_S, M_MIN_S,
    M_UNARY, M_BINARY, M_BINARY_S, M_IN_PLACE, M_MIXED, M_COUNT
};

} // namespace

// a, b in [-1, 1); p in [0.25, 4) (log's input and the divisor).
template <typename T, int R, int C, typename L>
__global__ void maps_kernel(tk::gl<T> a, tk::gl<T> b, tk::gl<T> p, tk::gl<float> out) {
    using namespace tk;
    rt<T, R, C, L> x, y, q, d;
    load(x, a, {0, 0, 0, 0});
    load(y, b, {0, 0, 0, 0});
    load(q, p, {0, 0, 0, 0});
    auto put = [&](int op) { store(out, d, {0, op, 0, 0}); };
    zero(d); put(M_ZERO);
    one(d); put(M_ONE);
    neg_infty(d); put(M_NEG_INFTY);
    fill(d, 0.375f); put(M_FILL);
    copy(d, x); put(M_COPY);
    exp(d, x); put(M_EXP);
    exp2(d, x); put(M_EXP2);
    log(d, q); put(M_LOG);
    abs(d, x); put(M_ABS);
    relu(d, x); put(M_RELU);
    add(d, x, y); put(M_ADD);
    sub(d, x, y); put(M_SUB);
    mul(d, x, y); put(M_MUL);
    div(d, x, q); put(M_DIV);
    max(d, x, y); put(M_MAX);
    min(d, x, y); put(M_MIN);
    add(d, x, 0.75f); put(M_ADD_S);
    sub(d, x, 1.5f); put(M_SUB_S);
    mul(d, x, -3); put(M_MUL_S);  // an int scalar
    div(d, x, 3.0f); put(M_DIV_S);
    max(d, x, 0.25f); put(M_MAX_S);
    min(d, x, from_float<T>(-0.25f)); put(M_MIN_S);  // a scalar of the element type
    unary_map(d, x, [](float v) { return v * v * v; }); put(M_UNARY);
    binary_map(d, x, y, [](float u, float v) { return (u - v) * u; }); put(M_BINARY);
    binary_map(d, x, 2.0f, [](float u, float s) { return u > 0.0f ? u : s * u; }); put(M_BINARY_S);
    copy(d, x); add(d, d, y); mul(d, d, d); put(M_IN_PLACE);  // dst aliasing the sources
    rt<float, R, C, L> f;
    mul(f, x, y);  // mixed types: rounded to dst's type (float), not to T
    store(out, f, {0, M_MIXED, 0, 0});
}

namespace {

float round_as(float v, bool is_bf16) { return is_bf16 ? tk::to_float(tk::from_float<tk::bf16>(v)) : v; }

// got == want everywhere, or within tol * |want| (tol > 0); NaN never matches.
void check_op(const std::string& what, const float* got, const std::vector<float>& want, double tol) {
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < want.size(); ++i) {
        const bool ok = tol == 0 ? got[i] == want[i] : std::abs(double(got[i]) - want[i]) <= tol * std::abs(double(want[i]));
        if (!ok && bad++ == 0) first = i;
    }
    INFO(what << ": " << bad << " of " << want.size() << " elements differ; first at " << first << ": got "
              << (bad ? got[first] : 0.f) << ", want " << (bad ? want[first] : 0.f));
    CHECK(bad == 0);
}

template <typename T, int R, int C, typename L>
void check_maps(uint32_t seed) {
    constexpr bool bf = std::is_same_v<T, tk::bf16>;
    const size_t n = size_t(R) * C;
    auto a = tktest::random_values<T>(n, seed), b = tktest::random_values<T>(n, seed + 1);
    auto p = tktest::random_values<T>(n, seed + 2, 0.25f, 4.0f);
    tk::device_buffer<T> da(n, a, "a"), db(n, b, "b"), dp(n, p, "p");
    tk::device_buffer<float> dout(n * M_COUNT, "out");
    tk::launch("maps_kernel", maps_kernel<T, R, C, L>, dim3(1), dim3(32), 0, tk::gl<T>(da.data(), 1, 1, R, C),
               tk::gl<T>(db.data(), 1, 1, R, C), tk::gl<T>(dp.data(), 1, 1, R, C), tk::gl<float>(dout.data(), 1, M_COUNT, R, C));
    const auto got = dout.download();
    const auto fa = tktest::to_floats(a), fb = tktest::to_floats(b), fp = tktest::to_floats(p);

    // Transcendentals: the host libm is the reference; the GPU's expf/exp2f/logf
    // are within 2 ulp. bf16 results may then round the other way: 1 bf16 ulp.
    const double tr_tol = bf ? 1.0 / 128 : 1e-6;
    const std::string cfg = std::string(tk::dtype_name<T>()) + " " + std::to_string(R) + "x" + std::to_string(C) +
                            (L::is_row ? " row" : " col") + ", ";
    auto expect = [&](int op, const char* name, auto f, double tol = 0) {
        std::vector<float> want(n);
        for (size_t i = 0; i < n; ++i) want[i] = round_as(f(fa[i], fb[i], fp[i]), bf);
        check_op(cfg + name, got.data() + size_t(op) * n, want, tol);
    };
    const float inf = std::numeric_limits<float>::infinity();
    expect(M_ZERO, "zero", [](float, float, float) { return 0.f; });
    expect(M_ONE, "one", [](float, float, float) { return 1.f; });
    expect(M_NEG_INFTY, "neg_infty", [&](float, float, float) { return -inf; });
    expect(M_FILL, "fill", [](float, float, float) { return 0.375f; });
    expect(M_COPY, "copy", [](float x, float, float) { return x; });
    expect(M_EXP, "exp", [](float x, float, float) { return std::exp(x); }, tr_tol);
    expect(M_EXP2, "exp2", [](float x, float, float) { return std::exp2(x); }, tr_tol);
    expect(M_LOG, "log", [](float, float, float q) { return std::log(q); }, tr_tol);
    expect(M_ABS, "abs", [](float x, float, float) { return std::fabs(x); });
    expect(M_RELU, "relu", [](float x, float, float) { return std::fmax(x, 0.f); });
    expect(M_ADD, "add", [](float x, float y, float) { return x + y; });
    expect(M_SUB, "sub", [](float x, float y, float) { return x - y; });
    expect(M_MUL, "mul", [](float x, float y, float) { return x * y; });
    expect(M_DIV, "div", [](float x, float, float q) { return x / q; });
    expect(M_MAX, "max", [](float x, float y, float) { return std::fmax(x, y); });
    expect(M_MIN, "min", [](float x, float y, float) { return std::fmin(x, y); });
    expect(M_ADD_S, "add scalar", [](float x, float, float) { return x + 0.75f; });
    expect(M_SUB_S, "sub scalar", [](float x, float, float) { return x - 1.5f; });
    expect(M_MUL_S, "mul scalar", [](float x, float, float) { return x * -3.f; });
    expect(M_DIV_S, "div scalar", [](float x, float, float) { return x / 3.f; });
    expect(M_MAX_S, "max scalar", [](float x, float, float) { return std::fmax(x, 0.25f); });
    expect(M_MIN_S, "min scalar", [](float x, float, float) { return std::fmin(x, -0.25f); });
    expect(M_UNARY, "unary_map", [](float x, float, float) { return x * x * x; });
    expect(M_BINARY, "binary_map", [](float x, float y, float) { return (x - y) * x; });
    expect(M_BINARY_S, "binary_map scalar", [](float x, float, float) { return x > 0.f ? x : 2.f * x; });
    expect(M_IN_PLACE, "in place", [&](float x, float y, float) { const float s = round_as(x + y, bf); return s * s; });
    {
        std::vector<float> want(n);
        for (size_t i = 0; i < n; ++i) want[i] = fa[i] * fb[i];
        check_op(cfg + "mul into a float tile", got.data() + size_t(M_MIXED) * n, want, 0);
    }
}

} // namespace

TEST_CASE("register tile maps match CPU references (float)", "[tk][maps]") {
    check_maps<float, 16, 16, tk::row_l>(101);
    check_maps<float, 32, 64, tk::col_l>(102);
    check_maps<float, 64, 32, tk::row_l>(103);
    check_maps<float, 48, 16, tk::col_l>(104);
}

TEST_CASE("register tile maps match CPU references (bf16, rounded once)", "[tk][maps]") {
    check_maps<tk::bf16, 16, 16, tk::col_l>(111);
    check_maps<tk::bf16, 32, 64, tk::row_l>(112);
    check_maps<tk::bf16, 64, 32, tk::col_l>(113);
    check_maps<tk::bf16, 48, 16, tk::row_l>(114);
}

// ---- make_causal ------------------------------------------------------------------------------

template <typename T, int R, int C, typename L>
__global__ void causal_kernel(tk::gl<T> a, tk::gl<float> out, int row_tile, int col_tile) {
    using namespace tk;
    rt<T, R, C, L> x, d;
    load(x, a, {0, 0, 0, 0});
    make_causal(d, x);
    store(out, d, {0, 0, 0, 0});
    make_causal(d, x, -7.5f);
    store(out, d, {0, 1, 0, 0});
    make_causal(d, x, row_tile, col_tile);
    store(out, d, {0, 2, 0, 0});
    copy(d, x);
    make_causal(d, d, row_tile, col_tile, 0.0f);  // in place
    store(out, d, {0, 3, 0, 0});
}

namespace {

template <typename T, int R, int C, typename L>
void check_causal(uint32_t seed, int row_tile, int col_tile) {
    const size_t n = size_t(R) * C;
    auto a = tktest::random_values<T>(n, seed);
    tk::device_buffer<T> da(n, a, "a");
    tk::device_buffer<float> dout(4 * n, "out");
    tk::launch("causal_kernel", causal_kernel<T, R, C, L>, dim3(1), dim3(32), 0, tk::gl<T>(da.data(), 1, 1, R, C),
               tk::gl<float>(dout.data(), 1, 4, R, C), row_tile, col_tile);
    const auto got = dout.download();
    const auto fa = tktest::to_floats(a);
    const float inf = std::numeric_limits<float>::infinity();
    const std::string cfg = std::string(tk::dtype_name<T>()) + " " + std::to_string(R) + "x" + std::to_string(C) +
                            (L::is_row ? " row" : " col") + " at (" + std::to_string(row_tile) + "," + std::to_string(col_tile) + "), ";
    auto expect = [&](int slot, const char* name, int r0, int c0, float fill) {
        std::vector<float> want(n);
        for (int r = 0; r < R; ++r)
            for (int c = 0; c < C; ++c) want[size_t(r) * C + c] = c0 + c > r0 + r ? fill : fa[size_t(r) * C + c];
        check_op(cfg + name, got.data() + size_t(slot) * n, want, 0);
    };
    expect(0, "make_causal", 0, 0, -inf);
    expect(1, "make_causal fill", 0, 0, -7.5f);
    expect(2, "make_causal at tile", row_tile * R, col_tile * C, -inf);
    expect(3, "make_causal at tile, in place", row_tile * R, col_tile * C, 0.0f);
}

} // namespace

TEST_CASE("make_causal masks strictly above the diagonal, also for a tile of a larger matrix", "[tk][mask]") {
    check_causal<float, 16, 16, tk::row_l>(201, 0, 0);
    check_causal<float, 32, 64, tk::col_l>(202, 1, 0);   // rows 32..63, cols 0..63: a band through the diagonal
    check_causal<tk::bf16, 64, 32, tk::row_l>(203, 1, 2);  // rows 64..127, cols 64..95: the diagonal crosses
    check_causal<tk::bf16, 48, 16, tk::col_l>(204, 0, 1);  // rows 0..47, cols 16..31
    check_causal<float, 16, 32, tk::row_l>(205, 0, 1);     // entirely above: all fill
}
