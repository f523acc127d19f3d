#include "lessons/framework/diagnosis.h"
#include <algorithm>
#include <bit>
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

bool Symptom::within_tolerance(double g, double w) const { return std::abs(g - w) <= tolerance * std::max(std::abs(w), 1.0); }

bool Symptom::every_wrong_element(const std::function<bool(int, int, double, double)>& fits) const {
    if (part != "correctness" || !got || !want || wrong == 0 || got->size() != want->size() || cols <= 0) return false;
    for (size_t k = 0; k < want->size(); ++k) {
        const double g = (*got)[k], w = (*want)[k];
        if (!within_tolerance(g, w) && !fits(int(k / size_t(cols)), int(k % size_t(cols)), g, w)) return false;
    }
    return true;
}

bool Symptom::every_wrong_row(const std::function<bool(const float*, const double*, size_t)>& fits) const {
    if (part != "correctness" || !got || !want || wrong == 0 || got->size() != want->size() || cols <= 0) return false;
    const size_t n = size_t(cols);
    for (size_t first = 0; first + n <= want->size(); first += n) {
        const float* g = got->data() + first;
        const double* w = want->data() + first;
        bool bad = false;
        for (size_t c = 0; c < n && !bad; ++c) bad = !within_tolerance(g[c], w[c]);
        if (bad && !fits(g, w, n)) return false;
    }
    return true;
}

bool Symptom::all_bf16_values() const {
    if (!got || got->empty()) return false;
    for (float v : *got)
        if (!std::isfinite(v) || (std::bit_cast<uint32_t>(v) & 0xffffu) != 0) return false;
    return true;
}

bool Symptom::whole_row_bands_unstored(int band_rows) const {
    if (part != "correctness" || !got || wrong == 0 || wrong == total || nan != wrong || band_rows <= 0 || cols <= 0) return false;
    const size_t band = size_t(band_rows) * size_t(cols);
    for (size_t first = 0; first < got->size(); first += band) {
        size_t n = 0;
        const size_t end = std::min(first + band, got->size());
        for (size_t k = first; k < end; ++k) n += std::isnan((*got)[k]) ? 1 : 0;
        if (n != 0 && n != end - first) return false;
    }
    return true;
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
    s.tolerance = tolerance;
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
