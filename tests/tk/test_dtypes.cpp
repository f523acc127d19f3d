// Tests for tk/common/dtypes.h (host build only).
//
// Conversions are checked against an independent reference written here: the
// value of every bf16/half encoding is decoded with std::ldexp, and rounding is
// done by locating the input between two adjacent representable values and
// comparing it exactly with their midpoint (midpoints of 8- or 11-bit
// significands are exact doubles).  No bit tricks are shared with the header.
#if !defined(__CUDACC__)

#include <catch2/catch.hpp>

#include "tk/common/dtypes.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using std::uint16_t;
using std::uint32_t;
using std::uint64_t;

// ---------------------------------------------------------------------------
// Reference model of a small binary floating-point format.
struct RefFormat {
    int mant_bits;  // stored mantissa bits
    int exp_bits;
    uint16_t inf_bits;             // encoding of +inf
    std::vector<double> values;    // value of encoding i for i in [0, inf_bits], the last
                                   // one being the "virtual" 2^(emax+1) used for overflow

    RefFormat(int m, int e) : mant_bits(m), exp_bits(e) {
        inf_bits = static_cast<uint16_t>(((1u << e) - 1u) << m);
        values.reserve(inf_bits + 1u);
        for (uint32_t b = 0; b < inf_bits; ++b) values.push_back(decode_abs(static_cast<uint16_t>(b)));
        const int bias = (1 << (e - 1)) - 1;
        values.push_back(std::ldexp(1.0, bias + 1));
    }

    // |value| of a finite non-negative encoding, from the textbook formula.
    double decode_abs(uint16_t b) const {
        const int bias = (1 << (exp_bits - 1)) - 1;
        const uint32_t man = b & ((1u << mant_bits) - 1u);
        const int ex = static_cast<int>((b >> mant_bits) & ((1u << exp_bits) - 1u));
        if (ex == 0) return std::ldexp(static_cast<double>(man), 1 - bias - mant_bits);
        return std::ldexp(static_cast<double>(man + (1u << mant_bits)), ex - bias - mant_bits);
    }

    bool is_nan(uint16_t b) const { return (b & 0x7FFFu) > inf_bits; }

    // Value of any encoding as double (NaN for NaNs).
    double decode(uint16_t b) const {
        const bool neg = (b & 0x8000u) != 0;
        const uint16_t a = static_cast<uint16_t>(b & 0x7FFFu);
        if (a > inf_bits) return std::numeric_limits<double>::quiet_NaN();
        const double v = a == inf_bits ? std::numeric_limits<double>::infinity() : values[a];
        return neg ? -v : v;
    }

    // Round-to-nearest-even of any double, NaN -> 0x7FFF.
    uint16_t round(double v) const {
        if (std::isnan(v)) return 0x7FFF;
        const uint16_t sign = std::signbit(v) ? 0x8000 : 0;
        const double a = std::fabs(v);
        if (a >= values.back()) return static_cast<uint16_t>(sign | inf_bits);
        // values[i] <= a < values[i+1]
        const auto it = std::upper_bound(values.begin(), values.end(), a);
        const uint32_t i = static_cast<uint32_t>(it - values.begin()) - 1u;
        uint32_t r;
        if (a == values[i]) {
            r = i;
        } else {
            const double mid = (values[i] + values[i + 1]) / 2;  // exact
            if (a < mid) r = i;
            else if (a > mid) r = i + 1;
            else r = (i % 2 == 0) ? i : i + 1;  // tie: even encoding
        }
        return static_cast<uint16_t>(sign | r);
    }
};

const RefFormat& ref_bf16() {
    static const RefFormat f(7, 8);
    return f;
}
const RefFormat& ref_half() {
    static const RefFormat f(10, 5);
    return f;
}

template <class T>
const RefFormat& ref_for() {
    if constexpr (std::is_same_v<T, tk::bf16>) return ref_bf16();
    else return ref_half();
}

uint32_t fbits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}
float from_fbits(uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

std::string hex(uint64_t v) {
    std::ostringstream os;
    os << "0x" << std::hex << std::uppercase << v;
    return os.str();
}

template <class T>
uint16_t conv_bits(float f) {
    return tk::from_float<T>(f).bits;
}

// Checks tk conversion of float f against the reference; records the first miss.
template <class T>
struct Checker {
    uint64_t checked = 0, misses = 0;
    std::string first;
    void check(float f) {
        ++checked;
        const uint16_t got = conv_bits<T>(f);
        const uint16_t want = ref_for<T>().round(static_cast<double>(f));
        if (got != want) {
            if (misses++ == 0)
                first = "float bits " + hex(fbits(f)) + ": got " + hex(got) + ", want " + hex(want);
        }
    }
};

}  // namespace

// ---------------------------------------------------------------------------
TEST_CASE("dtypes: layout and traits", "[dtypes]") {
    STATIC_REQUIRE(sizeof(tk::bf16) == 2);
    STATIC_REQUIRE(alignof(tk::bf16) == 2);
    STATIC_REQUIRE(sizeof(tk::half) == 2);
    STATIC_REQUIRE(alignof(tk::half) == 2);
    STATIC_REQUIRE(sizeof(tk::bf16_2) == 4);
    STATIC_REQUIRE(alignof(tk::bf16_2) == 4);
    STATIC_REQUIRE(sizeof(tk::half_2) == 4);
    STATIC_REQUIRE(alignof(tk::half_2) == 4);
    STATIC_REQUIRE(sizeof(tk::float2) == 8);
    STATIC_REQUIRE(std::is_trivially_copyable_v<tk::bf16>);
    STATIC_REQUIRE(std::is_trivially_copyable_v<tk::half>);
    STATIC_REQUIRE(std::is_trivially_copyable_v<tk::bf16_2>);
    STATIC_REQUIRE(std::is_trivially_copyable_v<tk::half_2>);
    STATIC_REQUIRE(std::is_standard_layout_v<tk::bf16>);
    STATIC_REQUIRE(std::is_standard_layout_v<tk::half>);
    STATIC_REQUIRE(std::is_trivially_default_constructible_v<tk::bf16>);
    STATIC_REQUIRE(std::is_same_v<decltype(tk::bf16{}.bits), uint16_t>);

    STATIC_REQUIRE(std::is_same_v<tk::packed<tk::bf16>::type, tk::bf16_2>);
    STATIC_REQUIRE(std::is_same_v<tk::packed<tk::half>::type, tk::half_2>);
    STATIC_REQUIRE(std::is_same_v<tk::packed_t<float>, tk::float2>);

    STATIC_REQUIRE(tk::is_16bit_v<tk::bf16>);
    STATIC_REQUIRE(tk::is_16bit_v<tk::half>);
    STATIC_REQUIRE(tk::is_16bit_v<const tk::half>);
    STATIC_REQUIRE_FALSE(tk::is_16bit_v<float>);
    STATIC_REQUIRE_FALSE(tk::is_16bit_v<uint16_t>);
    STATIC_REQUIRE_FALSE(tk::is_16bit_v<tk::bf16_2>);

    REQUIRE(std::string(tk::dtype_name<tk::bf16>()) == "bf16");
    REQUIRE(std::string(tk::dtype_name<tk::half>()) == "half");
    REQUIRE(std::string(tk::dtype_name<float>()) == "fp32");
    STATIC_REQUIRE(tk::dtype_name<float>()[1] == 'p');  // usable in constant expressions
}

TEST_CASE("dtypes: reference model sanity", "[dtypes]") {
    // The reference itself must agree with well-known values.
    REQUIRE(ref_bf16().decode(0x3F80) == 1.0);
    REQUIRE(ref_half().decode(0x3C00) == 1.0);
    REQUIRE(ref_half().decode(0x7BFF) == 65504.0);
    REQUIRE(ref_half().decode(0x0001) == std::ldexp(1.0, -24));
    REQUIRE(ref_bf16().decode(0x0001) == std::ldexp(1.0, -133));
    REQUIRE(ref_bf16().decode(0x7F7F) == std::ldexp(255.0, 127 - 7));
    REQUIRE(ref_half().round(65520.0) == 0x7C00);
    REQUIRE(ref_half().round(65519.99) == 0x7BFF);
    REQUIRE(ref_half().round(-0.0) == 0x8000);
}

TEST_CASE("dtypes: known bf16 bit patterns", "[dtypes]") {
    auto b = [](float f) { return conv_bits<tk::bf16>(f); };
    CHECK(b(1.0f) == 0x3F80);
    CHECK(b(-1.0f) == 0xBF80);
    CHECK(b(2.0f) == 0x4000);
    CHECK(b(0.0f) == 0x0000);
    CHECK(b(-0.0f) == 0x8000);
    CHECK(b(3.140625f) == 0x4049);
    CHECK(b(std::numeric_limits<float>::infinity()) == 0x7F80);
    CHECK(b(-std::numeric_limits<float>::infinity()) == 0xFF80);
    CHECK(b(std::numeric_limits<float>::quiet_NaN()) == 0x7FFF);
    CHECK(b(-std::numeric_limits<float>::quiet_NaN()) == 0x7FFF);
    CHECK(b(from_fbits(0x7F800001u)) == 0x7FFF);  // signalling NaN whose payload would truncate to inf
    CHECK(b(from_fbits(0xFFC12345u)) == 0x7FFF);
    // Ties: 1 + 2^-8 lies halfway between 0x3F80 (even) and 0x3F81 -> down.
    CHECK(b(from_fbits(0x3F808000u)) == 0x3F80);
    // 1 + 3*2^-8 halfway between 0x3F81 (odd) and 0x3F82 (even) -> up.
    CHECK(b(from_fbits(0x3F818000u)) == 0x3F82);
    // Just off the tie in either direction.
    CHECK(b(from_fbits(0x3F808001u)) == 0x3F81);
    CHECK(b(from_fbits(0x3F817FFFu)) == 0x3F81);
    CHECK(b(from_fbits(0xBF808000u)) == 0xBF80);
    CHECK(b(from_fbits(0xBF818000u)) == 0xBF82);
    // Largest finite float rounds to inf; largest bf16 is exact.
    CHECK(b(std::numeric_limits<float>::max()) == 0x7F80);
    CHECK(b(-std::numeric_limits<float>::max()) == 0xFF80);
    CHECK(b(from_fbits(0x7F7F0000u)) == 0x7F7F);
    CHECK(b(from_fbits(0x7F7F7FFFu)) == 0x7F7F);
    CHECK(b(from_fbits(0x7F7F8000u)) == 0x7F80);  // tie between max (odd) and 2^128 -> inf
    // Subnormals: bf16 keeps float's subnormal range.
    CHECK(b(from_fbits(0x00010000u)) == 0x0001);
    CHECK(b(from_fbits(0x00008000u)) == 0x0000);  // tie -> even zero
    CHECK(b(from_fbits(0x00018000u)) == 0x0002);  // tie -> even
    CHECK(b(from_fbits(0x00000001u)) == 0x0000);
    CHECK(b(from_fbits(0x80000001u)) == 0x8000);
    CHECK(b(from_fbits(0x007FFFFFu)) == 0x0080);  // rounds up into the normals

    CHECK(tk::bf16::from_bits(0x3F80).bits == 0x3F80);
    CHECK(tk::from_bits<tk::bf16>(0xC040).bits == 0xC040);
    CHECK(tk::as_bits(tk::bf16(1.0f)) == 0x3F80);
    CHECK(tk::to_float(tk::bf16::from_bits(0xC040)) == -3.0f);
}

TEST_CASE("dtypes: known half bit patterns", "[dtypes]") {
    auto h = [](float f) { return conv_bits<tk::half>(f); };
    CHECK(h(1.0f) == 0x3C00);
    CHECK(h(-2.0f) == 0xC000);
    CHECK(h(0.5f) == 0x3800);
    CHECK(h(0.0f) == 0x0000);
    CHECK(h(-0.0f) == 0x8000);
    CHECK(h(65504.0f) == 0x7BFF);
    CHECK(h(-65504.0f) == 0xFBFF);
    CHECK(h(65519.0f) == 0x7BFF);
    CHECK(h(std::nextafter(65520.0f, 0.0f)) == 0x7BFF);
    CHECK(h(65520.0f) == 0x7C00);  // tie between max (odd) and 2^16 -> inf
    CHECK(h(-65520.0f) == 0xFC00);
    CHECK(h(1e9f) == 0x7C00);
    CHECK(h(std::numeric_limits<float>::infinity()) == 0x7C00);
    CHECK(h(-std::numeric_limits<float>::infinity()) == 0xFC00);
    CHECK(h(std::numeric_limits<float>::quiet_NaN()) == 0x7FFF);
    CHECK(h(-std::numeric_limits<float>::quiet_NaN()) == 0x7FFF);
    CHECK(h(from_fbits(0x7F800001u)) == 0x7FFF);
    // Smallest normal and subnormals.
    CHECK(h(std::ldexp(1.0f, -14)) == 0x0400);
    CHECK(h(std::ldexp(1.0f, -24)) == 0x0001);        // smallest subnormal
    CHECK(h(-std::ldexp(1.0f, -24)) == 0x8001);
    CHECK(h(std::ldexp(1023.0f, -24)) == 0x03FF);     // largest subnormal
    CHECK(h(std::ldexp(1.0f, -25)) == 0x0000);        // tie with zero -> even zero
    CHECK(h(-std::ldexp(1.0f, -25)) == 0x8000);
    CHECK(h(std::nextafter(std::ldexp(1.0f, -25), 1.0f)) == 0x0001);
    CHECK(h(std::ldexp(3.0f, -25)) == 0x0002);        // 1.5 * 2^-24: tie -> even (2)
    CHECK(h(std::ldexp(5.0f, -25)) == 0x0002);        // 2.5 * 2^-24: tie -> even (2)
    CHECK(h(std::ldexp(7.0f, -25)) == 0x0004);        // 3.5 * 2^-24: tie -> even (4)
    CHECK(h(std::ldexp(2047.0f, -25)) == 0x0400);     // 1023.5 * 2^-24 -> rounds up to min normal
    CHECK(h(std::ldexp(1.0f, -30)) == 0x0000);
    CHECK(h(std::numeric_limits<float>::denorm_min()) == 0x0000);
    // Ties in the normal range: 1 + 2^-11 between 0x3C00 (even) and 0x3C01.
    CHECK(h(1.0f + std::ldexp(1.0f, -11)) == 0x3C00);
    CHECK(h(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3C02);
    CHECK(h(std::nextafter(1.0f + std::ldexp(1.0f, -11), 2.0f)) == 0x3C01);
    CHECK(h(-(1.0f + 3 * std::ldexp(1.0f, -11))) == 0xBC02);
    CHECK(h(2049.0f) == 0x6800);  // 2048 (even)
    CHECK(h(2051.0f) == 0x6802);  // 2052 (even)
    CHECK(h(2050.0f) == 0x6801);

    CHECK(tk::half::from_bits(0x3C00).bits == 0x3C00);
    CHECK(tk::as_bits(tk::from_bits<tk::half>(0x1234)) == 0x1234);
    CHECK(tk::to_float(tk::half::from_bits(0x7BFF)) == 65504.0f);
    CHECK(tk::to_float(tk::half::from_bits(0x0001)) == std::ldexp(1.0f, -24));
}

TEMPLATE_TEST_CASE("dtypes: all 16-bit patterns decode exactly and round-trip", "[dtypes]", tk::bf16, tk::half) {
    const RefFormat& ref = ref_for<TestType>();
    uint32_t decode_misses = 0, trip_misses = 0;
    std::string first_decode, first_trip;
    for (uint32_t b = 0; b < 0x10000u; ++b) {
        const auto v = TestType::from_bits(static_cast<uint16_t>(b));
        const float f = v;  // implicit conversion, as CUDA allows
        if (fbits(tk::to_float(v)) != fbits(f) && decode_misses++ == 0) first_decode = "to_float differs from operator float";
        const double want = ref.decode(static_cast<uint16_t>(b));
        bool ok;
        if (std::isnan(want)) {
            ok = std::isnan(f);
            if constexpr (std::is_same_v<TestType, tk::bf16>)
                ok = ok && fbits(f) == (b << 16);  // bf16 -> float is a plain shift, payload kept
            else
                ok = ok && fbits(f) == 0x7FFFFFFFu;  // CUDA's canonical float NaN
        } else {
            // Value and sign (for zeros) must match exactly.
            ok = static_cast<double>(f) == want && std::signbit(f) == std::signbit(want);
        }
        if (!ok && decode_misses++ == 0) first_decode = "bits " + hex(b) + " -> float bits " + hex(fbits(f));

        const uint16_t back = tk::from_float<TestType>(f).bits;
        const uint16_t expect = ref.is_nan(static_cast<uint16_t>(b)) ? uint16_t{0x7FFF} : static_cast<uint16_t>(b);
        if (back != expect && trip_misses++ == 0) first_trip = "bits " + hex(b) + " came back as " + hex(back);
    }
    INFO(first_decode);
    CHECK(decode_misses == 0);
    INFO(first_trip);
    CHECK(trip_misses == 0);
}

TEMPLATE_TEST_CASE("dtypes: rounding at every midpoint", "[dtypes]", tk::bf16, tk::half) {
    // For every pair of adjacent non-negative values (including max finite and
    // the overflow point 2^(emax+1)), check the floats at, just below and just
    // above the midpoint, and the endpoints themselves; both signs.
    const RefFormat& ref = ref_for<TestType>();
    Checker<TestType> c;
    for (size_t i = 0; i + 1 < ref.values.size(); ++i) {
        const float lo = static_cast<float>(ref.values[i]);
        const float mid = static_cast<float>((ref.values[i] + ref.values[i + 1]) / 2);
        REQUIRE(static_cast<double>(mid) == (ref.values[i] + ref.values[i + 1]) / 2);  // exact in float
        for (float s : {1.0f, -1.0f}) {
            c.check(s * lo);
            c.check(s * mid);
            c.check(s * std::nextafter(mid, 0.0f));
            c.check(s * std::nextafter(mid, std::numeric_limits<float>::infinity()));
            c.check(s * std::nextafter(std::nextafter(mid, 0.0f), 0.0f));
        }
    }
    INFO(c.first);
    CHECK(c.checked > 100000);
    CHECK(c.misses == 0);
}

TEMPLATE_TEST_CASE("dtypes: seeded random float sweep against reference", "[dtypes]", tk::bf16, tk::half) {
    std::mt19937 rng(20240611u);
    std::uniform_int_distribution<uint32_t> any_bits;
    // Floats in and around the half range (|x| in [2^-27, 2^17)) so that half
    // gets mostly interesting inputs too, with random sign.
    std::uniform_int_distribution<uint32_t> near_range(0x32000000u, 0x47FFFFFFu);
    Checker<TestType> c;
    for (int i = 0; i < 500000; ++i) c.check(from_fbits(any_bits(rng)));
    for (int i = 0; i < 500000; ++i) c.check(from_fbits(near_range(rng) | (any_bits(rng) & 0x80000000u)));
    INFO(c.first);
    CHECK(c.checked == 1000000);
    CHECK(c.misses == 0);
}

TEMPLATE_TEST_CASE("dtypes: double and integer sources round directly", "[dtypes]", tk::bf16, tk::half) {
    const RefFormat& ref = ref_for<TestType>();
    std::mt19937_64 rng(7u);
    uint64_t misses = 0;
    std::string first;
    auto check = [&](double d) {
        const uint16_t got = TestType(d).bits;
        const uint16_t want = ref.round(d);
        if (got != want && misses++ == 0) first = "double " + hex(std::bit_cast<uint64_t>(d)) + ": got " + hex(got) + ", want " + hex(want);
    };
    std::uniform_int_distribution<uint64_t> any;
    std::uniform_int_distribution<uint64_t> near(0x3E00000000000000ull, 0x4100000000000000ull);  // ~2^-31 .. 2^17
    for (int i = 0; i < 200000; ++i) check(std::bit_cast<double>(any(rng)));
    for (int i = 0; i < 200000; ++i) check(std::bit_cast<double>(near(rng) | (any(rng) & (1ull << 63))));
    // Just above/below every midpoint: float would double-round these to the tie.
    for (size_t i = 0; i + 1 < ref.values.size(); i += 7) {
        const double mid = (ref.values[i] + ref.values[i + 1]) / 2;
        check(std::nextafter(mid, 0.0));
        check(std::nextafter(mid, 1e300));
        check(-std::nextafter(mid, 1e300));
    }
    INFO(first);
    CHECK(misses == 0);

    // Integers, including some beyond double precision.
    std::uniform_int_distribution<int64_t> small(-(int64_t{1} << 24), int64_t{1} << 24);
    uint64_t imisses = 0;
    for (int i = 0; i < 100000; ++i) {
        const int64_t v = small(rng);
        if (TestType(v).bits != ref.round(static_cast<double>(v))) ++imisses;  // exact in double
        if (TestType(static_cast<int>(v)).bits != ref.round(static_cast<double>(v))) ++imisses;
    }
    CHECK(imisses == 0);
    CHECK(TestType(0).bits == 0x0000);
    CHECK(TestType(std::numeric_limits<int64_t>::min()).bits == ref.round(-std::ldexp(1.0, 63)));
    CHECK(TestType(std::numeric_limits<uint64_t>::max()).bits == ref.round(std::ldexp(1.0, 64)));
    CHECK(TestType(-1).bits == ref.round(-1.0));
}

TEST_CASE("dtypes: double rounding is avoided for double and int64 sources", "[dtypes]") {
    // 1 + 2^-8 + 2^-40: float(d) is exactly the bf16 tie 1 + 2^-8 (-> 1.0), but
    // d itself is above the tie, so CUDA's __double2bfloat16 gives 1 + 2^-7.
    const double d = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40);
    CHECK(tk::bf16(static_cast<float>(d)).bits == 0x3F80);
    CHECK(tk::bf16(d).bits == 0x3F81);
    const double dh = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
    CHECK(tk::half(static_cast<float>(dh)).bits == 0x3C00);
    CHECK(tk::half(dh).bits == 0x3C01);
    // 2^60 + 2^52 + 1: double(v) is the bf16 tie 2^60 + 2^52, v is above it.
    const int64_t v = (int64_t{1} << 60) + (int64_t{1} << 52) + 1;
    CHECK(tk::bf16(v).bits == ref_bf16().round(std::ldexp(1.0, 60) + std::ldexp(1.0, 53)));
    CHECK(tk::bf16((int64_t{1} << 60) + (int64_t{1} << 52)).bits == ref_bf16().round(std::ldexp(1.0, 60)));
    CHECK(tk::half(65519).bits == 0x7BFF);
    CHECK(tk::half(65520).bits == 0x7C00);
    CHECK(tk::half(-65520LL).bits == 0xFC00);
    CHECK(tk::half(2049u).bits == 0x6800);
    CHECK(tk::half(2051).bits == 0x6802);
    CHECK(tk::bf16(-0.0).bits == 0x8000);
    CHECK(tk::half(std::nan("")).bits == 0x7FFF);
    CHECK(tk::bf16(-std::numeric_limits<double>::infinity()).bits == 0xFF80);
    CHECK(tk::half(1e-300).bits == 0x0000);
    CHECK(tk::bf16(1e300).bits == 0x7F80);
}

TEMPLATE_TEST_CASE("dtypes: arithmetic rounds once from float", "[dtypes]", tk::bf16, tk::half) {
    using T = TestType;
    const RefFormat& ref = ref_for<T>();
    std::mt19937 rng(12345u);
    std::uniform_int_distribution<uint32_t> bits16(0, 0xFFFF);
    uint64_t misses = 0;
    std::string first;
    auto fail = [&](const char* op, T a, T b, uint16_t got, uint16_t want) {
        if (misses++ == 0)
            first = std::string(op) + " " + hex(a.bits) + ", " + hex(b.bits) + ": got " + hex(got) + ", want " + hex(want);
    };
    for (int i = 0; i < 300000; ++i) {
        T a = T::from_bits(static_cast<uint16_t>(bits16(rng)));
        T b = T::from_bits(static_cast<uint16_t>(bits16(rng)));
        if (i % 2 == 0) {  // keep exponents close so sums are often inexact but representable in double
            const uint32_t mag = ((a.bits & 0x7FFFu) + (bits16(rng) & 0x0FFFu)) & 0x7FFFu;
            b = T::from_bits(static_cast<uint16_t>(mag | (bits16(rng) & 0x8000u)));
        }
        const float fa = a, fb = b;
        const T sum = a + b, diff = a - b, prod = a * b, quot = a / b;
        if (sum.bits != tk::from_float<T>(fa + fb).bits) fail("+", a, b, sum.bits, tk::from_float<T>(fa + fb).bits);
        if (diff.bits != tk::from_float<T>(fa - fb).bits) fail("-", a, b, diff.bits, tk::from_float<T>(fa - fb).bits);
        if (prod.bits != tk::from_float<T>(fa * fb).bits) fail("*", a, b, prod.bits, tk::from_float<T>(fa * fb).bits);
        if (quot.bits != tk::from_float<T>(fa / fb).bits) fail("/", a, b, quot.bits, tk::from_float<T>(fa / fb).bits);

        // Against the correctly rounded exact result, computed in double where
        // double holds it exactly (products always; sums when the exponents are
        // close enough).
        const double da = fa, db = fb;
        if (prod.bits != ref.round(da * db)) fail("* (exact)", a, b, prod.bits, ref.round(da * db));
        const double s = da + db;
        if (std::isfinite(s) && s - da == db && s - db == da && sum.bits != ref.round(s))
            fail("+ (exact)", a, b, sum.bits, ref.round(s));

        T c = a;
        c += b;
        if (c.bits != sum.bits) fail("+=", a, b, c.bits, sum.bits);
        c = a;
        c -= b;
        if (c.bits != diff.bits) fail("-=", a, b, c.bits, diff.bits);
        c = a;
        c *= b;
        if (c.bits != prod.bits) fail("*=", a, b, c.bits, prod.bits);
        c = a;
        c /= b;
        if (c.bits != quot.bits) fail("/=", a, b, c.bits, quot.bits);

        if ((a == b) != (fa == fb) || (a != b) != (fa != fb) || (a < b) != (fa < fb) || (a <= b) != (fa <= fb) ||
            (a > b) != (fa > fb) || (a >= b) != (fa >= fb))
            fail("cmp", a, b, 0, 1);
        const uint16_t neg_want = ref.is_nan(a.bits) ? uint16_t{0x7FFF} : static_cast<uint16_t>(a.bits ^ 0x8000u);
        if ((-a).bits != neg_want) fail("neg", a, b, (-a).bits, neg_want);
    }
    INFO(first);
    CHECK(misses == 0);

    // A few spelled-out cases.
    const T one(1.0f), two(2.0f), three(3.0f);
    CHECK((one + two).bits == T(3.0f).bits);
    CHECK((three * three).bits == T(9.0f).bits);
    CHECK((one / three).bits == T(1.0f / 3.0f).bits);
    CHECK((one - one).bits == 0x0000);  // +0
    CHECK(((-one) - (-one)).bits == 0x0000);
    CHECK((T(-0.0f) + T(-0.0f)).bits == 0x8000);
    CHECK((T(-0.0f) * one).bits == 0x8000);
    CHECK((one / T(0.0f)).bits == ref.round(std::numeric_limits<double>::infinity()));
    CHECK((T(0.0f) / T(0.0f)).bits == 0x7FFF);
    CHECK((+three).bits == three.bits);
    CHECK((-three).bits == (three.bits ^ 0x8000u));
    CHECK((-T(0.0f)).bits == 0x8000);
    CHECK((-T(-0.0f)).bits == 0x0000);
    CHECK((-T::from_bits(0xFFFF)).bits == 0x7FFF);
    CHECK((-T::from_bits(0x7FFF)).bits == 0x7FFF);
    T t = one;
    CHECK((t++).bits == one.bits);
    CHECK(t.bits == two.bits);
    CHECK((++t).bits == three.bits);
    CHECK((--t).bits == two.bits);
    CHECK((t--).bits == two.bits);
    CHECK(t.bits == one.bits);
    const T nan = T::from_bits(0x7FFF);
    CHECK_FALSE(nan == nan);
    CHECK(nan != nan);
    CHECK_FALSE(nan < one);
    CHECK(T(0.0f) == T(-0.0f));
    CHECK(one < two);
    CHECK(two >= two);
    const float f = three;  // implicit, like CUDA
    CHECK(f == 3.0f);
    CHECK(static_cast<float>(three) == 3.0f);
}

TEST_CASE("dtypes: overflow and underflow in arithmetic", "[dtypes]") {
    const tk::half big(60000.0f);
    CHECK((big + big).bits == 0x7C00);
    CHECK((-big - big).bits == 0xFC00);
    const tk::half tiny = tk::half::from_bits(0x0001);  // 2^-24
    CHECK((tiny * tk::half(0.5f)).bits == 0x0000);         // tie -> even zero
    CHECK((tiny * tk::half(0.75f)).bits == 0x0001);
    CHECK((tiny * tk::half(-0.5f)).bits == 0x8000);
    CHECK((tiny + tiny).bits == 0x0002);
    const tk::bf16 bmax = tk::bf16::from_bits(0x7F7F);
    CHECK((bmax * tk::bf16(2.0f)).bits == 0x7F80);
    CHECK((bmax + bmax).bits == 0x7F80);
}

TEST_CASE("dtypes: pairs and bit packing", "[dtypes]") {
    const tk::bf16_2 p{tk::bf16::from_bits(0x1234), tk::bf16::from_bits(0xABCD)};
    CHECK(p.x.bits == 0x1234);
    CHECK(p.y.bits == 0xABCD);
    CHECK(tk::pack_bits(p) == 0xABCD1234u);  // x in the low half
    const tk::bf16_2 q = tk::unpack_bits<tk::bf16_2>(0x3F80C000u);
    CHECK(q.x.bits == 0xC000);
    CHECK(q.y.bits == 0x3F80);
    CHECK(static_cast<float>(q.x) == -2.0f);
    CHECK(static_cast<float>(q.y) == 1.0f);

    const tk::half_2 h{1.0f, -2.0f};  // brace construction from floats
    CHECK(tk::pack_bits(h) == 0xC0003C00u);
    const tk::half_2 h2 = tk::unpack_bits<tk::half_2>(0x7BFF0001u);
    CHECK(h2.x.bits == 0x0001);
    CHECK(h2.y.bits == 0x7BFF);

    std::mt19937 rng(99u);
    uint32_t misses = 0;
    for (int i = 0; i < 100000; ++i) {
        const uint32_t u = rng();
        if (tk::pack_bits(tk::unpack_bits<tk::bf16_2>(u)) != u) ++misses;
        if (tk::pack_bits(tk::unpack_bits<tk::half_2>(u)) != u) ++misses;
        const auto b = tk::unpack_bits<tk::bf16_2>(u);
        if (b.x.bits != (u & 0xFFFFu) || b.y.bits != (u >> 16)) ++misses;
    }
    CHECK(misses == 0);

    // Lane-wise arithmetic, and CUDA's "both lanes" comparison semantics.
    const tk::bf16_2 a{1.0f, 2.0f}, b{3.0f, 4.0f};
    const tk::bf16_2 s = a + b;
    CHECK(static_cast<float>(s.x) == 4.0f);
    CHECK(static_cast<float>(s.y) == 6.0f);
    const tk::bf16_2 m = a * b;
    CHECK(static_cast<float>(m.x) == 3.0f);
    CHECK(static_cast<float>(m.y) == 8.0f);
    tk::half_2 hh{1.0f, 2.0f};
    hh -= tk::half_2{0.5f, 4.0f};
    CHECK(static_cast<float>(hh.x) == 0.5f);
    CHECK(static_cast<float>(hh.y) == -2.0f);
    CHECK((-hh).x.bits == 0xB800);
    CHECK(a == a);
    CHECK(a < b);
    CHECK_FALSE(a < tk::bf16_2{3.0f, 1.0f});
    CHECK_FALSE(a != tk::bf16_2{1.0f, 5.0f});  // only one lane differs
    CHECK(a != b);

    const tk::float2 f2{1.5f, 2.5f};
    CHECK(f2.x == 1.5f);
    CHECK(f2.y == 2.5f);
}

TEST_CASE("dtypes: from_float / to_float helpers", "[dtypes]") {
    CHECK(tk::from_float<float>(1.25f) == 1.25f);
    CHECK(tk::to_float(1.25f) == 1.25f);
    CHECK(tk::from_float<tk::bf16>(1.0f).bits == 0x3F80);
    CHECK(tk::from_float<tk::half>(1.0f).bits == 0x3C00);
    CHECK(tk::to_float(tk::from_float<tk::half>(0.1f)) == static_cast<float>(ref_half().decode(ref_half().round(0.1f))));
    CHECK(tk::to_float(tk::from_float<tk::bf16>(0.1f)) == static_cast<float>(ref_bf16().decode(ref_bf16().round(0.1f))));
}

#endif  // !defined(__CUDACC__)
