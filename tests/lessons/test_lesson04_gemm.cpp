// Lesson 4, part 2 (the GEMM whose ldmatrix loads conflict), checked: the
// solution passes, the exercise as shipped fails on the goal, and every
// known-wrong kernel in lessons/04_bank_conflicts/part2_gemm/wrong/ fails with
// the message its first line ("// expect: TEXT") promises. Also: the part is
// registered after the transpose, and the swizzle puts the 8 rows of every
// ldmatrix phase in 8 different bank groups.
#include <catch2/catch.hpp>

#include "support/known_wrong.h"

#include <set>
#include <string>

#include "lessons/04_bank_conflicts/part2_gemm/problem.cuh"
#include "lessons/04_bank_conflicts/part2_gemm/exercise.cuh"
#include "lessons/04_bank_conflicts/part2_gemm/solution.cuh"
#include "lessons/04_bank_conflicts/part2_gemm/wrong/a_only.cuh"
#include "lessons/04_bank_conflicts/part2_gemm/wrong/empty.cuh"
#include "lessons/04_bank_conflicts/part2_gemm/wrong/first_k_tile.cuh"
#include "lessons/04_bank_conflicts/part2_gemm/wrong/swizzle_32.cuh"
#include "lessons/04_bank_conflicts/part2_gemm/wrong/swizzle_64.cuh"
#include "lessons/04_bank_conflicts/part2_gemm/wrong/unswizzled.cuh"

namespace {

// Part 2's check on one kernel, as `tklab lesson check 4 --part 2` would run it.
tklab::lessons::CheckResult check_kernel(lesson04_gemm::kernel_fn kernel) {
    const tk::host::program p = tk::host::make_program(lesson04_gemm::program_def({{"under_test", kernel}}));
    return tklab::lessons::check(lesson04_gemm::part(), p, "under_test");
}

using KnownWrong = lesson_tests::KnownWrong<lesson04_gemm::kernel_fn>;

const KnownWrong known_wrong[] = {
    {"wrong/empty.cuh", lesson04_gemm::wrong_empty::kernel, "correctness",
     "4096 of 4096 elements differ from the CPU reference (largest error inf", "nothing_stored"},
    {"wrong/first_k_tile.cuh", lesson04_gemm::wrong_first_k_tile::kernel, "correctness",
     "correctness: wrong at K=128 M=64 N=128", "k_tile_not_advanced"},
    {"wrong/unswizzled.cuh", lesson04_gemm::wrong_unswizzled::kernel, "goal",
     "ldmatrix: 12288 wavefronts where 1536 would do (worst 8-way)", "tiles_unswizzled"},
    {"wrong/a_only.cuh", lesson04_gemm::wrong_a_only::kernel, "goal",
     "ldmatrix: 6912 wavefronts where 1536 would do (worst 8-way)", "one_tile_unswizzled"},
    {"wrong/swizzle_32.cuh", lesson04_gemm::wrong_swizzle_32::kernel, "goal",
     "st.shared: 3072 wavefronts where 768 would do (worst 4-way)", "swizzle_narrower_than_row"},
    {"wrong/swizzle_64.cuh", lesson04_gemm::wrong_swizzle_64::kernel, "goal",
     "st.shared: 1536 wavefronts where 768 would do (worst 2-way)", "swizzle_narrower_than_row"},
};

// The banks (of 32) that the 16-byte pieces at column `col` of rows r0..r0+7
// cover: what one ldmatrix phase reads.
template <typename Tile>
std::set<int> phase_banks(int r0, int col) {
    std::set<int> b;
    for (int r = r0; r < r0 + 8; ++r)
        for (int w = 0; w < 4; ++w) b.insert(int((Tile::offset(r, col) / 4 + uint32_t(w)) % 32));
    return b;
}

} // namespace

TEST_CASE("lesson 4, part 2: with the 128-byte swizzle every ldmatrix phase covers all 32 banks", "[lessons][lesson04]") {
    using swizzled = tk::st_bf<64, 64, tk::swizzle::b128>;
    using plain = tk::st_bf<64, 64, tk::swizzle::none>;
    for (int r0 = 0; r0 < 64; r0 += 8)
        for (int col = 0; col < 64; col += 8) {
            CHECK(phase_banks<swizzled>(r0, col).size() == 32);
            CHECK(phase_banks<plain>(r0, col).size() == 4);  // 8 rows in the same 4 banks: 8-way
        }
}

TEST_CASE("lesson 4, part 2: the solution passes the check, goal included", "[lessons][lesson04]") {
    const auto res = check_kernel(lesson04_gemm::solution::kernel);
    INFO(res.report);
    CHECK(res.passed);
    CHECK(res.report.find("correct at K=192 M=128 N=64") != std::string::npos);
    CHECK(res.report.find("goal met: no bank conflicts") != std::string::npos);
}

TEST_CASE("lesson 4, part 2: the exercise as shipped fails on the goal", "[lessons][lesson04]") {
    const auto res = check_kernel(lesson04_gemm::exercise::kernel);
    INFO(res.report);
    CHECK_FALSE(res.passed);
    CHECK(res.part == "goal");
    CHECK(res.report.find("ldmatrix: 12288 wavefronts where 1536 would do (worst 8-way)") != std::string::npos);
    // Both tiles unswizzled: that is what the check says is likely.
    CHECK(res.mistake == "tiles_unswizzled");
}

TEST_CASE("lesson 4, part 2: every known-wrong kernel fails with its message", "[lessons][lesson04]") {
    lesson_tests::check_known_wrong("lessons/04_bank_conflicts/part2_gemm", known_wrong, check_kernel);
}

TEST_CASE("lesson 4, part 2: every known mistake has its hint and a kernel that shows it", "[lessons][lesson04]") {
    lesson_tests::check_mistakes("lessons/04_bank_conflicts/part2_gemm", lesson04_gemm::mistakes(), known_wrong);
}

TEST_CASE("lesson 4, part 2: the known-wrong list covers part2_gemm/wrong/", "[lessons][lesson04]") {
    lesson_tests::check_list_covers_wrong_folder("lessons/04_bank_conflicts/part2_gemm", known_wrong);
}
