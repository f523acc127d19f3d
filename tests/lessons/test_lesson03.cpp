// Lesson 3's check, checked: the solution passes, the exercise as shipped
// fails, and every known-wrong kernel in lessons/03_mma/wrong/ fails with the
// message its first line ("// expect: TEXT") promises.
#include <catch2/catch.hpp>

#include "support/known_wrong.h"

#include <fstream>
#include <iterator>
#include <vector>
#include <string>

#include "lessons/03_mma/lesson.cuh"
#include "lessons/03_mma/exercise.cuh"
#include "lessons/03_mma/solution.cuh"
#include "lessons/03_mma/wrong/bf16_output.cuh"
#include "lessons/03_mma/wrong/empty.cuh"
#include "lessons/03_mma/wrong/k_tile_zero.cuh"
#include "lessons/03_mma/wrong/separate_product.cuh"
#include "lessons/03_mma/wrong/transposed_store.cuh"
#include "lessons/03_mma/wrong/zero_in_loop.cuh"
#include "sim/simulator.h"

namespace {

// lesson 3's check on one kernel, as `tklab lesson check 3` would run it.
tklab::lessons::CheckResult check_kernel(lesson03::kernel_fn kernel) {
    const tk::host::program p = tk::host::make_program(lesson03::program_def({{"under_test", kernel}}));
    return tklab::lessons::check(lesson03::lesson(), p, "under_test");
}

using KnownWrong = lesson_tests::KnownWrong<lesson03::kernel_fn>;

const KnownWrong known_wrong[] = {
    {"wrong/empty.cuh", lesson03::wrong_empty::kernel, "correctness",
     "256 of 256 elements differ from the CPU reference (largest error inf", "nothing_stored"},
    {"wrong/zero_in_loop.cuh", lesson03::wrong_zero_in_loop::kernel, "correctness", "correctness: wrong at K=32 M=16 N=48",
     "accumulator_reset_each_step"},
    {"wrong/k_tile_zero.cuh", lesson03::wrong_k_tile_zero::kernel, "correctness", "correctness: wrong at K=32 M=16 N=48",
     "k_tile_fixed"},
    {"wrong/transposed_store.cuh", lesson03::wrong_transposed_store::kernel, "error",
     "tile coordinate is outside the global tensor", "store_coordinates_swapped"},
    {"wrong/bf16_output.cuh", lesson03::wrong_bf16_output::kernel, "correctness", "correctness: wrong at K=16 M=16 N=16",
     "bf16_result"},
    {"wrong/separate_product.cuh", lesson03::wrong_separate_product::kernel, "goal",
     "24 registers per thread live at the peak", "separate_product"},
};

} // namespace

TEST_CASE("lesson 3: the solution passes the check, goal included", "[lessons][lesson03]") {
    const auto res = check_kernel(lesson03::solution::kernel);
    INFO(res.report);
    CHECK(res.passed);
    CHECK(res.report.find("correct at K=32 M=16 N=48") != std::string::npos);
    CHECK(res.report.find("correct at K=80 M=48 N=16") != std::string::npos);
    CHECK(res.report.find("goal met: at most 16 live tile registers per thread") != std::string::npos);
}

TEST_CASE("lesson 3: each k-step is two mma.sync instructions per warp", "[lessons][lesson03]") {
    // 64 x 96 x 64: 24 blocks of one warp, 4 k-steps each, two m16n8k16 per step.
    const tk::host::program p = tk::host::make_program(lesson03::program_def({{"solution", lesson03::solution::kernel}}));
    auto c = p.make(p.resolve({{"M", 64}, {"N", 96}, {"K", 64}}), 1);
    c->run("solution");
    CHECK(c->check().passed);
    CHECK(tklab::sim::last_run().stats.by_op[size_t(tklab::sim::Op::mma)] == 24u * 4u * 2u);
}

TEST_CASE("lesson 3: the exercise as shipped fails the check", "[lessons][lesson03]") {
    const auto res = check_kernel(lesson03::exercise::kernel);
    INFO(res.report);
    CHECK_FALSE(res.passed);
    CHECK(res.part == "correctness");
    CHECK(res.report.find("256 of 256 elements differ") != std::string::npos);  // nothing stored yet
    CHECK(res.mistake == "nothing_stored");
}

TEST_CASE("lesson 3: every known-wrong kernel fails with its message", "[lessons][lesson03]") {
    lesson_tests::check_known_wrong("lessons/03_mma", known_wrong, check_kernel);
}

TEST_CASE("lesson 3: every known mistake has its hint and a kernel that shows it", "[lessons][lesson03]") {
    lesson_tests::check_mistakes("lessons/03_mma", lesson03::mistakes(), known_wrong);
}

TEST_CASE("lesson 3: the known-wrong list covers lessons/03_mma/wrong/", "[lessons][lesson03]") {
    lesson_tests::check_list_covers_wrong_folder("lessons/03_mma", known_wrong);
}

TEST_CASE("lesson 3: README.md's walk through one k-step is the run's timeline", "[lessons][lesson03]") {
    // build/tklab run lesson03 --variant solution --size M=32,N=32,K=64: block 0, warp 0.
    const tk::host::program p = tk::host::make_program(lesson03::program_def({{"solution", lesson03::solution::kernel}}));
    auto c = p.make(p.resolve({{"M", 32}, {"N", 32}, {"K", 64}}), 1);
    c->run("solution");
    const tklab::sim::RunResult& r = tklab::sim::last_run();
    std::vector<const tklab::sim::Event*> mma, loads;
    for (const auto& e : r.blocks.at(0).events) {
        if (e.warp != 0) continue;
        if (e.op == tklab::sim::Op::mma) mma.push_back(&e);
        if (e.op == tklab::sim::Op::ld_global) loads.push_back(&e);
    }
    REQUIRE(mma.size() == 8);      // 4 k-steps, two each
    REQUIRE(loads.size() == 48);   // twelve a k-step
    // The k-step the README walks through: the first pair, then the next loads and the long wait.
    const uint64_t first = mma[0]->issue, second = mma[1]->issue, next = mma[2]->issue, next2 = mma[3]->issue;
    const uint32_t long_wait = mma[0]->stall_cycles, pair_wait = mma[1]->stall_cycles;
    const uint64_t loads_from = loads[0]->issue, loads_to = loads[11]->issue;     // the first k-step's
    const uint64_t next_from = loads[12]->issue, next_to = loads[23]->issue;      // the next k-step's
    CHECK(mma[0]->stall == uint8_t(tklab::sim::Stall::long_scoreboard));
    CHECK(mma[1]->stall == uint8_t(tklab::sim::Stall::wait));
    CHECK(mma[2]->stall_cycles == long_wait);
    const std::string readme = lesson_tests::readme_one_line("lessons/03_mma");
    auto says = [&](const std::string& text) {
        INFO("README.md should say: " << text);
        CHECK(readme.find(text) != std::string::npos);
    };
    says("at " + std::to_string(first) + " the first **`mma.sync`** issues");
    says("a " + std::to_string(long_wait) + "-cycle **long_scoreboard** wait");
    says("issued at cycles " + std::to_string(loads_from) + "-" + std::to_string(loads_to / 10 * 10));
    says("at " + std::to_string(second) + " the second `mma.sync` issues, after " + std::to_string(pair_wait) + " cycles of **wait**");
    says("from " + std::to_string(second + 2) + " to " + std::to_string((next_to + 5) / 10 * 10) + " the twelve `ld.global`");
    says("waits again, " + std::to_string(long_wait) + " cycles");
    says("`mma.sync` at " + std::to_string(next) + " and " + std::to_string(next2));
    CHECK(next_from > second);
}
