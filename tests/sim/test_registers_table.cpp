// The committed registers table (results/registers_sm90a.txt, written by
// scripts/registers/table.sh) against what quotes it: it has a row for every
// case the script runs, and sim/README.md's figures are its own.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "sim/cost_model.h"
#include "sim/merge.h"
#include "support/registers_table.h"

using namespace registers_table;

TEST_CASE("registers table: a row for every case scripts/registers/table.sh runs", "[registers][results]") {
    const std::vector<Row> rows = registers_table::rows();
    for (const std::string& line : lines_of(kRoot / "scripts" / "registers" / "cases.txt")) {
        const std::vector<std::string> w = words(line);
        if (w.empty() || w[0][0] == '#') continue;
        REQUIRE(w.size() == 3);
        const std::string variant = w[2] == "-" ? w[1] : w[1] + " " + w[2];
        bool found = false;
        for (const Row& r : rows) found = found || (r.program == w[0] && r.variant == variant);
        INFO("case " << line << ": rerun scripts/registers/table.sh");
        CHECK(found);
    }
}

TEST_CASE("registers table: sim/README.md quotes its summary and its misses", "[registers][results]") {
    const std::vector<Row> rows = registers_table::rows();
    const std::string readme = one_line(kRoot / "sim" / "README.md");
    std::string summary;
    for (const std::string& line : lines_of(kRoot / "results" / "registers_sm90a.txt"))
        if (line.rfind("summary:", 0) == 0) summary = line;
    // "... is 9.1% off ptxas on average, worst 75% (...)"
    const std::vector<std::string> w = words(summary);
    std::string mean, worst;
    for (size_t i = 0; i + 1 < w.size(); ++i) {
        if (w[i + 1] == "off") mean = w[i];
        if (w[i] == "worst") worst = w[i + 1];
    }
    REQUIRE(!mean.empty());
    REQUIRE(!worst.empty());
    CHECK_THAT(readme, Catch::Contains("(results/registers_sm90a.txt: " + mean + " off on average, worst " + worst + ")"));
    const Row& l3 = row(rows, "lesson03", "solution", "lesson03");
    CHECK_THAT(readme, Catch::Contains("ptxas gives the kernel " + std::to_string(l3.ptxas) + " registers for " + std::to_string(l3.tiles) + " of tiles"));
    const Row& zero = row(rows, "lesson12", "solution", "lesson12_zero");
    CHECK_THAT(readme, Catch::Contains("gets its estimate from it: " + std::to_string(zero.estimate) +
                                       (zero.estimate == zero.ptxas ? ", as ptxas" : "")));
    const Row& sw = row(rows, "gemm", "swizzled", "gemm_swizzled");
    const Row& unsw = row(rows, "gemm", "unswizzled", "gemm_unswizzled");
    REQUIRE(sw.estimate == unsw.estimate);
    CHECK_THAT(readme, Catch::Contains("the swizzled GEMM gets " + std::to_string(sw.ptxas) + " registers and the unswizzled one " +
                                       std::to_string(unsw.ptxas) + " (estimate " + std::to_string(sw.estimate) + " for both"));
    const Row& two = row(rows, "lesson07", "solution", "lesson07");
    const Row& one = row(rows, "lesson07", "one_stage", "lesson07");
    CHECK_THAT(readme, Catch::Contains("lesson 7's two-stage " + std::to_string(two.ptxas) + " and one-stage " + std::to_string(one.ptxas) +
                                       " (" + std::to_string(one.estimate) + ")"));
    const Row& l5 = row(rows, "lesson05", "solution", "lesson05");
    const Row& l9 = row(rows, "lesson09", "solution", "lesson09");
    CHECK_THAT(readme, Catch::Contains("lesson 5 with three `tk::region` markers, gets " + std::to_string(l9.ptxas) + " where lesson 5 gets " +
                                       std::to_string(l5.ptxas)));
}

// results/registers_straight_run_sm90a.txt (scripts/registers/straight_run.sh):
// ptxas's registers for probe kernels that store a tile of zeros, beside the
// estimate. Its estimates are the simulator's rule on the shipped cost model,
// and sim/README.md quotes its figures.
TEST_CASE("registers table: the straight-run probes' estimates are the cost model's, and the README quotes them", "[registers][results]") {
    const auto cost = tklab::sim::CostModel::load("h200");
    std::map<std::string, std::pair<int, int>> by_tile;  // float tiles: ptxas, estimate
    int worst_under = 0;  // most percent the estimate is under ptxas's
    for (const std::string& line : lines_of(kRoot / "results" / "registers_straight_run_sm90a.txt")) {
        if (line.empty() || line[0] == '#' || line.rfind("output ", 0) == 0) continue;
        const std::vector<std::string> w = words(line);
        REQUIRE(w.size() == 6);
        const int stores = std::stoi(w[2]), ptxas = std::stoi(w[3]), estimate = std::stoi(w[4]);
        INFO(line << ": rerun scripts/registers/straight_run.sh");
        CHECK(estimate == std::max(cost.base_registers_per_thread, tklab::sim::run_address_registers(cost, stores)));
        if (w[0] == "float") by_tile[w[1]] = {ptxas, estimate};
        worst_under = std::max(worst_under, int(std::lround(100.0 * (ptxas - estimate) / ptxas)));
    }
    REQUIRE(by_tile.size() == 5);
    const std::string readme = one_line(kRoot / "sim" / "README.md");
    CHECK_THAT(readme, Catch::Contains("4 and 8 stores take " + std::to_string(by_tile["16x16"].first) + " and " +
                                       std::to_string(by_tile["16x32"].first) + " registers, 16 take " +
                                       std::to_string(by_tile["32x32"].first)));
    CHECK_THAT(readme, Catch::Contains("a 32x64 tile of zeros stored: " + std::to_string(by_tile["32x64"].first) + ", a 64x64 one " +
                                       std::to_string(by_tile["64x64"].first)));
    CHECK_THAT(readme, Catch::Contains("the estimate up to " + std::to_string(worst_under) + "% under ptxas's"));
}
