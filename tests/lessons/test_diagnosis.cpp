// The lesson framework's diagnosis (lessons/framework/diagnosis.h) and hint
// order (hints.h), on data with known answers: the output's pattern read off
// seeded random matrices, the first matching mistake chosen, and a diagnosed
// mistake's hint served before the general ones.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "lessons/framework/diagnosis.h"
#include "lessons/framework/hints.h"

using namespace tklab::lessons;

namespace {

std::vector<double> random_matrix(int rows, int cols, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-4, 4);
    std::vector<double> m(size_t(rows) * size_t(cols));
    for (double& x : m) x = u(rng);
    return m;
}

std::vector<float> as_float(const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); }

} // namespace

TEST_CASE("diagnosis: the output's pattern is read off the wrong elements", "[lessons][diagnosis]") {
    const int rows = 24, cols = 24;
    const auto want = random_matrix(rows, cols, 11);

    SECTION("a constant factor on every element") {
        auto got = as_float(want);
        for (float& g : got) g *= 2;
        Symptom s;
        describe_output(s, got, want, 1e-3, rows, cols);
        CHECK(s.wrong > size_t(rows * cols) * 9 / 10);  // the ones near 0 pass either way
        REQUIRE(s.scale.has_value());
        CHECK(*s.scale == Approx(2.0).epsilon(1e-6));
        CHECK_FALSE(s.transposed);
        CHECK(s.nan == 0);
    }
    SECTION("the transpose") {
        std::vector<float> got(want.size());
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < cols; ++c) got[size_t(r) * cols + c] = float(want[size_t(c) * cols + r]);
        Symptom s;
        describe_output(s, got, want, 1e-3, rows, cols);
        CHECK(s.transposed);
        CHECK_FALSE(s.scale.has_value());
        CHECK(s.wrong_rows == rows);
    }
    SECTION("rows left unstored: NaN in those rows only") {
        auto got = as_float(want);
        for (int r = 16; r < rows; ++r)
            for (int c = 0; c < cols; ++c) got[size_t(r) * cols + c] = NAN;
        Symptom s;
        describe_output(s, got, want, 1e-3, rows, cols);
        CHECK(s.wrong == size_t(8 * cols));
        CHECK(s.nan == s.wrong);
        CHECK(s.wrong_rows == 8);
        CHECK(s.wrong_cols == cols);
        CHECK_FALSE(s.all_nan());
        CHECK(s.wrong_share() == Approx(8.0 / 24));
    }
    SECTION("a correct output has nothing wrong") {
        Symptom s;
        describe_output(s, as_float(want), want, 1e-3, rows, cols);
        CHECK(s.wrong == 0);
        CHECK_FALSE(s.scale.has_value());
        CHECK_FALSE(s.transposed);
    }
}

TEST_CASE("diagnosis: the first mistake that fits is named, else the framework's own", "[lessons][diagnosis]") {
    const std::vector<Mistake> mistakes = {
        {"doubled", [](const Symptom& s) { return s.scale && std::abs(*s.scale - 2) < 0.01; }, "added twice"},
        {"any_wrong", [](const Symptom& s) { return s.part == "correctness" && !s.all_nan(); }, "something else"},
        {"deadlock_at_wait", [](const Symptom& s) { return s.error == tklab::sim::ErrorKind::deadlock && s.line_has("wait("); },
         "waits forever"},
    };
    const auto want = random_matrix(16, 16, 5);
    auto doubled = as_float(want);
    for (float& g : doubled) g *= 2;
    Symptom s;
    s.part = "correctness";
    describe_output(s, doubled, want, 1e-3, 16, 16);
    REQUIRE(diagnose(mistakes, s) != nullptr);
    CHECK(diagnose(mistakes, s)->name == "doubled");

    auto off = as_float(want);
    off[3] += 1;
    Symptom t;
    t.part = "correctness";
    describe_output(t, off, want, 1e-3, 16, 16);
    REQUIRE(diagnose(mistakes, t) != nullptr);
    CHECK(diagnose(mistakes, t)->name == "any_wrong");

    std::vector<float> nothing(want.size(), NAN);
    Symptom u;
    u.part = "correctness";
    describe_output(u, nothing, want, 1e-3, 16, 16);
    CHECK(u.all_nan());
    REQUIRE(diagnose(mistakes, u) != nullptr);
    CHECK(diagnose(mistakes, u)->name == "nothing_stored");

    Symptom d;
    d.part = "error";
    d.error = tklab::sim::ErrorKind::deadlock;
    d.code = "tk::wait(st.full, phase);";
    REQUIRE(diagnose(mistakes, d) != nullptr);
    CHECK(diagnose(mistakes, d)->name == "deadlock_at_wait");
    d.code = "__syncthreads();";
    CHECK(diagnose(mistakes, d) == nullptr);
}

TEST_CASE("diagnosis: a line's source text is read for matchers", "[lessons][diagnosis]") {
    // This file, from the project root: the line below holds the marker.
    const int line = __LINE__ + 1;
    const char* marker = "diagnosis-source-line-marker";
    (void)marker;
    CHECK(source_line(__FILE__, line) == "const char* marker = \"diagnosis-source-line-marker\";");
    CHECK(source_line(__FILE__, 0).empty());
    CHECK(source_line("no/such/file.cuh", 3).empty());
}

TEST_CASE("hints: tagged sections belong to a mistake and come first when it is diagnosed", "[lessons][diagnosis]") {
    const std::string text =
        "First general hint.\n"
        "---\n"
        "<!-- mistake: parity -->\n"
        "The parity hint.\n"
        "---\n"
        "\n"
        "Second general hint.\n"
        "---\n"
        "<!-- mistake: no_wait, wait_all -->\n"
        "A hint for two mistakes.\n";
    const Hints h = parse_hints(text);
    REQUIRE(h.general.size() == 2);
    CHECK(h.general[0] == "First general hint.\n");
    CHECK(h.general[1] == "Second general hint.\n");
    REQUIRE(h.for_mistake.size() == 3);
    CHECK(h.for_mistake.at("parity") == "The parity hint.\n");
    CHECK(h.for_mistake.at("no_wait") == "A hint for two mistakes.\n");
    CHECK(h.for_mistake.at("wait_all") == "A hint for two mistakes.\n");

    // No diagnosis: the general hints in order, then nothing.
    auto n = next_hint(h, 0, "", {});
    REQUIRE(n);
    CHECK(n->general == 0);
    CHECK(n->mistake.empty());
    CHECK(next_hint(h, 1, "", {})->general == 1);
    CHECK_FALSE(next_hint(h, 2, "", {}).has_value());
    // A diagnosed mistake: its hint first, whatever the general count, once.
    n = next_hint(h, 2, "parity", {});
    REQUIRE(n);
    CHECK(n->mistake == "parity");
    CHECK(n->text == "The parity hint.\n");
    CHECK_FALSE(next_hint(h, 2, "parity", {"parity"}).has_value());
    CHECK(next_hint(h, 1, "parity", {"parity"})->general == 1);
    // A mistake without a hint of its own: the general order.
    CHECK(next_hint(h, 0, "nothing_stored", {})->general == 0);
}

TEST_CASE("diagnosis: element and row predicates over the wrong elements only", "[lessons][diagnosis]") {
    const int rows = 32, cols = 8;
    const auto want = random_matrix(rows, cols, 23);

    SECTION("bands of rows never stored") {
        auto got = as_float(want);
        for (int r = 16; r < 32; ++r)
            for (int c = 0; c < cols; ++c) got[size_t(r) * cols + c] = NAN;
        Symptom s;
        s.part = "correctness";
        describe_output(s, got, want, 1e-3, rows, cols);
        CHECK(s.whole_row_bands_unstored(16));
        CHECK_FALSE(s.whole_row_bands_unstored(32));  // half a band is not a band
        got[0] = NAN;                                 // and a NaN in a stored band breaks the pattern
        Symptom t;
        t.part = "correctness";
        describe_output(t, got, want, 1e-3, rows, cols);
        CHECK_FALSE(t.whole_row_bands_unstored(16));
    }
    SECTION("every wrong element off by the same offset, rows whole") {
        auto got = as_float(want);
        for (size_t k = size_t(8) * cols; k < size_t(16) * cols; ++k) got[k] += 3;
        Symptom s;
        s.part = "correctness";
        describe_output(s, got, want, 1e-3, rows, cols);
        CHECK(s.every_wrong_element([&s](int r, int, double g, double w) { return r >= 8 && r < 16 && s.within_tolerance(g - 3, w); }));
        CHECK_FALSE(s.every_wrong_element([&s](int, int, double g, double w) { return s.within_tolerance(g - 2, w); }));
        CHECK(s.every_wrong_row([](const float* g, const double* w, size_t n) {
            for (size_t c = 0; c < n; ++c)
                if (std::abs(g[c] - w[c] - 3) > 1e-3 * std::max(std::abs(w[c]), 1.0)) return false;
            return true;
        }));
        CHECK_FALSE(s.all_bf16_values());  // random doubles rounded to float keep their low bits
    }
    SECTION("values rounded through bf16") {
        auto got = as_float(want);
        for (float& g : got) g = std::bit_cast<float>(std::bit_cast<uint32_t>(g) & 0xffff0000u);
        Symptom s;
        s.part = "correctness";
        describe_output(s, got, want, 1e-6, rows, cols);
        CHECK(s.all_bf16_values());
        CHECK(s.every_wrong_element([](int, int, double g, double w) { return std::abs(g - w) <= std::abs(w) / 128; }));
    }
    SECTION("nothing to judge when the output is not what failed") {
        Symptom s;
        s.part = "goal";
        CHECK_FALSE(s.every_wrong_element([](int, int, double, double) { return true; }));
        CHECK_FALSE(s.whole_row_bands_unstored(4));
    }
}
