// Lesson 2's check, checked: the solution passes, the exercise as shipped
// fails, and every known-wrong kernel in lessons/02_softmax/wrong/ fails with
// the message its first line ("// expect: TEXT") promises. Also: the inputs
// are what the lesson says they are (rows that overflow and underflow exp in
// float, so a softmax without the max subtracted cannot pass).
#include <catch2/catch.hpp>

#include "support/known_wrong.h"

#include <cmath>
#include <iterator>
#include <string>

#include "lessons/02_softmax/lesson.cuh"
#include "lessons/02_softmax/exercise.cuh"
#include "lessons/02_softmax/solution.cuh"
#include "lessons/02_softmax/wrong/bf16_exp.cuh"
#include "lessons/02_softmax/wrong/div_max.cuh"
#include "lessons/02_softmax/wrong/empty.cuh"
#include "lessons/02_softmax/wrong/no_max.cuh"
#include "lessons/02_softmax/wrong/register_hungry.cuh"
#include "lessons/02_softmax/wrong/wrong_index.cuh"

namespace {

// lesson 2's check on one kernel, as `tklab lesson check 2` would run it.
tklab::lessons::CheckResult check_kernel(lesson02::kernel_fn kernel) {
    const tk::host::program p = tk::host::make_program(lesson02::program_def({{"under_test", kernel}}));
    return tklab::lessons::check(lesson02::lesson(), p, "under_test");
}

using KnownWrong = lesson_tests::KnownWrong<lesson02::kernel_fn>;

const KnownWrong known_wrong[] = {
    {"wrong/empty.cuh", lesson02::wrong_empty::kernel, "correctness",
     "1024 of 1024 elements differ from the CPU reference (largest error inf", "nothing_stored"},
    {"wrong/no_max.cuh", lesson02::wrong_no_max::kernel, "correctness",
     "512 of 1024 elements differ from the CPU reference (largest error inf", "max_not_subtracted"},
    {"wrong/div_max.cuh", lesson02::wrong_div_max::kernel, "correctness",
     "941 of 1024 elements differ from the CPU reference (largest error 0.965", "not_divided_by_sum"},
    {"wrong/bf16_exp.cuh", lesson02::wrong_bf16_exp::kernel, "correctness", "correctness: wrong at C=64 R=16",
     "bf16_rounding"},
    {"wrong/wrong_index.cuh", lesson02::wrong_wrong_index::kernel, "correctness",
     "correctness: wrong at C=64 R=48: 2048 of 3072 elements differ from the CPU reference (largest error inf",
     "strip_index"},
    {"wrong/register_hungry.cuh", lesson02::wrong_register_hungry::kernel, "goal",
     "132 registers per thread live at the peak", "new_tile_per_step"},
};

} // namespace

TEST_CASE("lesson 2: the inputs overflow and underflow exp where the lesson says", "[lessons][lesson02]") {
    for (int rows : {16, 48, 256}) {
        const lesson02::Data g = lesson02::make_inputs({{"R", rows}, {"C", 64}}, 1);
        const auto want = lesson02::reference(g);
        for (int r = 0; r < rows; ++r) {
            bool overflows = false, all_underflow = true;
            double sum = 0;
            for (int c = 0; c < 64; ++c) {
                const float e = std::exp(g.x[size_t(r) * 64 + c]);  // exp in float, no max subtracted
                overflows = overflows || std::isinf(e);
                all_underflow = all_underflow && e == 0.0f;
                sum += want[size_t(r) * 64 + c];
            }
            INFO("row " << r);
            CHECK(overflows == (r % 4 == 2));
            CHECK(all_underflow == (r % 4 == 3));
            CHECK(std::abs(sum - 1.0) < 1e-12);
        }
    }
}

TEST_CASE("lesson 2: the solution passes the check, goal included", "[lessons][lesson02]") {
    const auto res = check_kernel(lesson02::solution::kernel);
    INFO(res.report);
    CHECK(res.passed);
    CHECK(res.report.find("correct at C=64 R=80") != std::string::npos);
    CHECK(res.report.find("goal met: at most 48 live tile registers per thread") != std::string::npos);
}

TEST_CASE("lesson 2: the exercise as shipped fails the check", "[lessons][lesson02]") {
    const auto res = check_kernel(lesson02::exercise::kernel);
    INFO(res.report);
    CHECK_FALSE(res.passed);
    CHECK(res.part == "correctness");
    CHECK(res.report.find("correctness: wrong at C=64 R=16: 1024 of 1024 elements differ") != std::string::npos);
    // It stores X unchanged: the logits, not probabilities.
    CHECK(res.mistake == "logits_stored");
}

TEST_CASE("lesson 2: every known-wrong kernel fails with its message", "[lessons][lesson02]") {
    lesson_tests::check_known_wrong("lessons/02_softmax", known_wrong, check_kernel);
}

TEST_CASE("lesson 2: every known mistake has its hint and a kernel that shows it", "[lessons][lesson02]") {
    lesson_tests::check_mistakes("lessons/02_softmax", lesson02::mistakes(), known_wrong, {"logits_stored"});
}

TEST_CASE("lesson 2: the known-wrong list covers lessons/02_softmax/wrong/", "[lessons][lesson02]") {
    lesson_tests::check_list_covers_wrong_folder("lessons/02_softmax", known_wrong);
}
