#include "lessons/framework/diagnosis.h"
#include <cmath>
#include <fstream>
#include <regex>
#include <set>

namespace tklab::lessons {

bool Symptom::says(std::string_view text) const {
    return message.find(text) != std::string::npos || goal_why.find(text) != std::string::npos ||
           report.find(text) != std::string::npos;
}

bool Symptom::line_has(std::string_view text) const { return code.find(text) != std::string::npos; }

bool Symptom::names_line_with(std::string_view text) const {
    for (const std::string& c : named_code)
        if (c.find(text) != std::string::npos) return true;
    return false;
}

uint64_t Symptom::ops(sim::Op op) const {
    uint64_t n = 0;
    if (run)
        for (const sim::BlockTrace& b : run->blocks)
            for (const sim::Event& e : b.events) n += e.op == op ? 1 : 0;
    return n;
}

std::vector<std::string> named_source_lines(const std::string& message) {
    static const std::regex file_line(R"(([A-Za-z0-9_./+-]+\.(?:cuh|cu|h|hpp|cpp)):([0-9]+))");
    std::vector<std::string> out;
    for (auto it = std::sregex_iterator(message.begin(), message.end(), file_line); it != std::sregex_iterator(); ++it)
        out.push_back(source_line((*it)[1].str(), std::atoi((*it)[2].str().c_str())));
    return out;
}

std::string source_line(const std::string& file, int line) {
    if (file.empty() || line <= 0) return "";
    std::ifstream in(file);
    if (!in.good()) in = std::ifstream(std::string(TKLAB_SOURCE_DIR) + "/" + file);
    std::string text;
    for (int n = 1; std::getline(in, text); ++n)
        if (n == line) {
            const size_t a = text.find_first_not_of(" \t");
            if (a == std::string::npos) return "";
            return text.substr(a, text.find_last_not_of(" \t\r") - a + 1);
        }
    return "";
}

void describe_output(Symptom& s, const std::vector<float>& got, const std::vector<double>& want, double tolerance,
                     int rows, int cols) {
    s.got = &got;
    s.want = &want;
    s.total = want.size();
    s.rows = rows > 0 ? rows : 1;
    s.cols = cols > 0 ? cols : int(want.size());
    std::set<int> bad_rows, bad_cols;
    double ratio = NAN;
    bool same_ratio = true;
    for (size_t k = 0; k < want.size(); ++k) {
        const double g = k < got.size() ? double(got[k]) : NAN;
        const double e = std::abs(g - want[k]) / std::max(std::abs(want[k]), 1.0);
        if (!(std::isnan(e) || e > tolerance)) continue;
        ++s.wrong;
        s.nan += std::isnan(g) ? 1 : 0;
        s.inf += std::isinf(g) ? 1 : 0;
        s.zero += g == 0 ? 1 : 0;
        bad_rows.insert(int(k / size_t(s.cols)));
        bad_cols.insert(int(k % size_t(s.cols)));
        // A constant factor: only where the expected value is far from 0.
        if (std::abs(want[k]) > 1e-3 && std::isfinite(g)) {
            const double r = g / want[k];
            if (std::isnan(ratio)) ratio = r;
            else if (std::abs(r - ratio) > 0.01 * std::max(std::abs(ratio), 1e-6)) same_ratio = false;
        } else if (!std::isfinite(g)) {
            same_ratio = false;
        }
    }
    s.wrong_rows = int(bad_rows.size());
    s.wrong_cols = int(bad_cols.size());
    if (s.wrong > 0 && same_ratio && !std::isnan(ratio)) s.scale = ratio;
    if (s.rows == s.cols && s.rows > 1 && got.size() == want.size() && s.wrong > 0) {
        bool t = true;
        for (int r = 0; r < s.rows && t; ++r)
            for (int c = 0; c < s.cols && t; ++c) {
                const double g = got[size_t(r) * size_t(s.cols) + size_t(c)], w = want[size_t(c) * size_t(s.cols) + size_t(r)];
                t = std::abs(g - w) <= tolerance * std::max(std::abs(w), 1.0);
            }
        s.transposed = t;
    }
}

const Mistake* diagnose(const std::vector<Mistake>& lesson_mistakes, const Symptom& s) {
    for (const Mistake& m : lesson_mistakes)
        if (m.seen && m.seen(s)) return &m;
    // The framework's own: a kernel that stores nothing leaves every element
    // as the output's fill, NaN. Lessons name it "nothing_stored" to give it
    // their own words; this is what any lesson says otherwise.
    static const Mistake nothing_stored{
        "nothing_stored", [](const Symptom& x) { return x.part == "correctness" && x.all_nan(); },
        "the kernel stores nothing yet: every element still holds the output's fill (NaN). Write the result with a "
        "store to global memory (the exercise's holes say where)."};
    if (nothing_stored.seen(s)) return &nothing_stored;
    return nullptr;
}

} // namespace tklab::lessons
