// Lesson 9's checks, simulator build only (lesson.cu registers them; the
// tests include this too):
//   part 1: every warp marks the three phases once each, in order, and they
//           cover the block's time (a goal on the simulator's run);
//   part 2: the student's answer file names the phase whose share of the
//           block's time differs most between the simulator and the H100,
//           with both shares, read off the two traces;
// and the lesson and its second part, as `tklab lesson` sees them.
#pragma once
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>
#include "lessons/framework/lesson.h"
#include "sim/simulator.h"
#include "sim/trace_recorder.h"
#include "trace/codec.h"
#include "trace/region_stats.h"
#include "lessons/09_gpu_profiling/lesson.cuh"

namespace lesson09::checks {

// Region shares in percent of the block time, as the reports print them
// ("of block time"; trace/region_stats.h computes both).
using Shares = std::map<std::string, double>;

// From a trace of either kind: a GPU run's file, or a simulator run recorded
// in memory (simulated_shares below).
inline Shares shares_of(const tklab::trace::Trace& t) {
    Shares s;
    for (const auto& [name, share] : tklab::trace::region_shares(t)) s[name] = 100.0 * share;
    return s;
}

// Runs `variant` of `p` at `dims` with `seed` in the simulator, recording
// into memory, and returns its shares.
inline Shares simulated_shares(const tk::host::program& p, const tk::host::dims_t& dims, unsigned seed,
                               const std::string& variant) {
    tklab::sim::RecorderOptions ro;
    ro.recording.timeline_blocks = "none";  // the regions are kept for every block anyway
    tklab::sim::TraceRecorder rec(ro);
    p.make(p.resolve(dims), seed)->run(variant);
    rec.close();
    return shares_of(rec.trace());
}

// Part 1's goal: each warp of each block records every phase exactly once,
// in order, not inside one another, and together they cover at least
// `coverage` of the warp's time in the block.
inline tklab::lessons::Goal phases_marked(std::vector<std::string> phases, double coverage) {
    std::string list;
    for (const auto& p : phases) list += (list.empty() ? "\"" : ", \"") + p + "\"";
    return {"every warp marks the phases " + list + " once each, in order, covering at least " +
                std::to_string(int(coverage * 100)) + "% of its time",
            [phases, coverage](const tklab::sim::RunResult& r) -> std::optional<std::string> {
                if (r.blocks.empty()) return "the run kept no blocks to look at (a tklab bug: report it)";
                const uint32_t warps = (r.block.x * r.block.y * r.block.z + 31) / 32;
                for (const auto& b : r.blocks) {
                    for (uint32_t w = 0; w < warps; ++w) {
                        std::vector<const tklab::sim::RegionRecord*> mine;
                        for (const auto& g : b.regions)
                            if (g.warp == w) mine.push_back(&g);
                        std::vector<std::string> names;
                        uint64_t covered = 0;
                        for (const auto* g : mine) {
                            names.push_back(g->name < r.op_names.size() ? r.op_names[g->name] : "?");
                            covered += g->end - g->begin;
                        }
                        const std::string where = "block " + std::to_string(b.index) + ", warp " + std::to_string(w);
                        if (names.empty())
                            return where + " recorded no region: put `tk::region r(\"" + phases.front() +
                                   "\");` inside braces around the phase (see the HOLEs in exercise.cuh)";
                        if (names != phases) {
                            std::string got;
                            for (const auto& n : names) got += (got.empty() ? "\"" : ", \"") + n + "\"";
                            return where + " recorded " + got + "; expected each phase once, in order. A region "
                                   "inside the k-loop records once per k-step; a misspelt name is another region";
                        }
                        for (const auto* g : mine)
                            if (g->depth > 0)
                                return where + ": \"" + r.op_names[g->name] + "\" is inside another region; "
                                       "close each phase's braces before the next begins";
                        // The warp's own time: the simulator's block runs from cycle 0 to
                        // its last instruction (its exit's wait for its stores, after
                        // it, is no phase's: no marker can follow it).
                        uint64_t end = 0;
                        for (const auto& e : b.events)
                            if (e.warp == w && e.op != tklab::sim::Op::exit) end = std::max(end, e.done);
                        if (end > 0 && double(covered) < coverage * double(end))
                            return where + ": the phases cover " + std::to_string(int(100.0 * double(covered) / double(end))) +
                                   "% of the warp's " + std::to_string(end) + " cycles; a marker that ends too early "
                                   "(a nameless `tk::region(\"...\")` ends at once) or starts too late leaves time out";
                    }
                }
                return std::nullopt;
            }};
}

// The answer file: `key = value` lines, # comments.
inline std::map<std::string, std::string> read_answers(const std::filesystem::path& file) {
    std::ifstream in(file);
    if (!in) throw std::runtime_error(file.string() + ": cannot read the answer file");
    std::map<std::string, std::string> a;
    for (std::string line; std::getline(in, line);) {
        const auto hash = line.find('#');
        if (hash == 0) continue;
        const auto eq = line.find('=');
        if (eq == std::string::npos) continue;
        auto trim = [](std::string s) {
            const auto b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
            return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
        };
        a[trim(line.substr(0, eq))] = trim(line.substr(eq + 1));
    }
    return a;
}

inline std::optional<double> percent_of(const std::string& s) {
    std::string t = s;
    if (!t.empty() && t.back() == '%') t.pop_back();
    try {
        size_t used = 0;
        const double v = std::stod(t, &used);
        if (used != t.size()) return std::nullopt;
        return v;
    } catch (...) {
        return std::nullopt;
    }
}

} // namespace lesson09::checks

namespace lesson09 {

namespace detail {

inline std::string one_decimal(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f", v);
    return b;
}

// The GPU trace part 2 reads: the answer file's `gpu_trace = FILE` when the
// student recorded their own, else the H100's, committed beside the lesson.
inline constexpr const char* kFolder = "lessons/09_gpu_profiling";
inline constexpr const char* kH100Trace = "h100.cbor";

inline tklab::lessons::CheckResult check_answers(const tklab::lessons::Part& part, const tk::host::program& p,
                                          const std::string& variant, unsigned) {
    namespace fs = std::filesystem;
    using tklab::lessons::CheckResult;
    const fs::path folder = fs::path(__FILE__).parent_path();  // this lesson's folder (included by absolute path)
    const fs::path file = folder / (variant == "solution" ? part.solution : part.exercise);
    const auto answers = checks::read_answers(file);
    std::ostringstream out;
    const auto value = [&](const char* key) {
        const auto it = answers.find(key);
        return it == answers.end() ? std::string() : it->second;
    };

    // The GPU's shares, from its trace.
    fs::path gpu_file = folder / kH100Trace;
    if (const std::string own = value("gpu_trace"); !own.empty()) gpu_file = own;  // as the student wrote it
    const auto gpu = tklab::trace::load_trace(gpu_file.string()).trace;
    const checks::Shares on_gpu = checks::shares_of(gpu);
    if (on_gpu.empty())
        return CheckResult{false, "error", gpu_file.string() + " holds no regions: record it with `tklab run lesson09 --gpu "
                                           "--variant solution --profile timing,regions --trace FILE`\n"};

    // The simulator's, from the reference kernel at the GPU run's size and seed.
    tk::host::dims_t dims;
    for (const auto& [k, v] : gpu.problem.items()) dims[k] = v.get<int>();
    const checks::Shares in_sim = checks::simulated_shares(p, dims, unsigned(gpu.seed), "solution");

    const auto share = [](const checks::Shares& s, const std::string& n) { return s.count(n) ? s.at(n) : 0.0; };
    // The phase that differs most, and by how much.
    std::string most;
    double most_by = -1;
    for (const auto& name : phases()) {
        const double by = std::fabs(share(on_gpu, name) - share(in_sim, name));
        if (by > most_by) most = name, most_by = by;
    }

    const std::string region = value("region");
    const auto sim_answer = checks::percent_of(value("simulator")), gpu_answer = checks::percent_of(value("gpu"));
    const std::string why = value("why");
    std::vector<std::string> wrong;
    if (region.empty() || !sim_answer || !gpu_answer || why.empty())
        wrong.push_back("fill in all four answers (region, simulator, gpu, why) in " + file.string());
    else {
        if (std::find(phases().begin(), phases().end(), region) == phases().end())
            wrong.push_back("region: \"" + region + "\" is not one of the phases (prologue, main loop, store)");
        else if (region != most)
            wrong.push_back("region: \"" + region + "\" differs by " +
                            one_decimal(std::fabs(share(on_gpu, region) - share(in_sim, region))) +
                            " points; another phase differs more. Compare each phase's share in both reports");
        else {
            constexpr double kSlack = 2.0;  // points: read off a report, rounded
            if (std::fabs(*sim_answer - in_sim.at(region)) > kSlack)
                wrong.push_back("simulator: " + value("simulator") + " is not the simulator's share of \"" + region +
                                "\" (`tklab report` on the simulator's trace, Regions section)");
            if (std::fabs(*gpu_answer - on_gpu.at(region)) > kSlack)
                wrong.push_back("gpu: " + value("gpu") + " is not the H100's share of \"" + region + "\" (`tklab report " +
                                gpu_file.string() + "`, Regions section)");
            std::istringstream words(why);
            int n = 0;
            for (std::string w; words >> w;) ++n;
            if (n < 6) wrong.push_back("why: say in a sentence or two what makes the GPU differ (" + std::to_string(n) + " words)");
        }
    }
    if (!wrong.empty()) {
        out << "answers: not yet\n";
        for (const auto& w : wrong) out << "  " << w << "\n";
        return CheckResult{false, "answers", out.str()};
    }
    out << "answers: \"" << region << "\" is " << one_decimal(in_sim.at(region)) << "% of the block's time "
        << "in the simulator and " << one_decimal(on_gpu.at(region)) << "% on the GPU (" << gpu_file.filename().string()
        << "); your reason: " << why << "\n";
    return CheckResult{true, "", out.str()};
}

} // namespace detail

// The phase names a failed part-1 goal lists after "recorded " (each warp's
// regions in order), empty when it lists none.
inline std::vector<std::string> recorded_regions(const tklab::lessons::Symptom& s) {
    std::vector<std::string> names;
    const size_t from = s.goal_why.find(" recorded \"");
    if (from == std::string::npos) return names;
    const size_t to = s.goal_why.find("; expected", from);
    for (size_t at = s.goal_why.find('"', from); at < to;) {
        const size_t end = s.goal_why.find('"', at + 1);
        if (end == std::string::npos || end > to) break;
        names.push_back(s.goal_why.substr(at + 1, end - at - 1));
        at = s.goal_why.find('"', end + 1);
    }
    return names;
}

// Part 1's known mistakes (lessons/framework/diagnosis.h), most specific
// first; each has its hint in hints.md, and wrong/ holds an example of each
// (the exercise as shipped shows no_regions).
inline std::vector<tklab::lessons::Mistake> mistakes() {
    using tklab::lessons::Symptom;
    return {
        {"no_regions",
         [](const Symptom& s) { return s.part == "goal" && s.says("recorded no region"); },
         "no warp recorded a phase: the kernel has no tk::region yet. Declare one named variable at the top of each "
         "phase's braces, tk::region r(\"prologue\"); it times the warp from there to the closing brace."},
        {"region_nested",
         [](const Symptom& s) { return s.part == "goal" && s.says("is inside another region"); },
         "one phase's region opens before the previous one has closed, so the outer phase's time includes the inner "
         "one's: the region was declared inside the other phase's braces. Close the main loop's braces before the "
         "store's region begins."},
        {"misspelt_name",
         [](const Symptom& s) {
             for (const std::string& n : recorded_regions(s))
                 if (std::find(phases().begin(), phases().end(), n) == phases().end()) return true;
             return false;
         },
         "a region's name is not one of the phases: the name is the region's identity (part 2 looks the phases up "
         "by name in both traces), so a misspelt one is another region. Use exactly \"prologue\", \"main loop\" "
         "(with a space) and \"store\"."},
        {"region_inside_loop",
         [](const Symptom& s) {
             const std::vector<std::string> names = recorded_regions(s);
             for (size_t i = 0; i < names.size(); ++i)
                 if (std::find(names.begin() + long(i) + 1, names.end(), names[i]) != names.end()) return true;
             return false;
         },
         "a phase is recorded more than once per warp: its region is declared inside the k-loop's body, so it "
         "begins and ends every k-step (and on a GPU pays two clock reads and a store each time). Declare it in the "
         "braces around the loop, before the for."},
        {"nameless_region",
         [](const Symptom& s) { return s.part == "goal" && s.says("the phases cover"); },
         "every phase is recorded, once and in order, but they leave most of the warp's time out: a region ends "
         "before its phase's work, most likely a nameless temporary, tk::region(\"main loop\");, which ends at its "
         "semicolon. Give it a name, tk::region r(\"main loop\");, so it lives to the closing brace."},
    };
}

// Part 2's known mistakes, read off the answer check's report.
inline std::vector<tklab::lessons::Mistake> answer_mistakes() {
    using tklab::lessons::Symptom;
    return {
        {"answers_blank",
         [](const Symptom& s) { return s.part == "answers" && s.says("fill in all four answers"); },
         "an answer is missing or is not a number: each of region, simulator, gpu and why needs a value after its "
         "`=` in part2_compare/answer.txt, and the two shares are percentages (\"4.0\" or \"4.0%\")."},
        {"not_a_phase",
         [](const Symptom& s) { return s.part == "answers" && s.says("is not one of the phases"); },
         "region names something the kernel does not mark: the answer is one of the three phases, spelt as the "
         "reports' Regions sections print them (prologue, main loop, store)."},
        {"another_phase_differs_more",
         [](const Symptom& s) { return s.part == "answers" && s.says("another phase differs more"); },
         "the phase named is not the one whose share moves most: the question is about shares of the block's time "
         "(\"% of block time\"), not cycles and not the biggest phase. Subtract each phase's simulator share from "
         "its H100 share and take the largest difference, either sign."},
        {"shares_misread",
         [](const Symptom& s) {
             return s.part == "answers" && (s.says("is not the simulator's share") || s.says("is not the H100's share"));
         },
         "the right phase, but a share is not the one the traces give (the check allows 2 points): most likely a "
         "number from the other report, the other phase's line, or cycles in place of the percentage. Copy the "
         "\"% of block time\" figure from each report's line for that phase."},
        {"why_too_short",
         [](const Symptom& s) { return s.part == "answers" && s.says("why: say in a sentence"); },
         "the phase and the shares are right; the why is too short to be a reason. Say what the GPU does in that "
         "phase that the simulator's cost model leaves out (look at the phase's cycles in both reports)."},
    };
}

inline tklab::lessons::Lesson lesson() {
    return tklab::lessons::Lesson{
        .number = 9,
        .folder = detail::kFolder,
        .title = "Profiling on a real GPU",
        .program = "lesson09",
        .sizes = {{{"M", 64}, {"N", 64}, {"K", 64}}, {{"M", 128}, {"N", 128}, {"K", 512}}},
        .shape = [](const tk::host::dims_t& d) { return std::pair{d.at("M"), d.at("N")}; },
        .goals = {checks::phases_marked(phases(), 0.9)},
        .mistakes = mistakes(),
    };
}

inline tklab::lessons::Part answers_part() {
    tklab::lessons::Part part;
    part.title = "the simulator beside an H100";
    part.program = "lesson09";
    part.exercise = "part2_compare/answer.txt";
    part.solution = "part2_compare/solution_answer.txt";
    part.custom_check = detail::check_answers;
    part.beside = detail::kH100Trace;
    part.mistakes = answer_mistakes();
    return part;
}

} // namespace lesson09

