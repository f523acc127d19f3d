// Lesson 5's check, checked: the solution passes, the exercise as shipped
// fails on the goal (it is right, and synchronous), and every known-wrong
// kernel in lessons/05_async_copies/wrong/ fails with the message its first
// line ("// expect: TEXT") promises. Among them the second __syncthreads()
// missing (no_second_sync.cuh): the race finder counts a cp.async's
// destination as written from its issue, so the next step's copies race the
// reads they overtake. (Without the first barrier an ldmatrix reads a copy's
// destination with nothing ordering the two.)
#include <catch2/catch.hpp>

#include "support/known_wrong.h"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include "lessons/05_async_copies/lesson.cuh"
#include "lessons/05_async_copies/exercise.cuh"
#include "lessons/05_async_copies/solution.cuh"
#include "lessons/05_async_copies/wrong/empty.cuh"
#include "lessons/05_async_copies/wrong/last_step_unwaited.cuh"
#include "lessons/05_async_copies/wrong/next_tile_k.cuh"
#include "lessons/05_async_copies/wrong/no_second_sync.cuh"
#include "lessons/05_async_copies/wrong/no_wait.cuh"
#include "lessons/05_async_copies/wrong/wait_all.cuh"
#include "sim/simulator.h"

namespace {

// lesson 5's check on one kernel, as `tklab lesson check 5` would run it.
tklab::lessons::CheckResult check_kernel(lesson05::kernel_fn kernel) {
    const tk::host::program p = tk::host::make_program(lesson05::program_def({{"under_test", kernel}}));
    return tklab::lessons::check(lesson05::lesson(), p, "under_test");
}

using KnownWrong = lesson_tests::KnownWrong<lesson05::kernel_fn>;

const KnownWrong known_wrong[] = {
    {"wrong/empty.cuh", lesson05::wrong_empty::kernel, "correctness",
     "4096 of 4096 elements differ from the CPU reference (largest error inf", "nothing_stored"},
    {"wrong/next_tile_k.cuh", lesson05::wrong_next_tile_k::kernel, "correctness",
     "correctness: wrong at K=192 M=64 N=128: 8189 of 8192 elements differ", "stage_holds_wrong_k_step"},
    {"wrong/no_wait.cuh", lesson05::wrong_no_wait::kernel, "error",
     "no_wait.cuh:37: error: read of shared memory nothing wrote", "copies_never_waited"},
    {"wrong/last_step_unwaited.cuh", lesson05::wrong_last_step_unwaited::kernel, "error",
     "last_step_unwaited.cuh:35: error: read of shared memory nothing wrote", "wait_leaves_this_step_in_flight"},
    {"wrong/no_second_sync.cuh", lesson05::wrong_no_second_sync::kernel, "error",
     "no_second_sync.cuh:36: error: shared-memory race (write after read)", "refill_before_reads_done"},
    {"wrong/wait_all.cuh", lesson05::wrong_wait_all::kernel, "goal",
     "warps spent 27.2% of their time waiting for global memory", "waits_for_next_stage_too"},
};

} // namespace

TEST_CASE("lesson 5: the solution passes the check, goal included", "[lessons][lesson05]") {
    const auto res = check_kernel(lesson05::solution::kernel);
    INFO(res.report);
    CHECK(res.passed);
    CHECK(res.report.find("correct at K=64 M=64 N=64") != std::string::npos);
    CHECK(res.report.find("correct at K=320 M=128 N=64") != std::string::npos);
    CHECK(res.report.find("goal met: waits for global memory under 15% of warp time") != std::string::npos);
}

TEST_CASE("lesson 5: the exercise as shipped fails the check on the goal", "[lessons][lesson05]") {
    const auto res = check_kernel(lesson05::exercise::kernel);
    INFO(res.report);
    CHECK_FALSE(res.passed);
    CHECK(res.part == "goal");  // right at every size, and synchronous
    CHECK(res.report.find("correct at K=512 M=128 N=128") != std::string::npos);
    CHECK(res.report.find("warps spent 39.7% of their time waiting for global memory") != std::string::npos);
    // No cp.async at all: that is what the check says is likely.
    CHECK(res.mistake == "loads_synchronous");
}

TEST_CASE("lesson 5: double buffering shortens the slowest block", "[lessons][lesson05]") {
    const auto cycles = [](lesson05::kernel_fn kernel) {
        check_kernel(kernel);  // its last run is the goal's size
        return tklab::sim::last_run().stats.max_block_cycles;
    };
    const uint64_t synchronous = cycles(lesson05::exercise::kernel);
    const uint64_t wait_all = cycles(lesson05::wrong_wait_all::kernel);
    const uint64_t double_buffered = cycles(lesson05::solution::kernel);
    CHECK(double_buffered < wait_all);
    CHECK(wait_all < synchronous);
}

TEST_CASE("lesson 5: every known-wrong kernel fails with its message", "[lessons][lesson05]") {
    lesson_tests::check_known_wrong("lessons/05_async_copies", known_wrong, check_kernel);
}

TEST_CASE("lesson 5: every known mistake has its hint and a kernel that shows it", "[lessons][lesson05]") {
    lesson_tests::check_mistakes("lessons/05_async_copies", lesson05::mistakes(), known_wrong, {"loads_synchronous"});
}

TEST_CASE("lesson 5: the known-wrong list covers lessons/05_async_copies/wrong/", "[lessons][lesson05]") {
    lesson_tests::check_list_covers_wrong_folder("lessons/05_async_copies", known_wrong);
}

namespace {

// The README table's row for one kernel at the check's last size, built from its run.
std::string table_row(const char* name, lesson05::kernel_fn kernel, const char* wait_suffix, bool barrier_cycles) {
    const tk::host::program p = tk::host::make_program(lesson05::program_def({{"under_test", kernel}}));
    auto c = p.make(p.resolve(lesson05::lesson().sizes.back()), 1);
    c->run("under_test");
    const tklab::sim::RunResult& r = tklab::sim::last_run();
    const double warp_cycles = double(r.stats.sum_block_cycles) * double(r.block.x / 32);
    char row[256];
    const double wait = double(r.stats.stall_cycles[size_t(tklab::sim::Stall::long_scoreboard)]) / warp_cycles * 100;
    const double barrier = double(r.stats.barrier_wait_cycles) / warp_cycles * 100;
    std::snprintf(row, sizeof row, "| %s | %llu cycles | %.1f%%%s | %.1f%%", name, (unsigned long long)r.stats.max_block_cycles, wait,
                  wait_suffix, barrier);
    std::string s = row;
    if (barrier_cycles) s += " (" + std::to_string(r.stats.barrier_wait_cycles) + " warp-cycles)";
    return s + " |";
}

} // namespace

TEST_CASE("lesson 5: README.md's table is the three kernels' runs", "[lessons][lesson05]") {
    std::ifstream in(lesson_tests::lesson_dir("lessons/05_async_copies") / "README.md");
    REQUIRE(in.good());
    const std::string readme{std::istreambuf_iterator<char>(in), {}};
    for (const std::string& row : {table_row("synchronous (the exercise)", lesson05::exercise::kernel, " of warp time", true),
                                   table_row("`load_async`, wait for everything", lesson05::wrong_wait_all::kernel, "", false),
                                   table_row("double-buffered (the solution)", lesson05::solution::kernel, "", true)}) {
        INFO("the run's row: " << row);
        CHECK(readme.find(row) != std::string::npos);
    }
}

TEST_CASE("lesson 5: README.md's comparison of the two traces is the runs'", "[lessons][lesson05]") {
    // "70144 long-scoreboard warp-cycles become 2900, and the block is 1.7 times shorter": the check's last size.
    auto run = [](lesson05::kernel_fn kernel) {
        const tk::host::program p = tk::host::make_program(lesson05::program_def({{"under_test", kernel}}));
        auto c = p.make(p.resolve(lesson05::lesson().sizes.back()), 1);
        c->run("under_test");
        const tklab::sim::Stats& s = tklab::sim::last_run().stats;
        return std::pair{s.stall_cycles[size_t(tklab::sim::Stall::long_scoreboard)], s.max_block_cycles};
    };
    const auto [sync_wait, sync_cycles] = run(lesson05::exercise::kernel);
    const auto [ring_wait, ring_cycles] = run(lesson05::solution::kernel);
    const std::string readme = lesson_tests::readme_one_line("lessons/05_async_copies");
    char ratio[16];
    std::snprintf(ratio, sizeof ratio, "%.1f", double(sync_cycles) / double(ring_cycles));
    const std::string want = std::to_string(sync_wait) + " long-scoreboard warp-cycles become " + std::to_string(ring_wait) +
                             ", and the block is " + ratio + " times shorter";
    INFO("README.md should say: " << want);
    CHECK(readme.find(want) != std::string::npos);
    CHECK(readme.find("(" + std::to_string(ring_cycles) + " cycles instead of " + std::to_string(sync_cycles) + ")") != std::string::npos);
}
