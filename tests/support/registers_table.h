// The committed registers table (results/registers_sm90a.txt, written by
// scripts/registers/table.sh) as rows, and a text file as one line, for tests
// that check a README's figures against it.
#pragma once
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace registers_table {

inline const std::filesystem::path kRoot = std::filesystem::path(__FILE__).parent_path().parent_path().parent_path();

inline std::vector<std::string> lines_of(const std::filesystem::path& p) {
    std::ifstream in(p);
    REQUIRE(in.good());
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

inline std::vector<std::string> words(const std::string& line) {
    std::istringstream s(line);
    return {std::istream_iterator<std::string>(s), {}};
}

// A file as one line, each run of spaces and line breaks one space: a figure
// the text wraps (and indents, as in a list) is still found whole.
inline std::string one_line(const std::filesystem::path& p) {
    std::string text;
    for (const std::string& line : lines_of(p))
        for (char c : line + ' ')
            if (c != ' ' || (!text.empty() && text.back() != ' ')) text += c;
    return text;
}

// The table's rows: program, variant (with its size, when not the default),
// kernel, ptxas, local, tiles, loaded, addresses, estimate, error.
struct Row { std::string program, variant, kernel; int ptxas = 0, tiles = 0, estimate = 0; };

inline std::vector<Row> rows() {
    std::vector<Row> out;
    for (const std::string& line : lines_of(kRoot / "results" / "registers_sm90a.txt")) {
        if (line.empty() || line[0] == '#' || line.rfind("program ", 0) == 0 || line.rfind("summary:", 0) == 0) continue;
        std::vector<std::string> w = words(line);
        REQUIRE(w.size() >= 10);
        // A size (B=..., rows=...) is part of the variant.
        std::string variant = w[1];
        size_t k = 2;
        if (w.size() == 11) variant += " " + w[k++];
        out.push_back({w[0], variant, w[k], std::stoi(w[k + 1]), std::stoi(w[k + 3]), std::stoi(w[k + 6])});
    }
    return out;
}

inline const Row& row(const std::vector<Row>& rows, const std::string& program, const std::string& variant, const std::string& kernel) {
    for (const Row& r : rows)
        if (r.program == program && r.variant == variant && r.kernel == kernel) return r;
    FAIL("results/registers_sm90a.txt has no row for " << program << " " << variant << " " << kernel);
    return rows.front();
}

} // namespace registers_table
