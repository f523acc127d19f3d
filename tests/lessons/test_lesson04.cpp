// Lesson 4's check, checked: the solution (the swizzle) and the padded tile
// pass, the exercise as shipped fails, and every known-wrong kernel in
// lessons/04_bank_conflicts/wrong/ fails with the message its first line
// ("// expect: TEXT") promises. Also: the two fixes' tile indexings put every
// row and every column of the tile in 32 different banks.
#include <catch2/catch.hpp>

#include "support/known_wrong.h"

#include <iterator>
#include <set>
#include <string>

#include "lessons/04_bank_conflicts/lesson.cuh"
#include "lessons/04_bank_conflicts/exercise.cuh"
#include "lessons/04_bank_conflicts/solution.cuh"
#include "lessons/04_bank_conflicts/padded.cuh"
#include "lessons/04_bank_conflicts/wrong/conflicts.cuh"
#include "lessons/04_bank_conflicts/wrong/empty.cuh"
#include "lessons/04_bank_conflicts/wrong/half_padded.cuh"
#include "lessons/04_bank_conflicts/wrong/same_tile.cuh"
#include "lessons/04_bank_conflicts/wrong/swizzle_8.cuh"

namespace {

// lesson 4's check on one kernel, as `tklab lesson check 4` would run it.
tklab::lessons::CheckResult check_kernel(lesson04::kernel_fn kernel) {
    const tk::host::program p = tk::host::make_program(lesson04::program_def({{"under_test", kernel}}));
    return tklab::lessons::check(lesson04::lesson(), p, "under_test");
}

using KnownWrong = lesson_tests::KnownWrong<lesson04::kernel_fn>;

const KnownWrong known_wrong[] = {
    {"wrong/empty.cuh", lesson04::wrong_empty::kernel, "correctness",
     "1024 of 1024 elements differ from the CPU reference (largest error inf", "nothing_stored"},
    {"wrong/half_padded.cuh", lesson04::wrong_half_padded::kernel, "error",
     "half_padded.cuh:25: error: read of shared memory nothing wrote", "layouts_differ"},
    {"wrong/same_tile.cuh", lesson04::wrong_same_tile::kernel, "correctness",
     "correctness: wrong at M=32 N=96: 3040 of 3072 elements differ", "tiles_not_mirrored"},
    {"wrong/conflicts.cuh", lesson04::wrong_conflicts::kernel, "goal",
     "ld.shared: 24576 wavefronts where 768 would do (worst 32-way)", "tile_unpadded"},
    {"wrong/swizzle_8.cuh", lesson04::wrong_swizzle_8::kernel, "goal",
     "ld.shared: 3072 wavefronts where 768 would do (worst 4-way)", "column_banks_repeat"},
};

// The banks of the 32 words a warp touches when lane l takes tile element
// (row(l), col(l)), with at() giving the word's index.
template <typename At, typename RowCol>
std::set<int> banks(At at, RowCol rc) {
    std::set<int> b;
    for (int lane = 0; lane < 32; ++lane) {
        const auto [r, c] = rc(lane);
        b.insert(at(r, c) % 32);
    }
    return b;
}

} // namespace

TEST_CASE("lesson 4: the swizzle and the padding spread every row and column over 32 banks", "[lessons][lesson04]") {
    for (int i = 0; i < 32; ++i) {
        const auto row = [i](int lane) { return std::pair{i, lane}; };
        const auto col = [i](int lane) { return std::pair{lane, i}; };
        CHECK(banks(lesson04::solution::at, row).size() == 32);
        CHECK(banks(lesson04::solution::at, col).size() == 32);
        CHECK(banks(lesson04::padded::at, row).size() == 32);
        CHECK(banks(lesson04::padded::at, col).size() == 32);
        CHECK(banks(lesson04::wrong_conflicts::at, row).size() == 32);
        CHECK(banks(lesson04::wrong_conflicts::at, col).size() == 1);  // the 32-way conflict
        CHECK(banks(lesson04::wrong_swizzle_8::at, col).size() == 8);  // 4-way
    }
    // The swizzle is a permutation of each row: the tile still fits in 32 x 32 floats.
    for (int r = 0; r < 32; ++r) {
        std::set<int> words;
        for (int c = 0; c < 32; ++c) words.insert(lesson04::solution::at(r, c));
        CHECK(words.size() == 32);
        CHECK(*words.begin() == r * 32);
        CHECK(*words.rbegin() == r * 32 + 31);
    }
}

TEST_CASE("lesson 4: the solution passes the check, goal included", "[lessons][lesson04]") {
    const auto res = check_kernel(lesson04::solution::kernel);
    INFO(res.report);
    CHECK(res.passed);
    CHECK(res.report.find("correct at M=96 N=64") != std::string::npos);
    CHECK(res.report.find("goal met: no bank conflicts") != std::string::npos);
}

TEST_CASE("lesson 4: the padded tile passes the check too", "[lessons][lesson04]") {
    const auto res = check_kernel(lesson04::padded::kernel);
    INFO(res.report);
    CHECK(res.passed);
}

TEST_CASE("lesson 4: the exercise as shipped fails the check", "[lessons][lesson04]") {
    const auto res = check_kernel(lesson04::exercise::kernel);
    INFO(res.report);
    CHECK_FALSE(res.passed);
    CHECK(res.part == "goal");  // right, and 32-way conflicted
    CHECK(res.report.find("correct at M=128 N=192") != std::string::npos);
    CHECK(res.report.find("ld.shared: 24576 wavefronts where 768 would do (worst 32-way)") != std::string::npos);
    // The message names the worst line, from the project folder, and no placeholder.
    CHECK(res.report.find("The worst: lessons/04_bank_conflicts/exercise.cuh:") != std::string::npos);
    CHECK(res.report.find("32-way ld.shared") != std::string::npos);
    CHECK(res.report.find("lesson run N") == std::string::npos);
    // The unpadded tile: that is what the check says is likely.
    CHECK(res.mistake == "tile_unpadded");
}

TEST_CASE("lesson 4: every known-wrong kernel fails with its message", "[lessons][lesson04]") {
    lesson_tests::check_known_wrong("lessons/04_bank_conflicts", known_wrong, check_kernel);
}

TEST_CASE("lesson 4: every known mistake has its hint and a kernel that shows it", "[lessons][lesson04]") {
    lesson_tests::check_mistakes("lessons/04_bank_conflicts", lesson04::mistakes(), known_wrong);
}

TEST_CASE("lesson 4: the known-wrong list covers lessons/04_bank_conflicts/wrong/", "[lessons][lesson04]") {
    lesson_tests::check_list_covers_wrong_folder("lessons/04_bank_conflicts", known_wrong);
}
