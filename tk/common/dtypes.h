// tk/common/dtypes.h - element types shared by the GPU build and the CPU simulator.
//
// Under nvcc (__CUDACC__) the tk types are plain aliases of CUDA's own types:
//     tk::bf16 = __nv_bfloat16, tk::half = __half,
//     tk::bf16_2 = __nv_bfloat162, tk::half_2 = __half2, tk::float2 = ::float2.
//
// In a host-only build (no CUDA headers anywhere) the same names are small
// trivially-copyable structs holding the raw IEEE bits, bit-compatible with
// CUDA's and converting exactly as the GPU does:
//   * float/double/integer -> bf16/half: round-to-nearest-even, overflow to
//     +/-inf per RNE, half subnormals rounded correctly, -0 preserved, any NaN
//     -> the canonical quiet NaN 0x7FFF (what cvt.rn.{bf16,f16}.f32 produces).
//   * bf16/half -> float: exact.  bf16 NaNs keep their payload (a 16-bit shift,
//     as on the GPU); half NaNs become the canonical float NaN 0x7FFFFFFF,
//     as CUDA does.
//   * double -> bf16/half rounds directly (no double rounding through float);
//     integers likewise.  A NaN double gives 0x7FFF as CUDA's host code does
//     (sm_90's cvt.rn.{bf16,f16}.f64 keep the NaN's sign and payload instead).
//   * Unary minus flips the sign bit; a NaN operand gives 0x7FFF (as measured
//     on the GPU, and as CUDA's host __hneg does).
//   * + - * / compute in float and round once.  Since float has at least
//     2p+2 significand bits for both formats, this equals the correctly rounded
//     result, i.e. what the sm_80 bf16/f16 instructions return.
//   * Operators and conversions mirror CUDA's overload set on purpose:
//     implicit bf16(float), implicit operator float(), operators taking
//     (bf16, bf16).  So mixed expressions such as `b * 2.0f` or `b == 0` are
//     ambiguous here exactly as they are under nvcc; write `float(b) * 2.0f`.
//
// Helpers available in both builds (host and device):
//     tk::from_float<T>(float), tk::to_float(T), tk::packed<T>::type /
//     tk::packed_t<T>, tk::pack_bits(bf16_2|half_2), tk::unpack_bits<P>(uint32_t),
//     tk::as_bits(bf16|half), tk::from_bits<T>(uint16_t),
//     tk::is_16bit_v<T>, tk::dtype_name<T>().
#pragma once

#include <cstdint>
#include <type_traits>

#ifndef TK_HOST_DEVICE
#if defined(__CUDACC__)
#define TK_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define TK_HOST_DEVICE inline
#endif
#endif

#if defined(__CUDACC__)

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace tk {
using bf16 = __nv_bfloat16;
using half = __half;
using bf16_2 = __nv_bfloat162;
using half_2 = __half2;
using float2 = ::float2;
}  // namespace tk

#else  // host-only build ---------------------------------------------------------

#include <bit>
#include <concepts>
#include <cstring>

namespace tk {

namespace detail {

// Round the exact value (-1)^neg * sig * 2^exp to a binary format with M stored
// mantissa bits and E exponent bits (round-to-nearest-even, overflow to inf).
// Returns the encoding.  Used for double and integer sources.
template <int M, int E>
constexpr std::uint16_t round_to_format(bool neg, std::uint64_t sig, int exp) noexcept {
    constexpr int bias = (1 << (E - 1)) - 1;
    constexpr int emin = 1 - bias;  // exponent of the smallest normal
    constexpr int emax = bias;      // exponent of the largest finite
    constexpr int qmin = emin - M;  // exponent of the smallest subnormal (ULP there)
    constexpr std::uint64_t inf = ((std::uint64_t{1} << E) - 1u) << M;
    const std::uint32_t sign = neg ? (1u << (M + E)) : 0u;
    if (sig == 0) return static_cast<std::uint16_t>(sign);
    const int e = (63 - std::countl_zero(sig)) + exp;  // value in [2^e, 2^(e+1))
    if (e > emax) return static_cast<std::uint16_t>(sign | inf);
    const int q = (e < emin ? emin : e) - M;  // ULP of the result is 2^q
    const int shift = q - exp;
    std::uint64_t r;  // value / 2^q, rounded; at most 2^(M+1)
    if (shift <= 0) {
        r = sig << -shift;  // exact, and < 2^(M+1)
    } else if (shift > 64) {
        r = 0;  // below half of the smallest subnormal
    } else {
        const std::uint64_t hi = shift == 64 ? 0 : sig >> shift;
        const std::uint64_t rem = shift == 64 ? sig : sig & ((std::uint64_t{1} << shift) - 1u);
        const std::uint64_t halfway = std::uint64_t{1} << (shift - 1);
        r = hi + ((rem > halfway || (rem == halfway && (hi & 1u))) ? 1u : 0u);
    }
    // (q - qmin) << M plus r (which carries its implicit bit into the exponent
    // field) is the encoding; a carry out of the significand lands correctly.
    std::uint64_t enc = (static_cast<std::uint64_t>(q - qmin) << M) + r;
    if (enc > inf) enc = inf;
    return static_cast<std::uint16_t>(sign | enc);
}

template <int M, int E>
constexpr std::uint16_t double_to_format(double d) noexcept {
    const std::uint64_t u = std::bit_cast<std::uint64_t>(d);
    const bool neg = (u >> 63) != 0;
    const int e = static_cast<int>((u >> 52) & 0x7FFu);
    const std::uint64_t m = u & ((std::uint64_t{1} << 52) - 1u);
    if (e == 0x7FF) {
        if (m != 0) return 0x7FFF;  // canonical NaN
        return static_cast<std::uint16_t>((neg ? (1u << (M + E)) : 0u) | (((1u << E) - 1u) << M));
    }
    if (e == 0) return round_to_format<M, E>(neg, m, -1074);
    return round_to_format<M, E>(neg, m | (std::uint64_t{1} << 52), e - 1075);
}

template <int M, int E, std::integral I>
constexpr std::uint16_t int_to_format(I v) noexcept {
    if constexpr (std::is_signed_v<I>) {
        const bool neg = v < 0;
        const std::uint64_t mag = neg ? std::uint64_t{0} - static_cast<std::uint64_t>(static_cast<std::int64_t>(v))
                                      : static_cast<std::uint64_t>(v);
        return round_to_format<M, E>(neg, mag, 0);
    } else {
        return round_to_format<M, E>(false, static_cast<std::uint64_t>(v), 0);
    }
}

constexpr std::uint16_t float_to_bf16_bits(float f) noexcept {
    const std::uint32_t u = std::bit_cast<std::uint32_t>(f);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FFF;  // NaN
    // Add just under half an ULP, plus one if the kept LSB is odd: RNE.
    // Finite values that round past the largest bf16 land exactly on inf.
    return static_cast<std::uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

constexpr float bf16_bits_to_float(std::uint16_t b) noexcept {
    return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}

constexpr std::uint16_t float_to_half_bits(float f) noexcept {
    const std::uint32_t u = std::bit_cast<std::uint32_t>(f);
    const std::uint32_t sign = (u >> 16) & 0x8000u;
    const std::uint32_t a = u & 0x7FFFFFFFu;
    if (a > 0x7F800000u) return 0x7FFF;                                     // NaN
    if (a >= 0x477FF000u) return static_cast<std::uint16_t>(sign | 0x7C00u);  // >= 65520: inf
    if (a >= 0x38800000u) {                                                // >= 2^-14: normal
        const std::uint32_t r = a - 0x38000000u;                           // rebias 127 -> 15
        return static_cast<std::uint16_t>(sign | ((r + 0xFFFu + ((r >> 13) & 1u)) >> 13));
    }
    if (a <= 0x33000000u) return static_cast<std::uint16_t>(sign);  // <= 2^-25: zero (tie -> even 0)
    // Subnormal result: value = m * 2^(e-150), counted in units of 2^-24.
    const std::uint32_t e = a >> 23;  // 102..112
    const std::uint32_t m = (a & 0x7FFFFFu) | 0x800000u;
    const std::uint32_t s = 126u - e;  // 14..24
    const std::uint32_t h = (m + (1u << (s - 1u)) - 1u + ((m >> s) & 1u)) >> s;
    return static_cast<std::uint16_t>(sign | h);  // h == 0x400 is the smallest normal
}

constexpr float half_bits_to_float(std::uint16_t h) noexcept {
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    const std::uint32_t exp = (h >> 10) & 0x1Fu;
    const std::uint32_t man = h & 0x3FFu;
    std::uint32_t u;
    if (exp == 0x1Fu) {
        u = man != 0 ? 0x7FFFFFFFu : (sign | 0x7F800000u);  // NaN -> canonical, as CUDA
    } else if (exp != 0) {
        u = sign | ((exp + 112u) << 23) | (man << 13);
    } else if (man == 0) {
        u = sign;
    } else {  // subnormal: man * 2^-24 with the top set bit at position p
        const std::uint32_t p = 31u - static_cast<std::uint32_t>(std::countl_zero(man));
        u = sign | ((p + 103u) << 23) | ((man << (23u - p)) & 0x7FFFFFu);
    }
    return std::bit_cast<float>(u);
}

// Operators shared by bf16 and half, found by argument-dependent lookup only.
// Everything is computed in float and rounded once by D's float constructor.
template <class D>
struct fp16_ops {
    friend D operator+(D a, D b) noexcept { return D(static_cast<float>(a) + static_cast<float>(b)); }
    friend D operator-(D a, D b) noexcept { return D(static_cast<float>(a) - static_cast<float>(b)); }
    friend D operator*(D a, D b) noexcept { return D(static_cast<float>(a) * static_cast<float>(b)); }
    friend D operator/(D a, D b) noexcept { return D(static_cast<float>(a) / static_cast<float>(b)); }
    friend D& operator+=(D& a, D b) noexcept { return a = a + b; }
    friend D& operator-=(D& a, D b) noexcept { return a = a - b; }
    friend D& operator*=(D& a, D b) noexcept { return a = a * b; }
    friend D& operator/=(D& a, D b) noexcept { return a = a / b; }
    friend D operator+(D a) noexcept { return a; }
    friend D operator-(D a) noexcept {  // sign flip; a NaN becomes 0x7FFF, as the GPU's neg does
        const float f = static_cast<float>(a);
        return D::from_bits(f != f ? std::uint16_t{0x7FFF} : static_cast<std::uint16_t>(a.bits ^ 0x8000u));
    }
    friend D& operator++(D& a) noexcept { return a = a + D(1.0f); }
    friend D& operator--(D& a) noexcept { return a = a - D(1.0f); }
    friend D operator++(D& a, int) noexcept { D old = a; ++a; return old; }
    friend D operator--(D& a, int) noexcept { D old = a; --a; return old; }
    friend bool operator==(D a, D b) noexcept { return static_cast<float>(a) == static_cast<float>(b); }
    friend bool operator!=(D a, D b) noexcept { return static_cast<float>(a) != static_cast<float>(b); }
    friend bool operator<(D a, D b) noexcept { return static_cast<float>(a) < static_cast<float>(b); }
    friend bool operator<=(D a, D b) noexcept { return static_cast<float>(a) <= static_cast<float>(b); }
    friend bool operator>(D a, D b) noexcept { return static_cast<float>(a) > static_cast<float>(b); }
    friend bool operator>=(D a, D b) noexcept { return static_cast<float>(a) >= static_cast<float>(b); }
};

// Lane-wise operators for the packed pairs.  Comparisons follow CUDA's
// __nv_bfloat162/__half2 operators: true only if the comparison holds in BOTH
// lanes (== is __hbeq2, != is __hbneu2, < is __hblt2, ...).
template <class P>
struct pair_ops {
    friend P operator+(P a, P b) noexcept { return P(a.x + b.x, a.y + b.y); }
    friend P operator-(P a, P b) noexcept { return P(a.x - b.x, a.y - b.y); }
    friend P operator*(P a, P b) noexcept { return P(a.x * b.x, a.y * b.y); }
    friend P operator/(P a, P b) noexcept { return P(a.x / b.x, a.y / b.y); }
    friend P& operator+=(P& a, P b) noexcept { return a = a + b; }
    friend P& operator-=(P& a, P b) noexcept { return a = a - b; }
    friend P& operator*=(P& a, P b) noexcept { return a = a * b; }
    friend P& operator/=(P& a, P b) noexcept { return a = a / b; }
    friend P operator+(P a) noexcept { return a; }
    friend P operator-(P a) noexcept { return P(-a.x, -a.y); }
    friend bool operator==(P a, P b) noexcept { return a.x == b.x && a.y == b.y; }
    friend bool operator!=(P a, P b) noexcept { return a.x != b.x && a.y != b.y; }
    friend bool operator<(P a, P b) noexcept { return a.x < b.x && a.y < b.y; }
    friend bool operator<=(P a, P b) noexcept { return a.x <= b.x && a.y <= b.y; }
    friend bool operator>(P a, P b) noexcept { return a.x > b.x && a.y > b.y; }
    friend bool operator>=(P a, P b) noexcept { return a.x >= b.x && a.y >= b.y; }
};

}  // namespace detail

// bfloat16: 1 sign, 8 exponent, 7 mantissa bits.
struct alignas(2) bf16 : detail::fp16_ops<bf16> {
    std::uint16_t bits;

    bf16() = default;  // trivial: bits indeterminate, like CUDA's
    bf16(float f) noexcept : bits(detail::float_to_bf16_bits(f)) {}
    bf16(double d) noexcept : bits(detail::double_to_format<7, 8>(d)) {}  // direct, no double rounding
    template <std::integral I>
    bf16(I v) noexcept : bits(detail::int_to_format<7, 8>(v)) {}

    operator float() const noexcept { return detail::bf16_bits_to_float(bits); }

    static constexpr bf16 from_bits(std::uint16_t b) noexcept {
        bf16 r;
        r.bits = b;
        return r;
    }
};

// IEEE binary16: 1 sign, 5 exponent, 10 mantissa bits.
struct alignas(2) half : detail::fp16_ops<half> {
    std::uint16_t bits;

    half() = default;
    half(float f) noexcept : bits(detail::float_to_half_bits(f)) {}
    half(double d) noexcept : bits(detail::double_to_format<10, 5>(d)) {}
    template <std::integral I>
    half(I v) noexcept : bits(detail::int_to_format<10, 5>(v)) {}

    operator float() const noexcept { return detail::half_bits_to_float(bits); }

    static constexpr half from_bits(std::uint16_t b) noexcept {
        half r;
        r.bits = b;
        return r;
    }
};

struct alignas(4) bf16_2 : detail::pair_ops<bf16_2> {
    bf16 x;
    bf16 y;

    bf16_2() = default;
    constexpr bf16_2(bf16 a, bf16 b) noexcept : x(a), y(b) {}
};

struct alignas(4) half_2 : detail::pair_ops<half_2> {
    half x;
    half y;

    half_2() = default;
    constexpr half_2(half a, half b) noexcept : x(a), y(b) {}
};

// Stand-in for CUDA's ::float2 (which is __align__(8) there too).
struct alignas(8) float2 {
    float x;
    float y;
};

static_assert(std::is_trivially_copyable_v<bf16> && std::is_standard_layout_v<bf16>);
static_assert(std::is_trivially_copyable_v<half> && std::is_standard_layout_v<half>);
static_assert(std::is_trivially_copyable_v<bf16_2> && std::is_standard_layout_v<bf16_2>);
static_assert(std::is_trivially_copyable_v<half_2> && std::is_standard_layout_v<half_2>);
static_assert(std::is_trivially_copyable_v<float2> && std::is_standard_layout_v<float2>);
static_assert(sizeof(bf16) == 2 && alignof(bf16) == 2);
static_assert(sizeof(half) == 2 && alignof(half) == 2);
static_assert(sizeof(bf16_2) == 4 && alignof(bf16_2) == 4);
static_assert(sizeof(half_2) == 4 && alignof(half_2) == 4);
static_assert(sizeof(float2) == 8 && alignof(float2) == 8);
static_assert(std::endian::native == std::endian::little, "pack_bits assumes x in the low half, as on the GPU");

}  // namespace tk

#endif  // __CUDACC__

// ---------------------------------------------------------------------------
// Helpers common to both builds.
namespace tk {

namespace detail {
template <class>
inline constexpr bool dependent_false_v = false;
}

// float -> T, round-to-nearest-even.
template <typename T>
TK_HOST_DEVICE T from_float(float f) {
    static_assert(detail::dependent_false_v<T>, "tk::from_float: unsupported type");
    return T(f);
}
template <>
TK_HOST_DEVICE float from_float<float>(float f) { return f; }

// T -> float, exact.
template <typename T>
TK_HOST_DEVICE float to_float(T v) {
    static_assert(detail::dependent_false_v<T>, "tk::to_float: unsupported type");
    return float(v);
}
template <>
TK_HOST_DEVICE float to_float<float>(float v) { return v; }

#if defined(__CUDACC__)
template <>
TK_HOST_DEVICE bf16 from_float<bf16>(float f) { return __float2bfloat16_rn(f); }
template <>
TK_HOST_DEVICE half from_float<half>(float f) { return __float2half_rn(f); }
template <>
TK_HOST_DEVICE float to_float<bf16>(bf16 v) { return __bfloat162float(v); }
template <>
TK_HOST_DEVICE float to_float<half>(half v) { return __half2float(v); }
#else
template <>
TK_HOST_DEVICE bf16 from_float<bf16>(float f) { return bf16(f); }
template <>
TK_HOST_DEVICE half from_float<half>(float f) { return half(f); }
template <>
TK_HOST_DEVICE float to_float<bf16>(bf16 v) { return static_cast<float>(v); }
template <>
TK_HOST_DEVICE float to_float<half>(half v) { return static_cast<float>(v); }
#endif

// Raw 16-bit patterns, portable across both builds (CUDA's storage member is
// not public).
#if defined(__CUDACC__)
TK_HOST_DEVICE std::uint16_t as_bits(bf16 v) { return __bfloat16_as_ushort(v); }
TK_HOST_DEVICE std::uint16_t as_bits(half v) { return __half_as_ushort(v); }
#else
TK_HOST_DEVICE std::uint16_t as_bits(bf16 v) { return v.bits; }
TK_HOST_DEVICE std::uint16_t as_bits(half v) { return v.bits; }
#endif

template <typename T>
TK_HOST_DEVICE T from_bits(std::uint16_t) {
    static_assert(detail::dependent_false_v<T>, "tk::from_bits: T must be tk::bf16 or tk::half");
    return T();
}
#if defined(__CUDACC__)
template <>
TK_HOST_DEVICE bf16 from_bits<bf16>(std::uint16_t b) { return __ushort_as_bfloat16(b); }
template <>
TK_HOST_DEVICE half from_bits<half>(std::uint16_t b) { return __ushort_as_half(b); }
#else
template <>
TK_HOST_DEVICE bf16 from_bits<bf16>(std::uint16_t b) { return bf16::from_bits(b); }
template <>
TK_HOST_DEVICE half from_bits<half>(std::uint16_t b) { return half::from_bits(b); }
#endif

// Packed pair type of an element type (what one 32- or 64-bit register holds).
template <typename T>
struct packed;
template <>
struct packed<bf16> { using type = bf16_2; };
template <>
struct packed<half> { using type = half_2; };
template <>
struct packed<float> { using type = float2; };
template <typename T>
using packed_t = typename packed<T>::type;

// Move a pair of 16-bit values into one 32-bit register, x in the low 16 bits
// (the mma fragment layout), and back.
#if defined(__CUDACC__)
TK_HOST_DEVICE std::uint32_t pack_bits(bf16_2 p) {
    return static_cast<std::uint32_t>(__bfloat16_as_ushort(p.x)) |
           (static_cast<std::uint32_t>(__bfloat16_as_ushort(p.y)) << 16);
}
TK_HOST_DEVICE std::uint32_t pack_bits(half_2 p) {
    return static_cast<std::uint32_t>(__half_as_ushort(p.x)) |
           (static_cast<std::uint32_t>(__half_as_ushort(p.y)) << 16);
}
#else
TK_HOST_DEVICE std::uint32_t pack_bits(bf16_2 p) {
    std::uint32_t r;
    std::memcpy(&r, &p, sizeof r);
    return r;
}
TK_HOST_DEVICE std::uint32_t pack_bits(half_2 p) {
    std::uint32_t r;
    std::memcpy(&r, &p, sizeof r);
    return r;
}
#endif

template <typename P>
TK_HOST_DEVICE P unpack_bits(std::uint32_t) {
    static_assert(detail::dependent_false_v<P>, "tk::unpack_bits: P must be tk::bf16_2 or tk::half_2");
    return P();
}
#if defined(__CUDACC__)
template <>
TK_HOST_DEVICE bf16_2 unpack_bits<bf16_2>(std::uint32_t u) {
    return bf16_2(__ushort_as_bfloat16(static_cast<unsigned short>(u & 0xFFFFu)),
                  __ushort_as_bfloat16(static_cast<unsigned short>(u >> 16)));
}
template <>
TK_HOST_DEVICE half_2 unpack_bits<half_2>(std::uint32_t u) {
    return half_2(__ushort_as_half(static_cast<unsigned short>(u & 0xFFFFu)),
                  __ushort_as_half(static_cast<unsigned short>(u >> 16)));
}
#else
template <>
TK_HOST_DEVICE bf16_2 unpack_bits<bf16_2>(std::uint32_t u) {
    bf16_2 r;
    std::memcpy(&r, &u, sizeof r);
    return r;
}
template <>
TK_HOST_DEVICE half_2 unpack_bits<half_2>(std::uint32_t u) {
    half_2 r;
    std::memcpy(&r, &u, sizeof r);
    return r;
}
#endif

// True for the 16-bit element types.
template <typename T>
inline constexpr bool is_16bit_v =
    std::is_same_v<std::remove_cv_t<T>, bf16> || std::is_same_v<std::remove_cv_t<T>, half>;
template <typename T>
struct is_16bit : std::bool_constant<is_16bit_v<T>> {};

// "bf16", "half" or "fp32".
template <typename T>
TK_HOST_DEVICE constexpr const char* dtype_name() {
    using U = std::remove_cv_t<T>;
    static_assert(std::is_same_v<U, bf16> || std::is_same_v<U, half> || std::is_same_v<U, float>,
                  "tk::dtype_name: unsupported type");
    if constexpr (std::is_same_v<U, bf16>) return "bf16";
    else if constexpr (std::is_same_v<U, half>) return "half";
    else return "fp32";
}

}  // namespace tk
