// The terminal report of a trace (see report.h). Each section is one function
// that reads a launch's Summary and writes lines through a LineWriter, which
// keeps every line within kWidth columns whatever the trace holds.
#include "trace/report.h"
#include "sim/banks.h"
#include "sim/instructions.h"
#include "trace/fidelity_summary.h"
#include "trace/gpu_metrics.h"
#include "trace/region_stats.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tklab::trace {
namespace {

constexpr size_t kWidth = 100;  // columns of every line
const char* const kEllipsis = "...";

// ---------------------------------------------------------------- text helpers

bool is_utf8_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// Length of the ANSI escape sequence (ESC '[' ... final byte) starting at s[i], 0 if none.
size_t ansi_length(const std::string& s, size_t i) {
    if (s[i] != '\x1b' || i + 1 >= s.size() || s[i + 1] != '[') return 0;
    size_t j = i + 2;
    while (j < s.size() && !(s[j] >= 0x40 && s[j] <= 0x7e)) ++j;
    return j < s.size() ? j - i + 1 : s.size() - i;
}

// Columns a line takes: UTF-8 code points, not counting ANSI escapes.
size_t visible_width(const std::string& s) {
    size_t n = 0;
    for (size_t i = 0; i < s.size();) {
        if (size_t a = ansi_length(s, i)) { i += a; continue; }
        if (!is_utf8_continuation(static_cast<unsigned char>(s[i]))) ++n;
        ++i;
    }
    return n;
}

// Text from the trace (names, paths, source lines, messages) may hold tabs or
// control characters; they would break the column count or smuggle escapes in.
std::string clean(const std::string& s) {
    std::string r;
    r.reserve(s.size());
    for (char c : s) {
        const unsigned char u = static_cast<unsigned char>(c);
        if (c == '\t') r += ' ';
        else if (u < 0x20 || u == 0x7f) r += '?';
        else r += c;
    }
    return r;
}

// Byte offset just after the first `cols` code points of s (s holds no escapes).
size_t byte_offset_of_column(const std::string& s, size_t cols) {
    size_t i = 0, n = 0;
    while (i < s.size()) {
        if (!is_utf8_continuation(static_cast<unsigned char>(s[i]))) {
            if (n == cols) break;
            ++n;
        }
        ++i;
    }
    return i;
}

// Keeps the start of s within `cols` columns, ending it with "..." when cut.
std::string fit(const std::string& s, size_t cols) {
    std::string c = clean(s);
    if (visible_width(c) <= cols) return c;
    if (cols <= 3) return std::string(kEllipsis).substr(0, cols);
    return c.substr(0, byte_offset_of_column(c, cols - 3)) + kEllipsis;
}

// Keeps the end of s (for paths: the file name and line matter most).
std::string fit_tail(const std::string& s, size_t cols) {
    std::string c = clean(s);
    const size_t w = visible_width(c);
    if (w <= cols) return c;
    if (cols <= 3) return std::string(kEllipsis).substr(0, cols);
    return kEllipsis + c.substr(byte_offset_of_column(c, w - (cols - 3)));
}

std::string pad(const std::string& s, size_t cols) {
    const size_t w = visible_width(s);
    return w >= cols ? s : s + std::string(cols - w, ' ');
}

std::string num(uint64_t v) { return std::to_string(v); }

// "1 wave", "2 waves"; `plural` for nouns that take more than an "s".
std::string count_of(uint64_t n, const std::string& noun, const std::string& plural = "") {
    return num(n) + " " + (n == 1 ? noun : plural.empty() ? noun + "s" : plural);
}

std::string fixed(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

// "12.3%" of part in whole, "?" when whole is zero.
std::string percent(double part, double whole) {
    if (whole <= 0) return "?";
    return fixed(100.0 * part / whole, 1) + "%";
}

// Saturating a - b: counters of a damaged trace may have ideal > wavefronts.
uint64_t minus(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

// "0-7", "0,8,16,24", "0-3,16-19": lanes in ascending order, runs of 3+ collapsed.
std::string lane_list(const std::vector<int>& lanes) {
    std::string r;
    for (size_t i = 0; i < lanes.size();) {
        size_t j = i;
        while (j + 1 < lanes.size() && lanes[j + 1] == lanes[j] + 1) ++j;
        if (!r.empty()) r += ',';
        if (j - i >= 2) {
            r += std::to_string(lanes[i]) + "-" + std::to_string(lanes[j]);
        } else {
            for (size_t k = i; k <= j; ++k) {
                if (k > i) r += ',';
                r += std::to_string(lanes[k]);
            }
        }
        i = j + 1;
    }
    return r;
}

// ---------------------------------------------------------------- output

// Writes lines, adding colour only when asked, and cuts any line that would
// still pass kWidth so the width promise holds even for unforeseen input.
class LineWriter {
public:
    LineWriter(std::ostream& out, bool color) : out_(out), color_(color) {}

    std::string bold(const std::string& s) const { return paint("1", s); }
    std::string bad(const std::string& s) const { return paint("31", s); }
    std::string good(const std::string& s) const { return paint("32", s); }
    std::string dim(const std::string& s) const { return paint("2", s); }

    // Trailing spaces are dropped: they are invisible and only make golden files brittle.
    void line(const std::string& s = "") {
        std::string r = cut(s);
        while (!r.empty() && r.back() == ' ') r.pop_back();
        out_ << r << '\n';
    }

private:
    std::string paint(const char* code, const std::string& s) const {
        if (!color_ || s.empty()) return s;
        return std::string("\x1b[") + code + "m" + s + "\x1b[0m";
    }

    std::string cut(const std::string& s) const {
        if (visible_width(s) <= kWidth) return s;
        std::string r;
        size_t cols = 0;
        for (size_t i = 0; i < s.size();) {
            if (size_t a = ansi_length(s, i)) { r.append(s, i, a); i += a; continue; }
            const bool starts_char = !is_utf8_continuation(static_cast<unsigned char>(s[i]));
            if (starts_char && cols == kWidth - 3) break;
            if (starts_char) ++cols;
            r += s[i++];
        }
        // Close any colour left open by the cut.
        return r + kEllipsis + (color_ ? "\x1b[0m" : "");
    }

    std::ostream& out_;
    bool color_;
};

// ---------------------------------------------------------------- trace lookups

std::string table_name(const std::vector<std::string>& table, size_t i) {
    return i < table.size() ? clean(table[i]) : std::string("?");
}

std::string op_name(const Trace& t, size_t op) { return table_name(t.ops, op); }
std::string stall_name(const Trace& t, size_t s) { return table_name(t.stalls, s); }

// "file:line" fitted to `cols`, keeping the end of a long path.
std::string where(const Trace& t, uint32_t loc, size_t cols = 48) { return fit_tail(t.where(loc), cols); }

const json* arch_field(const Trace& t, const char* key) {
    if (!t.arch.is_object()) return nullptr;
    auto it = t.arch.find(key);
    return it == t.arch.end() ? nullptr : &*it;
}

std::optional<double> arch_number(const Trace& t, const char* key) {
    const json* v = arch_field(t, key);
    if (!v || !v->is_number()) return std::nullopt;
    return v->get<double>();
}

std::optional<long long> arch_int(const Trace& t, const char* key) {
    auto v = arch_number(t, key);
    // Far beyond any real GPU: treat as absent rather than risk overflow in the arithmetic.
    if (!v || !(*v > -1e12 && *v < 1e12)) return std::nullopt;
    return static_cast<long long>(*v);
}

std::string arch_name(const Trace& t) {
    const json* v = arch_field(t, "name");
    return v && v->is_string() ? clean(v->get<std::string>()) : std::string("?");
}

// The problem object as "K=512 M=512 N=512" (a non-object prints as JSON).
std::string problem_text(const json& p) {
    if (!p.is_object()) return p.is_null() ? std::string() : p.dump();
    std::string r;
    for (auto it = p.begin(); it != p.end(); ++it) {
        if (!r.empty()) r += ' ';
        r += it.key() + "=" + (it->is_string() ? it->get<std::string>() : it->dump());
    }
    return r;
}

std::string dim3(const Dim3& d) { return num(d.x) + "x" + num(d.y) + "x" + num(d.z); }

uint64_t threads_per_block(const Launch& l) { return uint64_t(l.block.x) * l.block.y * l.block.z; }

// The source line under a location, as "     | text", or nothing when unknown.
void source_line(LineWriter& w, const Trace& t, uint32_t loc, const std::string& indent) {
    const std::string text = t.line_text(loc);
    if (text.empty()) return;
    const std::string lead = indent + "| ";
    w.line(lead + w.dim(fit(text, kWidth - lead.size())));
}

// Says how many rows a section left out.
void more_rows(LineWriter& w, size_t shown, size_t total, const std::string& one, const std::string& many) {
    if (total > shown) w.line("  ... and " + count_of(total - shown, "more " + one, "more " + many));
}

// Items joined by ", " over as many lines as needed, never splitting an item.
void write_wrapped_list(LineWriter& w, const std::vector<std::string>& items, const std::string& indent) {
    std::string line;
    for (const std::string& raw : items) {
        const std::string item = fit(raw, kWidth - indent.size() - 1);
        if (!line.empty() && indent.size() + visible_width(line) + 2 + visible_width(item) + 1 > kWidth) {
            w.line(indent + line + ",");
            line.clear();
        }
        line += (line.empty() ? "" : ", ") + item;
    }
    if (!line.empty()) w.line(indent + line);
}

// ---------------------------------------------------------------- bank lanes

// ldmatrix and stmatrix: phases of 8 rows of 16 bytes (the instruction table says which).
bool is_matrix_op(const std::string& name) {
    const sim::Instruction* i = sim::instruction_named(name);
    return i && i->matrix_phases();
}

// A group of lanes the hardware serves together; only words within a phase can collide.
struct Phase {
    int first_lane = 0, lanes = 32;
    int words_per_lane = 1;
    std::string label;
};

// The phases of one instruction, as the bank analysis defines them (sim/banks.h).
// Empty: not a shape the hardware has.
std::vector<Phase> phases_of(bool matrix, int aux) {
    const sim::BankPhases bp = matrix ? sim::matrix_phases(aux) : sim::access_phases(aux);
    std::vector<Phase> ph;
    for (int p = 0; p < bp.count; ++p) {
        const int first = p * bp.lanes, last = first + bp.lanes - 1;
        std::string label = "lanes " + std::to_string(first) + "-" + std::to_string(last);
        if (matrix) label = "matrix " + std::to_string(p) + " (" + label + ")";
        else if (bp.count == 1) label = "all 32 lanes";
        else label += " (phase " + std::to_string(p + 1) + " of " + std::to_string(bp.count) + ")";
        ph.push_back({first, bp.lanes, bp.words_per_lane, label});
    }
    return ph;
}

struct BankCollision {
    int bank = 0;
    std::vector<uint32_t> words;  // distinct words, ascending
    std::vector<int> lanes;       // lanes touching them, ascending
};

struct PhaseCollisions {
    const Phase* phase = nullptr;
    int worst_way = 0;
    std::vector<BankCollision> banks;  // banks with 2+ distinct words, most first
};

// Shared atomics (atom/red.shared): lanes on the same word do not broadcast
// but serialise (sim/banks.h, analyze_atomic), so each lane counts.
bool is_shared_atomic(const std::string& name) {
    const sim::Instruction* i = sim::instruction_named(name);
    return i && i->smem_total == sim::SmemTotal::atom_shared;
}

PhaseCollisions collisions_in(const Phase& p, uint32_t mask, const std::vector<uint32_t>& addr, bool atomic) {
    std::map<int, std::set<uint32_t>> words;
    std::map<int, std::set<int>> lanes;
    for (int l = p.first_lane; l < p.first_lane + p.lanes && l < 32; ++l) {
        if (!((mask >> l) & 1u)) continue;
        for (int k = 0; k < p.words_per_lane; ++k) {
            const uint32_t word = addr[size_t(l)] / 4 + uint32_t(k);
            const int bank = int(word % 32);
            words[bank].insert(word);  // a set: lanes on the same word broadcast
            lanes[bank].insert(l);
        }
    }
    PhaseCollisions pc;
    pc.phase = &p;
    const auto way = [&](int bank, const std::set<uint32_t>& ws) { return atomic ? lanes[bank].size() : ws.size(); };
    for (const auto& [bank, ws] : words) {
        pc.worst_way = std::max(pc.worst_way, int(way(bank, ws)));
        if (way(bank, ws) < 2) continue;
        pc.banks.push_back({bank, {ws.begin(), ws.end()}, {lanes[bank].begin(), lanes[bank].end()}});
    }
    std::stable_sort(pc.banks.begin(), pc.banks.end(), [&](const BankCollision& a, const BankCollision& b) {
        return (atomic ? a.lanes.size() : a.words.size()) > (atomic ? b.lanes.size() : b.words.size());  // ties keep ascending bank order
    });
    return pc;
}

// "(8 distinct words, 128 bytes apart)": an even spacing hints at the row stride to change.
std::string words_note(const std::vector<uint32_t>& words) {
    std::string r = num(words.size()) + " distinct words";
    if (words.size() >= 2) {
        const uint64_t step = uint64_t(words[1] - words[0]) * 4;
        bool even = true;
        for (size_t i = 2; i < words.size(); ++i) even = even && uint64_t(words[i] - words[i - 1]) * 4 == step;
        if (even) r += ", " + num(step) + " bytes apart";
    }
    return r;
}

// Which lanes collide in which bank in the worst recorded execution of a site.
void write_colliding_lanes(LineWriter& w, const Trace& t, const SmemSite& s, const std::string& indent) {
    const std::string name = op_name(t, s.op);
    if (s.worst_lanes.empty()) {
        w.line(indent + "colliding lanes: unknown (lane addresses were not recorded for this site)");
        return;
    }
    if (s.worst_lanes.size() != 32 || name == "?") {
        w.line(indent + "colliding lanes: unknown (the recorded worst execution is incomplete)");
        return;
    }
    const bool matrix = is_matrix_op(name), atomic = is_shared_atomic(name);
    const std::vector<Phase> phases = phases_of(matrix, s.worst_aux);
    if (phases.empty()) {
        w.line(indent + "colliding lanes: unknown (" + num(s.worst_aux) +
               (matrix ? " matrices" : " bytes per lane") + " is not a shape the banks analysis knows)");
        return;
    }
    PhaseCollisions worst;
    for (const Phase& p : phases) {
        PhaseCollisions pc = collisions_in(p, s.worst_mask, s.worst_lanes, atomic);
        if (pc.worst_way > worst.worst_way) worst = std::move(pc);
    }
    if (worst.banks.empty()) {
        w.line(indent + "colliding lanes: none in the recorded addresses (each bank gets one word per phase)");
        return;
    }
    w.line(indent + "worst execution, " + worst.phase->label + ": " + num(uint64_t(worst.worst_way)) + "-way");
    constexpr size_t kMaxBanks = 3;
    for (size_t i = 0; i < worst.banks.size() && i < kMaxBanks; ++i) {
        const BankCollision& b = worst.banks[i];
        const std::string head = indent + "  bank " + std::to_string(b.bank) + ": lanes ";
        const std::string tail = " (" + words_note(b.words) + (atomic && b.lanes.size() > b.words.size() ? "; atomics on one word serialise" : "") + ")";
        w.line(head + fit(lane_list(b.lanes), kWidth - head.size() - tail.size()) + w.bad(tail));
    }
    if (worst.banks.size() > kMaxBanks)
        w.line(indent + "  ... and " + count_of(worst.banks.size() - kMaxBanks, "more bank") + " with collisions");
}

// ---------------------------------------------------------------- bank histogram

// One character per bank, ▁..█ scaled to the busiest bank, '·' for an untouched one.
std::string bank_bars(const std::array<uint64_t, 32>& words) {
    static const char* const kBars[8] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
    const uint64_t top = *std::max_element(words.begin(), words.end());
    std::string r;
    for (uint64_t v : words) {
        if (v == 0 || top == 0) { r += "·"; continue; }
        // ceil(8 v / top) in 1..8 (long double: v * 8 could overflow 64 bits)
        const long double level = (static_cast<long double>(v) * 8) / top;
        int idx = int(level);
        if (level > idx) ++idx;
        r += kBars[std::clamp(idx, 1, 8) - 1];
    }
    return r;
}

// Bank numbers every 4 banks, aligned under bank_bars: "0   4   8   12  16 ...".
std::string bank_ruler() {
    std::string r;
    for (int b = 0; b < 32; b += 4) r += pad(std::to_string(b), 4);
    return r;
}

void write_bank_histogram(LineWriter& w, const SmemSite& s, const std::string& indent) {
    const auto top = std::max_element(s.bank_words.begin(), s.bank_words.end());
    const std::string label = indent + "words per bank ";
    w.line(label + bank_bars(s.bank_words) + "  max " + num(*top) + " in bank " +
           std::to_string(top - s.bank_words.begin()));
    w.line(std::string(label.size(), ' ') + bank_ruler());
}

// ---------------------------------------------------------------- sections

void heading(LineWriter& w, const std::string& title) {
    w.line();
    w.line(w.bold(title));
}

// Shared-memory totals over the instruction kinds the banks analysis covers (shared atomics included).
SmemTotals smem_total(const Summary& s) {
    SmemTotals r;
    for (const SmemTotals* k : {&s.ld_shared, &s.st_shared, &s.ldmatrix, &s.stmatrix, &s.atom_shared}) {
        r.instructions += k->instructions;
        r.wavefronts += k->wavefronts;
        r.ideal += k->ideal;
        r.max_way = std::max(r.max_way, k->max_way);
    }
    return r;
}

uint64_t line_total(const LineStalls& ls) {
    uint64_t n = 0;
    for (uint64_t c : ls.cycles) n += c;
    return n;
}

// The stall reason with the most cycles on a line, "?" when there are none.
std::string main_reason(const Trace& t, const LineStalls& ls) {
    size_t best = ls.cycles.size();
    for (size_t i = 0; i < ls.cycles.size(); ++i)
        if (ls.cycles[i] > 0 && (best == ls.cycles.size() || ls.cycles[i] > ls.cycles[best])) best = i;
    return best == ls.cycles.size() ? std::string("?") : stall_name(t, best);
}

// Sites with conflicts, worst first; ties by location then instruction, so the order is fixed.
std::vector<const SmemSite*> conflict_sites(const Summary& s) {
    std::vector<const SmemSite*> r;
    for (const SmemSite& site : s.smem_sites)
        if (minus(site.wavefronts, site.ideal) > 0) r.push_back(&site);
    std::sort(r.begin(), r.end(), [](const SmemSite* a, const SmemSite* b) {
        const uint64_t ca = minus(a->wavefronts, a->ideal), cb = minus(b->wavefronts, b->ideal);
        if (ca != cb) return ca > cb;
        if (a->loc != b->loc) return a->loc < b->loc;
        return a->op < b->op;
    });
    return r;
}

std::vector<const LineStalls*> stalled_lines(const Summary& s) {
    std::vector<const LineStalls*> r;
    for (const LineStalls& ls : s.line_stalls)
        if (line_total(ls) > 0) r.push_back(&ls);
    std::sort(r.begin(), r.end(), [](const LineStalls* a, const LineStalls* b) {
        const uint64_t ta = line_total(*a), tb = line_total(*b);
        return ta != tb ? ta > tb : a->loc < b->loc;
    });
    return r;
}

uint64_t site_total(const BarrierSite& b) {
    uint64_t n = 0;
    for (const BarrierWarpStats& ws : b.warps) n += ws.total;
    return n;
}

std::string barrier_kind(const BarrierSite& b) {
    return b.mbarrier ? std::string("mbarrier") : "bar.sync " + std::to_string(b.id);
}

// Registers per thread the report works with: ptxas's figure when the
// simulating build had nvcc, else the simulator's estimate. `base` is what
// they hold besides the tiles at the peak.
struct Registers {
    long long base = 0, total = 0;
};

Registers registers_of(const Trace& t, const Summary& s) {
    const long long total = s.compiler ? s.compiler->registers : register_estimate(t, s).total;
    return {std::max(0LL, total - s.peak_regs), total};
}

// What the estimate is made of (sim/merge.cpp register_estimate).
std::string estimate_parts(const Summary& s, const RegisterEstimate& e) {
    const std::string rest = " + " + std::to_string(e.base) + " base" +
                             (e.addresses ? " + " + std::to_string(e.addresses) + " loop addresses" : std::string());
    switch (e.from) {
    case RegisterEstimate::From::tiles:
        return std::to_string(s.peak_regs) + " tiles" +
               (e.from_shared ? " - " + std::to_string(e.from_shared) + " (operands loaded in parts)" : std::string()) + rest;
    case RegisterEstimate::From::loaded: return std::to_string(s.peak_loaded_regs) + " loaded, not yet read" + rest;
    case RegisterEstimate::From::run:
        // One tile op's global accesses, their addresses computed before the first.
        return std::to_string(e.run_base) + " + " + std::to_string(e.run_per_address) + " x " + std::to_string(s.run_addresses) +
               " addresses computed ahead" + (e.run_capped ? ", at most " + std::to_string(e.run) + " (full occupancy)" : std::string());
    case RegisterEstimate::From::idle: return "the kernel issued nothing";
    case RegisterEstimate::From::setmaxnreg: break;
    }
    return "setmaxnreg: the most the launch allows each thread";
}

std::string signed_percent(double ours, double theirs) {
    if (theirs <= 0) return "?";
    char b[32];
    std::snprintf(b, sizeof b, "%+.0f%%", 100.0 * (ours - theirs) / theirs);
    return b;
}

// Local memory per thread that ptxas reports: spills, and a stack frame (arrays
// it could not keep in registers, e.g. tiles indexed at run time). "" when none.
std::string local_memory_text(const CompilerFigures& c) {
    std::string r;
    if (c.stack_bytes) r = num(c.stack_bytes) + " B stack frame";
    if (c.spill_store_bytes || c.spill_load_bytes)
        r += (r.empty() ? "" : ", ") + num(c.spill_store_bytes) + " B spilled, " + num(c.spill_load_bytes) + " B reloaded";
    return r;
}

void write_header(LineWriter& w, const Trace& t, size_t index, const Launch& l) {
    w.line();
    const std::string title = "Launch " + num(index) + ": " + fit(l.kernel.empty() ? "?" : l.kernel, 40);
    w.line(w.bold(title) + "  grid " + dim3(l.grid) + "  block " + dim3(l.block) + "  shared " +
           num(l.smem_bytes) + " B");
    std::string ctx;
    if (!t.program.empty()) ctx += "program " + t.program + "  ";
    if (!t.variant.empty()) ctx += "variant " + t.variant + "  ";
    const std::string problem = problem_text(t.problem);
    if (!problem.empty()) ctx += "problem " + problem + "  ";
    ctx += "cost model " + arch_name(t);
    w.line("  " + fit(ctx, kWidth - 2));
    if (l.failure)
        w.line("  " + w.bad("FAILED: " + fit(l.failure->kind, 30)) + " (the message is under Failures below)");
}

void write_summary(LineWriter& w, const Trace& t, const Launch& l, const Summary& s) {
    heading(w, "Summary");
    auto row = [&](const std::string& label, const std::string& value) { w.line("  " + pad(label, 20) + value); };
    const std::string blank(22, ' ');

    const double mhz = clock_mhz(t, &s);
    const std::string time = mhz > 0 ? fixed(double(s.est_kernel_cycles) / mhz, 2) + " us" : "? us";
    row("estimated time", time + " = " + num(s.est_kernel_cycles) + " cycles at " + (mhz > 0 ? fixed(mhz, 0) : std::string("?")) + " MHz" +
                              (s.clock_mhz > 0 && arch_number(t, "clock_mhz") != s.clock_mhz ? " (tensor cores in use)" : ""));
    std::string waves;
    const uint64_t wave_cycles = s.time_limit.empty() ? s.est_kernel_cycles : s.wave_cycles;  // older traces: no parts
    const uint64_t blocks_cycles = wave_cycles - std::min(wave_cycles, s.store_ack_cycles);
    if (s.max_block_cycles > 0 && blocks_cycles % s.max_block_cycles == 0)
        waves = " x " + count_of(blocks_cycles / s.max_block_cycles, "wave");
    // The memory model's bound, when it is the larger (sim/README.md, "Global memory").
    auto megabytes = [](uint64_t b) { return fixed(double(b) / 1e6, b < 10'000'000 ? 2 : 0) + " MB"; };
    if (s.time_limit == "L2 bandwidth")
        w.line(blank + "limited by L2 bandwidth: " + megabytes(s.global_bytes) + " in " + num(s.l2_cycles) + " cycles (its blocks: " +
               num(s.wave_cycles) + ")");
    else if (s.time_limit == "DRAM bandwidth")
        w.line(blank + "limited by DRAM bandwidth: " + megabytes(s.dram_bytes) + " in " + num(s.dram_cycles) + " cycles (its blocks: " +
               num(s.wave_cycles) + ")");
    if (s.launch_overhead_cycles > 0) w.line(blank + "including " + num(s.launch_overhead_cycles) + " cycles of launch overhead");
    // How far such estimates were from the GPU the cost model was measured on
    // (trace/fidelity_summary.h): this kernel's, where the report has it.
    if (!t.from_gpu())
        if (const FidelitySummary* f = builtin_fidelity(arch_name(t))) {
            const std::string gpu = f->gpu.rfind("NVIDIA ", 0) == 0 ? f->gpu.substr(7) : f->gpu;
            std::string mine;
            for (const FidelityLaunch& x : f->of(t.program, t.variant))
                mine += (mine.empty() ? "" : ", ") + x.error + (x.wave == "one" ? " at one wave" : " at many");
            w.line(blank + "against the " + gpu + ": " + (mine.empty() ? "this kernel not measured" : "this kernel " + mine));
            w.line(blank + f->count + " launches: mean error " + f->mean + ", worst " + f->worst + " (" + f->file + ")");
        }
    const std::string limit = s.occupancy_limit.empty() ? "?" : clean(s.occupancy_limit);
    const std::string occupancy =
        s.blocks_per_sm > 0 ? num(uint64_t(s.blocks_per_sm)) + " blocks/SM (limited by " + limit + ")"
                            : w.bad("a block does not fit on an SM (limited by " + limit + ")");
    if (s.blocks_together > 1) {  // the SM model ran several blocks at once on one SM (sim/README.md, "The SM")
        w.line(blank + "busiest SM " + num(s.wave_cycles) + " cycles, its blocks simulated " + num(uint64_t(s.blocks_together)) + " at a time");
        w.line(blank + "slowest block " + num(s.max_block_cycles) + " cycles, " + occupancy);
    } else {
        w.line(blank + "slowest block " + num(s.max_block_cycles) + " cycles" + waves + ", " + occupancy);
    }
    // The kernel ends once L2 has acknowledged the last blocks' stores; a
    // block's exit waits only for them to leave the SM (sim/README.md, "Stores drain").
    if (s.store_ack_cycles)
        w.line(blank + "then " + num(s.store_ack_cycles) + " cycles until L2 acknowledges the last blocks' stores");
    row("blocks", num(s.blocks) + " of " + num(uint64_t(l.grid.x) * l.grid.y * l.grid.z) + " in the grid ran");
    row("warp instructions", num(s.warp_instructions) +
                                 (s.overhead_instructions ? " (+ about " + num(s.overhead_instructions) + " of address arithmetic, as time)"
                                                          : std::string()));
    // The L1 model (sim/README.md, "L1"): loads it served never reached L2.
    // Stores pass L1 by: their bytes are said apart (older traces lack them).
    if (s.l1_hit_bytes > 0) {
        const uint64_t loads_l2 = minus(s.global_bytes, s.global_write_bytes);
        row("L1 hits", megabytes(s.l1_hit_bytes) + " of the loads' sectors came from L1, " + megabytes(loads_l2) + " from L2" +
                           (s.global_write_bytes ? " (and " + megabytes(s.global_write_bytes) + " of stores went to L2)" : std::string()));
    }

    const SmemTotals sm = smem_total(s);
    const uint64_t extra = minus(sm.wavefronts, sm.ideal);
    if (sm.ideal == 0 && sm.wavefronts == 0) {
        row("shared wavefronts", "none (no shared-memory loads or stores)");
    } else {
        const std::string verdict = extra > 0 ? w.bad("+" + percent(double(extra), double(sm.ideal)) +
                                                      " extra from bank conflicts")
                                              : w.good("no bank conflicts");
        row("shared wavefronts", num(sm.wavefronts) + " achieved vs " + num(sm.ideal) + " ideal: " + verdict);
    }
    row("barrier wait", percent(double(s.barrier_wait_cycles), double(s.warp_cycles)) + " of warp time (" +
                            num(s.barrier_wait_cycles) + " of " + num(s.warp_cycles) + " warp-cycles)");
    if (s.allowed_uninit_reads) {  // tk::allow_uninitialized_reads: notes, not errors
        row("allowed uninit", num(s.allowed_uninit_reads) + " reads of bytes nothing wrote, in tk::allow_uninitialized_reads");
        w.line(blank + "first at " + where(t, s.allowed_uninit_loc, 60));
    }
    if (s.compiler) {
        row("registers", std::to_string(s.compiler->registers) + " per thread (" + fit(s.compiler->tool, 24) + ", " +
                             fit(s.compiler->arch, 8) + "); tiles hold " + std::to_string(s.peak_regs) + " at the peak");
        const std::string local = local_memory_text(*s.compiler);
        if (!local.empty())
            row("local memory", w.bad(fit(local, 60)) + " per thread (Registers)");
    } else {
        const RegisterEstimate e = register_estimate(t, s);
        const std::string total = std::to_string(e.total);
        switch (e.from) {
        case RegisterEstimate::From::tiles:
            if (e.addresses || e.from_shared)
                row("peak registers", "about " + total + " per thread (" + estimate_parts(s, e) + "), an estimate");
            else
                row("peak registers", std::to_string(s.peak_regs) + " per thread held by tiles (+" + std::to_string(e.base) +
                                          " base = about " + total + ", an estimate)");
            break;
        case RegisterEstimate::From::loaded:
            row("peak registers", "about " + total + " per thread, an estimate: " + std::to_string(s.peak_loaded_regs) +
                                      (e.addresses ? " loaded + " : " loaded before use + ") + std::to_string(e.base) + " base" +
                                      (e.addresses ? " + " + std::to_string(e.addresses) + " loop addresses" : std::string()));
            break;
        case RegisterEstimate::From::run:
            row("peak registers", "about " + total + " per thread (" + std::to_string(s.run_addresses) +
                                      " addresses computed ahead), an estimate");
            break;
        case RegisterEstimate::From::idle:
            row("peak registers", "about " + total + " per thread, an estimate: the kernel issued nothing");
            break;
        case RegisterEstimate::From::setmaxnreg:
            row("peak registers", std::to_string(s.peak_regs) + " per thread held by tiles (setmaxnreg's limit: about " + total +
                                      ", an estimate)");
            break;
        }
        // A likely spill is a finding, as local memory is with ptxas's figures.
        const auto max_regs = arch_int(t, "max_registers_per_thread");
        if (max_regs && *max_regs > 0 && e.total > *max_regs)
            row("", w.bad("past the " + std::to_string(*max_regs) + " a thread can have: the compiler would spill (Registers)"));
    }

    // Pointers to the sections below, so a student knows where to look first.
    const auto lines = stalled_lines(s);
    if (!lines.empty())
        row("most stalled line", where(t, lines[0]->loc, 50) + ", " + num(line_total(*lines[0])) +
                                     " cycles, mostly " + main_reason(t, *lines[0]));
    const auto sites = conflict_sites(s);
    if (!sites.empty())
        row("worst conflict", where(t, sites[0]->loc, 50) + ", " +
                                  w.bad(num(sites[0]->max_way) + "-way " + op_name(t, sites[0]->op)));
}

void write_conflict_site(LineWriter& w, const Trace& t, size_t rank, const SmemSite& s) {
    const uint64_t extra = minus(s.wavefronts, s.ideal);
    w.line("  " + num(rank) + ". " + where(t, s.loc) + "  " + op_name(t, s.op) + "  " +
           w.bad(num(s.max_way) + "-way"));
    source_line(w, t, s.loc, "     ");
    const std::string per_run =
        s.count > 0 ? fixed(double(s.wavefronts) / double(s.count), 2) + " wavefronts per run where " +
                          fixed(double(s.ideal) / double(s.count), 2) + " would do"
                    : std::string("? wavefronts per run");
    w.line("     ran " + (s.count == 1 ? std::string("once") : num(s.count) + " times") + ", " + per_run + ": " +
           w.bad("+" + num(extra) + " (" + percent(double(extra), double(s.ideal)) + ")"));
    write_bank_histogram(w, s, "     ");
    write_colliding_lanes(w, t, s, "     ");
}

void write_conflicts(LineWriter& w, const Trace& t, const Summary& s, const ReportOptions& opt) {
    const auto sites = conflict_sites(s);
    if (sites.empty()) {
        heading(w, "Bank conflicts");
        w.line("  " + w.good("no bank conflicts") + ": " + num(s.ldmatrix.instructions) + " ldmatrix, " +
               num(s.stmatrix.instructions) + " stmatrix, " + num(s.ld_shared.instructions) + " ld.shared and " +
               num(s.st_shared.instructions) + " st.shared" +
               (s.atom_shared.instructions ? " (and " + num(s.atom_shared.instructions) + " shared atomics)" : std::string()));
        w.line("  all at their ideal wavefronts (one per phase)");
        return;
    }
    heading(w, "Bank conflicts (" + count_of(sites.size(), "site") + ", worst first)");
    size_t shown = 0;
    for (; shown < sites.size() && shown < opt.top; ++shown)
        write_conflict_site(w, t, shown + 1, *sites[shown]);
    more_rows(w, shown, sites.size(), "site with conflicts", "sites with conflicts");
}

void write_warp_table(LineWriter& w, const BarrierSite& b, size_t max_rows) {
    std::vector<size_t> order;
    for (size_t i = 0; i < b.warps.size(); ++i) order.push_back(i);
    const bool all = order.size() <= max_rows;
    // When not every warp fits, show the ones that waited most.
    if (!all)
        std::stable_sort(order.begin(), order.end(),
                         [&](size_t x, size_t y) { return b.warps[x].total > b.warps[y].total; });
    char buf[160];
    std::snprintf(buf, sizeof buf, "     %5s %8s %14s %10s %13s", "warp", "waits", "total cycles", "longest",
                  "arrived last");
    w.line(buf);
    for (size_t i = 0; i < order.size() && i < max_rows; ++i) {
        const BarrierWarpStats& ws = b.warps[order[i]];
        std::snprintf(buf, sizeof buf, "     %5zu %8" PRIu64 " %14" PRIu64 " %10" PRIu64 " %13" PRIu64, order[i],
                      ws.waits, ws.total, ws.longest, ws.arrived_last);
        w.line(buf);
    }
    if (!all) w.line("     ... " + count_of(order.size() - max_rows, "more warp") + " (most waiting shown)");
}

void write_last_arrival(LineWriter& w, const BarrierSite& b) {
    uint64_t releases = 0;
    size_t last = 0;
    for (size_t i = 0; i < b.warps.size(); ++i) {
        releases += b.warps[i].arrived_last;
        if (b.warps[i].arrived_last > b.warps[last].arrived_last) last = i;
    }
    if (releases == 0) {
        w.line("     no record of which warp arrived last");
        return;
    }
    w.line("     warp " + num(last) + " arrived last most often (" + num(b.warps[last].arrived_last) + " of " +
           num(releases) + " times): the others waited for it");
}

void write_barriers(LineWriter& w, const Trace& t, const Summary& s, const ReportOptions& opt) {
    std::vector<const BarrierSite*> sites;
    for (const BarrierSite& b : s.barrier_sites) sites.push_back(&b);
    std::sort(sites.begin(), sites.end(), [](const BarrierSite* a, const BarrierSite* b) {
        const uint64_t ta = site_total(*a), tb = site_total(*b);
        if (ta != tb) return ta > tb;
        if (a->loc != b->loc) return a->loc < b->loc;
        if (a->mbarrier != b->mbarrier) return b->mbarrier;
        return a->id < b->id;
    });
    if (sites.empty()) {
        heading(w, "Barrier waits");
        w.line("  no barrier waits");
        return;
    }
    heading(w, "Barrier waits (" + count_of(sites.size(), "site") + ", most waiting first)");
    uint64_t all_sites = 0;  // the share's whole: the same waits, however the summary was made
    for (const BarrierSite* b : sites) all_sites += site_total(*b);
    constexpr size_t kMaxWarpRows = 8;  // a 32-warp block would drown the section
    size_t shown = 0;
    for (; shown < sites.size() && shown < opt.top; ++shown) {
        const BarrierSite& b = *sites[shown];
        const uint64_t total = site_total(b);
        w.line("  " + num(shown + 1) + ". " + where(t, b.loc) + "  " + barrier_kind(b) + "  " + num(total) +
               " cycles waited (" + percent(double(total), double(all_sites)) + " of all)");
        source_line(w, t, b.loc, "     ");
        if (b.warps.empty()) {
            w.line("     no waits recorded");
            continue;
        }
        write_warp_table(w, b, kMaxWarpRows);
        write_last_arrival(w, b);
    }
    more_rows(w, shown, sites.size(), "barrier site", "barrier sites");
}

void write_live_tiles(LineWriter& w, const Trace& t, const Summary& s, const ReportOptions& opt) {
    if (s.peak_live.empty()) {
        w.line("  live tiles at the peak: not recorded");
        return;
    }
    std::vector<const LiveTile*> tiles;
    for (const LiveTile& lt : s.peak_live) tiles.push_back(&lt);
    std::sort(tiles.begin(), tiles.end(), [](const LiveTile* a, const LiveTile* b) {
        return a->regs != b->regs ? a->regs > b->regs : a->loc < b->loc;
    });
    w.line("  live tiles at the peak (registers per thread, where declared):");
    size_t shown = 0;
    for (; shown < tiles.size() && shown < opt.top; ++shown) {
        const LiveTile& lt = *tiles[shown];
        char regs[32];
        std::snprintf(regs, sizeof regs, "    %5d  ", lt.regs);
        const std::string at = where(t, lt.loc, 40);
        const std::string text = t.line_text(lt.loc);
        const std::string head = regs + pad(at, 24);
        w.line(head + (text.empty() ? "" : "  " + w.dim(fit(text, kWidth - visible_width(head) - 2))));
    }
    more_rows(w, shown, tiles.size(), "live tile", "live tiles");
}

void write_register_limit(LineWriter& w, const Trace& t, const Summary& s, const Registers& regs) {
    if (s.compiler) {
        const CompilerFigures& c = *s.compiler;
        w.line("  " + fit(c.tool, 30) + " for " + fit(c.arch, 8) + ": " + std::to_string(c.registers) +
               " registers per thread (occupancy uses this figure)");
        if (c.static_shared_bytes) w.line("  static shared memory: " + num(c.static_shared_bytes) + " bytes per block");
        const std::string local = local_memory_text(c);
        if (local.empty()) {
            w.line("  local memory: none (" + w.good("no spills") + ")");
        } else {
            w.line("  local memory: " + w.bad(fit(local, 70)) + " per thread");
            w.line("    the compiler keeps these in local memory (L1, then L2): each access is a load or store the");
            w.line("    GPU executes (long_scoreboard in its PC samples) and the simulator does not model;");
            if (c.spill_store_bytes || c.spill_load_bytes) {
                w.line("    fewer or smaller tiles live at the peak (above) or indices known at compile time keep them");
                w.line("    in registers");
            } else {
                // No spills: the frame is an array indexed at run time. In the
                // tk GEMMs it was a stage's pointer array read as *a_s[cur]: an
                // LDL.64 each k-step, before the first ldmatrix (nvdisasm, sm_90a);
                // an array of tiles (al.allocate<tile[2]>()) removed it.
                w.line("    a frame without spills is an array the code indexes at run time, such as a pointer per");
                w.line("    stage read as *a_s[cur]: allocate the stages as one array of tiles (auto& a_s =");
                w.line("    al.allocate<tile[2]>(); a_s[cur] is then address arithmetic), pick the element with a");
                w.line("    select (cur ? x1 : x0) or index with a compile-time constant");
            }
        }
        const RegisterEstimate e = register_estimate(t, s);
        w.line("  without nvcc the simulator would estimate " + std::to_string(e.total) + ": " +
               signed_percent(double(e.total), double(c.registers)) + " against ptxas:");
        w.line("    " + estimate_parts(s, e));
        return;
    }
    const auto max_regs = arch_int(t, "max_registers_per_thread");
    const std::string est = "estimate " + std::to_string(regs.total) + " per thread (" + estimate_parts(s, register_estimate(t, s)) + ")";
    if (!max_regs) {
        w.line("  " + est + "; the cost model gives no per-thread limit");
    } else if (regs.total > *max_regs) {
        w.line("  " + est + w.bad(" exceeds the limit of " + std::to_string(*max_regs)) +
               ": the compiler would spill to local memory");
    } else {
        w.line("  " + est + " of " + std::to_string(*max_regs) + " allowed: " + w.good("ok"));
    }
}

// Blocks/SM that registers allow, and what the next step would take.
void write_register_occupancy(LineWriter& w, const Trace& t, const Launch& l, const Summary& s,
                              const Registers& regs) {
    const auto per_sm = arch_int(t, "registers_per_sm");
    const long long threads = static_cast<long long>(threads_per_block(l));
    constexpr long long kMaxThreads = 1 << 20;  // far above CUDA's 1024; guards the products below
    if (!per_sm || *per_sm <= 0 || threads <= 0 || threads > kMaxThreads || regs.total > (1LL << 30)) {
        w.line("  blocks/SM by registers: unknown (no registers_per_sm in the cost model, or an odd block)");
        return;
    }
    // Registers are allocated per thread in units of 8; past the limit the
    // compiler spills, and a thread holds the limit.
    const auto max_regs = arch_int(t, "max_registers_per_thread");
    const long long held = max_regs && *max_regs > 0 ? std::min<long long>(regs.total, *max_regs) : regs.total;
    const long long alloc = std::max(8LL, (held + 7) / 8 * 8);
    const long long per_block = alloc * threads;
    const long long blocks = *per_sm / per_block;
    w.line("  by registers: " + std::to_string(alloc) + "/thread (rounded to 8) x " + std::to_string(threads) +
           " threads = " + std::to_string(per_block) + " of " + std::to_string(*per_sm) + " per SM -> " +
           std::to_string(blocks) + " blocks/SM");
    const long long next_alloc = *per_sm / ((blocks + 1) * threads) / 8 * 8;
    if (next_alloc - regs.base <= 0) {
        w.line("  " + std::to_string(blocks + 1) + " blocks/SM are out of reach by registers alone");
    } else {
        w.line("  " + std::to_string(blocks + 1) + " blocks/SM would need at most " + std::to_string(next_alloc) +
               " registers per thread (" + std::to_string(next_alloc - regs.base) + " from tiles, " +
               std::to_string(regs.total - next_alloc) + " fewer than now)");
    }
    if (!s.occupancy_limit.empty() && s.occupancy_limit != "registers")
        w.line("  registers are not the limit now: " + fit(s.occupancy_limit, 30) + " is (" +
               std::to_string(s.blocks_per_sm) + " blocks/SM)");
}

void write_registers(LineWriter& w, const Trace& t, const Launch& l, const Summary& s, const ReportOptions& opt) {
    heading(w, "Registers");
    const Registers regs = registers_of(t, s);
    if (s.peak_regs == 0) {
        // A kernel of plain arrays and scalars (rotary's), or of tiles that only
        // ever held one value (lesson 12's zeros): no tile holds registers.
        w.line("  no register tiles or vectors hold registers: the kernel keeps its data in arrays and scalars");
        w.line("  of its own, or its tiles hold one value each (zeros: the compiler uses the zero register)");
    } else {
        w.line("  peak " + std::to_string(s.peak_regs) + " registers per thread held by tiles, at " + where(t, s.peak_regs_loc));
        source_line(w, t, s.peak_regs_loc, "    ");
        write_live_tiles(w, t, s, opt);
    }
    write_register_limit(w, t, s, regs);
    write_register_occupancy(w, t, l, s, regs);
}

// (reason index, cycles) with cycles > 0, most first.
std::vector<std::pair<size_t, uint64_t>> reasons_by_cycles(const std::vector<uint64_t>& cycles) {
    std::vector<std::pair<size_t, uint64_t>> r;
    for (size_t i = 0; i < cycles.size(); ++i)
        if (cycles[i] > 0) r.emplace_back(i, cycles[i]);
    std::stable_sort(r.begin(), r.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    return r;
}

void write_stall_totals(LineWriter& w, const Trace& t, const Summary& s) {
    const auto reasons = reasons_by_cycles(s.stall_cycles);
    uint64_t all = 0;
    for (const auto& r : reasons) all += r.second;
    w.line("  all lines: " + num(all) + " stalled warp-cycles");
    for (const auto& [reason, cycles] : reasons) {
        char buf[64];
        std::snprintf(buf, sizeof buf, " %14" PRIu64 " %7s", cycles, percent(double(cycles), double(all)).c_str());
        // Not a wait: the simulator's name (Nsight's) for the warp issuing
        // its tile ops' arithmetic and the address arithmetic around their
        // memory instructions.
        const std::string name = stall_name(t, reason);
        const char* note = name == "selected" ? "   (issuing tile ops' arithmetic and addresses)"
                           : name == "drain"  ? "   (at exit: stores still leaving the SM)"
                           : name == "not_selected" ? "   (arithmetic ready, other warps issuing)"
                           : name == "lg_throttle" ? "   (the SM's queue of global loads and stores full)"
                           : name == "imc_miss" ? "   (the launch's parameters not yet in the SM's constant cache)"
                                              : "";
        w.line("    " + pad(fit(name, 24), 24) + buf + note);
    }
}

void write_stalls(LineWriter& w, const Trace& t, const Summary& s, const ReportOptions& opt) {
    const auto lines = stalled_lines(s);
    const auto totals = reasons_by_cycles(s.stall_cycles);
    if (lines.empty() && totals.empty()) {
        heading(w, "Stalls");
        w.line("  no stalls recorded");
        return;
    }
    heading(w, "Stalls (cycles warps waited before issuing, by line, most first)");
    write_stall_totals(w, t, s);
    size_t shown = 0;
    for (; shown < lines.size() && shown < opt.top; ++shown) {
        const LineStalls& ls = *lines[shown];
        w.line("  " + num(shown + 1) + ". " + where(t, ls.loc) + "  " + num(line_total(ls)) + " cycles over " +
               count_of(ls.instructions, "instruction"));
        source_line(w, t, ls.loc, "     ");
        std::vector<std::string> by;
        for (const auto& [reason, cycles] : reasons_by_cycles(ls.cycles))
            by.push_back(stall_name(t, reason) + " " + num(cycles));
        write_wrapped_list(w, by, "     ");
    }
    more_rows(w, shown, lines.size(), "stalled line", "stalled lines");
}

// A Regions section's rows: per name, how often, how long, what share of the
// block time; `us_decimals` as each section has always printed them.
void write_region_rows(LineWriter& w, const Trace& t, const RegionStats& s, double mhz, int us_decimals,
                       const ReportOptions& opt) {
    for (size_t i = 0; i < s.rows.size() && i < opt.top; ++i) {
        const RegionStat& a = s.rows[i];
        const double mean = double(a.total) / double(a.count);
        std::string line = "  " + pad(fit(table_name(t.op_names, a.name), 16), 16) + " " + pad(count_of(a.count, "time"), 12) +
                           " mean " + fixed(mean, 0) + " cycles";
        if (mhz > 0) line += " (" + fixed(mean / mhz, us_decimals) + " us)";
        line += ", max " + num(a.longest) + ", " + percent(double(a.total), double(s.warp_time)) + " of block time";
        w.line(line);
        if (a.loc) source_line(w, t, a.loc, "     ");
    }
}

// A GPU run's launch holds intra-kernel regions (tk::region markers), one
// event each, not simulated instructions: per region, how often, how long.
void write_gpu_regions(LineWriter& w, const Trace& t, const Launch& l, const ReportOptions& opt) {
    heading(w, "Regions (intra-kernel timing on the GPU)");
    const RegionStats s = region_stats(t, l);
    if (s.regions == 0) {
        w.line("  no regions recorded (the kernel has no tk::region markers, or was not launched through tk::launch)");
        return;
    }
    const double mhz = arch_number(t, "clock_mhz").value_or(0);
    // The profiler measures the clock from the regions when they span long
    // enough (keeping the device's peak as peak_clock_mhz); else it is the peak,
    // which kernels seldom run at (sim/arch/README.md, "The clock").
    const bool measured = arch_field(t, "peak_clock_mhz") != nullptr;
    w.line("  " + count_of(s.regions, "region") + " in " + count_of(l.blocks.size(), "block") + "; cycles of the SM clock" +
           (mhz > 0 ? " (" + fixed(mhz, 0) + " MHz" + (measured ? "" : ", the device's peak: too short to measure") + ")" : ""));
    write_region_rows(w, t, s, mhz, 1, opt);
    more_rows(w, std::min(s.rows.size(), opt.top), s.rows.size(), "region", "regions");
    // What no region held: between markers, mostly the markers' own memory
    // accesses (a record's stores, the next one's counter), which queue in
    // the load/store unit behind the kernel's own.
    w.line("  in no region     " + percent(double(s.outside), double(s.warp_time)) +
           " of block time (between the markers, mostly their own record keeping)");
}

// A simulator launch's tk::region markers (each block's `regions` table): per
// name, how often and how long on the warps' simulated clocks. Nested regions
// count in their parent's share too; regions never left (the run stopped
// inside them) are counted apart, not timed.
void write_sim_regions(LineWriter& w, const Trace& t, const Launch& l, const ReportOptions& opt) {
    const RegionStats s = region_stats(t, l);
    if (s.regions == 0) return;  // no markers: the report reads as it did before them
    heading(w, "Regions (tk::region markers, per warp, simulated cycles)");
    const double mhz = clock_mhz(t, l.summary ? &*l.summary : nullptr);
    w.line("  " + count_of(s.regions, "region") + " in " + count_of(s.blocks, "block") + " (one per marker per warp)" +
           (mhz > 0 ? "; cycles at " + fixed(mhz, 0) + " MHz" : ""));
    write_region_rows(w, t, s, mhz, 2, opt);
    more_rows(w, std::min(s.rows.size(), opt.top), s.rows.size(), "region name", "region names");
    if (s.open)
        w.line("  " + w.bad(count_of(s.open, "region") + " never closed") +
               ": the run stopped inside them (see Failures); not in the times above");
}

void write_launch(LineWriter& w, const Trace& t, size_t index, const Launch& l, const ReportOptions& opt) {
    write_header(w, t, index, l);
    if (t.from_gpu()) {
        write_gpu_regions(w, t, l, opt);
        return;
    }
    if (!l.summary) {
        w.line("  " + w.bad("no summary: the trace ends early") + " (" + num(l.blocks.size()) +
               " blocks recorded before it stopped)");
        return;
    }
    const Summary& s = *l.summary;
    write_summary(w, t, l, s);
    write_conflicts(w, t, s, opt);
    write_barriers(w, t, s, opt);
    write_registers(w, t, l, s, opt);
    write_stalls(w, t, s, opt);
    write_sim_regions(w, t, l, opt);
}

std::string sci(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

void write_checks(LineWriter& w, const Trace& t) {
    heading(w, "Checks");
    if (t.checks.empty()) {
        w.line("  no checks");
        return;
    }
    for (const Check& c : t.checks) {
        const std::string verdict = c.passed ? w.good("PASS") : w.bad("FAIL");
        std::string line = "  " + verdict + "  " + fit(c.output.empty() ? "?" : c.output, 30);
        if (!c.variant.empty()) line += "  variant " + fit(c.variant, 24);
        line += "  max error " + sci(c.max_error) + (c.max_error <= c.tolerance ? " <= " : " > ") + "tolerance " +
                sci(c.tolerance);
        w.line(line);
    }
}

// Messages are printed whole: long lines wrap (at a space when there is one) instead of being cut.
void write_message(LineWriter& w, std::string message, const std::string& indent) {
    while (!message.empty() && (message.back() == '\n' || message.back() == '\r')) message.pop_back();
    if (message.empty()) {
        w.line(indent + "(no message)");
        return;
    }
    const size_t cols = kWidth - indent.size();
    size_t start = 0;
    while (start <= message.size()) {
        size_t end = message.find('\n', start);
        if (end == std::string::npos) end = message.size();
        std::string rest = clean(message.substr(start, end - start));
        if (rest.empty()) w.line();  // keep the message's blank lines, without trailing spaces
        while (!rest.empty()) {
            if (visible_width(rest) <= cols) { w.line(indent + rest); break; }
            size_t cut = byte_offset_of_column(rest, cols);
            const size_t space = rest.rfind(' ', cut);
            if (space != std::string::npos && space > 0) cut = space;
            w.line(indent + rest.substr(0, cut));
            rest = rest.substr(cut < rest.size() && rest[cut] == ' ' ? cut + 1 : cut);
        }
        start = end + 1;
    }
}

void write_failure(LineWriter& w, const Trace& t, const std::string& scope, const Failure& f) {
    std::string head = "  " + scope + ": " + w.bad(fit(f.kind.empty() ? "?" : f.kind, 30));
    if (f.loc != 0) head += " at " + where(t, f.loc, 50);  // host code's failures have no kernel line
    if (f.block >= 0) head += ", block " + std::to_string(f.block);
    w.line(head);
    write_message(w, f.message, "      ");
}

void write_failures(LineWriter& w, const Trace& t) {
    heading(w, "Failures");
    bool any = false;
    for (size_t i = 0; i < t.launches.size(); ++i) {
        const Launch& l = t.launches[i];
        if (!l.failure) continue;
        write_failure(w, t, "launch " + num(i) + " " + fit(l.kernel, 30), *l.failure);
        any = true;
    }
    if (t.failure) {
        write_failure(w, t, "run", *t.failure);
        any = true;
    }
    if (any) return;
    // No fault stopped the run; a wrong result is the Checks section's to say.
    const bool check_failed = std::any_of(t.checks.begin(), t.checks.end(), [](const Check& c) { return !c.passed; });
    if (check_failed) w.line("  no fault stopped the run; the result is wrong (see Checks above)");
    else w.line("  " + w.good("no failures"));
}

// "850 ns", "12.34 us", "1.234 ms": three or four significant digits in a fitting unit.
std::string duration_text(uint64_t ns) {
    if (ns < 1000) return num(ns) + " ns";
    if (ns < 1000000) return fixed(double(ns) / 1e3, 2) + " us";
    if (ns < 1000000000) return fixed(double(ns) / 1e6, 3) + " ms";
    return fixed(double(ns) / 1e9, 3) + " s";
}

// Launches of one kernel with one configuration: repeated runs of a benchmark
// read as one row with their spread, not as hundreds of identical lines.
struct KernelGroup {
    const GpuKernel* first = nullptr;
    uint64_t runs = 0, total_ns = 0, min_ns = 0, max_ns = 0;
};

bool same_config(const GpuKernel& a, const GpuKernel& b) {
    return a.name == b.name && a.grid == b.grid && a.block == b.block && a.registers == b.registers &&
           a.static_smem == b.static_smem && a.dynamic_smem == b.dynamic_smem && a.device == b.device;
}

std::vector<KernelGroup> kernel_groups(const std::vector<GpuKernel>& kernels) {
    std::vector<KernelGroup> groups;  // in order of first appearance
    for (const GpuKernel& k : kernels) {
        const uint64_t d = k.end_ns > k.start_ns ? k.end_ns - k.start_ns : 0;
        auto it = std::find_if(groups.begin(), groups.end(), [&](const KernelGroup& g) { return same_config(*g.first, k); });
        if (it == groups.end()) {
            groups.push_back({&k, 1, d, d, d});
            continue;
        }
        ++it->runs;
        it->total_ns += d;
        it->min_ns = std::min(it->min_ns, d);
        it->max_ns = std::max(it->max_ns, d);
    }
    return groups;
}

// CUPTI's records of a GPU run: only printed when the trace has them, so
// simulator reports are unchanged.
void write_gpu_kernels(LineWriter& w, const Trace& t, const ReportOptions& opt) {
    if (t.gpu_kernels.empty()) return;
    heading(w, "GPU kernels (CUPTI)");
    uint64_t first = UINT64_MAX, last = 0, busy = 0;
    for (const GpuKernel& k : t.gpu_kernels) {
        first = std::min(first, k.start_ns);
        last = std::max(last, k.end_ns);
        busy += k.end_ns > k.start_ns ? k.end_ns - k.start_ns : 0;
    }
    w.line("  " + count_of(t.gpu_kernels.size(), "kernel run") + ", " + duration_text(busy) + " in kernels over " +
           duration_text(last > first ? last - first : 0) + " from the first start to the last end");
    const std::vector<KernelGroup> groups = kernel_groups(t.gpu_kernels);
    size_t shown = 0;
    for (; shown < groups.size() && shown < opt.top; ++shown) {
        const KernelGroup& g = groups[shown];
        const GpuKernel& k = *g.first;
        w.line("  " + num(shown + 1) + ". " + fit(k.name.empty() ? "?" : k.name, kWidth - 6));
        std::string time = g.runs == 1 ? duration_text(g.total_ns)
                                       : "ran " + num(g.runs) + " times, mean " + duration_text(g.total_ns / g.runs) +
                                             " (" + duration_text(g.min_ns) + " to " + duration_text(g.max_ns) + ")";
        w.line("     " + time);
        w.line("     grid " + dim3(k.grid) + "  block " + dim3(k.block) + "  " + num(k.registers) +
               " registers/thread  shared " + num(uint64_t(k.static_smem) + k.dynamic_smem) + " B (" +
               num(k.static_smem) + " static + " + num(k.dynamic_smem) + " dynamic)");
    }
    more_rows(w, shown, groups.size(), "kernel", "kernels");
}

// Hardware counters of a GPU run (CUPTI's Range Profiler): per launch, the
// shared-memory figures the simulator reports too, in the same words.
void write_gpu_counters(LineWriter& w, const Trace& t, const ReportOptions& opt) {
    if (t.gpu_counters.empty()) return;
    namespace m = gpu_metrics;
    heading(w, "Hardware counters (CUPTI Range Profiler)");
    const auto value = [](const GpuCounters& c, const char* name) -> std::optional<uint64_t> {
        const auto it = c.metrics.find(name);
        // A value no count can be (negative, or past 2^64 in a damaged file) shows as "-".
        if (it == c.metrics.end() || !(it->second >= 0 && it->second < 0x1p64)) return std::nullopt;
        return uint64_t(it->second + 0.5);
    };
    const auto text = [](std::optional<uint64_t> v) { return v ? num(*v) : std::string("-"); };
    size_t shown = 0;
    for (; shown < t.gpu_counters.size() && shown < opt.top; ++shown) {
        const GpuCounters& c = t.gpu_counters[shown];
        w.line("  launch " + num(c.launch) + ": " + fit(c.kernel.empty() ? "?" : c.kernel, kWidth - 12 - num(c.launch).size()));
        w.line("     " + text(value(c, m::kInstructions)) + " warp instructions, of which shared memory:");
        w.line("     LDS " + text(value(c, m::kLdsInstructions)) + ", LDSM " + text(value(c, m::kLdsmInstructions)) + ", STS " +
               text(value(c, m::kStsInstructions)) + ", STSM " + text(value(c, m::kStsmInstructions)) + ", LDGSTS (cp.async) " +
               text(value(c, m::kLdgstsInstructions)));
        const auto direction = [&](const std::string& what, const char* wf, const char* bc) {
            const auto wavefronts = value(c, wf), conflicts = value(c, bc);
            std::string line = "     " + pad(what, 20) + " " + text(wavefronts) + " wavefronts, " + text(conflicts) + " bank conflicts";
            if (wavefronts && conflicts && *wavefronts > 0) {
                const bool clean = *conflicts == 0;
                line += " (" + (clean ? w.good("none") : w.bad(percent(double(*conflicts), double(*wavefronts)) + " of wavefronts")) + ")";
            }
            w.line(line);
        };
        direction("loads (LDS+LDSM)", m::kLoadWavefronts, m::kLoadConflicts);
        direction("stores (STS+STSM)", m::kStoreWavefronts, m::kStoreConflicts);
    }
    more_rows(w, shown, t.gpu_counters.size(), "launch", "launches");
}

// PC sampling of a GPU run: where warps were found waiting, by reason and line.
void write_gpu_stalls(LineWriter& w, const Trace& t, const ReportOptions& opt) {
    if (t.gpu_stalls.empty()) return;
    heading(w, "Stall sampling (CUPTI PC sampling)");
    for (const GpuStalls& k : t.gpu_stalls) {
        w.line("  " + fit(k.kernel.empty() ? "?" : k.kernel, kWidth - 2));
        std::string head = "     " + count_of(k.samples, "sample") + ", one per warp scheduler every " + num(k.period_cycles) + " cycles";
        if (k.dropped) head += "; " + w.bad(num(k.dropped) + " dropped");
        w.line(head);
        if (k.samples == 0) continue;
        const std::map<std::string, uint64_t> by_reason = k.by_reason();
        std::vector<std::pair<std::string, uint64_t>> reasons(by_reason.begin(), by_reason.end());
        std::stable_sort(reasons.begin(), reasons.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
        std::vector<std::string> parts;
        for (const auto& [reason, n] : reasons) parts.push_back(reason + " " + percent(double(n), double(k.samples)));
        write_wrapped_list(w, parts, "     ");
        // The lines warps were sampled on most, each with its main reasons.
        std::map<std::pair<std::string, uint32_t>, std::map<std::string, uint64_t>> by_line;
        for (const GpuStallSite& x : k.sites) by_line[{x.file, x.line}][x.reason] += x.samples;
        std::vector<std::pair<std::pair<std::string, uint32_t>, uint64_t>> lines;
        for (const auto& [where, rs] : by_line) {
            uint64_t n = 0;
            for (const auto& [r, c] : rs) n += c;
            lines.push_back({where, n});
        }
        std::stable_sort(lines.begin(), lines.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
        size_t shown = 0;
        for (; shown < lines.size() && shown < opt.top; ++shown) {
            const auto& [where, n] = lines[shown];
            const std::string place = where.first.empty() ? "(no line: build with -lineinfo)"
                                                          : fit_tail(where.first, 60) + ":" + num(where.second);
            std::vector<std::pair<std::string, uint64_t>> rs(by_line[where].begin(), by_line[where].end());
            std::stable_sort(rs.begin(), rs.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
            std::string top = rs.front().first;
            if (rs.size() > 1) top += ", " + rs[1].first;
            w.line("     " + pad(percent(double(n), double(k.samples)), 7) + " " + place + "  (" + top + ")");
        }
        more_rows(w, shown, lines.size(), "line", "lines");
    }
}

void write_title(LineWriter& w, const Trace& t) {
    std::string title = "tklab trace report";
    if (!t.producer.empty()) title += " (" + fit(t.producer, 40) + ")";
    w.line(w.bold(title) + "  " + count_of(t.launches.size(), "launch", "launches") + ", seed " + num(t.seed));
    if (!t.complete) w.line(w.bad("the trace file was not closed: the run stopped before the trace was finished"));
}

} // namespace

void write_report(std::ostream& out, const Trace& t, const ReportOptions& opt) {
    LineWriter w(out, opt.color);
    write_title(w, t);
    for (size_t i = 0; i < t.launches.size(); ++i) write_launch(w, t, i, t.launches[i], opt);
    if (t.launches.empty() && t.gpu_kernels.empty() && t.gpu_counters.empty() && t.gpu_stalls.empty()) w.line("no launches");
    write_gpu_kernels(w, t, opt);
    write_gpu_counters(w, t, opt);
    write_gpu_stalls(w, t, opt);
    write_checks(w, t);
    write_failures(w, t);
}

} // namespace tklab::trace
