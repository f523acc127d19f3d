// Lesson 10's check, checked: the solution passes, the exercise as shipped
// fails, and every known-wrong kernel in lessons/10_hopper/wrong/ fails with
// the message its first line ("// expect: TEXT") promises.
#include <catch2/catch.hpp>

#include "support/known_wrong.h"

#include <string>

#include "lessons/10_hopper/lesson.cuh"
#include "lessons/10_hopper/exercise.cuh"
#include "lessons/10_hopper/solution.cuh"
#include "lessons/10_hopper/wrong/empty.cuh"
#include "lessons/10_hopper/wrong/no_bytes.cuh"
#include "lessons/10_hopper/wrong/one_stage.cuh"
#include "lessons/10_hopper/wrong/wrong_parity.cuh"

namespace {

// lesson 10's check on one kernel, as `tklab lesson check 10` would run it.
tklab::lessons::CheckResult check_kernel(lesson10::kernel_fn kernel) {
    const tk::host::program p = tk::host::make_program(lesson10::program_def({{"under_test", kernel}}));
    return tklab::lessons::check(lesson10::lesson(), p, "under_test");
}

using KnownWrong = lesson_tests::KnownWrong<lesson10::kernel_fn>;

const KnownWrong known_wrong[] = {
    {"wrong/empty.cuh", lesson10::wrong_empty::kernel, "correctness", "8192 of 8192 elements differ from the CPU reference",
     "nothing_stored"},
    {"wrong/no_bytes.cuh", lesson10::wrong_no_bytes::kernel, "error",
     "no_bytes.cuh:53: error: read of shared memory nothing wrote", "full_ignores_bytes"},
    {"wrong/wrong_parity.cuh", lesson10::wrong_wrong_parity::kernel, "error", "wrong_parity.cuh:37), 0 of 4 arrivals",
     "producer_waits_this_round"},
    {"wrong/one_stage.cuh", lesson10::wrong_one_stage::kernel, "goal", "the slowest block took 5247 cycles", "ring_too_short"},
};

} // namespace

TEST_CASE("lesson 10: the solution passes the check, goal included", "[lessons][lesson10]") {
    const auto res = check_kernel(lesson10::solution::kernel);
    INFO(res.report);
    CHECK(res.passed);
    CHECK(res.report.find("correct at K=320 M=64 N=128") != std::string::npos);
    CHECK(res.report.find("goal met") != std::string::npos);
}

TEST_CASE("lesson 10: the exercise as shipped fails the check", "[lessons][lesson10]") {
    const auto res = check_kernel(lesson10::exercise::kernel);
    INFO(res.report);
    CHECK_FALSE(res.passed);
    // HOLE 1 as shipped expects 0 bytes: the copies' bytes land on a barrier
    // that was not told about them.
    CHECK(res.part == "error");
    CHECK(res.report.find("delivered 24576 bytes that no expect_tx counted") != std::string::npos);
    // The same mistake as wrong/no_bytes.cuh, seen after the copies landed
    // rather than at a read: the diagnosis names it all the same.
    CHECK(res.mistake == "full_ignores_bytes");
}

TEST_CASE("lesson 10: every known-wrong kernel fails with its message", "[lessons][lesson10]") {
    lesson_tests::check_known_wrong("lessons/10_hopper", known_wrong, check_kernel);
}

TEST_CASE("lesson 10: every known mistake has its hint and a kernel that shows it", "[lessons][lesson10]") {
    lesson_tests::check_mistakes("lessons/10_hopper", lesson10::mistakes(), known_wrong);
}

TEST_CASE("lesson 10: the known-wrong list covers lessons/10_hopper/wrong/", "[lessons][lesson10]") {
    lesson_tests::check_list_covers_wrong_folder("lessons/10_hopper", known_wrong);
}
