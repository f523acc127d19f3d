// Lesson-aware diagnosis: when a check fails, what the failure looked like
// (a Symptom) is matched against the lesson's known mistakes, and the first
// that fits is named in the report with what the student most likely did and
// how to fix it, in the lesson's own terms. `tklab lesson hint` then serves
// that mistake's hint (hints.md, a section tagged "<!-- mistake: NAME -->")
// before the lesson's general hints.
//
// A mistake is recognised by what it does, never by the file it is in: the
// simulator's finding and the source text of the line it names, the wrong
// elements' pattern, or the missed goal. The known-wrong kernels
// (lessons/NN_name/wrong/) are examples of the mistakes, and the lessons'
// tests check that each is diagnosed as the mistake it shows.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include "sim/simulator.h"
#include "tk/host/registry.h"

namespace tklab::lessons {

struct Symptom {
    std::string part;         // the failing part: "correctness", "error" or "goal"
    std::string report;       // the check's report, up to and including the failure
    tk::host::dims_t dims;    // the size that failed (correctness, error)

    // "error": the simulator stopped the kernel (a fault, a finding, a deadlock).
    std::optional<sim::ErrorKind> error;
    std::string message;      // the simulator's message
    std::string file;         // the kernel file it names, from the project root
    int line = 0;             // and the line
    std::string code;         // that line's source text, trimmed ("" when it cannot be read)
    std::vector<std::string> named_code;  // the source text of every kernel line the message names
                                          // (a deadlock names each warp's waiting line)

    // "correctness": the output against the CPU reference.
    size_t total = 0, wrong = 0;  // elements, and those beyond the tolerance
    size_t nan = 0;           // wrong elements that are NaN (never stored, or NaN computed)
    size_t inf = 0;           // wrong elements that are +-inf
    size_t zero = 0;          // wrong elements that are exactly 0
    int rows = 0, cols = 0;   // the output's shape (1 x n when the lesson gives none)
    double tolerance = 0;     // the check's limit on an element's error (relative; absolute below 1)
    int wrong_rows = 0, wrong_cols = 0;  // rows and columns holding a wrong element
    std::optional<double> scale;  // yours / expected, the same (within 1%) for every wrong element
    bool transposed = false;      // the output is the expected one transposed (square outputs)
    const std::vector<float>* got = nullptr;    // the output, for a lesson's own matcher
    const std::vector<double>* want = nullptr;  // the CPU reference

    // "goal": the performance goal missed.
    std::string goal;         // its `what`
    std::string goal_why;     // why it was missed

    const sim::RunResult* run = nullptr;  // the last launch (error, goal; correctness too)

    // Helpers for matchers.
    bool says(std::string_view text) const;       // the message, the goal's why or the report holds `text`
    bool line_has(std::string_view text) const;   // the named line's source holds `text`
    bool names_line_with(std::string_view text) const;  // some line the message names holds `text`
    uint64_t ops(sim::Op op) const;               // the run's instructions of `op`, over its kept blocks
    bool all_nan() const { return total > 0 && wrong == total && nan == total; }
    double wrong_share() const { return total ? double(wrong) / double(total) : 0; }
    // The output's pattern, element by element (all false unless the output is what failed):
    bool within_tolerance(double got, double want) const;  // as the check judges one element
    // Every wrong element (its row, column, value and expected value) fits `fits`.
    bool every_wrong_element(const std::function<bool(int row, int col, double got, double want)>& fits) const;
    // Every row holding a wrong element fits `fits` (its `cols` values and expected values).
    bool every_wrong_row(const std::function<bool(const float* got, const double* want, size_t cols)>& fits) const;
    bool all_bf16_values() const;  // every value is finite and a bf16 widened to float (low 16 bits 0)
    // Some bands of `band_rows` rows hold nothing but NaN and every other band
    // is right: those bands were never stored (no warp took them).
    bool whole_row_bands_unstored(int band_rows) const;
};

struct Mistake {
    std::string name;     // its hint's tag in hints.md, e.g. "parity_k_mod_2"
    std::function<bool(const Symptom&)> seen;  // does the failure look like this mistake?
    std::string likely;   // what the student most likely did, and the fix
};

// The first of the lesson's mistakes that fits, else the framework's own
// (nothing stored at all); nullptr when none does.
const Mistake* diagnose(const std::vector<Mistake>& lesson_mistakes, const Symptom& s);

// Fills the correctness fields from the output and the reference.
void describe_output(Symptom& s, const std::vector<float>& got, const std::vector<double>& want, double tolerance,
                     int rows, int cols);

// The source text of `line` in `file` (absolute, or from the project root), trimmed.
std::string source_line(const std::string& file, int line);
// The source text of every "file.cuh:LINE" a message names, in order.
std::vector<std::string> named_source_lines(const std::string& message);

} // namespace tklab::lessons
