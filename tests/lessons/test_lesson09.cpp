// Lesson 9's check, checked. Part 1: the solution marks its phases, the
// exercise as shipped marks none, and every known-wrong kernel in
// lessons/09_gpu_profiling/wrong/ fails with the message its first line
// promises. Part 2: answers read off a GPU trace and the simulator's run are
// accepted when right and refused, with the reason, when not; the committed
// solution answers pass against the committed H100 trace.
#include <catch2/catch.hpp>

#include "support/known_wrong.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>

#include "lessons/09_gpu_profiling/lesson.cuh"
#include "lessons/09_gpu_profiling/exercise.cuh"
#include "lessons/09_gpu_profiling/solution.cuh"
#include "lessons/09_gpu_profiling/wrong/inside_loop.cuh"
#include "lessons/09_gpu_profiling/wrong/misspelt.cuh"
#include "lessons/09_gpu_profiling/wrong/nameless.cuh"
#include "lessons/09_gpu_profiling/wrong/nested.cuh"
#include "lessons/09_gpu_profiling/checks.h"
#include "trace/codec.h"
#include "trace/report.h"

namespace {

// The lesson's program as lesson.cu registers it (the tests do not link lesson.cu).
const tk::host::program& lesson09_program() {
    static const tk::host::program p = tk::host::make_program(
        lesson09::program_def({{"exercise", lesson09::exercise::kernel}, {"solution", lesson09::solution::kernel}}));
    return p;
}

tklab::lessons::CheckResult check_kernel(lesson09::kernel_fn kernel) {
    const tk::host::program p = tk::host::make_program(lesson09::program_def({{"under_test", kernel}}));
    return tklab::lessons::check(lesson09::lesson(), p, "under_test");
}

using KnownWrong = lesson_tests::KnownWrong<lesson09::kernel_fn>;

const KnownWrong known_wrong[] = {
    {"wrong/nameless.cuh", lesson09::wrong_nameless::kernel, "goal", "the phases cover 9% of the warp", "nameless_region"},
    {"wrong/inside_loop.cuh", lesson09::wrong_inside_loop::kernel, "goal", "recorded \"prologue\", \"main loop\", \"main loop\"",
     "region_inside_loop"},
    {"wrong/misspelt.cuh", lesson09::wrong_misspelt::kernel, "goal", "recorded \"prologue\", \"main-loop\", \"store\"",
     "misspelt_name"},
    {"wrong/nested.cuh", lesson09::wrong_nested::kernel, "goal", "\"store\" is inside another region", "region_nested"},
};

const tklab::lessons::Part& answers_part() {
    static const tklab::lessons::Part part = lesson09::answers_part();
    return part;
}

// A GPU trace of lesson09 at 64 x 128 x 192 (2 blocks of 4 warps), its three
// regions per warp at seeded lengths: the prologue `pro`, the main loop
// `loop` and the store `store` cycles long, back to back.
std::filesystem::path fake_gpu_trace(uint64_t pro, uint64_t loop, uint64_t store, unsigned seed) {
    std::mt19937 rng(seed);
    tklab::trace::Trace t;
    t.producer = "tklab profiler";
    t.program = "lesson09";
    t.variant = "solution";
    t.problem = {{"M", 64}, {"N", 128}, {"K", 192}};
    t.seed = 1;
    t.arch = {{"gpu", true}};
    t.ops = {"region"};
    t.stalls = {"none"};
    t.files = {tklab::trace::SourceFile{}};
    t.locations = {tklab::trace::Location{}};
    t.op_names = {"", "prologue", "main loop", "store"};
    tklab::trace::Launch l;
    l.kernel = "lesson09";
    l.grid = {2, 1, 1};
    l.block = {128, 1, 1};
    for (uint32_t b = 0; b < 2; ++b) {
        tklab::trace::Block blk;
        blk.index = b;
        blk.coord = {b, 0, 0};
        blk.timeline = true;
        for (uint16_t w = 0; w < 4; ++w) {
            uint64_t at = rng() % 16;  // warps start a few cycles apart
            const uint64_t len[3] = {pro, loop, store};
            for (uint16_t r = 0; r < 3; ++r) {
                tklab::trace::Event e;
                e.warp = w;
                e.op = 0;
                e.op_name = uint16_t(r + 1);
                e.issue = at;
                e.done = at + len[r];
                at = e.done;
                blk.events.push_back(e);
            }
        }
        l.blocks.push_back(blk);
    }
    t.launches.push_back(l);
    t.complete = true;
    const auto file = std::filesystem::temp_directory_path() / ("tklab_lesson09_gpu_" + std::to_string(seed) + ".json");
    tklab::trace::write_trace(file.string(), t);
    return file;
}

tklab::lessons::CheckResult check_answers(const std::string& text) {
    const auto file = std::filesystem::temp_directory_path() / "tklab_lesson09_answer.txt";
    std::ofstream(file) << text;
    tklab::lessons::Part part = answers_part();
    part.exercise = file.string();  // absolute: replaces the lesson folder
    return tklab::lessons::check(part, lesson09_program(), "exercise");
}

// A refused answer is diagnosed as `mistake`: named in the report, and its
// hint (part2_compare/hints.md) the next one served.
void check_answer_mistake(const tklab::lessons::CheckResult& res, const std::string& mistake) {
    INFO(res.report);
    CHECK(res.mistake == mistake);
    CHECK(res.report.find("likely mistake: ") != std::string::npos);
    const auto hints = tklab::lessons::parse_hints(
        lesson_tests::read_text(lesson_tests::lesson_dir("lessons/09_gpu_profiling/part2_compare") / "hints.md"));
    const auto next = tklab::lessons::next_hint(hints, 0, res.mistake, {});
    REQUIRE(next.has_value());
    CHECK(next->mistake == mistake);
}

std::string fmt1(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f", v);
    return b;
}

} // namespace

TEST_CASE("lesson 9: the solution marks its three phases", "[lessons][lesson09]") {
    const auto res = check_kernel(lesson09::solution::kernel);
    INFO(res.report);
    CHECK(res.passed);
    CHECK(res.report.find("goal met: every warp marks the phases \"prologue\", \"main loop\", \"store\"") != std::string::npos);
    // Markers cost no simulated cycles: the same kernel without them takes as long.
    const uint64_t marked = tklab::sim::last_run().stats.max_block_cycles;
    check_kernel(lesson09::exercise::kernel);
    CHECK(tklab::sim::last_run().stats.max_block_cycles == marked);
}

TEST_CASE("lesson 9: the exercise as shipped is correct and marks nothing", "[lessons][lesson09]") {
    const auto res = check_kernel(lesson09::exercise::kernel);
    INFO(res.report);
    CHECK_FALSE(res.passed);
    CHECK(res.part == "goal");
    CHECK(res.report.find("correct at K=512 M=128 N=128") != std::string::npos);
    CHECK(res.report.find("block 0, warp 0 recorded no region") != std::string::npos);
    CHECK(res.mistake == "no_regions");
}

TEST_CASE("lesson 9: every known-wrong kernel fails as its file says", "[lessons][lesson09]") {
    lesson_tests::check_known_wrong("lessons/09_gpu_profiling", known_wrong, check_kernel);
}

TEST_CASE("lesson 9: every known mistake has its hint and a kernel that shows it", "[lessons][lesson09]") {
    lesson_tests::check_mistakes("lessons/09_gpu_profiling", lesson09::mistakes(), known_wrong, {"no_regions"});
}

TEST_CASE("lesson 9, part 2: every known mistake has its hint and an answer that shows it", "[lessons][lesson09]") {
    // Part 2 has no kernels: the wrong answers of the test case below show its
    // mistakes (part 1's list is passed only for the signature; none of its
    // kernels shows a part 2 mistake).
    lesson_tests::check_mistakes("lessons/09_gpu_profiling/part2_compare", lesson09::answer_mistakes(), known_wrong,
                                 {"answers_blank", "not_a_phase", "another_phase_differs_more", "shares_misread",
                                  "why_too_short"});
}

TEST_CASE("lesson 9: the known-wrong list covers the wrong/ folder", "[lessons][lesson09]") {
    lesson_tests::check_list_covers_wrong_folder("lessons/09_gpu_profiling", known_wrong);
}

TEST_CASE("lesson 9, part 2: answers are checked against both traces", "[lessons][lesson09]") {
    // The GPU's main loop is seeded-long; its prologue long too (cold caches), the store short.
    std::mt19937 rng(9);
    const uint64_t pro = 2000 + rng() % 2000, loop = 20000 + rng() % 10000, store = 100 + rng() % 100;
    const auto gpu = fake_gpu_trace(pro, loop, store, 9);
    const auto on_gpu = lesson09::checks::shares_of(tklab::trace::load_trace(gpu.string()).trace);
    // The simulator's shares, as the check computes them (the solution at the trace's size and seed).
    const auto in_sim = lesson09::checks::simulated_shares(lesson09_program(), {{"M", 64}, {"N", 128}, {"K", 192}}, 1, "solution");
    REQUIRE(in_sim.size() == 3);
    std::string most;
    double by = -1;
    for (const auto& n : lesson09::phases())
        if (std::fabs(on_gpu.at(n) - in_sim.at(n)) > by) by = std::fabs(on_gpu.at(n) - in_sim.at(n)), most = n;
    const std::string trace_line = "gpu_trace = " + gpu.string() + "\n";
    const std::string why = "why = the first loads miss every cache on the GPU, the simulator charges one latency\n";

    SECTION("right") {
        const auto res = check_answers("region = " + most + "\nsimulator = " + fmt1(in_sim.at(most)) + "\ngpu = " +
                                       fmt1(on_gpu.at(most)) + "%\n" + why + trace_line);
        INFO(res.report);
        CHECK(res.passed);
    }
    SECTION("blank") {
        const auto res = check_answers("region =\nsimulator =\ngpu =\nwhy =\n" + trace_line);
        CHECK_FALSE(res.passed);
        CHECK(res.part == "answers");
        CHECK(res.report.find("fill in all four answers") != std::string::npos);
        check_answer_mistake(res, "answers_blank");
    }
    SECTION("another phase") {
        const std::string other = most == "store" ? "prologue" : "store";
        const auto res = check_answers("region = " + other + "\nsimulator = 1\ngpu = 2\n" + why + trace_line);
        CHECK_FALSE(res.passed);
        CHECK(res.report.find("another phase differs more") != std::string::npos);
        check_answer_mistake(res, "another_phase_differs_more");
    }
    SECTION("numbers misread") {
        const auto res = check_answers("region = " + most + "\nsimulator = " + fmt1(in_sim.at(most) + 5) + "\ngpu = " +
                                       fmt1(on_gpu.at(most) - 5) + "\n" + why + trace_line);
        CHECK_FALSE(res.passed);
        CHECK(res.report.find("is not the simulator's share") != std::string::npos);
        CHECK(res.report.find("is not the H100's share") != std::string::npos);
        check_answer_mistake(res, "shares_misread");
    }
    SECTION("no reason") {
        const auto res = check_answers("region = " + most + "\nsimulator = " + fmt1(in_sim.at(most)) + "\ngpu = " +
                                       fmt1(on_gpu.at(most)) + "\nwhy = it is faster\n" + trace_line);
        CHECK_FALSE(res.passed);
        CHECK(res.report.find("why: say in a sentence") != std::string::npos);
        check_answer_mistake(res, "why_too_short");
    }
    SECTION("not a region name") {
        const auto res = check_answers("region = epilogue\nsimulator = 1\ngpu = 2\n" + why + trace_line);
        CHECK_FALSE(res.passed);
        CHECK(res.report.find("is not one of the phases") != std::string::npos);
        check_answer_mistake(res, "not_a_phase");
    }
}

TEST_CASE("lesson 9, part 2: the solution's answers pass against the committed H100 trace", "[lessons][lesson09]") {
    const auto res = tklab::lessons::check(answers_part(), lesson09_program(), "solution");
    INFO(res.report);
    CHECK(res.passed);
}

TEST_CASE("lesson 9, part 2: the README quotes the committed H100 trace's Regions lines as the report prints them", "[lessons][lesson09]") {
    const auto dir = lesson_tests::lesson_dir("lessons/09_gpu_profiling");
    std::ifstream in(dir / "README.md");
    REQUIRE(in.good());
    const std::string readme{std::istreambuf_iterator<char>(in), {}};
    std::ostringstream report;
    tklab::trace::write_report(report, tklab::trace::load_trace((dir / "h100.cbor").string()).trace, {});
    std::istringstream lines(report.str());
    int quoted = 0;
    for (std::string line; std::getline(lines, line);) {
        for (const char* phase : {"  main loop ", "  prologue ", "  store "}) {
            if (line.rfind(phase, 0) != 0 || line.find("% of block time") == std::string::npos) continue;
            CHECK_THAT(readme, Catch::Contains("    " + line));  // the README's indented block
            ++quoted;
            if (std::string(phase) == "  main loop ") {  // "the H100's N" in the text beneath
                const std::string mean = line.substr(line.find("mean ") + 5, line.find(" cycles") - line.find("mean ") - 5);
                CHECK_THAT(readme, Catch::Contains("the H100's " + mean));
            }
        }
    }
    CHECK(quoted == 3);
}

TEST_CASE("lesson 9: the README's marker costs are the committed GPU measurements", "[lessons][lesson09]") {
    const auto dir = lesson_tests::lesson_dir("lessons/09_gpu_profiling");
    using lesson_tests::read_text;
    const std::string readme = read_text(dir / "README.md");
    // Recording: bench/region_overhead's "overhead +N%" line, quoted as "about N%" to one decimal.
    const std::string h100 = read_text(dir / "../../results/gpu_h100.txt");
    const auto at = h100.find("regions:   overhead");
    REQUIRE(at != std::string::npos);
    const double recording = std::stod(h100.substr(h100.find('+', at) + 1));
    const std::string says = "three markers per warp added about ";
    const auto quoted = readme.find(says);
    REQUIRE(quoted != std::string::npos);
    CHECK(std::abs(std::stod(readme.substr(quoted + says.size())) - recording) < 0.1);
    // Not recording: "a few per cent" -- every launch of scripts/gpu/region_cost.sh within 10% either way.
    std::istringstream rows(read_text(dir / "../../results/region_cost_h200.txt"));
    int launches = 0;
    for (std::string row; std::getline(rows, row);) {
        std::istringstream f(row);
        std::string program, variant, size, markers, out, diff;
        if (row.empty() || row[0] == '#' || !(f >> program >> variant >> size >> markers >> out >> diff) || program == "program") continue;
        INFO(row);
        CHECK(std::abs(std::stod(diff)) <= 10.0);
        ++launches;
    }
    CHECK(launches >= 5);
    CHECK_THAT(readme, Catch::Contains("a few per cent on a short kernel (results/region_cost_h200.txt"));
}
