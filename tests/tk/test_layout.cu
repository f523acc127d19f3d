// swap_layout, transpose and element-type conversion of register tiles. The
// tile stores write each element where its own layout says it lives, so a
// wrong exchange of fragments shows up as misplaced elements.
#include <catch2/catch.hpp>
#include <string>
#include "tk/tk.h"
#include "support/test_data.h"

namespace {
// R x C results (same shape as the input) and C x R results (transposed).
enum same_shape_out : int { S_SWAP, S_SWAP_BACK, S_SWAP_CONVERT, S_COPY_CONVERT, S_COPY_BACK, S_COUNT };
enum transposed_out : int { T_SAME_LAYOUT, T_OTHER_LAYOUT, T_CONVERT, T_IN_PLACE, T_TWICE_VIA_SWAP, T_COUNT };
}

template <typename T, int R, int C, typename L>
__global__ void layout_kernel(tk::gl<T> a, tk::gl<float> same, tk::gl<float> trans) {
    using namespace tk;
    using OL = transpose_layout_t<L>;
    using U = std::conditional_t<std::is_same_v<T, float>, bf16, float>;  // the other element type
    rt<T, R, C, L> x, back;
    load(x, a, {0, 0, 0, 0});

    rt<T, R, C, OL> sw;
    swap_layout(sw, x);
    store(same, sw, {0, S_SWAP, 0, 0});
    swap_layout(back, sw);
    store(same, back, {0, S_SWAP_BACK, 0, 0});
    rt<U, R, C, OL> swc;
    swap_layout(swc, x);  // and convert
    store(same, swc, {0, S_SWAP_CONVERT, 0, 0});
    rt<U, R, C, L> cu;
    copy(cu, x);
    store(same, cu, {0, S_COPY_CONVERT, 0, 0});
    copy(back, cu);
    store(same, back, {0, S_COPY_BACK, 0, 0});

    rt<T, C, R, L> t1;
    transpose(t1, x);
    store(trans, t1, {0, T_SAME_LAYOUT, 0, 0});
    rt<T, C, R, OL> t2;
    transpose(t2, x);
    store(trans, t2, {0, T_OTHER_LAYOUT, 0, 0});
    rt<U, C, R, L> t3;
    transpose(t3, x);
    store(trans, t3, {0, T_CONVERT, 0, 0});
    if constexpr (R == C) {
        rt<T, R, C, L> y = x;
        transpose(y, y);  // in place
        store(trans, y, {0, T_IN_PLACE, 0, 0});
    } else {
        store(trans, t1, {0, T_IN_PLACE, 0, 0});
    }
    // transpose to the other layout (a relabelling) and swap back: another route to the same result
    rt<T, C, R, L> t4;
    swap_layout(t4, t2);
    store(trans, t4, {0, T_TWICE_VIA_SWAP, 0, 0});
}

namespace {

void check_same(const std::string& what, const float* got, const std::vector<float>& want) {
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < want.size(); ++i)
        if (got[i] != want[i] && bad++ == 0) first = i;
    INFO(what << ": " << bad << " of " << want.size() << " elements differ; first at " << first << ": got "
              << (bad ? got[first] : 0.f) << ", want " << (bad ? want[first] : 0.f));
    CHECK(bad == 0);
}

template <typename T, int R, int C, typename L>
void check_layout(uint32_t seed) {
    using U = std::conditional_t<std::is_same_v<T, float>, tk::bf16, float>;
    const size_t n = size_t(R) * C;
    auto a = tktest::random_values<T>(n, seed);
    tk::device_buffer<T> da(n, a, "a");
    tk::device_buffer<float> dsame(n * S_COUNT, "same"), dtrans(n * T_COUNT, "trans");
    tk::launch("layout_kernel", layout_kernel<T, R, C, L>, dim3(1), dim3(32), 0, tk::gl<T>(da.data(), 1, 1, R, C),
               tk::gl<float>(dsame.data(), 1, S_COUNT, R, C), tk::gl<float>(dtrans.data(), 1, T_COUNT, C, R));
    const auto same = dsame.download(), trans = dtrans.download();
    const auto fa = tktest::to_floats(a);
    std::vector<float> conv(n), at(n), atc(n);
    for (size_t i = 0; i < n; ++i) conv[i] = tk::to_float(tk::from_float<U>(fa[i]));
    for (int r = 0; r < R; ++r)
        for (int c = 0; c < C; ++c) at[size_t(c) * R + r] = fa[size_t(r) * C + c];
    for (size_t i = 0; i < n; ++i) atc[i] = tk::to_float(tk::from_float<U>(at[i]));
    // Converting back from U to T is exact: either U is float, or T is float and U = bf16 is a subset.
    const std::vector<float>& back = std::is_same_v<T, float> ? conv : fa;
    const std::string cfg = std::string(tk::dtype_name<T>()) + " " + std::to_string(R) + "x" + std::to_string(C) +
                            (L::is_row ? " row" : " col") + ", ";
    check_same(cfg + "swap_layout", same.data() + S_SWAP * n, fa);
    check_same(cfg + "swap_layout and back", same.data() + S_SWAP_BACK * n, fa);
    check_same(cfg + "swap_layout converting", same.data() + S_SWAP_CONVERT * n, conv);
    check_same(cfg + "copy converting", same.data() + S_COPY_CONVERT * n, conv);
    check_same(cfg + "copy converting back", same.data() + S_COPY_BACK * n, back);
    check_same(cfg + "transpose, same layout", trans.data() + T_SAME_LAYOUT * n, at);
    check_same(cfg + "transpose, other layout", trans.data() + T_OTHER_LAYOUT * n, at);
    check_same(cfg + "transpose converting", trans.data() + T_CONVERT * n, atc);
    check_same(cfg + "transpose in place", trans.data() + T_IN_PLACE * n, at);
    check_same(cfg + "transpose via the other layout and swap_layout", trans.data() + T_TWICE_VIA_SWAP * n, at);
}

} // namespace

TEST_CASE("swap_layout, transpose and conversions keep every element in place", "[tk][layout]") {
    check_layout<float, 16, 16, tk::row_l>(501);
    check_layout<float, 32, 64, tk::col_l>(502);
    check_layout<tk::bf16, 64, 32, tk::row_l>(503);
    check_layout<tk::bf16, 48, 16, tk::col_l>(504);
    check_layout<tk::bf16, 32, 32, tk::col_l>(505);
    check_layout<float, 16, 48, tk::row_l>(506);
    check_layout<tk::half, 32, 16, tk::row_l>(507);
}

// A use of swap_layout: an mma result (fp32, row layout) becomes the B operand
// (col layout) of the next mma: D2 = A * (A * B), all 16x16 tiles.
__global__ void chain_kernel(tk::gl<tk::bf16> a, tk::gl<tk::bf16> b, tk::gl<float> out) {
    using namespace tk;
    rt_bf<16, 16> ra;
    rt_bf<16, 16, col_l> rb;
    load(ra, a, {0, 0, 0, 0});
    load(rb, b, {0, 0, 0, 0});
    rt_fl<16, 16> d1, d2, z;
    zero(z);
    mma_AB(d1, ra, rb, z);
    rt_bf<16, 16, col_l> b2;
    swap_layout(b2, d1);  // float row -> bf16 col, one rounding
    mma_AB(d2, ra, b2, z);
    store(out, d2, {0, 0, 0, 0});
}

TEST_CASE("swap_layout turns an mma accumulator into the next mma's B operand", "[tk][layout]") {
    auto a = tktest::random_values<tk::bf16>(256, 601), b = tktest::random_values<tk::bf16>(256, 602);
    tk::device_buffer<tk::bf16> da(256, a, "A"), db(256, b, "B");
    tk::device_buffer<float> dout(256, "out");
    tk::launch("chain_kernel", chain_kernel, dim3(1), dim3(32), 0, tk::gl<tk::bf16>(da.data(), 1, 1, 16, 16),
               tk::gl<tk::bf16>(db.data(), 1, 1, 16, 16), tk::gl<float>(dout.data(), 1, 1, 16, 16));
    const auto fa = tktest::to_floats(a), fb = tktest::to_floats(b);
    auto ab = tktest::matmul_reference(fa, fb, 16, 16, 16);
    std::vector<float> abr(256);
    for (int i = 0; i < 256; ++i) abr[i] = tk::to_float(tk::from_float<tk::bf16>(float(ab[i])));
    const auto want = tktest::matmul_reference(fa, abr, 16, 16, 16);
    // On the GPU the tensor core's fp32 sum may round A*B differently by an
    // ulp, which can tip an element's bf16 rounding; a misplaced element is off by O(1).
    CHECK(tktest::max_relative_error(dout.download(), want) < 2e-2);
}
