// Moving single elements and pairs between registers and memory, converting
// between element types on the way. The tile ops below are loops over these.
#pragma once
#include "tk/arch/alu.h"
#include "tk/arch/arch.h"
#include "tk/common/dtypes.h"
#include "tk/types/register/rt.h"

namespace tk::detail {

// The elements a lane holds of a register tile or vector.
template <typename X> TK_HOST_DEVICE constexpr int elements_per_lane() {
    if constexpr (is_rt_v<X>) return X::height * X::width * X::base::packed_per_thread * 2;
    else return X::chunks * X::per_chunk;
}

// A load into registers of another type converts in the op itself, once the
// data is there: nvcc issues the op's loads, then an instruction an element
// that waits for them, so PC sampling finds the wait at the load's own line.
// The simulator's charge for those conversions (tk/arch/alu.h) waits for the
// loaded registers the same way. Called after the op's loads.
template <typename R, typename M>
TK_DEVICE void convert_loaded(int elements, const src_loc& loc) {
    if constexpr (!std::is_same_v<R, M>) arch::alu(arch::alu_kind::convert, elements, loc);
    else (void)elements, (void)loc;
}

template <typename T> TK_HOST_DEVICE uint32_t bits_of(T v) {
    if constexpr (std::is_same_v<T, float>) return arch::f2u(v);
    else return as_bits(v);
}
template <typename T> TK_HOST_DEVICE T value_of(uint32_t b) {
    if constexpr (std::is_same_v<T, float>) return arch::u2f(b);
    else return from_bits<T>(uint16_t(b));
}
template <typename To, typename From> TK_HOST_DEVICE To convert(From v) {
    if constexpr (std::is_same_v<To, From>) return v;
    else return from_float<To>(to_float(v));
}

// Two values as one 32-bit word of 2-byte elements M, x in the low half: from
// floats one packed conversion (tk/arch/convert.h), else each converted alone.
template <typename M, typename R>
TK_DEVICE uint32_t packed_pair(R x, R y) {
    static_assert(sizeof(M) == 2, "tk: packed_pair packs 2-byte elements");
    if constexpr (std::is_same_v<R, float> && (std::is_same_v<M, bf16> || std::is_same_v<M, half>)) return arch::cvt_pack<M>(x, y);
    else return bits_of(convert<M>(x)) | (bits_of(convert<M>(y)) << 16);
}

// Two consecutive elements of type M at a shared address, as register type R.
template <typename R, typename M>
TK_DEVICE void ld_shared_pair(R& x, R& y, uint32_t addr, const src_loc& loc) {
    if constexpr (sizeof(M) == 2) {
        uint32_t w = arch::ld_shared_b32(addr, loc);
        x = convert<R>(value_of<M>(w & 0xffff));
        y = convert<R>(value_of<M>(w >> 16));
    } else {
        uint32_t w[2];
        arch::ld_shared<2>(w, addr, loc);
        x = convert<R>(value_of<M>(w[0]));
        y = convert<R>(value_of<M>(w[1]));
    }
}
template <typename M, typename R>
TK_DEVICE void st_shared_pair(uint32_t addr, R x, R y, const src_loc& loc) {
    if constexpr (sizeof(M) == 2) {
        arch::st_shared_b32(addr, packed_pair<M>(x, y), loc);
    } else {
        const uint32_t w[2] = {bits_of(convert<M>(x)), bits_of(convert<M>(y))};
        arch::st_shared<2>(addr, w, loc);
    }
}
template <typename R, typename M>
TK_DEVICE R ld_shared_one(uint32_t addr, const src_loc& loc) {
    if constexpr (sizeof(M) == 2) return convert<R>(value_of<M>(arch::ld_shared_b16(addr, loc)));
    else return convert<R>(value_of<M>(arch::ld_shared_b32(addr, loc)));
}
template <typename M, typename R>
TK_DEVICE void st_shared_one(uint32_t addr, R v, const src_loc& loc) {
    if constexpr (sizeof(M) == 2) arch::st_shared_b16(addr, uint16_t(bits_of(convert<M>(v))), loc);
    else arch::st_shared_b32(addr, bits_of(convert<M>(v)), loc);
}

template <typename R, typename M>
TK_DEVICE void ld_global_pair(R& x, R& y, const M* p, const src_loc& loc) {
    if constexpr (sizeof(M) == 2) {
        uint32_t w[1];
        arch::ld_global<1>(w, p, loc);
        x = convert<R>(value_of<M>(w[0] & 0xffff));
        y = convert<R>(value_of<M>(w[0] >> 16));
    } else {
        uint32_t w[2];
        arch::ld_global<2>(w, p, loc);
        x = convert<R>(value_of<M>(w[0]));
        y = convert<R>(value_of<M>(w[1]));
    }
}
template <typename M, typename R>
TK_DEVICE void st_global_pair(M* p, R x, R y, const src_loc& loc) {
    if constexpr (sizeof(M) == 2) {
        const uint32_t w[1] = {packed_pair<M>(x, y)};
        arch::st_global<1>(p, w, loc);
    } else {
        const uint32_t w[2] = {bits_of(convert<M>(x)), bits_of(convert<M>(y))};
        arch::st_global<2>(p, w, loc);
    }
}
template <typename R, typename M>
TK_DEVICE R ld_global_one(const M* p, const src_loc& loc) {
    if constexpr (sizeof(M) == 2) return convert<R>(value_of<M>(arch::ld_global_b16(p, loc)));
    else { uint32_t w[1]; arch::ld_global<1>(w, p, loc); return convert<R>(value_of<M>(w[0])); }
}
template <typename M, typename R>
TK_DEVICE void st_global_one(M* p, R v, const src_loc& loc) {
    if constexpr (sizeof(M) == 2) arch::st_global_b16(p, uint16_t(bits_of(convert<M>(v))), loc);
    else { const uint32_t w[1] = {bits_of(convert<M>(v))}; arch::st_global<1>(p, w, loc); }
}

} // namespace tk::detail
