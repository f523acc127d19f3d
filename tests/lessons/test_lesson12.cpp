// Lesson 12's check, checked: the solution passes, goal included; the
// exercise as shipped is right and misses the goal (one slice: 4 blocks);
// every known-wrong kernel in lessons/12_split_k/wrong/ fails with the
// message its first line ("// expect: TEXT") promises, the split-K mistakes
// with the check's own "why" (one slice's partial product left by plain
// stores, k-steps counted twice or never) and the unzeroed C with the
// simulator's uninitialised-read finding at the atomic add; the "why" says
// nothing of a difference that is not a split-K mistake; and the figures
// README.md quotes are the tool's.
#include <catch2/catch.hpp>

#include "support/known_wrong.h"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "lessons/12_split_k/lesson.cuh"
#include "lessons/12_split_k/exercise.cuh"
#include "lessons/12_split_k/solution.cuh"
#include "lessons/12_split_k/wrong/empty.cuh"
#include "lessons/12_split_k/wrong/not_zeroed.cuh"
#include "lessons/12_split_k/wrong/overlapping_slices.cuh"
#include "lessons/12_split_k/wrong/plain_store.cuh"
#include "lessons/12_split_k/wrong/remainder_missed.cuh"
#include "lessons/12_split_k/wrong/slice_offset.cuh"
#include "lessons/12_split_k/wrong/whole_k_each_slice.cuh"
#include "sim/simulator.h"

namespace {

#define LESSON12_KERNELS(ns) lesson12::Kernels{lesson12::ns::zero, lesson12::ns::kernel, lesson12::ns::kSlices}

// lesson 12's check on one variant, as `tklab lesson check 12` would run it.
tklab::lessons::CheckResult check_kernel(lesson12::Kernels k) {
    const tk::host::program p = tk::host::make_program(lesson12::program_def({{"under_test", k}}));
    return tklab::lessons::check(lesson12::lesson(), p, "under_test");
}

using KnownWrong = lesson_tests::KnownWrong<lesson12::Kernels>;

const KnownWrong known_wrong[] = {
    {"wrong/plain_store.cuh", LESSON12_KERNELS(wrong_plain_store), "correctness", "elements of C hold one slice's partial product alone",
     "plain_store_not_add"},
    {"wrong/not_zeroed.cuh", LESSON12_KERNELS(wrong_not_zeroed), "error",
     "not_zeroed.cuh:29: error: read of global memory nothing wrote: a reduction's read (red.global)", "c_not_zeroed"},
    {"wrong/overlapping_slices.cuh", LESSON12_KERNELS(wrong_overlapping_slices), "correctness", "added 2 times", "slices_overlap"},
    {"wrong/remainder_missed.cuh", LESSON12_KERNELS(wrong_remainder_missed), "correctness", "k-steps 16-18 (k 1024-1215) added never",
     "k_steps_left_out"},
    {"wrong/slice_offset.cuh", LESSON12_KERNELS(wrong_slice_offset), "correctness", "added never", "slices_start_wrong"},
    {"wrong/whole_k_each_slice.cuh", LESSON12_KERNELS(wrong_whole_k_each_slice), "goal", "does yours walk all of K?",
     "every_slice_walks_all_k"},
    {"wrong/empty.cuh", LESSON12_KERNELS(wrong_empty), "correctness", "4096 of 4096 elements differ from the CPU reference",
     "nothing_stored"},
};

// The mistake of wrong/whole_k_each_slice.cuh made with the adds in place:
// every block walks all of K and adds its tile into a zeroed C, so C is
// kSlices times the product. The check must diagnose it as the same mistake.
namespace whole_k_added {
constexpr int kSlices = 8;
__global__ void zero(tk::gl<float> C) {
    tk::rt_fl<32, 32> z;
    tk::zero(z);
    tk::store(C, z, lesson12::warp_tile());
}
__global__ void kernel(tk::gl<tk::bf16> A, tk::gl<tk::bf16> B, tk::gl<float> C) {
    tk::rt_fl<32, 32> acc;
    tk::zero(acc);
    lesson12::multiply(acc, A, B, 0, A.cols / lesson12::kBlock);
    tk::atomic_add(C, acc, lesson12::warp_tile());
}
} // namespace whole_k_added

// The simulated cycles of a variant at the goal's size: the zeroing kernel's and the GEMM's.
struct Cycles {
    uint64_t zero = 0, gemm = 0;
    unsigned blocks = 0;
};
Cycles cycles(lesson12::Kernels k) {
    const tk::host::program p = tk::host::make_program(lesson12::program_def({{"under_test", k}}));
    p.make(p.resolve(lesson12::lesson().sizes.back()), 1)->run("under_test");
    const tklab::sim::RunResult& r = tklab::sim::last_run();
    return {lesson12::zero_cycles_at(r), r.stats.est_kernel_cycles, r.grid.x * r.grid.y * r.grid.z};
}

} // namespace

TEST_CASE("lesson 12: the solution passes the check, goal included", "[lessons][lesson12]") {
    const auto res = check_kernel(LESSON12_KERNELS(solution));
    INFO(res.report);
    CHECK(res.passed);
    CHECK(res.report.find("correct at K=2048 M=64 N=64") != std::string::npos);
    CHECK(res.report.find("correct at K=1216 M=64 N=128") != std::string::npos);  // 19 k-steps: 16 slices of 2, the last ones empty
    CHECK(res.report.find("correct at K=320 M=128 N=64") != std::string::npos);   // 5 k-steps, fewer than slices
    CHECK(res.report.find("goal met: an estimated time (the zeroing kernel's and the GEMM's) at least 2x shorter") != std::string::npos);
}

TEST_CASE("lesson 12: the exercise as shipped is right and misses the goal", "[lessons][lesson12]") {
    const auto res = check_kernel(LESSON12_KERNELS(exercise));
    INFO(res.report);
    CHECK_FALSE(res.passed);
    CHECK(res.part == "goal");
    CHECK(res.report.find("correct at K=4096 M=128 N=128") != std::string::npos);
    CHECK(res.report.find("on 4 blocks, S = 1; one slice:") != std::string::npos);
    CHECK(res.report.find("split K into S slices (kSlices)") != std::string::npos);
    // Not a slip but the lesson's starting point: K is not split yet.
    CHECK(res.mistake == "k_not_split");
}

TEST_CASE("lesson 12: the solution meets the goal with room to spare, and other slice counts would too", "[lessons][lesson12]") {
    // The goal is a ratio, 2x, read off the simulator's estimates; its
    // timing model changes, so the solution should clear it well.
    const Cycles one = cycles(lesson12::one_slice_kernels), split = cycles(LESSON12_KERNELS(solution));
    INFO("one slice " << one.gemm << " cycles, split " << split.zero << " + " << split.gemm);
    CHECK(one.blocks == 4);
    CHECK(split.blocks == 64);
    CHECK(double(one.gemm) >= 4.0 * double(split.zero + split.gemm));
}

TEST_CASE("lesson 12: every known-wrong kernel fails with its message", "[lessons][lesson12]") {
    lesson_tests::check_known_wrong("lessons/12_split_k", known_wrong, check_kernel);
}

TEST_CASE("lesson 12: every known mistake has its hint and a kernel that shows it", "[lessons][lesson12]") {
    lesson_tests::check_mistakes("lessons/12_split_k", lesson12::mistakes(), known_wrong, {"k_not_split"});
}

TEST_CASE("lesson 12: every block walking all of K is diagnosed as such when it adds too", "[lessons][lesson12]") {
    // C is kSlices times the product: a correctness failure, not the goal's.
    const auto res = check_kernel(lesson12::Kernels{whole_k_added::zero, whole_k_added::kernel, whole_k_added::kSlices});
    INFO(res.report);
    CHECK(res.part == "correctness");
    CHECK(res.mistake == "every_slice_walks_all_k");
}

TEST_CASE("lesson 12: the known-wrong list covers lessons/12_split_k/wrong/", "[lessons][lesson12]") {
    lesson_tests::check_list_covers_wrong_folder("lessons/12_split_k", known_wrong);
}

TEST_CASE("lesson 12: the check's why names the mistake and its fix", "[lessons][lesson12]") {
    SECTION("plain stores: the slice that won, and tk::atomic_add") {
        const auto res = check_kernel(LESSON12_KERNELS(wrong_plain_store));
        INFO(res.report);
        // K = 2048: 32 k-steps, 16 slices of 2; the simulator ran the last slice's blocks last.
        CHECK(res.report.find("wrong at K=2048 M=64 N=64") != std::string::npos);
        CHECK(res.report.find("  why: 4096 of 4096 elements of C hold one slice's partial product alone (slice 15's, k-steps 30-31 (k 1920-2047))") !=
              std::string::npos);
        CHECK(res.report.find("  fix: add the partial tile into C, tk::atomic_add(C, acc, warp_tile())") != std::string::npos);
    }
    SECTION("overlapping slices: each slice's first k-step but the first, twice") {
        const auto res = check_kernel(LESSON12_KERNELS(wrong_overlapping_slices));
        INFO(res.report);
        // K = 2048: 32 k-steps in 16 slices of 2; slice z also adds k-step 2z + 2, slice z + 1's first.
        CHECK(res.report.find("wrong at K=2048 M=64 N=64") != std::string::npos);
        CHECK(res.report.find("why: C is the product with some of K's 32 k-steps counted other than once: k-step 2 (k 128-191) added 2 times; "
                              "k-step 4 (k 256-319) added 2 times;") != std::string::npos);
        CHECK(res.report.find("per = ceil((K / 64) / S) = 2 here") != std::string::npos);
    }
    SECTION("the remainder missed: right where the slices divide K, wrong where they do not") {
        const auto res = check_kernel(LESSON12_KERNELS(wrong_remainder_missed));
        INFO(res.report);
        CHECK(res.report.find("correct at K=2048 M=64 N=64") != std::string::npos);  // 32 k-steps: 8 slices of 4
        CHECK(res.report.find("wrong at K=1216 M=64 N=128") != std::string::npos);
        CHECK(res.report.find("counted other than once: k-steps 16-18 (k 1024-1215) added never.") != std::string::npos);
    }
}

TEST_CASE("lesson 12: the why says nothing of a wrong C that is no split-K mistake", "[lessons][lesson12]") {
    // It must not blame slices for any difference: C off by a scale, or by noise, is neither.
    const tk::host::dims_t d{{"M", 64}, {"N", 64}, {"K", 512}};
    const tk::host::program p = tk::host::make_program(lesson12::program_def({{"solution", LESSON12_KERNELS(solution)}}));
    auto c = p.make(p.resolve(d), 3);
    c->run("solution");
    const auto want = c->reference();
    std::vector<float> scaled(want.size()), shifted(want.size()), right(want.size());
    for (size_t i = 0; i < want.size(); ++i) {
        scaled[i] = float(want[i] * 1.5);
        shifted[i] = float(want[i] + 0.25 * double(int(i % 7) - 3));
        right[i] = float(want[i]);
    }
    CHECK(lesson12::explain(d, 3, scaled, want) == "");
    CHECK(lesson12::explain(d, 3, shifted, want) == "");
    CHECK(lesson12::explain(d, 3, right, want) == "");
    // And it does name a k-step left out, from these very inputs.
    const tk::host::program q = tk::host::make_program(lesson12::program_def({{"w", LESSON12_KERNELS(wrong_remainder_missed)}}));
    auto w = q.make(q.resolve({{"M", 64}, {"N", 64}, {"K", 576}}), 3);  // 9 k-steps, 8 slices of 1
    w->run("w");
    const auto got = w->output();
    CHECK(lesson12::explain({{"M", 64}, {"N", 64}, {"K", 576}}, 3, got, w->reference()).find("k-step 8 (k 512-575) added never") !=
          std::string::npos);
}

TEST_CASE("lesson 12: README.md's figures and quoted messages are the tool's", "[lessons][lesson12]") {
    const std::string readme = lesson_tests::readme_one_line("lessons/12_split_k");
    // "one slice: 55993 cycles on 4 blocks; the solution: 2252 + 6290 = 8542 cycles (zeroing + GEMM) on 64 blocks, 6.6 times shorter"
    const Cycles one = cycles(lesson12::one_slice_kernels), split = cycles(LESSON12_KERNELS(solution));
    char ratio[16];
    std::snprintf(ratio, sizeof ratio, "%.1f", double(one.gemm) / double(split.zero + split.gemm));
    const std::string figures = "one slice: " + std::to_string(one.gemm) + " cycles on " + std::to_string(one.blocks) + " blocks; the solution: " +
                                std::to_string(split.zero) + " + " + std::to_string(split.gemm) + " = " +
                                std::to_string(split.zero + split.gemm) + " cycles (zeroing + GEMM) on " + std::to_string(split.blocks) +
                                " blocks, " + ratio + " times shorter";
    INFO("README.md should say: " << figures);
    CHECK(readme.find(figures) != std::string::npos);

    // The check's reports it quotes, line for line as indented code (README.md read as it is, lines intact).
    std::ifstream in(lesson_tests::lesson_dir("lessons/12_split_k") / "README.md");
    REQUIRE(in.good());
    const std::string text{std::istreambuf_iterator<char>(in), {}};
    const auto quoted = [&](const std::string& line) {
        INFO("README.md should quote the line:\n    " << line);
        CHECK(text.find("\n    " + line + "\n") != std::string::npos);
    };
    const auto lines_of = [](const std::string& report, const char* starting) {
        std::vector<std::string> out;
        std::istringstream lines(report);
        for (std::string line; std::getline(lines, line);)
            if (line.rfind(starting, 0) == 0) out.push_back(line);
        return out;
    };
    const auto exercise = check_kernel(LESSON12_KERNELS(exercise)).report;
    for (const auto& l : lines_of(exercise, "goal missed:")) quoted(l);
    for (const auto& l : lines_of(exercise, "  yours:")) quoted(l);
    const auto whole = check_kernel(LESSON12_KERNELS(wrong_whole_k_each_slice)).report;
    REQUIRE(lines_of(whole, "  yours:").size() == 1);
    quoted(lines_of(whole, "  yours:")[0]);
    const auto plain = check_kernel(LESSON12_KERNELS(wrong_plain_store)).report;
    REQUIRE(lines_of(plain, "  why:").size() == 1);
    quoted(lines_of(plain, "  why:")[0]);
    quoted(lines_of(plain, "  fix:")[0]);
    // The unzeroed C: the finding's first line up to the address (which is where C happens to be), and its fix.
    const auto unzeroed = check_kernel(LESSON12_KERNELS(wrong_not_zeroed)).report;
    const std::string head = "the kernel stopped at K=2048 M=64 N=64: lessons/12_split_k/wrong/not_zeroed.cuh:29: error: read of global memory "
                             "nothing wrote: a reduction's read (red.global) of 4 bytes at ";
    INFO(unzeroed);
    CHECK(unzeroed.rfind(head, 0) == 0);
    CHECK(text.find("\n    " + head + "...\n") != std::string::npos);
    REQUIRE(lines_of(unzeroed, "  fix:").size() == 1);
    quoted(lines_of(unzeroed, "  fix:")[0]);
    // And the k-steps a rounded-down `per` leaves out.
    CHECK(readme.find("`k-steps 16-18 (k 1024-1215) added never` for a `per` rounded down") != std::string::npos);
}
