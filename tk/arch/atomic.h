// atom / red on shared and global memory, 32 bits per lane: add (u32, s32,
// f32), min/max (u32, s32), exch, and/or/xor (b32), and cas (b32). atom
// returns the value the word held before; red (a reduction) returns nothing
// and needs no register for it. Default semantics (.relaxed, .gpu scope for
// global, .cta for shared): an atomic orders nothing else -- a barrier or a
// fence still publishes other data.
//
//   uint32_t old = atom_shared<atomic_op::add>(addr, 1u);        // atom.shared.add.u32
//   red_global<atomic_op::add>(out + i, partial);                 // red.global.add.f32
//   uint32_t seen = atom_cas_global(lock, 0u, 1u);                // atom.global.cas.b32
//
// The simulator executes a warp's lanes in lane order (the GPU's order among
// lanes on one word is unspecified: f32 sums may differ in their last bits).
#pragma once
#include "tk/common/base.h"
#include "tk/arch/shuffle.h"
#include <type_traits>

namespace tk::arch {

enum class atomic_op { add, min, max, exch, and_, or_, xor_ };

namespace detail {

template <atomic_op Op, typename T>
TK_HOST_DEVICE constexpr bool atomic_type_ok() {
    constexpr bool u = std::is_same_v<T, uint32_t>, s = std::is_same_v<T, int32_t>, f = std::is_same_v<T, float>;
    if constexpr (Op == atomic_op::add || Op == atomic_op::exch) return u || s || f;
    else return u || s;  // min, max (u32, s32); and, or, xor (b32)
}

template <typename T> TK_HOST_DEVICE uint32_t atomic_bits(T v) {
    if constexpr (std::is_same_v<T, float>) return f2u(v);
    else return static_cast<uint32_t>(v);
}
template <typename T> TK_HOST_DEVICE T atomic_value(uint32_t u) {
    if constexpr (std::is_same_v<T, float>) return u2f(u);
    else return static_cast<T>(u);
}

#if defined(TK_SIM)
template <atomic_op Op, typename T>
constexpr tklab::sim::AtomOp sim_atom_op() {
    using O = tklab::sim::AtomOp;
    switch (Op) {
    case atomic_op::add: return O::add;
    case atomic_op::min: return O::min;
    case atomic_op::max: return O::max;
    case atomic_op::exch: return O::exch;
    case atomic_op::and_: return O::and_;
    case atomic_op::or_: return O::or_;
    case atomic_op::xor_: return O::xor_;
    }
    return O::add;
}
// The PTX .type: add keeps the value's type; min/max compare signed or unsigned; the rest are bits.
template <atomic_op Op, typename T>
constexpr tklab::sim::AtomType sim_atom_type() {
    using Y = tklab::sim::AtomType;
    if constexpr (Op == atomic_op::add || Op == atomic_op::min || Op == atomic_op::max)
        return std::is_same_v<T, float> ? Y::f32 : std::is_same_v<T, int32_t> ? Y::s32 : Y::u32;
    else return Y::b32;
}
inline uint32_t sim_atomic(tklab::sim::Op op, tklab::sim::AtomOp aop, tklab::sim::AtomType type, uint32_t addr, const void* gptr,
                           uint32_t b, uint32_t c, const src_loc& loc) {
    tklab::sim::LaneOp o{op};
    o.atom_op = aop; o.atom_type = type; o.bytes = 4; o.addr = addr; o.gptr = gptr;
    o.data[0] = b; o.data[1] = c;
    o.file = loc.file; o.line = loc.line;
    tklab::sim::issue(o);
    return o.data[0];
}
#endif

} // namespace detail

#define TK_ATOMIC_CHECK(Op, T)                                                                                                 \
    static_assert(detail::atomic_type_ok<Op, T>(),                                                                             \
                  "tk::arch atomics: add takes uint32_t, int32_t or float; min/max, and/or/xor take uint32_t or int32_t; "    \
                  "exch takes uint32_t, int32_t or float (PTX atom/red .u32/.s32/.f32/.b32)")

#if defined(TK_GPU)
// The PTX suffix (.op.type) of Op on T, handed to X.
#define TK_ATOMIC_SUFFIX(X)                                                                                                    \
    if constexpr (Op == atomic_op::add && std::is_same_v<T, float>) { X(".add.f32") }                                          \
    else if constexpr (Op == atomic_op::add && std::is_same_v<T, int32_t>) { X(".add.s32") }                                   \
    else if constexpr (Op == atomic_op::add) { X(".add.u32") }                                                                 \
    else if constexpr (Op == atomic_op::min && std::is_same_v<T, int32_t>) { X(".min.s32") }                                   \
    else if constexpr (Op == atomic_op::min) { X(".min.u32") }                                                                 \
    else if constexpr (Op == atomic_op::max && std::is_same_v<T, int32_t>) { X(".max.s32") }                                   \
    else if constexpr (Op == atomic_op::max) { X(".max.u32") }                                                                 \
    else if constexpr (Op == atomic_op::exch) { X(".exch.b32") }                                                               \
    else if constexpr (Op == atomic_op::and_) { X(".and.b32") }                                                                \
    else if constexpr (Op == atomic_op::or_) { X(".or.b32") }                                                                  \
    else { X(".xor.b32") }
#endif

// ---- shared memory (a 32-bit shared-window address, as ld_shared takes)

template <atomic_op Op, typename T>
TK_DEVICE T atom_shared(uint32_t addr, T v, TK_LOC) {
    TK_ATOMIC_CHECK(Op, T);
    const uint32_t b = detail::atomic_bits(v);
    uint32_t r;
#if defined(TK_GPU)
#define TK_X(q) asm volatile("atom.shared" q " %0, [%1], %2;" : "=r"(r) : "r"(addr), "r"(b) : "memory");
    TK_ATOMIC_SUFFIX(TK_X)
#undef TK_X
#else
    r = detail::sim_atomic(tklab::sim::Op::atom_shared, detail::sim_atom_op<Op, T>(), detail::sim_atom_type<Op, T>(), addr, nullptr, b, 0, loc);
#endif
    return detail::atomic_value<T>(r);
}

template <atomic_op Op, typename T>
TK_DEVICE void red_shared(uint32_t addr, T v, TK_LOC) {
    static_assert(Op != atomic_op::exch, "red has no exch (it returns nothing): use atom_shared<atomic_op::exch>");
    TK_ATOMIC_CHECK(Op, T);
    const uint32_t b = detail::atomic_bits(v);
#if defined(TK_GPU)
#define TK_X(q) asm volatile("red.shared" q " [%0], %1;" ::"r"(addr), "r"(b) : "memory");
    TK_ATOMIC_SUFFIX(TK_X)
#undef TK_X
#else
    detail::sim_atomic(tklab::sim::Op::red_shared, detail::sim_atom_op<Op, T>(), detail::sim_atom_type<Op, T>(), addr, nullptr, b, 0, loc);
#endif
}

// Compare and swap: if the word equals `compare`, it becomes `value`; returns what it was.
TK_DEVICE uint32_t atom_cas_shared(uint32_t addr, uint32_t compare, uint32_t value, TK_LOC) {
#if defined(TK_GPU)
    uint32_t r;
    asm volatile("atom.shared.cas.b32 %0, [%1], %2, %3;" : "=r"(r) : "r"(addr), "r"(compare), "r"(value) : "memory");
    return r;
#else
    return detail::sim_atomic(tklab::sim::Op::atom_shared, tklab::sim::AtomOp::cas, tklab::sim::AtomType::b32, addr, nullptr, compare,
                              value, loc);
#endif
}

// ---- global memory

template <atomic_op Op, typename T>
TK_DEVICE T atom_global(T* p, T v, TK_LOC) {
    TK_ATOMIC_CHECK(Op, T);
    const uint32_t b = detail::atomic_bits(v);
    uint32_t r;
#if defined(TK_GPU)
#define TK_X(q) asm volatile("atom.global" q " %0, [%1], %2;" : "=r"(r) : "l"(p), "r"(b) : "memory");
    TK_ATOMIC_SUFFIX(TK_X)
#undef TK_X
#else
    r = detail::sim_atomic(tklab::sim::Op::atom_global, detail::sim_atom_op<Op, T>(), detail::sim_atom_type<Op, T>(), 0, p, b, 0, loc);
#endif
    return detail::atomic_value<T>(r);
}

template <atomic_op Op, typename T>
TK_DEVICE void red_global(T* p, T v, TK_LOC) {
    static_assert(Op != atomic_op::exch, "red has no exch (it returns nothing): use atom_global<atomic_op::exch>");
    TK_ATOMIC_CHECK(Op, T);
    const uint32_t b = detail::atomic_bits(v);
#if defined(TK_GPU)
#define TK_X(q) asm volatile("red.global" q " [%0], %1;" ::"l"(p), "r"(b) : "memory");
    TK_ATOMIC_SUFFIX(TK_X)
#undef TK_X
#else
    detail::sim_atomic(tklab::sim::Op::red_global, detail::sim_atom_op<Op, T>(), detail::sim_atom_type<Op, T>(), 0, p, b, 0, loc);
#endif
}

TK_DEVICE uint32_t atom_cas_global(uint32_t* p, uint32_t compare, uint32_t value, TK_LOC) {
#if defined(TK_GPU)
    uint32_t r;
    asm volatile("atom.global.cas.b32 %0, [%1], %2, %3;" : "=r"(r) : "l"(p), "r"(compare), "r"(value) : "memory");
    return r;
#else
    return detail::sim_atomic(tklab::sim::Op::atom_global, tklab::sim::AtomOp::cas, tklab::sim::AtomType::b32, 0, p, compare, value, loc);
#endif
}

#undef TK_ATOMIC_CHECK
#if defined(TK_GPU)
#undef TK_ATOMIC_SUFFIX
#endif

} // namespace tk::arch
