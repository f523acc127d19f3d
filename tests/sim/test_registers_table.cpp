// The committed registers table (results/registers_sm90a.txt, written by
// scripts/registers/table.sh) against what quotes it: it has a row for every
// case the script runs, and sim/README.md's figures are its own.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace {

const std::filesystem::path kRoot = std::filesystem::path(__FILE__).parent_path().parent_path().parent_path();

std::vector<std::string> lines_of(const std::filesystem::path& p) {
    std::ifstream in(p);
    REQUIRE(in.good());
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

std::vector<std::string> words(const std::string& line) {
    std::istringstream s(line);
    return {std::istream_iterator<std::string>(s), {}};
}

// The table's rows: program, variant (with its size, when not the default),
// kernel, ptxas, local, tiles, loaded, addresses, estimate, error.
struct Row { std::string program, variant, kernel; int ptxas = 0, tiles = 0, estimate = 0; };

std::vector<Row> table_rows() {
    std::vector<Row> rows;
    for (const std::string& line : lines_of(kRoot / "results" / "registers_sm90a.txt")) {
        if (line.empty() || line[0] == '#' || line.rfind("program ", 0) == 0 || line.rfind("summary:", 0) == 0) continue;
        std::vector<std::string> w = words(line);
        REQUIRE(w.size() >= 10);
        // A size (B=..., rows=...) is part of the variant.
        std::string variant = w[1];
        size_t k = 2;
        if (w.size() == 11) variant += " " + w[k++];
        rows.push_back({w[0], variant, w[k], std::stoi(w[k + 1]), std::stoi(w[k + 3]), std::stoi(w[k + 6])});
    }
    return rows;
}

const Row& row(const std::vector<Row>& rows, const std::string& program, const std::string& variant, const std::string& kernel) {
    for (const Row& r : rows)
        if (r.program == program && r.variant == variant && r.kernel == kernel) return r;
    FAIL("results/registers_sm90a.txt has no row for " << program << " " << variant << " " << kernel);
    return rows.front();
}

// The file as one line, each run of spaces and line breaks one space: a
// figure the text wraps (and indents) is still found whole.
std::string one_line(const std::filesystem::path& p) {
    std::string text;
    for (const std::string& line : lines_of(p))
        for (char c : line + ' ')
            if (c != ' ' || (!text.empty() && text.back() != ' ')) text += c;
    return text;
}

} // namespace

TEST_CASE("registers table: a row for every case scripts/registers/table.sh runs", "[registers][results]") {
    const std::vector<Row> rows = table_rows();
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
    const std::vector<Row> rows = table_rows();
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
    CHECK_THAT(readme, Catch::Contains(std::to_string(zero.estimate) + " against ptxas's " + std::to_string(zero.ptxas)));
    const Row& sw = row(rows, "gemm", "swizzled", "gemm_swizzled");
    const Row& unsw = row(rows, "gemm", "unswizzled", "gemm_unswizzled");
    REQUIRE(sw.estimate == unsw.estimate);
    CHECK_THAT(readme, Catch::Contains("the swizzled GEMM gets " + std::to_string(sw.ptxas) + " registers and the unswizzled one " +
                                       std::to_string(unsw.ptxas) + " (estimate " + std::to_string(sw.estimate) + " for both"));
    const Row& two = row(rows, "lesson07", "solution", "lesson07");
    const Row& one = row(rows, "lesson07", "one_stage", "lesson07");
    CHECK_THAT(readme, Catch::Contains("lesson 7's two-stage " + std::to_string(two.ptxas) + " and one-stage " + std::to_string(one.ptxas) +
                                       " (" + std::to_string(one.estimate) + ")"));
}
