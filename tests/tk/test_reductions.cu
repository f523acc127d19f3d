// Row/column reductions of register tiles (with and without an accumulator)
// and row/column broadcasts, against CPU references on seeded random data, at
// several shapes, both layouts, float and bf16. Every lane ends with the full
// reduction: results are stored through each layout's vector store, which
// writes from different lanes for ortho (t == 0) and align (g == 0) vectors,
// and one case stores the vector from every lane group (swap through copy).
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include "tk/tk.h"
#include "support/test_data.h"

namespace {
enum red_op : int { R_MAX, R_MIN, R_SUM, R_MAX_ACC, R_MIN_ACC, R_SUM_ACC, R_SUM_F32, R_COUNT };
}

// Row results go to rows of rout (R_COUNT x R), column results to rows of cout (R_COUNT x C).
template <typename T, int R, int C, typename L>
__global__ void reduce_kernel(tk::gl<T> a, tk::gl<T> racc, tk::gl<T> cacc, tk::gl<float> rout, tk::gl<float> cout) {
    using namespace tk;
    using tile = rt<T, R, C, L>;
    tile x;
    load(x, a, {0, 0, 0, 0});
    typename tile::col_vec rv, ra;
    typename tile::row_vec cv, ca;
    load(ra, racc, {0, 0, 0, 0});
    load(ca, cacc, {0, 0, 0, 0});
    row_max(rv, x); store(rout, rv, {0, 0, R_MAX, 0});
    row_min(rv, x); store(rout, rv, {0, 0, R_MIN, 0});
    row_sum(rv, x); store(rout, rv, {0, 0, R_SUM, 0});
    row_max(rv, x, ra); store(rout, rv, {0, 0, R_MAX_ACC, 0});
    row_min(rv, x, ra); store(rout, rv, {0, 0, R_MIN_ACC, 0});
    copy(rv, ra); row_sum(rv, x, rv); store(rout, rv, {0, 0, R_SUM_ACC, 0});  // dst is the accumulator
    col_max(cv, x); store(cout, cv, {0, 0, R_MAX, 0});
    col_min(cv, x); store(cout, cv, {0, 0, R_MIN, 0});
    col_sum(cv, x); store(cout, cv, {0, 0, R_SUM, 0});
    col_max(cv, x, ca); store(cout, cv, {0, 0, R_MAX_ACC, 0});
    col_min(cv, x, ca); store(cout, cv, {0, 0, R_MIN_ACC, 0});
    copy(cv, ca); col_sum(cv, x, cv); store(cout, cv, {0, 0, R_SUM_ACC, 0});
    // A float vector from a (maybe bf16) tile, checked through the other vector layout.
    rv_fl<R, typename tile::col_vec::layout> rf;
    row_sum(rf, x);
    rv_fl<R, std::conditional_t<std::is_same_v<typename tile::col_vec::layout, vec_ortho>, vec_align, vec_ortho>> rf2;
    copy(rf2, rf);
    store(rout, rf2, {0, 0, R_SUM_F32, 0});
    rv_fl<C, typename tile::row_vec::layout> cf;
    col_sum(cf, x);
    store(cout, cf, {0, 0, R_SUM_F32, 0});
}

namespace {

// |got - want| <= tol * max(1, |want|) everywhere.
void check_vec(const std::string& what, const float* got, const std::vector<double>& want, double tol) {
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < want.size(); ++i)
        if (!(std::abs(double(got[i]) - want[i]) <= tol * std::max(1.0, std::abs(want[i]))) && bad++ == 0) first = i;
    INFO(what << ": " << bad << " of " << want.size() << " entries differ; first at " << first << ": got "
              << (bad ? got[first] : 0.f) << ", want " << (bad ? want[first] : 0.0));
    CHECK(bad == 0);
}

template <typename T, int R, int C, typename L>
void check_reductions(uint32_t seed) {
    constexpr bool bf = std::is_same_v<T, tk::bf16>;
    auto a = tktest::random_values<T>(size_t(R) * C, seed);
    auto ra = tktest::random_values<T>(R, seed + 1, -2.f, 2.f), ca = tktest::random_values<T>(C, seed + 2, -2.f, 2.f);
    tk::device_buffer<T> da(a.size(), a, "a"), dra(R, ra, "racc"), dca(C, ca, "cacc");
    tk::device_buffer<float> drout(size_t(R_COUNT) * R, "rout"), dcout(size_t(R_COUNT) * C, "cout");
    tk::launch("reduce_kernel", reduce_kernel<T, R, C, L>, dim3(1), dim3(32), 0, tk::gl<T>(da.data(), 1, 1, R, C),
               tk::gl<T>(dra.data(), 1, 1, 1, R), tk::gl<T>(dca.data(), 1, 1, 1, C), tk::gl<float>(drout.data(), 1, 1, R_COUNT, R),
               tk::gl<float>(dcout.data(), 1, 1, R_COUNT, C));
    const auto rgot = drout.download(), cgot = dcout.download();
    const auto fa = tktest::to_floats(a), fra = tktest::to_floats(ra), fca = tktest::to_floats(ca);
    const std::string cfg = std::string(tk::dtype_name<T>()) + " " + std::to_string(R) + "x" + std::to_string(C) +
                            (L::is_row ? " row" : " col") + ", ";
    // max/min are exact; sums differ from the float64 reference by the float
    // summation order, and a bf16 result by one rounding (half a bf16 ulp).
    const double sum_tol = bf ? 1.0 / 256 + 1e-5 : 1e-5;
    for (int axis = 0; axis < 2; ++axis) {
        const bool rows = axis == 0;
        const int n = rows ? R : C, m = rows ? C : R;
        const float* got = rows ? rgot.data() : cgot.data();
        const auto& acc = rows ? fra : fca;
        auto at = [&](int v, int u) { return double(rows ? fa[size_t(v) * C + u] : fa[size_t(u) * C + v]); };
        std::vector<double> mx(n), mn(n), sm(n);
        for (int v = 0; v < n; ++v) {
            mx[v] = -INFINITY; mn[v] = INFINITY; sm[v] = 0;
            for (int u = 0; u < m; ++u) { mx[v] = std::max(mx[v], at(v, u)); mn[v] = std::min(mn[v], at(v, u)); sm[v] += at(v, u); }
        }
        auto with = [&](const std::vector<double>& base, auto f) {
            std::vector<double> w(n);
            for (int v = 0; v < n; ++v) w[v] = f(double(acc[v]), base[v]);
            return w;
        };
        const std::string pre = cfg + (rows ? "row_" : "col_");
        check_vec(pre + "max", got + R_MAX * n, mx, 0);
        check_vec(pre + "min", got + R_MIN * n, mn, 0);
        check_vec(pre + "sum", got + R_SUM * n, sm, sum_tol);
        check_vec(pre + "max with accum", got + R_MAX_ACC * n, with(mx, [](double p, double q) { return std::max(p, q); }), 0);
        check_vec(pre + "min with accum", got + R_MIN_ACC * n, with(mn, [](double p, double q) { return std::min(p, q); }), 0);
        check_vec(pre + "sum with accum", got + R_SUM_ACC * n, with(sm, [](double p, double q) { return p + q; }), sum_tol);
        check_vec(pre + "sum into a float vector", got + R_SUM_F32 * n, sm, 1e-5);
    }
}

} // namespace

TEST_CASE("row and column reductions match CPU references (float)", "[tk][reductions]") {
    check_reductions<float, 16, 16, tk::row_l>(301);
    check_reductions<float, 32, 64, tk::col_l>(302);
    check_reductions<float, 64, 32, tk::row_l>(303);
    check_reductions<float, 48, 16, tk::col_l>(304);
}

TEST_CASE("row and column reductions match CPU references (bf16)", "[tk][reductions]") {
    check_reductions<tk::bf16, 16, 16, tk::col_l>(311);
    check_reductions<tk::bf16, 32, 64, tk::row_l>(312);
    check_reductions<tk::bf16, 16, 48, tk::col_l>(313);
}

// ---- broadcasts ---------------------------------------------------------------------------------

namespace {
enum bc_op : int { B_ADD_ROW, B_SUB_ROW, B_MUL_ROW, B_DIV_ROW, B_ROW_MAP, B_BCAST_ROW,
                   B_ADD_COL, B_SUB_COL, B_MUL_COL, B_DIV_COL, B_COL_MAP, B_BCAST_COL, B_SOFTMAX, B_COUNT };
}

// rv: one value per row (R), cv: one per column (C), both in [0.25, 4).
template <typename T, int R, int C, typename L>
__global__ void broadcast_kernel(tk::gl<T> a, tk::gl<T> rvals, tk::gl<T> cvals, tk::gl<float> out) {
    using namespace tk;
    using tile = rt<T, R, C, L>;
    tile x, d;
    load(x, a, {0, 0, 0, 0});
    typename tile::col_vec rv;
    typename tile::row_vec cv;
    load(rv, rvals, {0, 0, 0, 0});
    load(cv, cvals, {0, 0, 0, 0});
    auto put = [&](int op) { store(out, d, {0, op, 0, 0}); };
    add_row(d, x, rv); put(B_ADD_ROW);
    sub_row(d, x, rv); put(B_SUB_ROW);
    mul_row(d, x, rv); put(B_MUL_ROW);
    div_row(d, x, rv); put(B_DIV_ROW);
    row_map(d, x, rv, [](float u, float v) { return (u - v) * v; }); put(B_ROW_MAP);
    broadcast_row(d, rv); put(B_BCAST_ROW);
    add_col(d, x, cv); put(B_ADD_COL);
    sub_col(d, x, cv); put(B_SUB_COL);
    mul_col(d, x, cv); put(B_MUL_COL);
    div_col(d, x, cv); put(B_DIV_COL);
    col_map(d, x, cv, [](float u, float v) { return (u - v) * v; }); put(B_COL_MAP);
    broadcast_col(d, cv); put(B_BCAST_COL);
    // Softmax of each row, in float: the reductions and broadcasts together.
    rt<float, R, C, L> f;
    copy(f, x);
    typename rt<float, R, C, L>::col_vec m, s;
    row_max(m, f);
    sub_row(f, f, m);
    exp(f, f);
    row_sum(s, f);
    div_row(f, f, s);
    copy(d, f);
    put(B_SOFTMAX);
}

namespace {

template <typename T, int R, int C, typename L>
void check_broadcasts(uint32_t seed) {
    constexpr bool bf = std::is_same_v<T, tk::bf16>;
    const size_t n = size_t(R) * C;
    auto a = tktest::random_values<T>(n, seed);
    auto rv = tktest::random_values<T>(R, seed + 1, 0.25f, 4.f), cv = tktest::random_values<T>(C, seed + 2, 0.25f, 4.f);
    tk::device_buffer<T> da(n, a, "a"), drv(R, rv, "rv"), dcv(C, cv, "cv");
    tk::device_buffer<float> dout(n * B_COUNT, "out");
    tk::launch("broadcast_kernel", broadcast_kernel<T, R, C, L>, dim3(1), dim3(32), 0, tk::gl<T>(da.data(), 1, 1, R, C),
               tk::gl<T>(drv.data(), 1, 1, 1, R), tk::gl<T>(dcv.data(), 1, 1, 1, C), tk::gl<float>(dout.data(), 1, B_COUNT, R, C));
    const auto got = dout.download();
    const auto fa = tktest::to_floats(a), fr = tktest::to_floats(rv), fc = tktest::to_floats(cv);
    auto round_as = [&](float v) { return bf ? tk::to_float(tk::from_float<tk::bf16>(v)) : v; };
    const std::string cfg = std::string(tk::dtype_name<T>()) + " " + std::to_string(R) + "x" + std::to_string(C) +
                            (L::is_row ? " row" : " col") + ", ";
    auto expect = [&](int op, const char* name, auto f, double tol = 0) {
        std::vector<double> want(n);
        for (int r = 0; r < R; ++r)
            for (int c = 0; c < C; ++c) want[size_t(r) * C + c] = round_as(f(fa[size_t(r) * C + c], fr[r], fc[c]));
        check_vec(cfg + name, got.data() + size_t(op) * n, want, tol);
    };
    expect(B_ADD_ROW, "add_row", [](float x, float r, float) { return x + r; });
    expect(B_SUB_ROW, "sub_row", [](float x, float r, float) { return x - r; });
    expect(B_MUL_ROW, "mul_row", [](float x, float r, float) { return x * r; });
    expect(B_DIV_ROW, "div_row", [](float x, float r, float) { return x / r; });
    expect(B_ROW_MAP, "row_map", [](float x, float r, float) { return (x - r) * r; });
    expect(B_BCAST_ROW, "broadcast_row", [](float, float r, float) { return r; });
    expect(B_ADD_COL, "add_col", [](float x, float, float c) { return x + c; });
    expect(B_SUB_COL, "sub_col", [](float x, float, float c) { return x - c; });
    expect(B_MUL_COL, "mul_col", [](float x, float, float c) { return x * c; });
    expect(B_DIV_COL, "div_col", [](float x, float, float c) { return x / c; });
    expect(B_COL_MAP, "col_map", [](float x, float, float c) { return (x - c) * c; });
    expect(B_BCAST_COL, "broadcast_col", [](float, float, float c) { return c; });
    // softmax against float64
    std::vector<double> sm(n);
    for (int r = 0; r < R; ++r) {
        double mx = -INFINITY, s = 0;
        for (int c = 0; c < C; ++c) mx = std::max(mx, double(fa[size_t(r) * C + c]));
        for (int c = 0; c < C; ++c) s += std::exp(double(fa[size_t(r) * C + c]) - mx);
        for (int c = 0; c < C; ++c) sm[size_t(r) * C + c] = std::exp(double(fa[size_t(r) * C + c]) - mx) / s;
    }
    check_vec(cfg + "row softmax", got.data() + size_t(B_SOFTMAX) * n, sm, bf ? 1.0 / 256 + 1e-5 : 2e-6);
}

} // namespace

TEST_CASE("row and column broadcasts match CPU references", "[tk][broadcasts]") {
    check_broadcasts<float, 16, 16, tk::row_l>(401);
    check_broadcasts<float, 32, 64, tk::col_l>(402);
    check_broadcasts<tk::bf16, 64, 32, tk::row_l>(403);
    check_broadcasts<tk::bf16, 48, 16, tk::col_l>(404);
    check_broadcasts<float, 16, 48, tk::col_l>(405);
}
