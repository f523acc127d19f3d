#include "cli/lesson.h"
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>
#include <unistd.h>
#include <nlohmann/json.hpp>
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
    int hints(int n) const { return doc.value("hints", json::object()).value(std::to_string(n), 0); }
    bool passed(int n) const { return doc.value("passed", json::object()).value(std::to_string(n), false); }
    void set_hints(int n, int k) { doc["hints"][std::to_string(n)] = k; save(); }
    void set_passed(int n) { doc["passed"][std::to_string(n)] = true; save(); }
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
    for (const lessons::Lesson& l : lessons::lessons())
        std::printf("%2d  %-36s %-28s%s\n", l.number, l.title.c_str(), l.folder.c_str(), prog.passed(l.number) ? "  passed" : "");
    std::printf("\nStart with `tklab lesson run 1`; read %s/README.md first.\n",
                lessons::lessons().empty() ? "lessons" : lessons::lessons().front().folder.c_str());
    return 0;
}

std::vector<std::string> split_hints(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    std::string line, cur;
    while (std::getline(in, line)) {
        if (line == "---") {
            out.push_back(cur);
            cur.clear();
        } else {
            cur += line + "\n";
        }
    }
    out.push_back(cur);
    std::vector<std::string> kept;
    for (auto& h : out)
        if (h.find_first_not_of(" \n\t") != std::string::npos) kept.push_back(h.substr(h.find_first_not_of("\n")));
    return kept;
}

int hint(const lessons::Lesson& l, bool reset) {
    Progress prog;
    if (reset) {
        prog.set_hints(l.number, 0);
        std::printf("hints for lesson %d start again\n", l.number);
        return 0;
    }
    const fs::path file = fs::path(TKLAB_SOURCE_DIR) / l.folder / "hints.md";
    if (!fs::exists(file)) {
        std::fprintf(stderr, "tklab lesson: %s is missing\n", file.string().c_str());
        return 1;
    }
    const auto hints = split_hints(read_file(file));
    const int shown = prog.hints(l.number);
    if (shown >= int(hints.size())) {
        std::printf("No more hints for lesson %d. The reference solution is %s/solution.cuh; "
                    "`tklab lesson run %d --solution` runs it. (`tklab lesson hint %d --reset` starts the hints again.)\n",
                    l.number, l.folder.c_str(), l.number, l.number);
        return 0;
    }
    std::printf("Hint %d of %zu for lesson %d:\n\n%s", shown + 1, hints.size(), l.number, hints[size_t(shown)].c_str());
    prog.set_hints(l.number, shown + 1);
    return 0;
}

int check(const lessons::Lesson& l, bool solution, unsigned seed) {
    const tk::host::program* p = tk::host::find_program(l.program);
    if (!p) {
        std::fprintf(stderr, "tklab lesson: lesson %d's program '%s' is not built in\n", l.number, l.program.c_str());
        return 1;
    }
    const std::string variant = solution ? "solution" : "exercise";
    std::printf("Checking lesson %d (%s), the %s, at %zu sizes...\n", l.number, l.title.c_str(), variant.c_str(), l.sizes.size());
    const auto r = lessons::check(l, *p, variant, seed);
    std::printf("%s", r.report.c_str());
    if (!r.passed) {
        std::printf("\nNot yet: the %s part failed. Fix %s/exercise.cuh and check again; `tklab lesson hint %d` gives a hint.\n",
                    r.part.c_str(), l.folder.c_str(), l.number);
        return 1;
    }
    if (!solution) Progress().set_passed(l.number);
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
    const std::string variant = a.solution ? "solution" : "exercise";
    const std::string trace = (fs::path(executable_dir()) / ("lesson" + std::to_string(l.number) + "_" + variant + ".cbor")).string();
    const int rc = run_program(l.program, variant, trace);
    const std::string viewer = (fs::path(executable_dir()) / "tklab_view").string();
    const char* display = std::getenv("DISPLAY");
    if (!a.no_view && display && *display && access(viewer.c_str(), X_OK) == 0 && fs::exists(trace)) {
        std::fprintf(stderr, "tklab lesson: opening the visualizer (--no-view to skip)\n");
        execl(viewer.c_str(), viewer.c_str(), trace.c_str(), nullptr);
    }
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
    if (a.action == "hint") return hint(l, a.reset);
    if (!a.no_build) rebuild_and_rerun(argc, argv);
    if (a.action == "check") return check(l, a.solution, a.seed);
    return run(l, a, run_program);
}

} // namespace tklab::cli
