// Lesson 6's check, checked: the solution passes, the exercise as shipped
// (64x64 warp tiles) fails on occupancy, and every known-wrong kernel in
// lessons/06_register_pressure/wrong/ fails with the message its first line
// ("// expect: TEXT") promises. Also: the numbers the README's table gives for
// the three warp tiles are what the simulator measures.
#include <catch2/catch.hpp>

#include "support/known_wrong.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "lessons/06_register_pressure/lesson.cuh"
#include "lessons/06_register_pressure/exercise.cuh"
#include "lessons/06_register_pressure/solution.cuh"
#include "lessons/06_register_pressure/wrong/bf16_accumulator.cuh"
#include "lessons/06_register_pressure/wrong/empty.cuh"
#include "lessons/06_register_pressure/wrong/region_stride.cuh"
#include "lessons/06_register_pressure/wrong/too_big.cuh"
#include "lessons/06_register_pressure/wrong/too_small.cuh"
#include "sim/simulator.h"

namespace {

// lesson 6's check on one kernel, as `tklab lesson check 6` would run it.
tklab::lessons::CheckResult check_kernel(lesson06::kernel_fn kernel) {
    const tk::host::program p = tk::host::make_program(lesson06::program_def({{"under_test", kernel}}));
    return tklab::lessons::check(lesson06::lesson(), p, "under_test");
}

using KnownWrong = lesson_tests::KnownWrong<lesson06::kernel_fn>;

const KnownWrong known_wrong[] = {
    {"wrong/empty.cuh", lesson06::wrong_empty::kernel, "correctness",
     "16384 of 16384 elements differ from the CPU reference (largest error inf", "nothing_stored"},
    {"wrong/region_stride.cuh", lesson06::wrong_region_stride::kernel, "correctness",
     "4096 of 16384 elements differ from the CPU reference (largest error inf", "regions_miss_part_of_c"},
    {"wrong/bf16_accumulator.cuh", lesson06::wrong_bf16_accumulator::kernel, "correctness",
     "correctness: wrong at K=16 M=128 N=128", "bf16_accumulator"},
    {"wrong/too_small.cuh", lesson06::wrong_too_small::kernel, "goal",
     "the slowest block took 25383 cycles (goal: at most 13500)", "warp_tile_too_small"},
    {"wrong/too_big.cuh", lesson06::wrong_too_big::kernel, "goal",
     "2 blocks fit on an SM, limited by registers (goal: at least 4); 160 tile registers per thread", "warp_tile_too_big"},
};

struct Cost {
    int tile_registers, blocks_per_sm;
    uint64_t cycles;
    double memory_wait;  // long-scoreboard stalls over block cycles x warps, as lesson 5's goal counts
    int estimate, loop_addresses;  // the register estimate, and the K loop's loads in it
    uint64_t l1_hit_bytes, l2_bytes;  // the loads' sectors L1 served, and what went to L2
    uint64_t kernel_cycles;           // the estimated kernel time, launch included
    // The README's last column: blocks an SM could finish per 1000 cycles.
    double per_1000() const { return 1000.0 * blocks_per_sm / double(cycles); }
};

std::string fixed(const char* f, double v) {
    char b[32];
    std::snprintf(b, sizeof b, f, v);
    return b;
}



// One run of `kernel` at the check's last size: what README.md's table lists.
Cost cost_of(lesson06::kernel_fn kernel) {
    const tk::host::program p = tk::host::make_program(lesson06::program_def({{"under_test", kernel}}));
    auto c = p.make(p.resolve(lesson06::lesson().sizes.back()), 1);
    c->run("under_test");
    const tklab::sim::Stats& s = tklab::sim::last_run().stats;
    const auto& r = tklab::sim::last_run();
    const double warps = double((r.block.x * r.block.y * r.block.z + 31) / 32);
    return {s.peak_regs, s.blocks_per_sm, s.max_block_cycles,
            double(s.stall_cycles[size_t(tklab::sim::Stall::long_scoreboard)]) / (double(s.sum_block_cycles) * warps),
            s.estimated_registers, s.loop_addresses, s.l1_hit_bytes, s.global_bytes - s.global_write_bytes, s.est_kernel_cycles};
}

} // namespace

TEST_CASE("lesson 6: the solution passes the check, goal included", "[lessons][lesson06]") {
    const auto res = check_kernel(lesson06::solution::kernel);
    INFO(res.report);
    CHECK(res.passed);
    CHECK(res.report.find("correct at K=80 M=256 N=128") != std::string::npos);
    CHECK(res.report.find("goal met: at least 4 blocks resident per SM") != std::string::npos);
    CHECK(res.report.find("goal met: the slowest block within 13500 simulated cycles") != std::string::npos);
}

TEST_CASE("lesson 6: the exercise as shipped is correct and fails the occupancy goal", "[lessons][lesson06]") {
    const auto res = check_kernel(lesson06::exercise::kernel);
    INFO(res.report);
    CHECK_FALSE(res.passed);
    CHECK(res.part == "goal");
    CHECK(res.report.find("correct at K=64 M=256 N=256") != std::string::npos);
    CHECK(res.report.find("limited by registers") != std::string::npos);
    // 64x64 warp tiles: that is what the check says is likely.
    CHECK(res.mistake == "warp_tile_too_big");
}

TEST_CASE("lesson 6: what the three warp tiles cost, as README.md's table says", "[lessons][lesson06]") {
    const Cost t16 = cost_of(lesson06::solution::gemm<16, 16>);
    const Cost t32 = cost_of(lesson06::solution::gemm<32, 32>);
    const Cost t64 = cost_of(lesson06::solution::gemm<64, 64>);
    CHECK(t16.tile_registers == 16);
    CHECK(t32.tile_registers == 48);
    CHECK(t64.tile_registers == 160);
    CHECK(t16.blocks_per_sm == 9);
    CHECK(t32.blocks_per_sm == 5);
    CHECK(t64.blocks_per_sm == 2);
    // Each row of the table: cycles, memory wait and blocks per 1000 cycles.
    const std::string readme = lesson_tests::readme_one_line("lessons/06_register_pressure");
    for (const auto& [c, name] : {std::pair{t16, "| 16 x 16 "}, {t32, "| 32 x 32 "}, {t64, "| 64 x 64 "}}) {
        const size_t row = readme.find(name);
        REQUIRE(row != std::string::npos);
        const std::string text = readme.substr(row, readme.find(" | ", readme.find("% ", row)) + 40 - row);
        INFO(text << "\n  should hold " << c.cycles << ", " << fixed("%.0f%%", 100 * c.memory_wait) << " and " << fixed("%.2f", c.per_1000()));
        CHECK(text.find("| " + std::to_string(c.cycles) + " ") != std::string::npos);
        // The estimate's column: total (+ loop addresses + base).
        CHECK(text.find("| " + std::to_string(c.estimate) + " (+ " + std::to_string(c.loop_addresses) + " + 24) ") != std::string::npos);
        CHECK(text.find("| " + fixed("%.0f%%", 100 * c.memory_wait) + " ") != std::string::npos);
        CHECK(text.find(fixed("%.2f", c.per_1000())) != std::string::npos);
    }
    INFO("README: " << fixed("%.1f", double(t16.cycles) / double(t32.cycles)) << " times as long");
    CHECK(readme.find("takes " + fixed("%.1f", double(t16.cycles) / double(t32.cycles)) + " times as long as with 32 x 32") != std::string::npos);
    CHECK(readme.find("(5 blocks, " + std::to_string(t32.cycles) + " cycles)") != std::string::npos);
    CHECK(readme.find("and " + std::to_string(t16.cycles) + " cycles: it misses") != std::string::npos);
    // L1 serves the small tiles' repeated strips; every tile size sends the same to L2.
    auto mb = [](uint64_t bytes) { return fixed("%.2f", double(bytes) / 1e6) + " MB"; };
    const std::string l1 = mb(t16.l1_hit_bytes) + " of the 16 x 16 kernel's loaded sectors come from L1 and " + mb(t16.l2_bytes) + " from L2";
    INFO("README: " << l1);
    CHECK(readme.find(l1) != std::string::npos);
    CHECK(t32.l2_bytes == t16.l2_bytes);
    CHECK(t64.l2_bytes == t16.l2_bytes);
    CHECK(readme.find("Every tile size sends the same " + mb(t16.l2_bytes) + " to L2") != std::string::npos);
    CHECK(t16.memory_wait < t32.memory_wait);
    // The compare panel of 32 x 32 (A) against 64 x 64 (B).
    const std::string faster = "B is " + fixed("%.1f", double(t32.cycles) / double(t64.cycles)) + " times faster per block (" +
                               fixed("%.2f", double(t32.kernel_cycles) / double(t64.kernel_cycles)) + " by the kernel's estimated cycles";
    INFO("README: " << faster);
    CHECK(readme.find(faster) != std::string::npos);
    CHECK(t16.l1_hit_bytes > t32.l1_hit_bytes);
    CHECK(t32.l1_hit_bytes > t64.l1_hit_bytes);
    // With ptxas's registers (64, 96 and 255: 8, 5 and 2 blocks per SM), the same cycles.
    const std::string with_ptxas = "blocks per SM are 8, 5 and 2 (the balance column becomes " + fixed("%.2f", 8000.0 / double(t16.cycles)) + ", " +
                                   fixed("%.2f", 5000.0 / double(t32.cycles)) + " and " + fixed("%.2f", 2000.0 / double(t64.cycles)) + ")";
    INFO("README: " << with_ptxas);
    CHECK(readme.find(with_ptxas) != std::string::npos);
    // The rectangular tiles, as the README's text and the goal's comment say.
    const Cost t32x64 = cost_of(lesson06::solution::gemm<32, 64>), t64x32 = cost_of(lesson06::solution::gemm<64, 32>);
    const Cost t16x32 = cost_of(lesson06::solution::gemm<16, 32>), t32x16 = cost_of(lesson06::solution::gemm<32, 16>);
    const Cost t16x64 = cost_of(lesson06::solution::gemm<16, 64>), t64x16 = cost_of(lesson06::solution::gemm<64, 16>);
    CHECK(t32x64.tile_registers == 88);
    CHECK(t64x32.tile_registers == 88);
    CHECK(t32x64.blocks_per_sm == 3);
    CHECK(t64x32.blocks_per_sm == 3);
    CHECK(t16x32.tile_registers == 28);
    CHECK(t32x16.tile_registers == 28);
    CHECK(t16x32.blocks_per_sm == 7);
    CHECK(t32x16.blocks_per_sm == 7);
    // "about 6500 cycles) make 0.61-0.62": rounded to the hundred, and the two ratios.
    auto hundreds = [](uint64_t c) { return std::to_string((c + 50) / 100 * 100); };
    auto range = [](std::string a, std::string b) { return a == b ? a : a + "-" + b; };
    const std::string rect3 = "3 blocks, about " + range(hundreds(std::min(t32x64.cycles, t64x32.cycles)), hundreds(std::max(t32x64.cycles, t64x32.cycles))) +
                              " cycles) make " + range(fixed("%.2f", std::min(t32x64.per_1000(), t64x32.per_1000())), fixed("%.2f", std::max(t32x64.per_1000(), t64x32.per_1000())));
    const std::string rect7 = "7 blocks, about " + range(hundreds(std::min(t16x32.cycles, t32x16.cycles)), hundreds(std::max(t16x32.cycles, t32x16.cycles))) +
                              " cycles) " + range(fixed("%.2f", std::min(t16x32.per_1000(), t32x16.per_1000())), fixed("%.2f", std::max(t16x32.per_1000(), t32x16.per_1000())));
    INFO("README: " << rect3 << "; " << rect7);
    CHECK(readme.find(rect3) != std::string::npos);
    CHECK(readme.find(rect7) != std::string::npos);
    CHECK(t16x64.blocks_per_sm == 4);
    CHECK(t64x16.blocks_per_sm == 4);
    const std::string just_miss = "(4 blocks, " + std::to_string(t16x64.cycles) + " and " + std::to_string(t64x16.cycles) + " cycles) just miss the cycles";
    INFO("README: " << just_miss);
    CHECK(readme.find(just_miss) != std::string::npos);
    CHECK(t32.cycles <= lesson06::kMaxCycles);
    CHECK(t32x64.blocks_per_sm < lesson06::kMinBlocksPerSm);  // "the blocks"
    CHECK(t64x32.blocks_per_sm < lesson06::kMinBlocksPerSm);
    CHECK(t16x64.cycles > lesson06::kMaxCycles);  // "just miss"
    CHECK(t64x16.cycles > lesson06::kMaxCycles);
    CHECK(t16x32.cycles > lesson06::kMaxCycles);
}

TEST_CASE("lesson 6: every known-wrong kernel fails with its message", "[lessons][lesson06]") {
    lesson_tests::check_known_wrong("lessons/06_register_pressure", known_wrong, check_kernel);
}

TEST_CASE("lesson 6: every known mistake has its hint and a kernel that shows it", "[lessons][lesson06]") {
    lesson_tests::check_mistakes("lessons/06_register_pressure", lesson06::mistakes(), known_wrong);
}

TEST_CASE("lesson 6: the known-wrong list covers lessons/06_register_pressure/wrong/", "[lessons][lesson06]") {
    lesson_tests::check_list_covers_wrong_folder("lessons/06_register_pressure", known_wrong);
}


namespace {
std::string text_of(const std::filesystem::path& p) {
    std::ifstream in(p);
    REQUIRE(in.good());
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}
// The figure in column `col` (whitespace-split) of the first line of `text` that starts with `prefix`.
std::string column_of(const std::string& text, const std::string& prefix, size_t col) {
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind(prefix, 0) != 0) continue;
        std::istringstream words(line);
        std::vector<std::string> w{std::istream_iterator<std::string>(words), {}};
        REQUIRE(w.size() > col);
        return w[col];
    }
    FAIL("no line starts with " << prefix);
    return {};
}
} // namespace

TEST_CASE("lesson 6: the README's compiler and H200 figures are the committed results' (scripts' output)", "[lessons][lesson06]") {
    const auto root = lesson_tests::lesson_dir("");
    const std::string readme = lesson_tests::readme_one_line("lessons/06_register_pressure");
    // ptxas's registers: results/registers_sm90a.txt (scripts/registers/table.sh), column 3.
    const std::string regs = text_of(root / "results" / "registers_sm90a.txt");
    const std::string r16 = column_of(regs, "lesson06       tile16", 3), r32 = column_of(regs, "lesson06       tile32", 3),
                      r64 = column_of(regs, "lesson06       tile64", 3);
    CHECK_THAT(readme, Catch::Contains("gives this kernel " + r16 + ", " + r32 + " and " + r64 + " registers"));
    // And the estimate without nvcc, the table's column 8.
    const std::string e16 = column_of(regs, "lesson06       tile16", 8), e32 = column_of(regs, "lesson06       tile32", 8),
                      e64 = column_of(regs, "lesson06       tile64", 8);
    CHECK_THAT(readme, Catch::Contains("estimate says " + e16 + ", " + e32 + " and " + e64 + " (results/registers_sm90a.txt"));
    // The simulator's and the H200's kernel times at many waves: results/fidelity_timing_h200.txt
    // (scripts/fidelity/timing.sh), its simulator and GPU columns (words 3 and 5), e.g. 79.15 and 88.38,
    // and how much longer 32 x 32 takes than 64 x 64 by each.
    const std::string fid = text_of(root / "results" / "fidelity_timing_h200.txt");
    auto us = [&](const std::string& variant, size_t col) { return column_of(fid, "  many  lesson06       " + variant, col); };
    std::string ratios[2];
    for (size_t col : {3, 5}) {
        INFO("results/fidelity_timing_h200.txt column " << col);
        CHECK_THAT(readme, Catch::Contains(us("tile16", col) + ", " + us("tile32", col) + " and " + us("tile64", col) + " us"));
        ratios[col == 5] = fixed("%.2f", std::stod(us("tile32", col)) / std::stod(us("tile64", col)));
    }
    CHECK_THAT(readme, Catch::Contains("32 x 32 takes " + ratios[0] + " times as long in the simulator, " + ratios[1] + " times on the H200"));
}
