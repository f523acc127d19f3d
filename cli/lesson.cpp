#include "cli/lesson.h"
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <set>
#include <vector>
#include <unistd.h>
#include <nlohmann/json.hpp>
#include "lessons/framework/hints.h"
#include "lessons/framework/lesson.h"

namespace tklab::cli {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;


std::string read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// Progress (hints shown, lessons passed) lives in the build folder, not in the
// lessons, so `git status` stays clean for the student. TKLAB_LESSON_PROGRESS
// names another file (the tests use their own).
fs::path progress_file() {
    const char* env = std::getenv("TKLAB_LESSON_PROGRESS");
    return env && *env ? fs::path(env) : fs::path(executable_dir()) / "lesson_progress.json";
}

struct Progress {
    fs::path file = progress_file();
    json doc = json::object();
    Progress() {
        try {
            if (fs::exists(file)) doc = json::parse(read_file(file));
        } catch (...) {
            doc = json::object();  // a damaged file only loses the hint counters
        }
        if (!doc.is_object()) doc = json::object();
    }
    // Hints: "4" for a lesson's first part, "4.2" for its part 2. Passed: "4"
    // for the whole lesson, "4.1", "4.2" for its parts.
    static std::string key(int n, int part, bool first_is_lesson) {
        char k[32];
        if (part > 1 || (part == 1 && !first_is_lesson)) std::snprintf(k, sizeof k, "%d.%d", n, part);
        else std::snprintf(k, sizeof k, "%d", n);
        return k;
    }
    int hints(int n, int part) const { return doc.value("hints", json::object()).value(key(n, part, true), 0); }
    bool passed(int n, int part = 0) const { return doc.value("passed", json::object()).value(key(n, part, false), false); }
    void set_hints(int n, int part, int k) { doc["hints"][key(n, part, true)] = k; save(); }
    // The mistake the last failed check diagnosed ("" when none, or passed),
    // and the mistakes whose hint was shown.
    std::string mistake(int n, int part) const { return doc.value("mistake", json::object()).value(key(n, part, true), std::string()); }
    void set_mistake(int n, int part, const std::string& m) { doc["mistake"][key(n, part, true)] = m; save(); }
    std::set<std::string> mistake_hints(int n, int part) const {
        std::set<std::string> out;
        const json shown = doc.value("mistake_hints", json::object()).value(key(n, part, true), json::array());
        for (const auto& m : shown)
            if (m.is_string()) out.insert(m.get<std::string>());
        return out;
    }
    void add_mistake_hint(int n, int part, const std::string& m) {
        json& shown = doc["mistake_hints"][key(n, part, true)];
        if (!shown.is_array()) shown = json::array();
        shown.push_back(m);
        save();
    }
    void reset_hints(int n, int part) {
        doc["hints"][key(n, part, true)] = 0;
        doc["mistake_hints"][key(n, part, true)] = json::array();
        save();
    }
    void set_passed(int n, int part = 0) { doc["passed"][key(n, part, false)] = true; save(); }
    void save() const { std::ofstream(file) << doc.dump(2) << "\n"; }
};

const lessons::Lesson& find_or_fail(int n) {
    const lessons::Lesson* l = lessons::find_lesson(n);
    if (!l) {
        std::fprintf(stderr, "tklab lesson: there is no lesson %d; `tklab lesson list` shows them\n", n);
        std::exit(2);
    }
    return *l;
}

// The exercise is compiled into tklab: after the student edits it, rebuild and
// run the new tklab. Compiler errors are the student's, shown as they are.
void rebuild_and_rerun(int argc, char** argv) {
    const std::string self = executable_path(), dir = executable_dir();
    if (!fs::exists(fs::path(dir) / "CMakeCache.txt")) return;  // an installed tklab: nothing to build
    std::fprintf(stderr, "tklab lesson: building your changes (cmake --build %s --target tklab)...\n", dir.c_str());
    const std::string cmd = "cmake --build '" + dir + "' --target tklab 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) {
        std::fprintf(stderr, "tklab lesson: cannot run cmake: %s\n", std::strerror(errno));
        std::exit(1);
    }
    std::string out;
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    if (pclose(p) != 0) {
        std::fprintf(stderr, "%s\ntklab lesson: your code does not compile; the compiler's messages are above "
                             "(look for \"error:\" and the lesson's file and line)\n", out.c_str());
        std::exit(1);
    }
    std::vector<char*> args(argv, argv + argc);
    static std::string flag = "--no-build";
    args.push_back(flag.data());
    args.push_back(nullptr);
    execv(self.c_str(), args.data());
    std::fprintf(stderr, "tklab lesson: cannot restart %s: %s\n", self.c_str(), std::strerror(errno));
    std::exit(1);
}

int list() {
    const Progress prog;
    if (lessons::lessons().empty()) std::printf("no lessons built in\n");
    for (const lessons::Lesson& l : lessons::lessons()) {
        const int parts = int(lessons::parts(l).size());
        int parts_passed = 0;
        for (int n = 1; n <= parts; ++n) parts_passed += prog.passed(l.number, n) ? 1 : 0;
        char state[64] = "";
        if (prog.passed(l.number)) std::snprintf(state, sizeof state, "passed");
        else if (parts > 1 && parts_passed > 0) std::snprintf(state, sizeof state, "%d of %d parts passed", parts_passed, parts);
        if (*state) std::printf("%2d  %-42s %-30s  %s\n", l.number, l.title.c_str(), l.folder.c_str(), state);
        else std::printf("%2d  %-42s %s\n", l.number, l.title.c_str(), l.folder.c_str());
    }
    // The next lesson not passed yet, in order.
    const lessons::Lesson* next = nullptr;
    for (const lessons::Lesson& l : lessons::lessons())
        if (!prog.passed(l.number)) { next = &l; break; }
    if (lessons::lessons().empty()) std::printf("\nRead lessons/README.md first.\n");
    else if (!next) std::printf("\nEvery lesson passed. Lesson 9 compares the simulator with an H100; kernels/ holds the full-size kernels.\n");
    else if (next == &lessons::lessons().front()) std::printf("\nStart with `tklab lesson run %d`; read %s/README.md first.\n", next->number, next->folder.c_str());
    else std::printf("\nNext: `tklab lesson run %d`; read %s/README.md first.\n", next->number, next->folder.c_str());
    return 0;
}

// The part `n` (1-based) of a lesson, or a usage error naming the parts there are.
const lessons::Part& part_or_fail(const lessons::Lesson& l, const std::vector<lessons::Part>& all, int n) {
    if (n < 1 || n > int(all.size())) {
        std::fprintf(stderr, "tklab lesson: lesson %d has %s; --part takes 1%s\n", l.number,
                     all.size() == 1 ? "one part" : (std::to_string(all.size()) + " parts").c_str(),
                     all.size() == 1 ? "" : (" to " + std::to_string(all.size())).c_str());
        std::exit(2);
    }
    return all[size_t(n - 1)];
}

// The part a command means: --part, or the first part not passed yet.
int part_number(const lessons::Lesson& l, const std::vector<lessons::Part>& all, int asked) {
    if (asked) {
        part_or_fail(l, all, asked);
        return asked;
    }
    const Progress prog;
    for (int n = 1; n <= int(all.size()); ++n)
        if (!prog.passed(l.number, n)) return n;
    return 1;
}

// A lesson in parts keeps each part's hints beside its exercise
// (part2_gemm/hints.md). After a failed check that diagnosed a known mistake,
// that mistake's hint comes first; then the general hints in order.
int hint(const lessons::Lesson& l, const LessonArgs& a) {
    const auto all = lessons::parts(l);
    const int n = part_number(l, all, a.part);
    const lessons::Part& part = all[size_t(n - 1)];
    const std::string which = all.size() > 1 ? " part " + std::to_string(n) : "";
    Progress prog;
    if (a.reset) {
        prog.reset_hints(l.number, n);
        std::printf("hints for lesson %d%s start again\n", l.number, which.c_str());
        return 0;
    }
    const fs::path file = fs::path(TKLAB_SOURCE_DIR) / l.folder / fs::path(part.exercise).parent_path() / "hints.md";
    if (!fs::exists(file)) {
        std::fprintf(stderr, "tklab lesson: %s is missing\n", file.string().c_str());
        return 1;
    }
    const lessons::Hints hints = lessons::parse_hints(read_file(file));
    const int shown = prog.hints(l.number, n);
    const std::string part_flag = all.size() > 1 ? " --part " + std::to_string(n) : "";
    const auto next = lessons::next_hint(hints, shown, prog.mistake(l.number, n), prog.mistake_hints(l.number, n));
    if (!next) {
        std::printf("No more hints for lesson %d%s. The reference solution is %s/%s; "
                    "`tklab lesson run %d%s --solution` runs it. (`tklab lesson hint %d%s --reset` starts the hints again.)\n",
                    l.number, which.c_str(), l.folder.c_str(), part.solution.c_str(), l.number, part_flag.c_str(), l.number,
                    part_flag.c_str());
        return 0;
    }
    if (!next->mistake.empty()) {
        std::printf("A hint on the mistake your last check found (%s) for lesson %d%s:\n\n%s", next->mistake.c_str(), l.number,
                    which.c_str(), next->text.c_str());
        prog.add_mistake_hint(l.number, n, next->mistake);
        return 0;
    }
    std::printf("Hint %d of %zu for lesson %d%s:\n\n%s", shown + 1, hints.general.size(), l.number, which.c_str(),
                next->text.c_str());
    prog.set_hints(l.number, n, shown + 1);
    return 0;
}

int check(const lessons::Lesson& l, const LessonArgs& a) {
    const auto all = lessons::parts(l);
    const std::string variant = a.solution ? "solution" : "exercise";
    const int first = a.part ? a.part : 1, last = a.part ? a.part : int(all.size());
    if (a.part) part_or_fail(l, all, a.part);
    for (int n = first; n <= last; ++n) {
        const lessons::Part& part = all[size_t(n - 1)];
        const tk::host::program* p = tk::host::find_program(part.program);
        if (!p) {
            std::fprintf(stderr, "tklab lesson: lesson %d's program '%s' is not built in\n", l.number, part.program.c_str());
            return 1;
        }
        const std::string which = all.size() > 1 ? " part " + std::to_string(n) + " of " + std::to_string(all.size()) +
                                                       " (" + part.title + ")" : "";
        if (part.custom_check)
            std::printf("%sChecking lesson %d (%s)%s, the %s's answers in %s/%s...\n", n > first ? "\n" : "", l.number,
                        l.title.c_str(), which.c_str(), variant.c_str(), l.folder.c_str(),
                        (a.solution ? part.solution : part.exercise).c_str());
        else
            std::printf("%sChecking lesson %d (%s)%s, the %s, at %zu sizes...\n", n > first ? "\n" : "", l.number,
                        l.title.c_str(), which.c_str(), variant.c_str(), part.sizes.size());
        const auto r = lessons::check(part, *p, variant, a.seed);
        std::printf("%s", r.report.c_str());
        if (!a.solution) Progress().set_mistake(l.number, n, r.passed ? "" : r.mistake);
        if (!r.passed) {
            const std::string run_it = "tklab lesson run " + std::to_string(l.number) + (n > 1 ? " --part " + std::to_string(n) : "");
            const std::string hint_it = "tklab lesson hint " + std::to_string(l.number) + (n > 1 ? " --part " + std::to_string(n) : "");
            std::printf("\nNot yet: the %s part failed. Fix %s/%s and check again (`%s` runs it); `%s` gives a hint%s.\n",
                        r.part.c_str(), l.folder.c_str(), part.exercise.c_str(), run_it.c_str(), hint_it.c_str(),
                        r.mistake.empty() ? "" : " on that mistake");
            return 1;
        }
        if (!a.solution) Progress().set_passed(l.number, n);
        if (n < last) std::printf("Part %d passed.\n", n);
    }
    if (a.part && all.size() > 1) {
        const std::string then = a.part < int(all.size())
                                     ? "Next: part " + std::to_string(a.part + 1) + ", `tklab lesson run " + std::to_string(l.number) +
                                           " --part " + std::to_string(a.part + 1) + "`."
                                     : "`tklab lesson check " + std::to_string(l.number) + "` checks every part.";
        std::printf("\nPart %d of lesson %d passed. %s\n", a.part, l.number, then.c_str());
        return 0;
    }
    if (!a.solution) Progress().set_passed(l.number);
    const lessons::Lesson* next = nullptr;
    for (const lessons::Lesson& x : lessons::lessons())
        if (x.number > l.number) { next = &x; break; }
    std::printf("\nLesson %d passed.", l.number);
    if (next) std::printf(" Next: lesson %d, %s (%s/README.md, `tklab lesson run %d`).\n", next->number, next->title.c_str(),
                          next->folder.c_str(), next->number);
    else std::printf(" That was the last lesson.\n");
    return 0;
}

int run(const lessons::Lesson& l, const LessonArgs& a, const RunProgram& run_program) {
    const auto all = lessons::parts(l);
    const int n = part_number(l, all, a.part);
    const lessons::Part& part = all[size_t(n - 1)];
    const std::string variant = a.solution ? "solution" : "exercise";
    const std::string name = "lesson" + std::to_string(l.number) + (n > 1 ? "_part" + std::to_string(n) : "") + "_" + variant;
    const std::string trace = (fs::path(executable_dir()) / (name + ".cbor")).string();
    if (all.size() > 1)
        std::fprintf(stderr, "tklab lesson: lesson %d, part %d of %zu: %s (%s/%s)\n", l.number, n, all.size(), part.title.c_str(),
                     l.folder.c_str(), a.solution ? part.solution.c_str() : part.exercise.c_str());
    const int rc = run_program(part.program, variant, trace);
    // A part may come with a trace to compare against (lesson 9: an H100's run).
    const std::string beside = part.beside.empty() ? "" : (fs::path(TKLAB_SOURCE_DIR) / l.folder / part.beside).string();
    const std::string viewer = (fs::path(executable_dir()) / "tklab_view").string();
    const char* display = std::getenv("DISPLAY");
    if (!a.no_view && display && *display && access(viewer.c_str(), X_OK) == 0 && fs::exists(trace)) {
        std::fprintf(stderr, "tklab lesson: opening the visualizer (--no-view to skip)\n");
        if (!beside.empty()) execl(viewer.c_str(), viewer.c_str(), trace.c_str(), beside.c_str(), nullptr);
        else execl(viewer.c_str(), viewer.c_str(), trace.c_str(), nullptr);
    }
    if (!beside.empty())
        std::fprintf(stderr, "tklab lesson: compare it with the GPU's: `tklab view %s %s` (or `tklab report` each); check "
                             "with `tklab lesson check %d`\n", trace.c_str(), beside.c_str(), l.number);
    else
        std::fprintf(stderr, "tklab lesson: step through it with `tklab view %s`; check your solution with `tklab lesson check %d`\n",
                     trace.c_str(), l.number);
    return rc;
}

} // namespace

std::string executable_path() {
    std::string p(4096, '\0');
    const ssize_t n = readlink("/proc/self/exe", p.data(), p.size() - 1);
    p.resize(n > 0 ? size_t(n) : 0);
    return p;
}

std::string executable_dir() {
    const std::string p = executable_path();
    return p.empty() ? "." : fs::path(p).parent_path().string();
}

int cmd_lesson(const LessonArgs& a, int argc, char** argv, const RunProgram& run_program) {
    if (a.action == "list") return list();
    const lessons::Lesson& l = find_or_fail(a.number);
    if (a.action == "hint") return hint(l, a);
    if (!a.no_build) rebuild_and_rerun(argc, argv);
    if (a.action == "check") return check(l, a);
    return run(l, a, run_program);
}

} // namespace tklab::cli
