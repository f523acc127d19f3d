// What every lesson's test checks about its known-wrong kernels
// (lessons/NN_name/wrong/*.cuh): each fails the lesson's check in the named
// part, with the text its first line ("// expect: TEXT") promises; the check
// diagnoses it as the known mistake the list names (lessons/framework/
// diagnosis.h), and the next hint is that mistake's own (hints.md beside the
// exercise). The test's list names every file of the folder.
#pragma once
#include <catch2/catch.hpp>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <string>
#include <vector>
#include "lessons/framework/hints.h"
#include "lessons/framework/lesson.h"

namespace lesson_tests {

template <typename Kernel>
struct KnownWrong {
    const char* file;    // in the lesson's folder, e.g. "wrong/empty.cuh"
    Kernel kernel;
    const char* part;    // the check's failing part
    const char* expect;  // text its report must contain; the file's first line says the same
    const char* mistake; // the known mistake the check diagnoses
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

inline std::string read_text(const std::filesystem::path& file) {
    std::ifstream in(file);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
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
            // The diagnosis: the mistake the file shows, said in the report,
            // and its hint the next one served (the framework's own
            // "nothing_stored" falls back to the general hints).
            REQUIRE(w.mistake != nullptr);
            const std::string mistake = w.mistake;
            CHECK(res.mistake == mistake);
            CHECK(res.report.find("likely mistake: ") != std::string::npos);
            const auto hints = tklab::lessons::parse_hints(read_text(lesson_dir(folder) / "hints.md"));
            const auto next = tklab::lessons::next_hint(hints, 0, res.mistake, {});
            REQUIRE(next.has_value());
            if (mistake != "nothing_stored" || hints.for_mistake.count(mistake)) {
                INFO("hints.md should have a section tagged <!-- mistake: " << mistake << " -->");
                CHECK(next->mistake == mistake);
            }
        }
    }
}

// The lesson's mistakes (its Lesson or Part's `mistakes`): each has its hint
// in hints.md, and each is shown by a known-wrong kernel of the list or by a
// case named in `tested_elsewhere` (the shipped exercise, say): no mistake
// the check can name goes untested.
template <typename Kernel, size_t N>
void check_mistakes(const std::string& folder, const std::vector<tklab::lessons::Mistake>& mistakes,
                    const KnownWrong<Kernel> (&list)[N], std::initializer_list<const char*> tested_elsewhere = {}) {
    const auto hints = tklab::lessons::parse_hints(read_text(lesson_dir(folder) / "hints.md"));
    for (const tklab::lessons::Mistake& m : mistakes) {
        INFO("mistake " << m.name);
        CHECK(hints.for_mistake.count(m.name) == 1);
        CHECK_FALSE(m.likely.empty());
        bool shown = false;
        for (const KnownWrong<Kernel>& w : list) shown = shown || m.name == w.mistake;
        for (const char* t : tested_elsewhere) shown = shown || m.name == t;
        CHECK(shown);
    }
    // Every tagged hint belongs to a mistake the check can name.
    for (const auto& [name, text] : hints.for_mistake) {
        bool known = name == "nothing_stored";
        for (const tklab::lessons::Mistake& m : mistakes) known = known || m.name == name;
        INFO("hints.md has a section for mistake " << name << ", which the lesson does not declare");
        CHECK(known);
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
