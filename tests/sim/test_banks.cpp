// Tests for the shared-memory bank-conflict model (sim/banks.h).
#include <catch2/catch.hpp>

#include "sim/banks.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <set>

using tklab::sim::analyze_access;
using tklab::sim::analyze_matrix;
using tklab::sim::BankAnalysis;

namespace {

constexpr uint32_t kAll = 0xFFFFFFFFu;

using Addrs = std::array<uint32_t, 32>;

template <class F>
Addrs make(F f) {
    Addrs a{};
    for (uint32_t l = 0; l < 32; ++l) a[l] = f(l);
    return a;
}

void check(const BankAnalysis& r, int wavefronts, int ideal, int max_way) {
    CHECK(r.wavefronts == wavefronts);
    CHECK(r.ideal == ideal);
    CHECK(r.conflicts() == wavefronts - ideal);
    CHECK(r.max_way == max_way);
}

// 128-byte XOR swizzle: row r of a tile whose rows are 128 bytes (8 chunks of 16 bytes).
uint32_t swz128(uint32_t row, uint32_t chunk) { return row * 128 + ((chunk ^ (row % 8)) * 16); }

}  // namespace

TEST_CASE("banks: worked examples from the design", "[banks]") {
    SECTION("32-bit, lane l at word 64*l") {
        // every lane hits bank 0 with a different word -> 32-way
        const Addrs a = make([](uint32_t l) { return 4 * 64 * l; });
        const auto r = analyze_access(kAll, a.data(), 4);
        check(r, 32, 1, 32);
        CHECK(r.conflicts() == 31);
    }
    SECTION("32-bit, stride 17 words") {
        // 17 is odd so 17*l mod 32 is a permutation of the banks
        const Addrs a = make([](uint32_t l) { return 4 * 17 * l; });
        check(analyze_access(kAll, a.data(), 4), 1, 1, 1);
    }
    SECTION("ldmatrix.x2, rows 256 bytes apart") {
        // 256 B = 64 words = 0 mod 32: all 8 rows of a matrix sit in banks 0-3 -> 8-way per phase
        const Addrs a = make([](uint32_t l) { return 256 * l; });
        const auto r = analyze_matrix(kAll, a.data(), 2);
        check(r, 16, 2, 8);
        CHECK(r.conflicts() == 14);
    }
}

TEST_CASE("banks: 64-bit accesses", "[banks]") {
    SECTION("consecutive") {
        // each half-warp covers 128 bytes = words 0..31 once -> 1 per phase
        const Addrs a = make([](uint32_t l) { return 8 * l; });
        check(analyze_access(kAll, a.data(), 8), 2, 2, 1);
    }
    SECTION("stride 16 bytes conflicts within a half") {
        // lane l -> words 4l, 4l+1; lanes l and l+8 of a half share banks -> 2-way, 2 halves
        const Addrs a = make([](uint32_t l) { return 16 * l; });
        check(analyze_access(kAll, a.data(), 8), 4, 2, 2);
    }
    SECTION("lane l and l+16 on the same banks is across phases") {
        // the two halves are 2 KiB apart: every bank gets 2 distinct words over the warp,
        // but one in each phase -> no conflict
        const Addrs a = make([](uint32_t l) { return 8 * (l % 16) + 2048 * (l / 16); });
        const auto r = analyze_access(kAll, a.data(), 8);
        check(r, 2, 2, 1);
        for (int b = 0; b < 32; ++b) CHECK(r.bank_words[b] == 2);
    }
    SECTION("only the upper half active") {
        // the empty half costs nothing and is not part of ideal
        const Addrs a = make([](uint32_t l) { return 8 * l; });
        check(analyze_access(0xFFFF0000u, a.data(), 8), 1, 1, 1);
    }
}

TEST_CASE("banks: 128-bit accesses", "[banks]") {
    SECTION("consecutive") {
        // each quarter of 8 lanes covers 128 bytes -> 1 per phase, 4 phases; lanes 0 and 8
        // share banks 0-3 but are in different phases
        const Addrs a = make([](uint32_t l) { return 16 * l; });
        const auto r = analyze_access(kAll, a.data(), 16);
        check(r, 4, 4, 1);
        for (int b = 0; b < 32; ++b) CHECK(r.bank_words[b] == 4);
    }
    SECTION("stride 32 bytes conflicts within a quarter") {
        // lane l -> banks 8l..8l+3 mod 32; lanes l and l+4 of a quarter collide -> 2-way
        const Addrs a = make([](uint32_t l) { return 32 * l; });
        check(analyze_access(kAll, a.data(), 16), 8, 4, 2);
    }
    SECTION("stride 128 bytes is 8-way") {
        // all 8 lanes of a quarter in banks 0-3 -> 8 per phase
        const Addrs a = make([](uint32_t l) { return 128 * l; });
        const auto r = analyze_access(kAll, a.data(), 16);
        check(r, 32, 4, 8);
        CHECK(r.conflicts() == 28);
    }
    SECTION("all lanes on the same 16 bytes") {
        // broadcast within each quarter, but each quarter is still its own wavefront
        const Addrs a = make([](uint32_t) { return 64u; });
        check(analyze_access(kAll, a.data(), 16), 4, 4, 1);
    }
}

TEST_CASE("banks: broadcasts and sub-word accesses", "[banks]") {
    SECTION("all lanes read the same word") {
        const Addrs a = make([](uint32_t) { return 100u; });
        const auto r = analyze_access(kAll, a.data(), 4);
        check(r, 1, 1, 1);
        CHECK(r.bank_words[25] == 1);  // 100/4 = word 25
    }
    SECTION("pairs of lanes share consecutive words") {
        // lanes 2k, 2k+1 -> word k: 16 distinct words in 16 banks
        const Addrs a = make([](uint32_t l) { return 4 * (l / 2); });
        check(analyze_access(kAll, a.data(), 4), 1, 1, 1);
    }
    SECTION("pairs of lanes share words that all sit in bank 0") {
        // lanes 2k, 2k+1 -> word 32k: 16 distinct words in bank 0 -> 16-way, not 32
        const Addrs a = make([](uint32_t l) { return 128 * (l / 2); });
        const auto r = analyze_access(kAll, a.data(), 4);
        check(r, 16, 1, 16);
        CHECK(r.bank_words[0] == 16);
        for (int b = 1; b < 32; ++b) CHECK(r.bank_words[b] == 0);
    }
    SECTION("consecutive bytes") {
        // 32 bytes = words 0..7, one each
        const Addrs a = make([](uint32_t l) { return l; });
        check(analyze_access(kAll, a.data(), 1), 1, 1, 1);
    }
    SECTION("bytes: four lanes per word, words 128 bytes apart") {
        // lanes 4k..4k+3 share word 32k (sub-word broadcast): 8 distinct words in bank 0
        const Addrs a = make([](uint32_t l) { return 128 * (l / 4) + l % 4; });
        check(analyze_access(kAll, a.data(), 1), 8, 1, 8);
    }
    SECTION("16-bit, stride 128 bytes") {
        // 32 distinct words all in bank 0
        const Addrs a = make([](uint32_t l) { return 128 * l; });
        check(analyze_access(kAll, a.data(), 2), 32, 1, 32);
    }
}

TEST_CASE("banks: inactive lanes", "[banks]") {
    const Addrs a = make([](uint32_t l) { return 4 * 64 * l; });
    SECTION("even lanes only, stride 64 words") {
        // 16 active lanes, all bank 0, all distinct -> 16-way
        check(analyze_access(0x55555555u, a.data(), 4), 16, 1, 16);
    }
    SECTION("single lane") {
        check(analyze_access(1u << 7, a.data(), 4), 1, 1, 1);
    }
    SECTION("no lane") {
        const auto r = analyze_access(0, a.data(), 4);
        check(r, 0, 0, 0);
        for (int b = 0; b < 32; ++b) CHECK(r.bank_words[b] == 0);
        check(analyze_matrix(0, a.data(), 4), 0, 0, 0);
    }
    SECTION("128-bit, only lanes 0 and 9 active") {
        // different quarters -> 2 wavefronts, ideal 2 (the two empty quarters are free)
        check(analyze_access(0x201u, a.data(), 16), 2, 2, 1);
    }
}

TEST_CASE("banks: stores use the same function", "[banks]") {
    // st.shared.f32 writing column c of a row-major float tile
    SECTION("32x32 tile: column store is 32-way") {
        const Addrs a = make([](uint32_t l) { return 4 * (32 * l + 5); });
        check(analyze_access(kAll, a.data(), 4), 32, 1, 32);
    }
    SECTION("32x33 padded tile: column store is conflict-free") {
        const Addrs a = make([](uint32_t l) { return 4 * (33 * l + 5); });
        check(analyze_access(kAll, a.data(), 4), 1, 1, 1);
    }
    SECTION("st.shared.v4, one 16 B chunk per row of a 32-byte-wide tile") {
        // lane l writes row l (32 B per row): banks 8l..8l+3, lanes l and l+4 of a quarter collide -> 2-way
        const Addrs a = make([](uint32_t l) { return 32 * l; });
        check(analyze_access(kAll, a.data(), 16), 8, 4, 2);
    }
}

TEST_CASE("banks: ldmatrix / stmatrix", "[banks]") {
    SECTION("rows 16 bytes apart are conflict-free") {
        // the 8 rows of each matrix are 128 contiguous bytes
        const Addrs a = make([](uint32_t l) { return 16 * l; });
        check(analyze_matrix(kAll, a.data(), 1), 1, 1, 1);
        check(analyze_matrix(kAll, a.data(), 2), 2, 2, 1);
        check(analyze_matrix(kAll, a.data(), 4), 4, 4, 1);
    }
    SECTION("rows 128 bytes apart are 8-way") {
        // 128 B = 32 words: every row lands in banks 0-3
        const Addrs a = make([](uint32_t l) { return 128 * l; });
        check(analyze_matrix(kAll, a.data(), 1), 8, 1, 8);
        const auto r = analyze_matrix(kAll, a.data(), 4);
        check(r, 32, 4, 8);
        CHECK(r.conflicts() == 28);
        // histogram: 32 rows x 1 word in each of banks 0-3, nothing elsewhere
        for (int b = 0; b < 4; ++b) CHECK(r.bank_words[b] == 32);
        for (int b = 4; b < 32; ++b) CHECK(r.bank_words[b] == 0);
    }
    SECTION("rows 64 bytes apart are 4-way") {
        // 64 B = 16 words: even rows in banks 0-3, odd rows in banks 16-19 -> 4 per bank
        const Addrs a = make([](uint32_t l) { return 64 * l; });
        check(analyze_matrix(kAll, a.data(), 4), 16, 4, 4);
        check(analyze_matrix(kAll, a.data(), 2), 8, 2, 4);
    }
    SECTION("x1 and x2 ignore the addresses of lanes that supply none") {
        // lanes >= 8*nmat hold a conflicting pattern that must not count
        const Addrs a = make([](uint32_t l) { return l < 16 ? 16 * l : 128 * l; });
        check(analyze_matrix(kAll, a.data(), 1), 1, 1, 1);
        check(analyze_matrix(kAll, a.data(), 2), 2, 2, 1);
        // x4 does use lanes 16-31: rows 128 B apart -> 8-way there: 1 + 1 + 8 + 8
        check(analyze_matrix(kAll, a.data(), 4), 18, 4, 8);
    }
    SECTION("inactive lanes in ldmatrix") {
        // x4 with only matrix 0's lanes active: one phase
        const Addrs a = make([](uint32_t l) { return 16 * l; });
        check(analyze_matrix(0xFFu, a.data(), 4), 1, 1, 1);
    }
    SECTION("16x16 bf16 fragment from a 128-byte-wide tile: plain vs XOR swizzle") {
        // lane l: row l%16, chunk c + l/16 (matrices: rows 0-7/8-15 x chunks c/c+1).
        for (uint32_t c = 0; c < 7; ++c) {
            // unswizzled: 8 rows of a matrix share one 16 B column -> 4 banks, 8-way
            const Addrs plain = make([c](uint32_t l) { return (l % 16) * 128 + (c + l / 16) * 16; });
            check(analyze_matrix(kAll, plain.data(), 4), 32, 4, 8);
            // swizzled: chunk ^ (row%8) is a permutation over 8 rows -> 8 distinct 16 B columns
            const Addrs sw = make([c](uint32_t l) { return swz128(l % 16, c + l / 16); });
            const auto r = analyze_matrix(kAll, sw.data(), 4);
            check(r, 4, 4, 1);
            for (int b = 0; b < 32; ++b) CHECK(r.bank_words[b] == 4);
        }
    }
}

TEST_CASE("banks: unsupported shapes give an empty analysis", "[banks]") {
    const Addrs a{};
    check(analyze_access(kAll, a.data(), 3), 0, 0, 0);
    check(analyze_access(kAll, a.data(), 32), 0, 0, 0);
    check(analyze_matrix(kAll, a.data(), 3), 0, 0, 0);
}

TEST_CASE("banks: random addresses match a brute-force recount", "[banks][property]") {
    std::mt19937 rng(20240611u);
    for (int iter = 0; iter < 600; ++iter) {
        // shape: 0-4 plain access of 1/2/4/8/16 bytes, 5-7 ldmatrix x1/x2/x4
        const int shape = int(rng() % 8);
        const bool matrix = shape >= 5;
        const int bytes = matrix ? 16 : (1 << shape);
        const int nmat = matrix ? (1 << (shape - 5)) : 0;
        // masks: full, random, or sparse
        uint32_t mask = kAll;
        switch (rng() % 3) {
            case 1: mask = rng(); break;
            case 2: mask = rng() & rng() & rng(); break;
        }
        // naturally aligned addresses in a small window so that conflicts and broadcasts happen
        const uint32_t window = 256u << (rng() % 6);  // 256 B .. 8 KiB
        Addrs a{};
        for (auto& x : a) x = (rng() % window) / uint32_t(bytes) * uint32_t(bytes);

        const BankAnalysis r = matrix ? analyze_matrix(mask, a.data(), nmat)
                                      : analyze_access(mask, a.data(), bytes);

        // Reference: assign each lane to its phase, collect distinct words per (phase, bank).
        const int words = bytes < 4 ? 1 : bytes / 4;
        const int lanes_per_phase = matrix ? 8 : 32 / words;
        const int used_lanes = matrix ? 8 * nmat : 32;
        std::set<uint32_t> per[4][32];
        bool phase_active[4] = {};
        for (int l = 0; l < used_lanes; ++l) {
            if (!((mask >> l) & 1u)) continue;
            const int p = l / lanes_per_phase;
            phase_active[p] = true;
            for (int k = 0; k < words; ++k) {
                const uint32_t w = a[size_t(l)] / 4 + uint32_t(k);
                per[p][w % 32].insert(w);
            }
        }
        int wf = 0, ideal = 0, max_way = 0;
        int hist[32] = {};
        for (int p = 0; p < 4; ++p) {
            if (!phase_active[p]) continue;
            ++ideal;
            size_t worst = 0;
            for (int b = 0; b < 32; ++b) {
                worst = std::max(worst, per[p][b].size());
                hist[b] += int(per[p][b].size());
            }
            wf += int(worst);
            max_way = std::max(max_way, int(worst));
        }

        INFO("iter " << iter << " shape " << shape << " mask " << mask);
        REQUIRE(r.wavefronts == wf);
        REQUIRE(r.ideal == ideal);
        REQUIRE(r.max_way == max_way);
        for (int b = 0; b < 32; ++b) REQUIRE(r.bank_words[b] == hist[b]);

        // Never below ideal. Upper bound: a lane's 1-4 consecutive words fall in distinct
        // banks, so a bank gets at most one word per lane of the phase; a phase has
        // lanes_per_phase lanes (32, 16, 8, or 8 for ldmatrix), so wavefronts <= that * ideal.
        REQUIRE(r.wavefronts >= r.ideal);
        REQUIRE(int(r.wavefronts) <= lanes_per_phase * int(r.ideal));
        REQUIRE(int(r.max_way) <= lanes_per_phase);
        REQUIRE((r.ideal == 0) == (r.wavefronts == 0));
    }
}
