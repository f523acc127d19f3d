// What every lesson's test checks about its known-wrong kernels
// (lessons/NN_name/wrong/*.cuh): each fails the lesson's check in the named
// part, with the text its first line ("// expect: TEXT") promises, and the
// test's list names every file of the folder.
#pragma once
#include <catch2/catch.hpp>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <string>
#include "lessons/framework/lesson.h"

namespace lesson_tests {

template <typename Kernel>
struct KnownWrong {
    const char* file;    // in the lesson's folder, e.g. "wrong/empty.cuh"
    Kernel kernel;
    const char* part;    // the check's failing part
    const char* expect;  // text its report must contain; the file's first line says the same
};

// A lesson's folder ("lessons/01_tiles"), found from this file's place
// (tests/support/ in the project).
inline std::filesystem::path lesson_dir(const std::string& folder) {
    return std::filesystem::path(__FILE__).parent_path().parent_path().parent_path() / folder;
}

// A lesson's README.md as one line, its line breaks as spaces: a figure the
// text wraps is still found whole. Fails the test when it cannot be read.
inline std::string readme_one_line(const std::string& folder) {
    std::ifstream in(lesson_dir(folder) / "README.md");
    REQUIRE(in.good());
    std::string text;
    for (std::string line; std::getline(in, line);) text += line + ' ';
    return text;
}

inline std::string first_line(const std::filesystem::path& file) {
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);
    return line;
}

// Each known-wrong kernel, a section each, through `check` (the lesson's
// check on one kernel).
template <typename Kernel, size_t N, typename Check>
void check_known_wrong(const std::string& folder, const KnownWrong<Kernel> (&list)[N], Check check) {
    for (const KnownWrong<Kernel>& w : list) {
        SECTION(w.file) {
            CHECK(first_line(lesson_dir(folder) / w.file) == std::string("// expect: ") + w.expect);
            const tklab::lessons::CheckResult res = check(w.kernel);
            INFO(res.report);
            CHECK_FALSE(res.passed);
            CHECK(res.part == w.part);
            CHECK(res.report.find(w.expect) != std::string::npos);
        }
    }
}

// The list names every .cuh of the folder's wrong/.
template <typename Kernel, size_t N>
void check_list_covers_wrong_folder(const std::string& folder, const KnownWrong<Kernel> (&list)[N]) {
    size_t files = 0;
    for (const auto& e : std::filesystem::directory_iterator(lesson_dir(folder) / "wrong")) {
        if (e.path().extension() != ".cuh") continue;
        ++files;
        const std::string name = "wrong/" + e.path().filename().string();
        bool listed = false;
        for (const KnownWrong<Kernel>& w : list) listed = listed || name == w.file;
        INFO(name);
        CHECK(listed);
    }
    CHECK(files == N);
}

} // namespace lesson_tests
