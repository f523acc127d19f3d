// Lesson 7's check, checked: the solution passes, the exercise as shipped
// fails, and every known-wrong kernel in lessons/07_producer_consumer/wrong/
// fails with the message its first line ("// expect: TEXT") promises. The
// deadlocks among them are reported, never hang, and name the waiting lines.
#include <catch2/catch.hpp>

#include "support/known_wrong.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include "lessons/07_producer_consumer/lesson.cuh"
#include "lessons/07_producer_consumer/exercise.cuh"
#include "lessons/07_producer_consumer/solution.cuh"
#include "lessons/07_producer_consumer/wrong/early_full.cuh"
#include "lessons/07_producer_consumer/wrong/empty.cuh"
#include "lessons/07_producer_consumer/wrong/never_release.cuh"
#include "lessons/07_producer_consumer/wrong/no_flip.cuh"
#include "lessons/07_producer_consumer/wrong/one_stage.cuh"
#include "lessons/07_producer_consumer/wrong/wrong_count.cuh"
#include "lessons/07_producer_consumer/wrong/wrong_parity.cuh"
#include "lessons/07_producer_consumer/wrong/k_mod_2.cuh"
#include "sim/simulator.h"

namespace {

// lesson 7's check on one kernel, as `tklab lesson check 7` would run it.
tklab::lessons::CheckResult check_kernel(lesson07::kernel_fn kernel) {
    const tk::host::program p = tk::host::make_program(lesson07::program_def({{"under_test", kernel}}));
    return tklab::lessons::check(lesson07::lesson(), p, "under_test");
}

using KnownWrong = lesson_tests::KnownWrong<lesson07::kernel_fn>;

const KnownWrong known_wrong[] = {
    {"wrong/empty.cuh", lesson07::wrong_empty::kernel, "correctness",
     "4096 of 4096 elements differ from the CPU reference (largest error inf", "nothing_stored"},
    {"wrong/wrong_parity.cuh", lesson07::wrong_wrong_parity::kernel, "error",
     "wrong_parity.cuh:37), 0 of 128 arrivals", "producer_waits_this_round"},
    {"wrong/never_release.cuh", lesson07::wrong_never_release::kernel, "error",
     "never_release.cuh:36), 0 of 128 arrivals", "consumers_never_release"},
    {"wrong/wrong_count.cuh", lesson07::wrong_wrong_count::kernel, "error",
     "wrong_count.cuh:66: error: 32 lanes arrived at once on mbarrier", "arrival_count"},
    {"wrong/early_full.cuh", lesson07::wrong_early_full::kernel, "error",
     "early_full.cuh:60: error: read of shared memory nothing wrote", "full_before_copies_land"},
    {"wrong/k_mod_2.cuh", lesson07::wrong_k_mod_2::kernel, "error",
     "went on at once: that barrier had completed no phase yet", "parity_counts_k_steps"},
    {"wrong/no_flip.cuh", lesson07::wrong_no_flip::kernel, "correctness",
     "correctness: wrong at K=256 M=64 N=128", "phase_never_flips"},
    {"wrong/one_stage.cuh", lesson07::wrong_one_stage::kernel, "goal",
     "warps spent 58.2% of their time waiting at barriers", "ring_too_short"},
};

} // namespace

TEST_CASE("lesson 7: the solution passes the check, goal included", "[lessons][lesson07]") {
    const auto res = check_kernel(lesson07::solution::kernel);
    INFO(res.report);
    CHECK(res.passed);
    CHECK(res.report.find("correct at K=64 M=64 N=64") != std::string::npos);
    CHECK(res.report.find("correct at K=448 M=128 N=64") != std::string::npos);
    CHECK(res.report.find("goal met: barrier waits under 53% of warp time") != std::string::npos);
}

TEST_CASE("lesson 7: the exercise as shipped fails the check", "[lessons][lesson07]") {
    const auto res = check_kernel(lesson07::exercise::kernel);
    INFO(res.report);
    CHECK_FALSE(res.passed);
    CHECK(res.part == "error");
    // The consumers read the stage before the copies landed: an uninitialised read, at the reading line.
    CHECK(res.report.find("exercise.cuh:82: error: read of shared memory nothing wrote") != std::string::npos);
    // Nothing waits on "full" yet: that is what the check says is likely.
    CHECK(res.mistake == "consumers_do_not_wait");
}

TEST_CASE("lesson 7: a deadlock is reported, with the line every warp waits at", "[lessons][lesson07]") {
    // wrong/wrong_parity.cuh: the producer (warp 4) waits on "empty" at line 37
    // for a phase only the consumers can complete; they (warps 0-3) wait on
    // "full" at line 56 for the producer.
    const auto res = check_kernel(lesson07::wrong_wrong_parity::kernel);
    INFO(res.report);
    CHECK(res.part == "error");
    CHECK(res.report.find("deadlock in kernel lesson07, block (0,0,0)") != std::string::npos);
    CHECK(res.report.find("warp 4: waits on mbarrier") != std::string::npos);
    CHECK(res.report.find("wrong_parity.cuh:37), 0 of 128 arrivals") != std::string::npos);
    for (int w = 0; w < 4; ++w)
        CHECK(res.report.find("warp " + std::to_string(w) + ": waits on mbarrier") != std::string::npos);
    CHECK(res.report.find("wrong_parity.cuh:56), 0 of 32 arrivals") != std::string::npos);
}

TEST_CASE("lesson 7: every known-wrong kernel fails with its message", "[lessons][lesson07]") {
    lesson_tests::check_known_wrong("lessons/07_producer_consumer", known_wrong, check_kernel);
}

TEST_CASE("lesson 7: every known mistake has its hint and a kernel that shows it", "[lessons][lesson07]") {
    lesson_tests::check_mistakes("lessons/07_producer_consumer", lesson07::mistakes(), known_wrong, {"consumers_do_not_wait"});
}

TEST_CASE("lesson 7: the known-wrong list covers lessons/07_producer_consumer/wrong/", "[lessons][lesson07]") {
    lesson_tests::check_list_covers_wrong_folder("lessons/07_producer_consumer", known_wrong);
}

TEST_CASE("lesson 7: README.md's figures are the two kernels' runs at the check's last size", "[lessons][lesson07]") {
    // M = N = 128, K = 512 (the goal's size and `tklab run lesson07`'s default).
    struct Run { uint64_t cycles; double barrier_share; uint64_t longest_wait; };
    auto run = [](lesson07::kernel_fn kernel) {
        const tk::host::program p = tk::host::make_program(lesson07::program_def({{"k", kernel}}));
        auto c = p.make(p.resolve({{"M", 128}, {"N", 128}, {"K", 512}}), 1);
        c->run("k");
        const tklab::sim::RunResult& r = tklab::sim::last_run();
        const uint64_t warps = (uint64_t(r.block.x) * r.block.y * r.block.z + 31) / 32;  // as the goal counts
        Run out{r.stats.max_block_cycles, double(r.stats.barrier_wait_cycles) / (double(r.stats.sum_block_cycles) * double(warps)), 0};
        for (const auto& e : r.blocks.at(0).events)  // block 0's longest single wait at an mbarrier
            if (e.op == tklab::sim::Op::mbar_wait || e.op == tklab::sim::Op::mbar_test_wait)
                out.longest_wait = std::max<uint64_t>(out.longest_wait, e.stall_cycles);
        return out;
    };
    const Run ring = run(lesson07::solution::kernel), one = run(lesson07::wrong_one_stage::kernel);
    const std::string readme = lesson_tests::readme_one_line("lessons/07_producer_consumer");
    char share_ring[16], share_one[16];
    std::snprintf(share_ring, sizeof share_ring, "%.1f%%", 100 * ring.barrier_share);
    std::snprintf(share_one, sizeof share_one, "%.1f%%", 100 * one.barrier_share);
    auto says = [&](const std::string& text) {
        INFO("README.md should say: " << text);
        CHECK(readme.find(text) != std::string::npos);
    };
    says("Barrier waits: **" + std::string(share_ring) + " of warp time**");
    says(std::to_string(one.cycles) + " cycles against " + std::to_string(ring.cycles) + ", barrier waits " + share_one +
         " of warp time against " + share_ring);
    says("(the solution: " + std::string(share_ring) + "; one slot: " + share_one + ")");
    says("waits longest for the first tile, " + std::to_string(ring.longest_wait) + " cycles");
}
