#include "lessons/framework/lesson.h"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include "sim/simulator.h"

namespace tklab::lessons {

std::vector<Lesson>& lessons() {
    static std::vector<Lesson> all;
    return all;
}

const Lesson* find_lesson(int number) {
    for (const Lesson& l : lessons())
        if (l.number == number) return &l;
    return nullptr;
}

bool add_lesson(Lesson l) {
    auto& all = lessons();
    all.push_back(std::move(l));
    std::sort(all.begin(), all.end(), [](const Lesson& a, const Lesson& b) { return a.number < b.number; });
    return true;
}

namespace {

std::string fmt(const char* f, double a, double b = 0) {
    char s[160];
    std::snprintf(s, sizeof s, f, a, b);
    return s;
}

// Paths under the project folder, from it: what the student sees in the tree.
std::string relative(std::string text) {
    const std::string root = std::string(TKLAB_SOURCE_DIR) + "/";
    for (size_t at; (at = text.find(root)) != std::string::npos;) text.erase(at, root.size());
    return text;
}

std::string where(const sim::RunResult& r, uint32_t loc) {
    if (loc == 0 || loc >= r.locations.size()) return "?";
    return relative(r.locations[loc].file) + ":" + std::to_string(r.locations[loc].line);
}

std::string dims_text(const tk::host::dims_t& d) {
    std::string s;
    for (const auto& [k, v] : d) s += (s.empty() ? "" : " ") + k + "=" + std::to_string(v);
    return s;
}

} // namespace

Goal no_bank_conflicts() {
    return {"no bank conflicts in shared-memory loads and stores (ld/st.shared, ldmatrix, stmatrix)",
            [](const sim::RunResult& r) -> std::optional<std::string> {
                const sim::Stats& s = r.stats;
                const std::pair<const char*, const sim::SmemTotals*> kinds[] = {
                    {"ld.shared", &s.ld_shared}, {"st.shared", &s.st_shared}, {"ldmatrix", &s.ldmatrix}, {"stmatrix", &s.stmatrix}};
                std::string why;
                for (const auto& [name, t] : kinds)
                    if (t->conflicts() > 0)
                        why += std::string(why.empty() ? "" : "; ") + name + ": " + std::to_string(t->wavefronts) +
                               " wavefronts where " + std::to_string(t->ideal) + " would do (worst " +
                               std::to_string(t->max_way) + "-way)";
                if (why.empty()) return std::nullopt;
                if (s.worst_conflict > 0)
                    why += ". The worst: " + where(r, s.worst_conflict_loc) + ", " + std::to_string(s.worst_conflict_way) + "-way " +
                           sim::op_name(s.worst_conflict_op);
                return why + ". Your run's report (`tklab lesson run` with this lesson's number) lists every conflicted line; "
                             "the visualizer's shared-memory panel shows the lanes";
            }};
}

Goal max_barrier_wait_share(double share) {
    return {"barrier waits under " + fmt("%.0f%%", share * 100) + " of warp time",
            [share](const sim::RunResult& r) -> std::optional<std::string> {
                const uint64_t warps = (uint64_t(r.block.x) * r.block.y * r.block.z + 31) / 32;
                const double time = double(r.stats.sum_block_cycles) * double(warps);
                const double got = time > 0 ? double(r.stats.barrier_wait_cycles) / time : 0;
                if (got < share) return std::nullopt;
                return "warps spent " + fmt("%.1f%%", got * 100) + " of their time waiting at barriers (goal: under " +
                       fmt("%.0f%%", share * 100) + ")";
            }};
}

Goal max_registers(int per_thread) {
    return {"at most " + std::to_string(per_thread) + " live tile registers per thread",
            [per_thread](const sim::RunResult& r) -> std::optional<std::string> {
                if (r.stats.peak_regs <= per_thread) return std::nullopt;
                return std::to_string(r.stats.peak_regs) + " registers per thread live at the peak, at " +
                       where(r, r.stats.peak_regs_loc) + " (goal: at most " + std::to_string(per_thread) +
                       "); fewer or smaller tiles alive at once";
            }};
}

Goal max_cycles(uint64_t cycles) {
    return {"the slowest block within " + std::to_string(cycles) + " simulated cycles",
            [cycles](const sim::RunResult& r) -> std::optional<std::string> {
                if (r.stats.max_block_cycles <= cycles) return std::nullopt;
                return "the slowest block took " + std::to_string(r.stats.max_block_cycles) + " cycles (goal: at most " +
                       std::to_string(cycles) + ")";
            }};
}

Goal max_memory_wait_share(double share) {
    return {"waits for global memory under " + fmt("%.0f%%", share * 100) + " of warp time",
            [share](const sim::RunResult& r) -> std::optional<std::string> {
                const uint64_t warps = (uint64_t(r.block.x) * r.block.y * r.block.z + 31) / 32;
                const double time = double(r.stats.sum_block_cycles) * double(warps);
                const double waited = double(r.stats.stall_cycles[size_t(sim::Stall::long_scoreboard)]);
                const double got = time > 0 ? waited / time : 0;
                if (got < share) return std::nullopt;
                return "warps spent " + fmt("%.1f%%", got * 100) +
                       " of their time waiting for global memory (long scoreboard; goal: under " +
                       fmt("%.0f%%", share * 100) + "); start the next loads before computing on the current ones";
            }};
}

Goal min_blocks_per_sm(int blocks) {
    return {"at least " + std::to_string(blocks) + " blocks resident per SM",
            [blocks](const sim::RunResult& r) -> std::optional<std::string> {
                if (r.stats.blocks_per_sm >= blocks) return std::nullopt;
                std::string why = std::to_string(r.stats.blocks_per_sm) + " blocks fit on an SM, limited by " +
                                  r.stats.occupancy_limit + " (goal: at least " + std::to_string(blocks) + ")";
                if (std::string(r.stats.occupancy_limit) == "registers")
                    why += "; " + std::to_string(r.stats.peak_regs) + " tile registers per thread live at the peak, at " +
                           where(r, r.stats.peak_regs_loc);
                return why;
            }};
}

namespace {
struct MoreParts {
    std::string first_title;
    std::vector<Part> more;
};
std::map<int, MoreParts>& more_parts() {
    static std::map<int, MoreParts> all;
    return all;
}
} // namespace

bool add_parts(int lesson, std::string first_part_title, std::vector<Part> more) {
    more_parts()[lesson] = MoreParts{std::move(first_part_title), std::move(more)};
    return true;
}

std::vector<Part> parts(const Lesson& l) {
    const auto it = more_parts().find(l.number);
    std::vector<Part> all{Part{it == more_parts().end() ? "" : it->second.first_title, l.program, "exercise.cuh",
                               "solution.cuh", l.sizes, l.shape, l.goals, {}, "", l.explain, l.mistakes}};
    if (it != more_parts().end()) all.insert(all.end(), it->second.more.begin(), it->second.more.end());
    return all;
}

CheckResult check(const Lesson& l, const tk::host::program& p, const std::string& variant, unsigned seed) {
    return check(parts(l).front(), p, variant, seed);
}

namespace {

// A failed check: the lesson's known mistake that fits, named under the report.
CheckResult diagnosed(const Part& l, CheckResult res, Symptom& s) {
    s.part = res.part;
    s.report = res.report;
    if (const Mistake* m = diagnose(l.mistakes, s)) {
        res.mistake = m->name;
        res.report += "likely mistake: " + m->likely + "\n";
    }
    return res;
}

} // namespace

CheckResult check(const Part& l, const tk::host::program& p, const std::string& variant, unsigned seed) {
    if (l.custom_check) {
        CheckResult res;
        try {
            res = l.custom_check(l, p, variant, seed);
        } catch (const std::exception& e) {
            res = CheckResult{false, "error", std::string("the check could not run: ") + relative(e.what()) + "\n"};
        }
        if (res.passed) return res;
        Symptom s;
        return diagnosed(l, res, s);
    }
    CheckResult res;
    std::ostringstream out;
    for (size_t i = 0; i < l.sizes.size(); ++i) {
        tk::host::dims_t dims;
        Symptom s;
        try {
            dims = p.resolve(l.sizes[i]);
            s.dims = dims;
            auto c = p.make(dims, seed + unsigned(i));
            c->run(variant);
            const auto got = c->output();
            const auto want = c->reference();
            const double tol = c->check().tolerance;
            const auto [rows, cols] = l.shape ? l.shape(dims) : std::pair{1, int(want.size())};
            std::vector<size_t> bad;
            double worst = 0;
            for (size_t k = 0; k < want.size(); ++k) {
                const double g = k < got.size() ? double(got[k]) : NAN;
                const double e = std::abs(g - want[k]) / std::max(std::abs(want[k]), 1.0);
                if (std::isnan(e) || e > tol) {
                    bad.push_back(k);
                    worst = std::isnan(e) ? INFINITY : std::max(worst, e);
                }
            }
            if (!bad.empty()) {
                res.part = "correctness";
                out << "correctness: wrong at " << dims_text(dims) << ": " << bad.size() << " of " << want.size()
                    << " elements differ from the CPU reference (largest error " << fmt("%.3g", worst) << ", limit "
                    << fmt("%.0e", tol) << ")\n";
                for (size_t k = 0; k < std::min<size_t>(bad.size(), 5); ++k) {
                    const size_t at = bad[k];
                    const int r = cols > 0 ? int(at / size_t(cols)) : 0, col = cols > 0 ? int(at % size_t(cols)) : int(at);
                    out << "  (" << r << ", " << col << "): yours " << fmt("%.6g", at < got.size() ? got[at] : NAN)
                        << " vs expected " << fmt("%.6g", want[at]) << "\n";
                }
                if (bad.size() > 5) out << "  ... and " << bad.size() - 5 << " more\n";
                if (l.explain) out << l.explain(dims, seed + unsigned(i), got, want);
                res.report = out.str();
                describe_output(s, got, want, tol, rows, cols);
                s.run = &sim::last_run();
                return diagnosed(l, res, s);
            }
            out << "correct at " << dims_text(dims) << "\n";
        } catch (const sim::SimError& e) {
            res.part = "error";
            out << "the kernel stopped at " << dims_text(dims) << ": " << relative(e.what()) << "\n";
            res.report = out.str();
            s.error = e.kind;
            s.message = relative(e.what());
            s.file = relative(e.file);
            s.line = e.line;
            s.code = source_line(e.file, e.line);
            s.named_code = named_source_lines(e.what());
            s.run = &sim::last_run();
            return diagnosed(l, res, s);
        } catch (const std::exception& e) {
            res.part = "error";
            out << "the check could not run at " << dims_text(dims) << ": " << relative(e.what()) << "\n";
            res.report = out.str();
            s.message = relative(e.what());
            return diagnosed(l, res, s);
        }
    }
    // A copy: a goal may launch a yardstick of its own (lesson 12 runs the
    // one-slice GEMM), and the diagnosis reads the student's run.
    const sim::RunResult last = sim::last_run();
    for (const Goal& g : l.goals) {
        if (auto why = g.missed(last)) {
            res.part = "goal";
            out << "goal missed: " << g.what << "\n  " << *why << "\n";
            res.report = out.str();
            Symptom s;
            s.dims = l.sizes.empty() ? tk::host::dims_t{} : p.resolve(l.sizes.back());
            s.goal = g.what;
            s.goal_why = *why;
            s.run = &last;
            return diagnosed(l, res, s);
        }
        out << "goal met: " << g.what << "\n";
    }
    res.passed = true;
    res.report = out.str();
    return res;
}

} // namespace tklab::lessons
