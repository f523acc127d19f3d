// Lesson 11's check, checked: the solution passes; the exercise as shipped
// fails, and fixing its three bugs one at a time (the known-wrong kernels
// no_halo, no_second_sync and count_threads each hold one of them alone)
// moves the failure to the next finder; every known-wrong kernel in
// lessons/11_finding_bugs/wrong/ fails with the message its first line
// ("// expect: TEXT") promises; and the finders' messages README.md quotes
// are the tool's, word for word.
#include <catch2/catch.hpp>

#include "support/known_wrong.h"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "lessons/11_finding_bugs/lesson.cuh"
#include "lessons/11_finding_bugs/exercise.cuh"
#include "lessons/11_finding_bugs/solution.cuh"
#include "lessons/11_finding_bugs/wrong/count_threads.cuh"
#include "lessons/11_finding_bugs/wrong/empty.cuh"
#include "lessons/11_finding_bugs/wrong/every_lane_arrives.cuh"
#include "lessons/11_finding_bugs/wrong/fixed_1.cuh"
#include "lessons/11_finding_bugs/wrong/fixed_1_2.cuh"
#include "lessons/11_finding_bugs/wrong/halo_past_the_end.cuh"
#include "lessons/11_finding_bugs/wrong/no_first_sync.cuh"
#include "lessons/11_finding_bugs/wrong/no_halo.cuh"
#include "lessons/11_finding_bugs/wrong/no_second_sync.cuh"
#include "lessons/11_finding_bugs/wrong/wait_parity_1.cuh"
#include "sim/simulator.h"

namespace {

// lesson 11's check on one kernel, as `tklab lesson check 11` would run it.
tklab::lessons::CheckResult check_kernel(lesson11::kernel_fn kernel) {
    const tk::host::program p = tk::host::make_program(lesson11::program_def({{"under_test", kernel}}));
    return tklab::lessons::check(lesson11::lesson(), p, "under_test");
}

using KnownWrong = lesson_tests::KnownWrong<lesson11::kernel_fn>;

const KnownWrong known_wrong[] = {
    {"wrong/fixed_1.cuh", lesson11::wrong_fixed_1::kernel, "error", "fixed_1.cuh:22: error: shared-memory race (write after read)",
     "stage_refilled_while_read"},
    {"wrong/fixed_1_2.cuh", lesson11::wrong_fixed_1_2::kernel, "error", "fixed_1_2.cuh:78: error: synchronisation misuse in kernel lesson11",
     "count_not_arrivals"},
    {"wrong/no_halo.cuh", lesson11::wrong_no_halo::kernel, "error", "no_halo.cuh:44: error: read of shared memory nothing wrote",
     "halo_not_copied"},
    {"wrong/no_second_sync.cuh", lesson11::wrong_no_second_sync::kernel, "error",
     "no_second_sync.cuh:18: error: shared-memory race (write after read)", "stage_refilled_while_read"},
    {"wrong/count_threads.cuh", lesson11::wrong_count_threads::kernel, "error",
     "count_threads.cuh:56: error: synchronisation misuse in kernel lesson11", "count_not_arrivals"},
    {"wrong/no_first_sync.cuh", lesson11::wrong_no_first_sync::kernel, "error", "no_first_sync.cuh:43: error: shared-memory race (read after write)",
     "read_before_copies_landed"},
    {"wrong/halo_past_the_end.cuh", lesson11::wrong_halo_past_the_end::kernel, "error", "halo_past_the_end.cuh:17: error: out-of-bounds global-memory cp.async source",
     "halo_past_the_row"},
    {"wrong/every_lane_arrives.cuh", lesson11::wrong_every_lane_arrives::kernel, "error",
     "every_lane_arrives.cuh:49: error: 32 lanes arrived at once on mbarrier", "every_lane_arrives"},
    {"wrong/wait_parity_1.cuh", lesson11::wrong_wait_parity_1::kernel, "error", "warps wait on phase 1 (parity 1) of mbarrier",
     "waits_for_parity_1"},
    {"wrong/empty.cuh", lesson11::wrong_empty::kernel, "correctness", "2 of 2 elements differ from the CPU reference (largest error inf",
     "nothing_stored"},
};

std::vector<std::string> lines_of(const std::string& file) {
    std::ifstream in(lesson_tests::lesson_dir("lessons/11_finding_bugs") / file);
    REQUIRE(in.good());
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

// What `tklab lesson check 11` says about a kernel: the check's report, the
// file of a stage of the exercise (wrong/fixed_*.cuh, the exercise line for
// line) named as the exercise, as the student sees it.
std::string as_exercise(std::string report, const std::string& file) {
    const std::string from = "lessons/11_finding_bugs/" + file, to = "lessons/11_finding_bugs/exercise.cuh";
    for (size_t at = report.find(from); at != std::string::npos; at = report.find(from, at + to.size())) report.replace(at, from.size(), to);
    return report;
}

} // namespace

TEST_CASE("lesson 11: the solution passes the check", "[lessons][lesson11]") {
    const auto res = check_kernel(lesson11::solution::kernel);
    INFO(res.report);
    CHECK(res.passed);
    CHECK(res.report.find("correct at N=1536 R=2") != std::string::npos);
    CHECK(res.report.find("correct at N=512 R=1") != std::string::npos);
    CHECK(res.report.find("correct at N=4096 R=16") != std::string::npos);
}

TEST_CASE("lesson 11: every known-wrong kernel fails with its message", "[lessons][lesson11]") {
    lesson_tests::check_known_wrong("lessons/11_finding_bugs", known_wrong, check_kernel);
}

TEST_CASE("lesson 11: every known mistake has its hint and a kernel that shows it", "[lessons][lesson11]") {
    lesson_tests::check_mistakes("lessons/11_finding_bugs", lesson11::mistakes(), known_wrong);
}

TEST_CASE("lesson 11: the known-wrong list covers lessons/11_finding_bugs/wrong/", "[lessons][lesson11]") {
    lesson_tests::check_list_covers_wrong_folder("lessons/11_finding_bugs", known_wrong);
}

TEST_CASE("lesson 11: the exercise as shipped fails with the uninitialised read first", "[lessons][lesson11]") {
    const auto res = check_kernel(lesson11::exercise::kernel);
    INFO(res.report);
    CHECK_FALSE(res.passed);
    CHECK(res.part == "error");
    CHECK(res.report.find("exercise.cuh:61: error: read of shared memory nothing wrote: warp 3 lane 31") != std::string::npos);
    // The halo is never copied: that is what the check says is likely, as for wrong/no_halo.cuh.
    CHECK(res.mistake == "halo_not_copied");
}

TEST_CASE("lesson 11: wrong/fixed_*.cuh are the exercise, line for line, with only the fixed holes changed", "[lessons][lesson11]") {
    // So the lines their findings name are the exercise's lines, which README.md quotes.
    const auto exercise = lines_of("exercise.cuh");
    struct Stage { const char* file; std::vector<int> changed; };  // 1-based lines besides the header and namespace
    for (const Stage& st : {Stage{"wrong/fixed_1.cuh", {21}}, Stage{"wrong/fixed_1_2.cuh", {21, 65}}}) {
        INFO(st.file);
        const auto fixed = lines_of(st.file);
        REQUIRE(fixed.size() == exercise.size());
        std::vector<int> differ;
        for (size_t i = 0; i < exercise.size(); ++i) {
            if (exercise[i] == fixed[i] || exercise[i].rfind("//", 0) == 0) continue;  // the header comment differs
            if (exercise[i].find("lesson11::exercise") != std::string::npos) continue;  // the namespace's name
            differ.push_back(int(i) + 1);
        }
        CHECK(differ == st.changed);
    }
    // The changed lines are the holes' own.
    CHECK(exercise[20].find("const int pieces") != std::string::npos);
    CHECK(exercise[64].find("HOLE 2") != std::string::npos);
}

TEST_CASE("lesson 11: README.md quotes the three findings as `tklab lesson check 11` prints them", "[lessons][lesson11]") {
    std::ifstream in(lesson_tests::lesson_dir("lessons/11_finding_bugs") / "README.md");
    REQUIRE(in.good());
    const std::string readme{std::istreambuf_iterator<char>(in), {}};
    struct Run { const char* file; lesson11::kernel_fn kernel; };
    int quoted = 0;
    for (const Run& r : {Run{"exercise.cuh", lesson11::exercise::kernel}, Run{"wrong/fixed_1.cuh", lesson11::wrong_fixed_1::kernel},
                         Run{"wrong/fixed_1_2.cuh", lesson11::wrong_fixed_1_2::kernel}}) {
        const std::string report = as_exercise(check_kernel(r.kernel).report, r.file);
        INFO(r.file << "'s report:\n" << report);
        // Every line of the finding, as an indented line of a code block in README.md.
        std::istringstream lines(report);
        int n = 0;
        for (std::string line; std::getline(lines, line);) {
            INFO("README.md should quote the line:\n    " << line);
            CHECK(readme.find("\n    " + line + "\n") != std::string::npos);
            ++n;
        }
        CHECK(n >= 2);  // the finding's line and its fix at least
        quoted += n;
    }
    CHECK(quoted >= 8);
}
