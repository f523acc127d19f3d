// Warp-scope element-wise maps on register tiles (tk::rt) and register
// vectors (tk::rv). Destination first, as everywhere in tk:
//
//   fills   zero(dst)  one(dst)  pos_infty(dst)  neg_infty(dst)  fill(dst, value)
//   unary   copy(dst, src)  exp  exp2  log  abs  relu  unary_map(dst, src, f)
//   binary  add(dst, a, b)  sub  mul  div  max  min  binary_map(dst, a, b, f)
//
// Rules, the same for every op here:
//   * dst and every source are all tiles or all vectors, of the same shape
//     (tiles: rows x cols and layout; vectors: length and vec layout).
//   * In the binary ops, b may instead be a scalar (float, int, tk::bf16, ...):
//     tk::mul(dst, a, 0.5f).
//   * Element types may differ. Each lane computes in float and rounds once to
//     dst's type (what sm_80 does for bf16/half arithmetic), so a bf16 result
//     is the correctly rounded float result.
//   * dst may be one of the sources: tk::exp(x, x) is fine.
//   * f in unary_map/binary_map takes float(s) and returns float (or an element
//     type); a lambda like [](float x) { return x * x; } works on tiles and
//     vectors alike.
//   * exp2 is the special-function unit's 2^x (ex2.approx.ftz, tk/arch/math.h):
//     2 ulp at most, results below 2^-126 flushed to zero; exp is expf.
//   * copy(rv, rv) also converts between vector layouts (vec_ortho <->
//     vec_align) by shuffling; copy(rt, rt) keeps the layout -- use
//     tk::swap_layout (layout.h) to change a tile's layout.
//
// All of this is per-lane register arithmetic: no instruction-layer calls
// except the shuffles of the vector-layout conversion.
#pragma once
#include <cmath>
#include "tk/arch/alu.h"
#include "tk/arch/convert.h"
#include "tk/arch/math.h"
#include "tk/arch/shuffle.h"
#include "tk/common/indices.h"
#include "tk/ops/warp/memory/element_io.h"
#include "tk/types/register/rt.h"
#include "tk/types/register/rv.h"

namespace tk {
namespace detail {

// ---- what may be combined with what -------------------------------------------------

template <typename X> inline constexpr bool is_reg_v = is_rt_v<X> || is_rv_v<X>;

template <typename A, typename B>
inline constexpr bool same_kind_v = (is_rt_v<A> && is_rt_v<B>) || (is_rv_v<A> && is_rv_v<B>);

template <typename A, typename B> constexpr bool same_dims() {
    if constexpr (is_rt_v<A> && is_rt_v<B>) return A::rows == B::rows && A::cols == B::cols;
    else if constexpr (is_rv_v<A> && is_rv_v<B>) return A::length == B::length;
    else return true;  // a kind mismatch is reported on its own
}
template <typename A, typename B> inline constexpr bool same_dims_v = same_dims<A, B>();

template <typename A, typename B> constexpr bool same_layout() {
    if constexpr (same_kind_v<A, B>) return std::is_same_v<typename A::layout, typename B::layout>;
    else return true;
}
template <typename A, typename B> inline constexpr bool same_layout_v = same_layout<A, B>();

// A scalar operand: an arithmetic type or a tk element type.
template <typename S> inline constexpr bool is_scalar_v = std::is_arithmetic_v<S> || is_element_v<S>;

// b of a binary op: a register object like dst, or a scalar.
template <typename Dst, typename B>
inline constexpr bool operand_ok_v = is_reg_v<B> ? same_kind_v<Dst, B> : is_scalar_v<B>;

// ---- rounding ----------------------------------------------------------------

template <typename S> TK_HOST_DEVICE float scalar_to_float(S s) {
    if constexpr (is_element_v<S>) return to_float(s);
    else return static_cast<float>(s);
}

// The value r, as element type DT: float results round once (RNE); an
// element of the same type passes through bit for bit.
template <typename DT, typename R> TK_HOST_DEVICE DT round_to(R r) {
    if constexpr (std::is_same_v<R, DT>) return r;
    else if constexpr (is_element_v<R>) return from_float<DT>(to_float(r));
    else return from_float<DT>(static_cast<float>(r));
}

TK_HOST_DEVICE float pos_inf() { return arch::u2f(0x7f800000u); }
TK_HOST_DEVICE float neg_inf() { return arch::u2f(0xff800000u); }

// ---- the functions behind the ops (float in, float out) -----------------------

struct op_add { TK_HOST_DEVICE float operator()(float a, float b) const { return a + b; } };
struct op_sub { TK_HOST_DEVICE float operator()(float a, float b) const { return a - b; } };
struct op_mul { TK_HOST_DEVICE float operator()(float a, float b) const { return a * b; } };
struct op_div { TK_HOST_DEVICE float operator()(float a, float b) const { return a / b; } };
struct op_max { TK_HOST_DEVICE float operator()(float a, float b) const { return ::fmaxf(a, b); } };
struct op_min { TK_HOST_DEVICE float operator()(float a, float b) const { return ::fminf(a, b); } };
struct op_exp { TK_HOST_DEVICE float operator()(float a) const { return ::expf(a); } };
struct op_exp2 { TK_HOST_DEVICE float operator()(float a) const { return arch::ex2_approx(a); } };
struct op_log { TK_HOST_DEVICE float operator()(float a) const { return ::logf(a); } };
struct op_abs { TK_HOST_DEVICE float operator()(float a) const { return ::fabsf(a); } };
struct op_relu { TK_HOST_DEVICE float operator()(float a) const { return ::fmaxf(a, 0.0f); } };

// ---- what the simulator charges for them (tk/arch/alu.h) ----------------------------

template <typename F> TK_HOST_DEVICE constexpr arch::alu_kind alu_kind_of() {
    if constexpr (std::is_same_v<F, op_exp>) return arch::alu_kind::exp;
    else if constexpr (std::is_same_v<F, op_exp2>) return arch::alu_kind::exp2;
    else if constexpr (std::is_same_v<F, op_log>) return arch::alu_kind::log;
    else if constexpr (std::is_same_v<F, op_div>) return arch::alu_kind::div;
    else return arch::alu_kind::simple;  // one instruction an element; a user's lambda is priced so too,
}                                        // plus the tk::arch intrinsics it calls (tk/arch/alu.h)

// An op's arithmetic on each element of Dst, rounded to Dst's type (a
// conversion more when that is bf16 or half).
template <typename Dst>
TK_DEVICE void charge_alu(arch::alu_kind kind = arch::alu_kind::simple) {
    arch::alu(kind, elements_per_lane<Dst>());
    if constexpr (!std::is_same_v<typename Dst::dtype, float>) arch::alu(arch::alu_kind::convert, elements_per_lane<Dst>());
}
// A fill's: it reads no registers, so it waits for no load (the mma after
// `zero(s)` waits for its operands, the zeros do not).
template <typename Dst>
TK_DEVICE void charge_fill() {
    arch::alu_fill(arch::alu_kind::simple, elements_per_lane<Dst>());
    if constexpr (!std::is_same_v<typename Dst::dtype, float>) arch::alu_fill(arch::alu_kind::convert, elements_per_lane<Dst>());
}

// ---- the loop every map is: dst element = f(source elements at the same place) ----

template <typename Dst, typename F, typename... Src>
TK_DEVICE void zip(Dst& dst, F&& f, const Src&... src) {
    using DT = typename Dst::dtype;
    if constexpr (is_rt_v<Dst>) {
        TK_UNROLL
        for (int i = 0; i < Dst::height; ++i)
            TK_UNROLL
            for (int j = 0; j < Dst::width; ++j)
                TK_UNROLL
                for (int k = 0; k < Dst::base::packed_per_thread; ++k) {
                    dst.tiles[i][j].data[k].x = round_to<DT>(f(src.tiles[i][j].data[k].x...));
                    dst.tiles[i][j].data[k].y = round_to<DT>(f(src.tiles[i][j].data[k].y...));
                }
    } else {
        TK_UNROLL
        for (int c = 0; c < Dst::chunks; ++c)
            TK_UNROLL
            for (int j = 0; j < Dst::per_chunk; ++j) dst.data[c][j] = round_to<DT>(f(src.data[c][j]...));
    }
}

template <typename Dst, typename Src, typename F>
TK_DEVICE void unary_zip(Dst& dst, const Src& src, F f) {
    zip(dst, [&](auto x) { return f(to_float(x)); }, src);
    charge_alu<Dst>(alu_kind_of<F>());  // after f ran: its intrinsics are counted (tk/arch/alu.h)
}

template <typename Dst, typename A, typename B, typename F>
TK_DEVICE void binary_zip(Dst& dst, const A& a, const B& b, F f) {
    if constexpr (is_reg_v<B>) {
        zip(dst, [&](auto x, auto y) { return f(to_float(x), to_float(y)); }, a, b);
    } else {
        const float s = scalar_to_float(b);
        zip(dst, [&](auto x) { return f(to_float(x), s); }, a);
    }
    charge_alu<Dst>(alu_kind_of<F>());  // after f ran: its intrinsics are counted (tk/arch/alu.h)
}

// copy(rv, rv) between vector layouts. Per 16 entries:
//   ortho -> align: this lane wants entries 2t+(j%2)+8(j/2); entry e sits in
//     slot e/8 of every lane with lane/4 == e%8, so read lane 4*(2t + j%2),
//     which sends its slot j/2 (the same slot for every reader: 4 shuffles).
//   align -> ortho: this lane wants entries g+8j; entry e sits in slot
//     (e%2) + 2(e/8) of the lanes with lane%4 == (e%8)/2. Read lane
//     4*(g%2) + g/2: that sender has lane/4 == g%2, so it can work out which
//     slot its reader wants (2 shuffles).
template <typename Dst, typename Src>
TK_DEVICE void copy_rv_relayout(Dst& dst, const Src& src, const src_loc& loc) {
    using DT = typename Dst::dtype;
    using ST = typename Src::dtype;
    const int lane = laneid(), g = lane / 4, t = lane % 4;
    TK_UNROLL
    for (int c = 0; c < Dst::chunks; ++c) {
        if constexpr (std::is_same_v<typename Src::layout, vec_ortho>) {
            TK_UNROLL
            for (int j = 0; j < 4; ++j) {
                const uint32_t v = arch::shfl_idx(0xffffffffu, bits_of(src.data[c][j / 2]), 4 * (2 * t + j % 2), loc);
                dst.data[c][j] = round_to<DT>(value_of<ST>(v));
            }
        } else {
            TK_UNROLL
            for (int j = 0; j < 2; ++j) {
                const ST mine = (g % 2) ? src.data[c][1 + 2 * j] : src.data[c][2 * j];
                const uint32_t v = arch::shfl_idx(0xffffffffu, bits_of(mine), 4 * (g % 2) + g / 2, loc);
                dst.data[c][j] = round_to<DT>(value_of<ST>(v));
            }
        }
    }
}

// A float tile rounded to a bf16 or half tile: one packed conversion per pair,
// each word then held as one register (a wgmma may read it; tk/arch/convert.h).
template <typename Dst, typename Src>
inline constexpr bool packs_floats_v = is_rt_v<Dst> && is_rt_v<Src> && std::is_same_v<typename Src::dtype, float> &&
                                       (std::is_same_v<typename Dst::dtype, bf16> || std::is_same_v<typename Dst::dtype, half>);

template <typename Dst, typename Src>
TK_DEVICE void copy_packed(Dst& dst, const Src& src) {
    arch::alu(arch::alu_kind::convert, elements_per_lane<Dst>());
    TK_UNROLL
    for (int i = 0; i < Dst::height; ++i)
        TK_UNROLL
        for (int j = 0; j < Dst::width; ++j)
            TK_UNROLL
            for (int k = 0; k < 4; ++k) {
                const auto& s = src.tiles[i][j].data[k];
                uint32_t w = arch::cvt_pack<typename Dst::dtype>(s.x, s.y);
                arch::pin_register(w);
                std::memcpy(&dst.tiles[i][j].data[k], &w, sizeof w);  // bit for bit: no split into halves
            }
}

// A register tile just filled with a constant holds no registers on the GPU:
// ptxas reads the zero register or an immediate instead (sim/README.md, "Registers").
template <typename Dst>
TK_DEVICE void note_constant([[maybe_unused]] const Dst& dst) {
#if defined(TK_SIM)
    if constexpr (is_rt_v<Dst>) tklab::sim::reg_constant(&dst);
#endif
}

} // namespace detail

// Static checks shared by the ops of this file and the next ones. OP is the
// op's name as a string literal.
#define TK_REG_SAME_SHAPE(OP, A, B)                                                                              \
    static_assert(::tk::detail::same_kind_v<A, B>,                                                              \
                  OP ": dst and the sources must all be register tiles (tk::rt) or all register vectors (tk::rv)"); \
    static_assert(::tk::detail::same_dims_v<A, B>,                                                              \
                  OP ": shapes differ -- dst and the sources must have the same rows x cols (vectors: the same length)"); \
    static_assert(::tk::detail::same_layout_v<A, B>,                                                            \
                  OP ": layouts differ -- tiles must share row_l/col_l (convert with tk::swap_layout), vectors vec_ortho/vec_align (convert with tk::copy)")

#define TK_REG_OPERAND_B(OP, Dst, B)                                                                      \
    static_assert(::tk::detail::operand_ok_v<Dst, B>,                                                     \
                  OP ": b must be a register tile/vector of dst's shape, or a scalar (float, int, tk::bf16, tk::half); to combine a tile with one value per row or column, use the broadcasts (tk::add_row, tk::mul_col, ...)"); \
    static_assert(!::tk::detail::is_reg_v<B> || (::tk::detail::same_dims_v<Dst, B> && ::tk::detail::same_layout_v<Dst, B>), \
                  OP ": b's shape or layout differs from dst's -- all operands must have the same rows x cols and layout")

// ---- fills ------------------------------------------------------------------------

// Every element = value (rounded once to dst's type).
template <typename Dst, typename S> requires detail::is_reg_v<Dst>
TK_DEVICE void fill(Dst& dst, S value, TK_LOC) {
    TK_OP("fill");
    static_assert(detail::is_scalar_v<S>, "tk::fill: the value must be a scalar (float, int, tk::bf16, tk::half)");
    const float v = detail::scalar_to_float(value);
    detail::charge_fill<Dst>();
    detail::zip(dst, [&]() { return v; });
    detail::note_constant(dst);
}
template <typename Dst> requires detail::is_reg_v<Dst>
TK_DEVICE void zero(Dst& dst, TK_LOC) { TK_OP("zero"); detail::charge_fill<Dst>(); detail::zip(dst, []() { return 0.0f; }); detail::note_constant(dst); }
template <typename Dst> requires detail::is_reg_v<Dst>
TK_DEVICE void one(Dst& dst, TK_LOC) { TK_OP("one"); detail::charge_fill<Dst>(); detail::zip(dst, []() { return 1.0f; }); detail::note_constant(dst); }
template <typename Dst> requires detail::is_reg_v<Dst>
TK_DEVICE void pos_infty(Dst& dst, TK_LOC) { TK_OP("pos_infty"); detail::charge_fill<Dst>(); detail::zip(dst, []() { return detail::pos_inf(); }); detail::note_constant(dst); }
template <typename Dst> requires detail::is_reg_v<Dst>
TK_DEVICE void neg_infty(Dst& dst, TK_LOC) { TK_OP("neg_infty"); detail::charge_fill<Dst>(); detail::zip(dst, []() { return detail::neg_inf(); }); detail::note_constant(dst); }

// ---- unary maps -------------------------------------------------------------------------

// dst = src, converted to dst's element type (bit-exact when the types match).
// Vectors may also change layout here.
template <typename Dst, typename Src> requires detail::is_reg_v<Dst>
TK_DEVICE void copy(Dst& dst, const Src& src, TK_LOC) {
    TK_OP("copy");
    static_assert(detail::same_kind_v<Dst, Src>, "tk::copy: dst and src must both be register tiles (tk::rt) or both register vectors (tk::rv)");
    static_assert(detail::same_dims_v<Dst, Src>, "tk::copy: shapes differ -- dst and src must have the same rows x cols (vectors: the same length)");
    static_assert(!is_rt_v<Dst> || detail::same_layout_v<Dst, Src>,
                  "tk::copy: tile layouts differ -- copy keeps the layout; use tk::swap_layout(dst, src) to move a tile to the other layout (it converts the element type too)");
    if constexpr (is_rv_v<Dst> && !detail::same_layout_v<Dst, Src>) detail::copy_rv_relayout(dst, src, loc);
    else if constexpr (detail::packs_floats_v<Dst, Src>) detail::copy_packed(dst, src);
    else {
        // The same type is a register move, often none at all; another is a conversion an element.
        if constexpr (!std::is_same_v<typename Dst::dtype, typename Src::dtype>)
            arch::alu(arch::alu_kind::convert, detail::elements_per_lane<Dst>(), loc);
        detail::zip(dst, [](auto x) { return x; }, src);
    }
}

template <typename Dst, typename Src> requires detail::is_reg_v<Dst>
TK_DEVICE void exp(Dst& dst, const Src& src, TK_LOC) { TK_OP("exp"); TK_REG_SAME_SHAPE("tk::exp", Dst, Src); detail::unary_zip(dst, src, detail::op_exp{}); }
template <typename Dst, typename Src> requires detail::is_reg_v<Dst>
TK_DEVICE void exp2(Dst& dst, const Src& src, TK_LOC) { TK_OP("exp2"); TK_REG_SAME_SHAPE("tk::exp2", Dst, Src); detail::unary_zip(dst, src, detail::op_exp2{}); }
template <typename Dst, typename Src> requires detail::is_reg_v<Dst>
TK_DEVICE void log(Dst& dst, const Src& src, TK_LOC) { TK_OP("log"); TK_REG_SAME_SHAPE("tk::log", Dst, Src); detail::unary_zip(dst, src, detail::op_log{}); }
template <typename Dst, typename Src> requires detail::is_reg_v<Dst>
TK_DEVICE void abs(Dst& dst, const Src& src, TK_LOC) { TK_OP("abs"); TK_REG_SAME_SHAPE("tk::abs", Dst, Src); detail::unary_zip(dst, src, detail::op_abs{}); }
template <typename Dst, typename Src> requires detail::is_reg_v<Dst>
TK_DEVICE void relu(Dst& dst, const Src& src, TK_LOC) { TK_OP("relu"); TK_REG_SAME_SHAPE("tk::relu", Dst, Src); detail::unary_zip(dst, src, detail::op_relu{}); }

// dst = f(src), element by element; f takes a float.
template <typename Dst, typename Src, typename F> requires detail::is_reg_v<Dst>
TK_DEVICE void unary_map(Dst& dst, const Src& src, F f, TK_LOC) {
    TK_OP("unary_map");
    TK_REG_SAME_SHAPE("tk::unary_map", Dst, Src);
    detail::unary_zip(dst, src, f);
}

// ---- binary maps (b: a tile/vector like dst, or a scalar) ---------------------------------

template <typename Dst, typename A, typename B> requires detail::is_reg_v<Dst>
TK_DEVICE void add(Dst& dst, const A& a, const B& b, TK_LOC) {
    TK_OP("add"); TK_REG_SAME_SHAPE("tk::add", Dst, A); TK_REG_OPERAND_B("tk::add", Dst, B);
    detail::binary_zip(dst, a, b, detail::op_add{});
}
template <typename Dst, typename A, typename B> requires detail::is_reg_v<Dst>
TK_DEVICE void sub(Dst& dst, const A& a, const B& b, TK_LOC) {
    TK_OP("sub"); TK_REG_SAME_SHAPE("tk::sub", Dst, A); TK_REG_OPERAND_B("tk::sub", Dst, B);
    detail::binary_zip(dst, a, b, detail::op_sub{});
}
template <typename Dst, typename A, typename B> requires detail::is_reg_v<Dst>
TK_DEVICE void mul(Dst& dst, const A& a, const B& b, TK_LOC) {
    TK_OP("mul"); TK_REG_SAME_SHAPE("tk::mul", Dst, A); TK_REG_OPERAND_B("tk::mul", Dst, B);
    detail::binary_zip(dst, a, b, detail::op_mul{});
}
template <typename Dst, typename A, typename B> requires detail::is_reg_v<Dst>
TK_DEVICE void div(Dst& dst, const A& a, const B& b, TK_LOC) {
    TK_OP("div"); TK_REG_SAME_SHAPE("tk::div", Dst, A); TK_REG_OPERAND_B("tk::div", Dst, B);
    detail::binary_zip(dst, a, b, detail::op_div{});
}
// max/min follow fmaxf/fminf: a NaN operand yields the other operand.
template <typename Dst, typename A, typename B> requires detail::is_reg_v<Dst>
TK_DEVICE void max(Dst& dst, const A& a, const B& b, TK_LOC) {
    TK_OP("max"); TK_REG_SAME_SHAPE("tk::max", Dst, A); TK_REG_OPERAND_B("tk::max", Dst, B);
    detail::binary_zip(dst, a, b, detail::op_max{});
}
template <typename Dst, typename A, typename B> requires detail::is_reg_v<Dst>
TK_DEVICE void min(Dst& dst, const A& a, const B& b, TK_LOC) {
    TK_OP("min"); TK_REG_SAME_SHAPE("tk::min", Dst, A); TK_REG_OPERAND_B("tk::min", Dst, B);
    detail::binary_zip(dst, a, b, detail::op_min{});
}

// dst = f(a, b), element by element; f takes two floats. b may be a scalar.
template <typename Dst, typename A, typename B, typename F> requires detail::is_reg_v<Dst>
TK_DEVICE void binary_map(Dst& dst, const A& a, const B& b, F f, TK_LOC) {
    TK_OP("binary_map");
    TK_REG_SAME_SHAPE("tk::binary_map", Dst, A);
    TK_REG_OPERAND_B("tk::binary_map", Dst, B);
    detail::binary_zip(dst, a, b, f);
}

} // namespace tk
