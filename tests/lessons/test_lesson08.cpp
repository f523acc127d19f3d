// Lesson 8's check, checked: the solution passes, the exercise as shipped
// fails, and every known-wrong kernel in lessons/08_flash_attention/wrong/
// fails with the message its first line ("// expect: TEXT") promises.
#include <catch2/catch.hpp>

#include "support/known_wrong.h"
#include "support/registers_table.h"

#include <string>

#include "sim/cost_model.h"
#include "sim/merge.h"
#include "sim/simulator.h"

#include "lessons/08_flash_attention/lesson.cuh"
#include "lessons/08_flash_attention/exercise.cuh"
#include "lessons/08_flash_attention/solution.cuh"
#include "lessons/08_flash_attention/wrong/both_tiles_live.cuh"
#include "lessons/08_flash_attention/wrong/col_max.cuh"
#include "lessons/08_flash_attention/wrong/empty.cuh"
#include "lessons/08_flash_attention/wrong/no_divide.cuh"
#include "lessons/08_flash_attention/wrong/no_first_sync.cuh"
#include "lessons/08_flash_attention/wrong/no_rescale.cuh"
#include "lessons/08_flash_attention/wrong/no_row_sum.cuh"
#include "lessons/08_flash_attention/wrong/no_scale.cuh"
#include "lessons/08_flash_attention/wrong/no_second_sync.cuh"
#include "lessons/08_flash_attention/wrong/unswizzled.cuh"

namespace {

// lesson 8's check on one kernel, as `tklab lesson check 8` would run it.
tklab::lessons::CheckResult check_kernel(lesson08::kernel_fn kernel) {
    const tk::host::program p = tk::host::make_program(lesson08::program_def({{"under_test", kernel}}));
    return tklab::lessons::check(lesson08::lesson(), p, "under_test");
}

using KnownWrong = lesson_tests::KnownWrong<lesson08::kernel_fn>;

const KnownWrong known_wrong[] = {
    {"wrong/empty.cuh", lesson08::wrong_empty::kernel, "correctness",
     "4096 of 4096 elements differ from the CPU reference (largest error inf", "nothing_stored"},
    {"wrong/no_rescale.cuh", lesson08::wrong_no_rescale::kernel, "correctness",
     "correctness: wrong at D=64 N=128: 3556 of 8192 elements differ", "carry_between_tiles"},
    {"wrong/no_scale.cuh", lesson08::wrong_no_scale::kernel, "correctness",
     "correctness: wrong at D=64 N=64: 2986 of 4096 elements differ", "wrong_score_scale"},
    {"wrong/no_divide.cuh", lesson08::wrong_no_divide::kernel, "correctness",
     "correctness: wrong at D=64 N=64: 2985 of 4096 elements differ", "no_final_divide"},
    {"wrong/no_row_sum.cuh", lesson08::wrong_no_row_sum::kernel, "correctness",
     "correctness: wrong at D=64 N=64: 4096 of 4096 elements differ", "sum_never_added"},
    {"wrong/col_max.cuh", lesson08::wrong_col_max::kernel, "correctness",
     "correctness: wrong at D=64 N=64: 4074 of 4096 elements differ", "shift_not_per_row"},
    {"wrong/unswizzled.cuh", lesson08::wrong_unswizzled::kernel, "goal",
     "ldmatrix: 36864 wavefronts where 4608 would do (worst 8-way)", "tiles_unswizzled"},
    {"wrong/both_tiles_live.cuh", lesson08::wrong_both_tiles_live::kernel, "goal", "232 registers per thread live at the peak",
     "k_and_v_tiles_live_together"},
    {"wrong/no_second_sync.cuh", lesson08::wrong_no_second_sync::kernel, "error",
     "no_second_sync.cuh:28: error: shared-memory race (write after read)", "no_barrier_before_next_tile"},
    {"wrong/no_first_sync.cuh", lesson08::wrong_no_first_sync::kernel, "error",
     "no_first_sync.cuh:33: error: shared-memory race (read after write)", "no_barrier_after_loads"},
};

} // namespace

TEST_CASE("lesson 8: the solution passes the check, goals included", "[lessons][lesson08]") {
    const auto res = check_kernel(lesson08::solution::kernel);
    INFO(res.report);
    CHECK(res.passed);
    CHECK(res.report.find("correct at D=64 N=192") != std::string::npos);
    CHECK(res.report.find("goal met: no bank conflicts") != std::string::npos);
    CHECK(res.report.find("goal met: at most 192 live tile registers per thread") != std::string::npos);
}

TEST_CASE("lesson 8: the exercise as shipped fails the check", "[lessons][lesson08]") {
    const auto res = check_kernel(lesson08::exercise::kernel);
    INFO(res.report);
    CHECK_FALSE(res.passed);
    CHECK(res.part == "correctness");
    CHECK(res.report.find("correctness: wrong at D=64 N=64") != std::string::npos);
    // It stores O, all NaN: m is never raised from -inf (HOLE 1).
    CHECK(res.mistake == "running_max_not_kept");
}

TEST_CASE("lesson 8: the solution is the plain softmax, a tile at a time", "[lessons][lesson08]") {
    // The online softmax is exact arithmetic, not an approximation: the
    // solution's error is the bf16 rounding of P, and it does not grow with
    // the number of K tiles.
    const tk::host::program p = tk::host::make_program(lesson08::program_def({{"solution", lesson08::solution::kernel}}));
    for (int n : {64, 192}) {
        auto c = p.make(p.resolve({{"N", n}, {"D", 64}}), 3);
        c->run("solution");
        const auto r = c->check();
        INFO("N = " << n << ": max error " << r.max_error);
        CHECK(r.passed);
        CHECK(r.max_error < 2.5e-3);  // measured: at most 1.3e-3
    }
}

TEST_CASE("lesson 8: the README's register estimates are the simulator's", "[lessons][lesson08]") {
    // One line, each run of spaces one space (the figures are in an indented list).
    const std::string readme = registers_table::one_line(registers_table::kRoot / "lessons" / "08_flash_attention" / "README.md");
    auto estimate = [](lesson08::kernel_fn k) {
        const tk::host::program p = tk::host::make_program(lesson08::program_def({{"k", k}}));
        auto c = p.make(p.resolve(lesson08::lesson().sizes.back()), 1);
        c->run("k");
        return tklab::sim::last_run().stats;
    };
    const tklab::sim::Stats sol = estimate(lesson08::solution::kernel);
    const tklab::sim::Stats both = estimate(lesson08::wrong_both_tiles_live::kernel);
    const tklab::sim::CostModel cost = tklab::sim::CostModel::load("h100");
    const std::string said = "The solution holds " + std::to_string(sol.peak_regs) + "; the simulator's estimate of what the compiler allocates counts a quarter of the K and V operand tiles less (" +
                             std::to_string(tklab::sim::from_shared_saving(cost, sol.peak_from_shared_regs)) +
                             ": the compiler loads an operand from shared memory a part at a time, as the mma reads it), and adds 24 for indices and counters and one per global-memory instruction of the loop (" +
                             std::to_string(sol.loop_addresses) + " here): " + std::to_string(sol.estimated_registers) + " in all";
    CHECK(cost.registers_from_shared_share == 0.75);  // "a quarter"
    CHECK(sol.estimated_registers == cost.base_registers_per_thread + sol.peak_regs - tklab::sim::from_shared_saving(cost, sol.peak_from_shared_regs) + sol.loop_addresses);
    INFO("README: " << said);
    CHECK_THAT(readme, Catch::Contains(said));
    const std::string over = std::to_string(both.peak_regs) + " tile registers: " + std::to_string(both.estimated_registers) + " with the rest.";
    INFO("README: " << over);
    CHECK_THAT(readme, Catch::Contains(over));
    CHECK(both.peak_regs > 192);  // past the goal
    // ptxas's figure: results/registers_sm90a.txt's row for the solution.
    const int ptxas = registers_table::row(registers_table::rows(), "lesson08", "solution", "lesson08").ptxas;
    CHECK_THAT(readme, Catch::Contains("gives the solution " + std::to_string(ptxas) + " registers: results/registers_sm90a.txt"));
}

TEST_CASE("lesson 8: a missed rescale passes one K tile and fails with two", "[lessons][lesson08]") {
    // The check's sizes are chosen for it: N = 64 has one K tile, where the
    // rescale multiplies zeros; the next size has two.
    const auto res = check_kernel(lesson08::wrong_no_rescale::kernel);
    INFO(res.report);
    CHECK(res.report.find("correct at D=64 N=64\ncorrectness: wrong at D=64 N=128") != std::string::npos);
}

TEST_CASE("lesson 8: every known-wrong kernel fails with its message", "[lessons][lesson08]") {
    lesson_tests::check_known_wrong("lessons/08_flash_attention", known_wrong, check_kernel);
}

TEST_CASE("lesson 8: every known mistake has its hint and a kernel that shows it", "[lessons][lesson08]") {
    lesson_tests::check_mistakes("lessons/08_flash_attention", lesson08::mistakes(), known_wrong, {"running_max_not_kept"});
}

TEST_CASE("lesson 8: the known-wrong list covers lessons/08_flash_attention/wrong/", "[lessons][lesson08]") {
    lesson_tests::check_list_covers_wrong_folder("lessons/08_flash_attention", known_wrong);
}
