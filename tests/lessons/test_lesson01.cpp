// Lesson 1's check, checked: the solution passes, the exercise as shipped
// fails, and every known-wrong kernel in lessons/01_tiles/wrong/ fails with
// the message its first line ("// expect: TEXT") promises. Also: the CPU
// reference's lane formula is the register tile's fragment layout.
#include <catch2/catch.hpp>

#include "support/known_wrong.h"

#include <iterator>
#include <string>

#include "lessons/01_tiles/lesson.cuh"
#include "lessons/01_tiles/exercise.cuh"
#include "lessons/01_tiles/solution.cuh"
#include "lessons/01_tiles/wrong/bf16_sum.cuh"
#include "lessons/01_tiles/wrong/empty.cuh"
#include "lessons/01_tiles/wrong/no_guard.cuh"
#include "lessons/01_tiles/wrong/register_hungry.cuh"
#include "lessons/01_tiles/wrong/thread_id.cuh"
#include "lessons/01_tiles/wrong/wrong_index.cuh"
#include "visualizer/model/fragment_layout.h"

namespace {

// lesson 1's check on one kernel, as `tklab lesson check 1` would run it.
tklab::lessons::CheckResult check_kernel(lesson01::kernel_fn kernel) {
    const tk::host::program p = tk::host::make_program(lesson01::program_def({{"under_test", kernel}}));
    return tklab::lessons::check(lesson01::lesson(), p, "under_test");
}

using KnownWrong = lesson_tests::KnownWrong<lesson01::kernel_fn>;

const KnownWrong known_wrong[] = {
    {"wrong/empty.cuh", lesson01::wrong_empty::kernel, "correctness",
     "1024 of 1024 elements differ from the CPU reference (largest error inf", "nothing_stored"},
    {"wrong/wrong_index.cuh", lesson01::wrong_wrong_index::kernel, "correctness",
     "2048 of 3072 elements differ from the CPU reference (largest error inf", "strip_index"},
    {"wrong/thread_id.cuh", lesson01::wrong_thread_id::kernel, "correctness",
     "2048 of 3072 elements differ from the CPU reference (largest error 64,", "thread_not_lane"},
    {"wrong/no_guard.cuh", lesson01::wrong_no_guard::kernel, "error", "tile coordinate is outside the global tensor",
     "no_idle_guard"},
    {"wrong/bf16_sum.cuh", lesson01::wrong_bf16_sum::kernel, "correctness", "correctness: wrong at C=64 R=16", "sum_in_bf16"},
    {"wrong/register_hungry.cuh", lesson01::wrong_register_hungry::kernel, "goal",
     "80 registers per thread live at the peak", "extra_tiles"},
};

} // namespace

TEST_CASE("lesson 1: the reference's lane is the register tile's fragment layout", "[lessons][lesson01]") {
    using base = tk::rt_base<float, tk::row_l>;
    for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < 4; ++i)
            for (int h = 0; h < 2; ++h) {
                const int r = base::row_of(lane, i, h), c = base::col_of(lane, i, h);
                CHECK(lesson01::lane_of(r, c) == lane);
                CHECK(lesson01::lane_of(r + 16, c + 48) == lane);  // every 16x16 sub-tile alike
                CHECK(tklab::view::fragment_slot(r, c).lane == lane);
            }
}

TEST_CASE("lesson 1: the solution passes the check, goal included", "[lessons][lesson01]") {
    const auto res = check_kernel(lesson01::solution::kernel);
    INFO(res.report);
    CHECK(res.passed);
    CHECK(res.report.find("correct at C=64 R=80") != std::string::npos);
    CHECK(res.report.find("goal met: at most 64 live tile registers per thread") != std::string::npos);
}

TEST_CASE("lesson 1: the exercise as shipped fails the check", "[lessons][lesson01]") {
    const auto res = check_kernel(lesson01::exercise::kernel);
    INFO(res.report);
    CHECK_FALSE(res.passed);
    CHECK(res.part == "correctness");
    CHECK(res.report.find("(0, 2): yours") != std::string::npos);  // lane 1's first element: the lane was not added
    // At R = 16 only HOLE 3 matters: OUT is X, the lane never added.
    CHECK(res.mistake == "lane_not_added");
}

TEST_CASE("lesson 1: every known-wrong kernel fails with its message", "[lessons][lesson01]") {
    lesson_tests::check_known_wrong("lessons/01_tiles", known_wrong, check_kernel);
}

TEST_CASE("lesson 1: every known mistake has its hint and a kernel that shows it", "[lessons][lesson01]") {
    lesson_tests::check_mistakes("lessons/01_tiles", lesson01::mistakes(), known_wrong, {"lane_not_added"});
}

TEST_CASE("lesson 1: the known-wrong list covers lessons/01_tiles/wrong/", "[lessons][lesson01]") {
    lesson_tests::check_list_covers_wrong_folder("lessons/01_tiles", known_wrong);
}
