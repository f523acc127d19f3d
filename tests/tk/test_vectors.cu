// Register vectors: load/store through shared and global memory (with type
// conversion, at a coordinate, touching nothing else), the element-wise maps,
// and copy between the vec_ortho and vec_align layouts.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include "tk/tk.h"
#include "support/test_data.h"

// Moves a vector between global and shared memory one element per lane at a
// time, independently of the ops under test.
template <typename M, int N>
__device__ void raw_global_to_shared(tk::sv<M, N>& s, const M* p) {
    const auto loc = tk::src_loc::current();
    for (int i = tk::laneid(); i < N; i += 32)
        tk::detail::st_shared_one<M, M>(tk::arch::smem_addr(&s.data[i]), tk::detail::ld_global_one<M, M>(p + i, loc), loc);
}
template <typename M, int N>
__device__ void raw_shared_to_global(M* p, const tk::sv<M, N>& s) {
    const auto loc = tk::src_loc::current();
    for (int i = tk::laneid(); i < N; i += 32)
        tk::detail::st_global_one<M, M>(p + i, tk::detail::ld_shared_one<M, M>(tk::arch::smem_addr(&s.data[i]), loc), loc);
}

// in: 3 x 2N; mem_in: 1 x N; out: 3 x 2N and mout: 2 x N, both prefilled with a sentinel.
template <typename T, typename M, int N, typename VL>
__global__ void vec_memory_kernel(tk::gl<T> in, tk::gl<M> mem_in, tk::gl<T> out, tk::gl<M> mout) {
    using namespace tk;
    shared_allocator al;
    sv<M, N>& s = al.allocate<sv<M, N>>();
    sv<M, N>& s2 = al.allocate<sv<M, N>>();
    rv<T, N, VL> v, w;
    load(v, in, {0, 0, 2, 1});    // row 2, elements N..2N-1
    store(out, v, {0, 0, 1, 0});  // row 1, elements 0..N-1
    store(s, v);                  // register -> shared, T -> M
    raw_global_to_shared(s2, mem_in.raw);
    __syncwarp();
    raw_shared_to_global(mout.raw, s);
    load(w, s2);                  // shared -> register, M -> T
    store(out, w, {0, 0, 0, 1});  // row 0, elements N..2N-1
}

namespace {

template <typename X>
void check_equal(const std::string& what, const std::vector<X>& got, const std::vector<float>& want) {
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < want.size(); ++i)
        if (tk::to_float(got[i]) != want[i] && bad++ == 0) first = i;
    INFO(what << ": " << bad << " of " << want.size() << " elements differ; first at " << first << ": got "
              << (bad ? tk::to_float(got[first]) : 0.f) << ", want " << (bad ? want[first] : 0.f));
    CHECK(bad == 0);
}

template <typename T, typename M, int N, typename VL>
void check_vec_memory(uint32_t seed) {
    const float sentinel = 99.f;
    auto in = tktest::random_values<T>(3 * 2 * N, seed);
    auto min = tktest::random_values<M>(N, seed + 1);
    tk::device_buffer<T> din(in.size(), in, "in"), dout(3 * 2 * N, std::vector<T>(3 * 2 * N, tk::from_float<T>(sentinel)), "out");
    tk::device_buffer<M> dmin(N, min, "min"), dmout(2 * N, std::vector<M>(2 * N, tk::from_float<M>(sentinel)), "mout");
    const size_t smem = 2 * (N * sizeof(M) + 16) + 64;
    tk::launch("vec_memory_kernel", vec_memory_kernel<T, M, N, VL>, dim3(1), dim3(32), smem, tk::gl<T>(din.data(), 1, 1, 3, 2 * N),
               tk::gl<M>(dmin.data(), 1, 1, 1, N), tk::gl<T>(dout.data(), 1, 1, 3, 2 * N), tk::gl<M>(dmout.data(), 1, 1, 2, N));
    const auto fin = tktest::to_floats(in), fmin = tktest::to_floats(min);
    std::vector<float> want_out(3 * 2 * N, sentinel), want_mout(2 * N, sentinel);
    for (int i = 0; i < N; ++i) {
        want_out[size_t(1) * 2 * N + i] = fin[size_t(2) * 2 * N + N + i];
        want_out[size_t(0) * 2 * N + N + i] = tk::to_float(tk::from_float<T>(fmin[i]));
        want_mout[i] = tk::to_float(tk::from_float<M>(fin[size_t(2) * 2 * N + N + i]));
    }
    const std::string cfg = std::string(tk::dtype_name<T>()) + " rv<" + std::to_string(N) + ", " +
                            (std::is_same_v<VL, tk::vec_ortho> ? "ortho" : "align") + "> with " + tk::dtype_name<M>() + " memory, ";
    check_equal(cfg + "global load/store at a coordinate, then shared->register", dout.download(), want_out);
    check_equal(cfg + "register->shared", dmout.download(), want_mout);
}

} // namespace

TEST_CASE("register vectors load and store through shared and global memory", "[tk][vectors]") {
    check_vec_memory<float, float, 16, tk::vec_ortho>(701);
    check_vec_memory<float, float, 48, tk::vec_align>(702);
    check_vec_memory<tk::bf16, tk::bf16, 64, tk::vec_ortho>(703);
    check_vec_memory<tk::bf16, tk::bf16, 16, tk::vec_align>(704);
    check_vec_memory<float, tk::bf16, 32, tk::vec_align>(705);
    check_vec_memory<tk::bf16, float, 48, tk::vec_ortho>(706);
}

// ---- maps and layout conversion ------------------------------------------------------------

namespace {
enum vec_op : int { V_ZERO, V_ONE, V_NEG_INFTY, V_EXP, V_EXP2, V_LOG, V_ABS, V_RELU, V_ADD, V_SUB, V_MUL_S, V_DIV,
                    V_MAX, V_MIN_S, V_UNARY, V_BINARY, V_RELAYOUT, V_RELAYOUT_CONVERT, V_RELAYOUT_BACK, V_COUNT };
}

// in: rows x (a, b in [-1, 1); p in [0.25, 4)); out: V_COUNT x N floats.
template <typename T, int N, typename VL>
__global__ void vec_maps_kernel(tk::gl<T> in, tk::gl<float> out) {
    using namespace tk;
    using OL = std::conditional_t<std::is_same_v<VL, vec_ortho>, vec_align, vec_ortho>;
    using U = std::conditional_t<std::is_same_v<T, float>, bf16, float>;
    rv<T, N, VL> x, y, p, d;
    load(x, in, {0, 0, 0, 0});
    load(y, in, {0, 0, 1, 0});
    load(p, in, {0, 0, 2, 0});
    auto put = [&](int op) { store(out, d, {0, 0, op, 0}); };
    zero(d); put(V_ZERO);
    one(d); put(V_ONE);
    neg_infty(d); put(V_NEG_INFTY);
    exp(d, x); put(V_EXP);
    exp2(d, x); put(V_EXP2);
    log(d, p); put(V_LOG);
    abs(d, x); put(V_ABS);
    relu(d, x); put(V_RELU);
    add(d, x, y); put(V_ADD);
    sub(d, x, y); put(V_SUB);
    mul(d, x, 2.5f); put(V_MUL_S);
    div(d, x, p); put(V_DIV);
    max(d, x, y); put(V_MAX);
    min(d, x, 0); put(V_MIN_S);
    unary_map(d, x, [](float v) { return v * v * v; }); put(V_UNARY);
    binary_map(d, x, y, [](float u, float v) { return (u - v) * u; }); put(V_BINARY);
    rv<T, N, OL> o;
    copy(o, x);
    store(out, o, {0, 0, V_RELAYOUT, 0});
    rv<U, N, OL> oc;
    copy(oc, x);
    store(out, oc, {0, 0, V_RELAYOUT_CONVERT, 0});
    copy(d, o);
    put(V_RELAYOUT_BACK);
}

namespace {

template <typename T, int N, typename VL>
void check_vec_maps(uint32_t seed) {
    constexpr bool bf = std::is_same_v<T, tk::bf16>;
    using U = std::conditional_t<std::is_same_v<T, float>, tk::bf16, float>;
    auto ab = tktest::random_values<T>(2 * N, seed), p = tktest::random_values<T>(N, seed + 1, 0.25f, 4.f);
    ab.insert(ab.end(), p.begin(), p.end());
    tk::device_buffer<T> din(ab.size(), ab, "in");
    tk::device_buffer<float> dout(size_t(V_COUNT) * N, "out");
    tk::launch("vec_maps_kernel", vec_maps_kernel<T, N, VL>, dim3(1), dim3(32), 0, tk::gl<T>(din.data(), 1, 1, 3, N),
               tk::gl<float>(dout.data(), 1, 1, V_COUNT, N));
    const auto got = dout.download();
    const auto f = tktest::to_floats(ab);
    auto round_as = [&](float v) { return bf ? tk::to_float(tk::from_float<tk::bf16>(v)) : v; };
    const double tr_tol = bf ? 1.0 / 128 : 1e-6;
    const std::string cfg = std::string(tk::dtype_name<T>()) + " rv<" + std::to_string(N) + ", " +
                            (std::is_same_v<VL, tk::vec_ortho> ? "ortho" : "align") + ">, ";
    auto expect = [&](int op, const char* name, auto fn, double tol = 0, bool round = true) {
        size_t bad = 0, first = 0;
        std::vector<float> want(N);
        for (int i = 0; i < N; ++i) {
            const float w = fn(f[i], f[N + i], f[2 * N + i]);
            want[i] = round ? round_as(w) : w;
            const float g = got[size_t(op) * N + i];
            const bool ok = tol == 0 ? g == want[i] : std::abs(double(g) - want[i]) <= tol * std::abs(double(want[i]));
            if (!ok && bad++ == 0) first = size_t(i);
        }
        INFO(cfg << name << ": " << bad << " of " << N << " entries differ; first at " << first << ": got "
                 << got[size_t(op) * N + first] << ", want " << want[first]);
        CHECK(bad == 0);
    };
    const float inf = std::numeric_limits<float>::infinity();
    expect(V_ZERO, "zero", [](float, float, float) { return 0.f; });
    expect(V_ONE, "one", [](float, float, float) { return 1.f; });
    expect(V_NEG_INFTY, "neg_infty", [&](float, float, float) { return -inf; });
    expect(V_EXP, "exp", [](float x, float, float) { return std::exp(x); }, tr_tol);
    expect(V_EXP2, "exp2", [](float x, float, float) { return std::exp2(x); }, tr_tol);
    expect(V_LOG, "log", [](float, float, float q) { return std::log(q); }, tr_tol);
    expect(V_ABS, "abs", [](float x, float, float) { return std::fabs(x); });
    expect(V_RELU, "relu", [](float x, float, float) { return std::fmax(x, 0.f); });
    expect(V_ADD, "add", [](float x, float y, float) { return x + y; });
    expect(V_SUB, "sub", [](float x, float y, float) { return x - y; });
    expect(V_MUL_S, "mul scalar", [](float x, float, float) { return x * 2.5f; });
    expect(V_DIV, "div", [](float x, float, float q) { return x / q; });
    expect(V_MAX, "max", [](float x, float y, float) { return std::fmax(x, y); });
    expect(V_MIN_S, "min scalar", [](float x, float, float) { return std::fmin(x, 0.f); });
    expect(V_UNARY, "unary_map", [](float x, float, float) { return x * x * x; });
    expect(V_BINARY, "binary_map", [](float x, float y, float) { return (x - y) * x; });
    expect(V_RELAYOUT, "copy to the other layout", [](float x, float, float) { return x; });
    expect(V_RELAYOUT_CONVERT, "copy to the other layout and type",
           [](float x, float, float) { return tk::to_float(tk::from_float<U>(x)); }, 0, false);
    expect(V_RELAYOUT_BACK, "copy to the other layout and back", [](float x, float, float) { return x; });
}

} // namespace

TEST_CASE("register vector maps and layout conversion match CPU references", "[tk][vectors]") {
    check_vec_maps<float, 16, tk::vec_ortho>(801);
    check_vec_maps<float, 64, tk::vec_align>(802);
    check_vec_maps<tk::bf16, 48, tk::vec_ortho>(803);
    check_vec_maps<tk::bf16, 32, tk::vec_align>(804);
    check_vec_maps<float, 48, tk::vec_align>(805);
    check_vec_maps<tk::bf16, 16, tk::vec_ortho>(806);
}
