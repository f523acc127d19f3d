// A workshop lesson, as the checker sees it: which runnable program holds its
// kernels (variants "exercise" and "solution"), the sizes its check runs at,
// the shape of its output (to name mismatching elements by row and column),
// and its performance goal in simulated terms. Simulator only: goals read the
// simulator's statistics.
//
//   TKLAB_LESSON(lesson01, tklab::lessons::Lesson{
//       .number = 1, .folder = "lessons/01_tiles", .title = "Tiles and warps",
//       .program = "lesson01",
//       .sizes = {{{"R", 16}, {"C", 16}}, {{"R", 48}, {"C", 80}}},
//       .shape = [](const tk::host::dims_t& d) { return std::pair{d.at("R"), d.at("C")}; },
//       .goals = {tklab::lessons::no_bank_conflicts()}});
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>
#include "lessons/framework/diagnosis.h"
#include "sim/events.h"
#include "tk/host/registry.h"

namespace tklab::lessons {

// A performance goal: what it asks, and why a run misses it (nothing when met).
struct Goal {
    std::string what;  // "no bank conflicts in shared-memory loads and stores"
    std::function<std::optional<std::string>(const sim::RunResult&)> missed;
};

// Goals most lessons use.
Goal no_bank_conflicts();                    // every shared-memory instruction kind
Goal max_barrier_wait_share(double share);   // barrier waits below this share of warp time
Goal max_registers(int per_thread);          // live tile registers per thread at the peak
Goal max_cycles(uint64_t cycles);            // the slowest block's simulated cycles
Goal max_memory_wait_share(double share);    // waits for global / cp.async data below this share of warp time
Goal min_blocks_per_sm(int blocks);          // occupancy: blocks resident per SM, from threads, registers, shared memory

// What `tklab lesson check` prints and decides.
struct CheckResult {
    bool passed = false;
    std::string part;    // "correctness", "goal", "error" when failed
    std::string report;  // the lines to print
    std::string mistake = {};  // when failed: the known mistake diagnosed (diagnosis.h), "" for none
};

// Why a wrong output is wrong, in the lesson's own terms (lesson 12: C holds
// one slice's partial product, or some k-steps are counted twice): given the
// size, the inputs' seed, the kernel's output and the CPU reference, lines
// the check prints under the mismatches ("  why: ...\n  fix: ...\n"), or ""
// when it has nothing to say. Runs after the variant's launches, so
// sim::last_run() is the variant's last launch.
using Explain = std::function<std::string(const tk::host::dims_t&, unsigned seed, const std::vector<float>& got,
                                          const std::vector<double>& want)>;

// A part of a lesson after the first (lesson 4: a transpose, then a GEMM):
// its own program, exercise file, sizes and goals. The check takes the parts
// in order and stops at the first that fails.
struct Part {
    std::string title;     // "A GEMM whose ldmatrix loads conflict"
    std::string program;
    std::string exercise = "exercise.cuh";  // the file the student edits, in the lesson's folder
    std::string solution = "solution.cuh";
    std::vector<tk::host::dims_t> sizes;
    std::function<std::pair<int, int>(const tk::host::dims_t&)> shape;
    std::vector<Goal> goals;
    // A part whose work is not a kernel but answers read off traces (lesson
    // 9: the simulator's timeline beside a GPU's): when set, the check calls
    // this instead of running the sizes and goals; `variant` is "exercise"
    // (the student's answer file) or "solution".
    std::function<CheckResult(const Part&, const tk::host::program&, const std::string& variant, unsigned seed)> custom_check;
    // A trace in the lesson's folder that `tklab lesson run` opens beside
    // the run's own (lesson 9: an H100's run of the same kernel).
    std::string beside;
    Explain explain = {};  // optional
    // The part's known mistakes, most specific first (diagnosis.h): a failed
    // check names the first that fits, and `tklab lesson hint` serves its hint.
    std::vector<Mistake> mistakes = {};
};

struct Lesson {
    int number = 0;
    std::string folder;    // "lessons/01_tiles", from the project root
    std::string title;
    std::string program;   // the registry program with variants "exercise" and "solution"
    std::vector<tk::host::dims_t> sizes;  // the check runs at each, small and odd ones first
    // rows x cols of the output for a size, to name a wrong element's place.
    std::function<std::pair<int, int>(const tk::host::dims_t&)> shape;
    std::vector<Goal> goals;  // checked on the last size's run
    Explain explain = {};     // optional: why a wrong output is wrong
    std::vector<Mistake> mistakes = {};  // the first part's known mistakes (Part::mistakes)
};

// Every part of a lesson, the first made from the lesson's own fields, the
// others added with TKLAB_LESSON_PARTS.
std::vector<Part> parts(const Lesson& l);
bool add_parts(int lesson, std::string first_part_title, std::vector<Part> more);

std::vector<Lesson>& lessons();  // in number order
const Lesson* find_lesson(int number);
bool add_lesson(Lesson l);


// Runs `variant` of the lesson's program at every size with `seed` and
// compares with the CPU reference; then the goals. Never throws: a simulator
// error (a fault, a deadlock) is a failed check with its message.
CheckResult check(const Part& part, const tk::host::program& p, const std::string& variant, unsigned seed = 1);
// The first part (all of a one-part lesson).
CheckResult check(const Lesson& l, const tk::host::program& p, const std::string& variant, unsigned seed = 1);

} // namespace tklab::lessons

#define TKLAB_LESSON(id, ...) static const bool tklab_lesson_##id = ::tklab::lessons::add_lesson(__VA_ARGS__)
// A lesson's parts after the first: TKLAB_LESSON_PARTS(lesson04, 4, "a transpose", {lesson04_gemm::part()}).
#define TKLAB_LESSON_PARTS(id, number, ...) \
    static const bool tklab_lesson_parts_##id = ::tklab::lessons::add_parts(number, __VA_ARGS__)
