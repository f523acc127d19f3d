// The terminal report: built from hand-made traces with seeded random figures,
// checked for what a reader relies on (order, bank analysis, width, colour,
// and not crashing on damaged input).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "support/registers_table.h"
#include "trace/report.h"

using namespace tklab::trace;

namespace {

constexpr int kSourceLines = 60;

// A kernel source whose line N reads "line N: ..." so a test can see which line was quoted.
std::string kernel_source() {
    std::string s;
    for (int i = 1; i <= kSourceLines; ++i) s += "    line " + std::to_string(i) + ": tk::op(a, b);\n";
    return s;
}

Trace base_trace() {
    Trace t;
    t.producer = "tklab simulator";
    t.program = "gemm";
    t.variant = "ldmatrix";
    t.problem = {{"M", 512}, {"N", 512}, {"K", 512}};
    t.seed = 7;
    t.arch = {{"name", "h100"},           {"clock_mhz", 1755},
              {"sms", 132},               {"max_threads_per_sm", 2048},
              {"max_blocks_per_sm", 32},  {"registers_per_sm", 65536},
              {"max_registers_per_thread", 255}, {"base_registers_per_thread", 24},
              {"shared_bytes_per_sm", 233472}};
    t.ops = {"ld.shared", "st.shared", "ldmatrix", "stmatrix", "mma.sync", "bar.sync", "cp.async"};
    t.stalls = {"none", "barrier", "mbarrier", "long_scoreboard", "short_scoreboard", "mio_throttle",
                "math_pipe_throttle"};
    t.files = {SourceFile{}, SourceFile{"kernels/gemm.cu", "", kernel_source()}};
    t.locations.push_back({});
    for (int i = 1; i <= kSourceLines; ++i) t.locations.push_back({1, i});
    t.op_names = {""};
    t.complete = true;
    return t;
}

uint32_t rand_in(std::mt19937& rng, uint32_t lo, uint32_t hi) {
    return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
}

// A shared-memory site at `line` with random figures; `conflicts` extra wavefronts.
SmemSite random_site(std::mt19937& rng, uint32_t line, uint8_t op, uint64_t conflicts) {
    SmemSite s;
    s.loc = line;
    s.op = op;
    s.count = rand_in(rng, 64, 4096);
    s.ideal = s.count * (op == 2 ? 4 : 1);
    s.wavefronts = s.ideal + conflicts;
    s.max_way = uint8_t(conflicts ? rand_in(rng, 2, 8) : 1);
    for (auto& b : s.bank_words) b = rand_in(rng, 0, 5000);
    s.worst_aux = 4;  // ldmatrix/stmatrix: 4 matrices; ld/st.shared: 4 bytes per lane
    s.worst_mask = 0xffffffffu;
    if (rand_in(rng, 0, 1))
        for (int l = 0; l < 32; ++l) s.worst_lanes.push_back(rand_in(rng, 0, 4095) * 4);
    return s;
}

// ldmatrix with one matrix whose 8 row addresses are 128 bytes apart: all in banks 0-3, 8-way.
SmemSite ldmatrix_8way(uint32_t line) {
    SmemSite s;
    s.loc = line;
    s.op = 2;
    s.count = 1000;
    s.ideal = 1000;
    s.wavefronts = 8000;
    s.max_way = 8;
    for (int b = 0; b < 4; ++b) s.bank_words[size_t(b)] = 8000;
    s.worst_aux = 1;
    s.worst_mask = 0xffffffffu;
    s.worst_lanes.assign(32, 0);
    for (int l = 0; l < 8; ++l) s.worst_lanes[size_t(l)] = uint32_t(l) * 128;
    return s;
}

// st.shared of 4 bytes at lane * 16: lanes 0, 8, 16, 24 share bank 0 on 4 words (4-way).
SmemSite st_shared_4way(uint32_t line) {
    SmemSite s;
    s.loc = line;
    s.op = 1;
    s.count = 10;
    s.ideal = 10;
    s.wavefronts = 40;
    s.max_way = 4;
    for (int b = 0; b < 32; b += 4) s.bank_words[size_t(b)] = 40;
    s.worst_aux = 4;
    s.worst_mask = 0xffffffffu;
    for (uint32_t l = 0; l < 32; ++l) s.worst_lanes.push_back(l * 16);
    return s;
}

Summary random_summary(std::mt19937& rng, const Trace& t) {
    Summary s;
    s.blocks = 64;
    s.warp_instructions = rand_in(rng, 100000, 900000);
    s.warp_cycles = rand_in(rng, 1000000, 9000000);
    s.ldmatrix = {rand_in(rng, 100, 900), 4000, 3000, 8};
    s.ld_shared = {rand_in(rng, 100, 900), 1000, 1000, 1};
    s.st_shared = {rand_in(rng, 100, 900), 900, 800, 4};
    s.stmatrix = {0, 0, 0, 0};
    s.by_op.assign(t.ops.size(), 0);
    s.stall_cycles.assign(t.stalls.size(), 0);
    for (size_t i = 1; i < s.stall_cycles.size(); ++i) s.stall_cycles[i] = rand_in(rng, 0, 100000);
    s.barrier_wait_cycles = rand_in(rng, 10000, 500000);
    s.max_block_cycles = rand_in(rng, 10000, 90000);
    s.sum_block_cycles = s.max_block_cycles * 50;
    s.est_kernel_cycles = s.max_block_cycles;
    s.blocks_per_sm = 3;
    s.occupancy_limit = "registers";
    s.peak_regs = int(rand_in(rng, 40, 140));
    s.peak_regs_loc = rand_in(rng, 1, kSourceLines);
    for (int i = 0; i < 7; ++i) s.peak_live.push_back({rand_in(rng, 1, kSourceLines), int(rand_in(rng, 2, 64))});
    // Distinct lines for the random sites, so each "file:line" names one site.
    std::vector<uint32_t> lines;
    for (uint32_t i = 1; i <= kSourceLines; ++i) lines.push_back(i);
    std::shuffle(lines.begin(), lines.end(), rng);
    for (int i = 0; i < 10; ++i) {
        const uint64_t conflicts = i % 3 == 0 ? 0 : rand_in(rng, 1, 5000);
        s.smem_sites.push_back(random_site(rng, lines[size_t(i)], uint8_t(rand_in(rng, 0, 3)), conflicts));
    }
    for (int i = 0; i < 4; ++i) {
        BarrierSite b;
        b.loc = lines[size_t(20 + i)];
        b.mbarrier = i == 3;
        b.id = uint8_t(i % 2);
        const int warps = i == 0 ? 16 : 4;
        for (int w = 0; w < warps; ++w) {
            BarrierWarpStats ws;
            ws.waits = rand_in(rng, 1, 64);
            ws.total = rand_in(rng, 0, 100000);
            ws.longest = rand_in(rng, 0, 5000);
            ws.arrived_last = rand_in(rng, 0, 20);
            b.warps.push_back(ws);
        }
        s.barrier_sites.push_back(b);
    }
    for (int i = 0; i < 9; ++i) {
        LineStalls ls;
        ls.loc = lines[size_t(30 + i)];
        ls.instructions = rand_in(rng, 1, 10000);
        for (size_t r = 0; r < t.stalls.size(); ++r) ls.cycles.push_back(r == 0 ? 0 : rand_in(rng, 0, 20000));
        s.line_stalls.push_back(ls);
    }
    return s;
}

Launch random_launch(std::mt19937& rng, const Trace& t) {
    Launch l;
    l.kernel = "gemm_kernel";
    l.grid = {8, 8, 1};
    l.block = {128, 1, 1};
    l.smem_bytes = 32768;
    l.summary = random_summary(rng, t);
    return l;
}

std::string report(const Trace& t, ReportOptions opt = {}) {
    std::ostringstream out;
    write_report(out, t, opt);
    return out.str();
}

std::vector<std::string> lines_of(const std::string& s) {
    std::vector<std::string> r;
    std::istringstream in(s);
    for (std::string line; std::getline(in, line);) r.push_back(line);
    return r;
}

// Display columns as the report promises them: UTF-8 code points, ANSI escapes not counted.
size_t columns(const std::string& line) {
    size_t n = 0;
    for (size_t i = 0; i < line.size(); ++i) {
        if (line[i] == '\x1b' && i + 1 < line.size() && line[i + 1] == '[') {
            i += 2;
            while (i < line.size() && !(line[i] >= 0x40 && line[i] <= 0x7e)) ++i;
            continue;
        }
        if ((static_cast<unsigned char>(line[i]) & 0xC0) != 0x80) ++n;
    }
    return n;
}

size_t line_index(const std::vector<std::string>& lines, const std::string& needle) {
    for (size_t i = 0; i < lines.size(); ++i)
        if (lines[i].find(needle) != std::string::npos) return i;
    return lines.size();
}

bool contains(const std::string& s, const std::string& needle) { return s.find(needle) != std::string::npos; }

} // namespace

TEST_CASE("report lists the worst bank conflict first", "[trace][report]") {
    std::mt19937 rng(20240611);
    Trace t = base_trace();
    t.launches.push_back(random_launch(rng, t));
    const Summary& s = *t.launches[0].summary;

    // The expected order, computed here independently: most extra wavefronts first.
    std::vector<const SmemSite*> conflicted;
    for (const SmemSite& site : s.smem_sites)
        if (site.conflicts() > 0) conflicted.push_back(&site);
    REQUIRE(conflicted.size() >= 2);
    std::sort(conflicted.begin(), conflicted.end(), [](auto* a, auto* b) {
        return a->conflicts() != b->conflicts() ? a->conflicts() > b->conflicts() : a->loc < b->loc;
    });

    ReportOptions opt;
    opt.top = 100;
    const auto lines = lines_of(report(t, opt));
    const size_t section = line_index(lines, "Bank conflicts (");
    REQUIRE(section < lines.size());
    size_t previous = section;
    for (size_t rank = 0; rank < conflicted.size(); ++rank) {
        const std::string head = std::to_string(rank + 1) + ". " + t.where(conflicted[rank]->loc) + "  ";
        const size_t at = line_index(lines, head);
        INFO("looking for " << head);
        REQUIRE(at < lines.size());
        CHECK(at > previous);
        previous = at;
    }
    // Conflict-free sites are not listed.
    for (const SmemSite& site : s.smem_sites)
        if (site.conflicts() == 0) CHECK(line_index(lines, ". " + t.where(site.loc) + "  ") == lines.size());
}

TEST_CASE("report names the lanes of an 8-way ldmatrix conflict", "[trace][report]") {
    std::mt19937 rng(7);
    Trace t = base_trace();
    Launch l = random_launch(rng, t);
    l.summary->smem_sites.push_back(ldmatrix_8way(42));
    l.summary->smem_sites.push_back(st_shared_4way(43));
    t.launches.push_back(l);

    ReportOptions opt;
    opt.top = 20;
    const std::string text = report(t, opt);
    const auto lines = lines_of(text);
    // 7000 extra wavefronts beats every random site (at most 5000), so it is first.
    const size_t first = line_index(lines, "1. kernels/gemm.cu:42  ldmatrix  8-way");
    REQUIRE(first < lines.size());
    CHECK(lines[first + 1].find("line 42:") != std::string::npos);  // its source text
    CHECK(contains(text, "worst execution, matrix 0 (lanes 0-7): 8-way"));
    CHECK(contains(text, "bank 0: lanes 0-7 (8 distinct words, 128 bytes apart)"));
    CHECK(contains(text, "bank 2: lanes 0-7 (8 distinct words"));
    CHECK(contains(text, "... and 1 more bank with collisions"));  // at most 3 banks are listed
    // Histogram: banks 0-3 full, the rest untouched.
    CHECK(contains(text, "words per bank ████" + std::string("····")));

    CHECK(contains(text, "kernels/gemm.cu:43  st.shared  4-way"));
    CHECK(contains(text, "worst execution, all 32 lanes: 4-way"));
    CHECK(contains(text, "bank 0: lanes 0,8,16,24 (4 distinct words, 128 bytes apart)"));
}

TEST_CASE("report analyzes wide accesses phase by phase", "[trace][report]") {
    Trace t = base_trace();
    Launch l;
    l.kernel = "k";
    l.summary = Summary{};
    // 16 bytes per lane: four phases of 8 lanes. Lanes 8-15 all start on bank 0 (512 bytes apart),
    // the other phases are conflict-free, so the worst phase is the second.
    SmemSite s;
    s.loc = 5;
    s.op = 0;
    s.count = 1;
    s.ideal = 4;
    s.wavefronts = 11;
    s.max_way = 8;
    s.worst_aux = 16;
    s.worst_mask = 0xffffffffu;
    for (uint32_t lane = 0; lane < 32; ++lane) s.worst_lanes.push_back(lane >= 8 && lane < 16 ? lane * 512 : lane * 16);
    s.bank_words[0] = 8;
    l.summary->smem_sites.push_back(s);
    // Lane addresses not kept: the report says the lanes are unknown.
    SmemSite unknown = s;
    unknown.loc = 6;
    unknown.worst_lanes.clear();
    l.summary->smem_sites.push_back(unknown);
    t.launches.push_back(l);

    const std::string text = report(t);
    CHECK(contains(text, "worst execution, lanes 8-15 (phase 2 of 4): 8-way"));
    CHECK(contains(text, "bank 0: lanes 8-15 (8 distinct words, 512 bytes apart)"));
    CHECK(contains(text, "colliding lanes: unknown (lane addresses were not recorded"));
}

TEST_CASE("report with no conflicts says so and counts the instructions", "[trace][report]") {
    std::mt19937 rng(99);
    Trace t = base_trace();
    Launch l = random_launch(rng, t);
    l.summary->smem_sites.clear();
    l.summary->barrier_sites.clear();
    l.summary->line_stalls.clear();
    std::fill(l.summary->stall_cycles.begin(), l.summary->stall_cycles.end(), 0);
    t.launches.push_back(l);

    const std::string text = report(t);
    CHECK(contains(text, "no bank conflicts: " + std::to_string(l.summary->ldmatrix.instructions) + " ldmatrix"));
    CHECK(contains(text, std::to_string(l.summary->ld_shared.instructions) + " ld.shared"));
    CHECK(contains(text, "no barrier waits"));
    CHECK(contains(text, "no stalls recorded"));
}

TEST_CASE("report summary, barriers, registers and stalls carry the figures", "[trace][report]") {
    std::mt19937 rng(5);
    Trace t = base_trace();
    Launch l = random_launch(rng, t);
    Summary& s = *l.summary;
    s.est_kernel_cycles = 2 * 17550;
    s.max_block_cycles = 17550;
    s.peak_regs = 96;  // + 24 base = 120 -> 120 x 128 threads = 15360: 4 blocks/SM by registers
    s.peak_regs_loc = 12;
    s.peak_live = {{30, 64}, {31, 32}};
    s.barrier_sites.resize(1);
    s.barrier_sites[0].loc = 20;
    s.barrier_sites[0].id = 0;
    s.barrier_sites[0].warps = {{10, 500, 90, 1}, {10, 300, 40, 7}, {10, 0, 0, 2}, {10, 100, 30, 0}};
    t.launches.push_back(l);

    const std::string text = report(t);
    CHECK(contains(text, "20.00 us = 35100 cycles at 1755 MHz"));
    CHECK(contains(text, "slowest block 17550 cycles x 2 waves, 3 blocks/SM (limited by registers)"));
    CHECK(contains(text, "1. kernels/gemm.cu:20  bar.sync 0  900 cycles waited"));
    CHECK(contains(text, "warp 1 arrived last most often (7 of 10 times)"));
    CHECK(contains(text, "peak 96 registers per thread held by tiles, at kernels/gemm.cu:12"));
    CHECK(contains(text, "| line 12:"));
    CHECK(contains(text, "kernels/gemm.cu:30"));
    CHECK(contains(text, "estimate 120 per thread (96 tiles + 24 base) of 255 allowed: ok"));
    CHECK(contains(text, "-> 4 blocks/SM"));
    // 5 blocks/SM: 65536 / (5 x 128) = 102.4 -> 96 per thread.
    CHECK(contains(text, "5 blocks/SM would need at most 96 registers per thread (72 from tiles"));
    CHECK(contains(text, "Stalls ("));
    CHECK(contains(text, "all lines: "));
}

TEST_CASE("report: the estimate says how far it was from the cost model's GPU, as the committed fidelity report has it", "[trace][report]") {
    // The report's rows ("  one   gemm   swizzled   7.54 us   7.14 us   +6%  ...") and summary, read here on their own.
    std::map<std::pair<std::string, std::string>, std::map<std::string, std::string>> errors;  // (program, variant) -> wave -> error
    std::string mean, worst, count;
    for (const std::string& line : registers_table::lines_of(registers_table::kRoot / "results" / "fidelity_timing_h100.txt")) {
        const std::vector<std::string> w = registers_table::words(line);
        if (w.size() >= 8 && (w[0] == "one" || w[0] == "many") && w[4] == "us") errors[{w[1], w[2]}][w[0]] = w[7];
        if (w.size() > 10 && w[0] == "Kernel" && w[2] == "mean") mean = w[5], count = w[7], worst = w[10];
    }
    REQUIRE(errors.size() >= 20);
    REQUIRE(!mean.empty());
    std::mt19937 rng(23);
    for (int round = 0; round < 6; ++round) {
        auto it = errors.begin();
        std::advance(it, rng() % errors.size());
        Trace t = base_trace();
        t.program = it->first.first, t.variant = it->first.second;
        t.launches.push_back(random_launch(rng, t));
        const std::string text = report(t);
        INFO(text);
        CHECK(contains(text, "against the H100 80GB HBM3: this kernel " + it->second["one"] + " at one wave, " + it->second["many"] + " at many"));
        CHECK(contains(text, count + " launches: mean error " + mean + ", worst " + worst + " (results/fidelity_timing_h100.txt)"));
    }
    // A variant outside the set still gets the set's figures; a model without a report, and a GPU's trace, none.
    Trace t = base_trace();
    t.variant = "not_in_the_set";
    t.launches.push_back(random_launch(rng, t));
    CHECK(contains(report(t), "against the H100 80GB HBM3: this kernel not measured"));
    t.arch["name"] = "my_gpu";
    CHECK_FALSE(contains(report(t), "against the"));
    t.arch["name"] = "h100";
    t.arch["gpu"] = true;
    CHECK_FALSE(contains(report(t), "against the"));
}

TEST_CASE("report: the register estimate's loop addresses, and a likely spill in the summary", "[trace][report]") {
    std::mt19937 rng(31);
    Trace t = base_trace();
    t.arch["registers_per_loop_address"] = 1;
    Launch l = random_launch(rng, t);
    Summary& s = *l.summary;
    s.peak_regs = 8 * int(1 + rng() % 20);
    s.peak_loaded_regs = 0;
    s.loop_addresses = int(1 + rng() % 40);
    s.estimated_registers = 24 + s.peak_regs + s.loop_addresses;
    t.launches.push_back(l);
    const std::string parts = std::to_string(s.peak_regs) + " tiles + 24 base + " + std::to_string(s.loop_addresses) + " loop addresses";
    std::string text = report(t);
    INFO(text);
    CHECK(contains(text, "peak registers      about " + std::to_string(s.estimated_registers) + " per thread (" + parts + "), an estimate"));
    CHECK(contains(text, "estimate " + std::to_string(s.estimated_registers) + " per thread (" + parts + ") of 255 allowed: ok"));
    CHECK_FALSE(contains(text, "would spill"));
    // Past 255: the summary says so, and occupancy counts the 255 a thread can hold (allocated as 256).
    t.launches.back().summary->peak_regs = 240;
    t.launches.back().summary->estimated_registers = 24 + 240 + s.loop_addresses;
    text = report(t);
    CHECK(contains(text, "past the 255 a thread can have: the compiler would spill (Registers)"));
    CHECK(contains(text, "exceeds the limit of 255"));
    CHECK(contains(text, "by registers: 256/thread (rounded to 8)"));
}

TEST_CASE("report lines fit in 100 columns", "[trace][report]") {
    std::mt19937 rng(123);
    Trace t = base_trace();
    const std::string long_dir(180, 'd');
    t.files[1].path = long_dir + "/kernels/gemm_with_a_very_long_name.cu";
    std::string text;
    for (int i = 1; i <= kSourceLines; ++i) text += std::string(250, 'x') + " ─ línea " + std::to_string(i) + "\n";
    t.files[1].text = text;
    t.program = std::string(120, 'p');
    t.problem = {{"M", 123456789}, {"N", 123456789}, {"K", 123456789}, {"tile", std::string(80, 't')}};
    t.stalls.push_back(std::string(150, 's'));
    t.producer = std::string(150, 'q');
    Launch l = random_launch(rng, t);
    l.kernel = std::string(200, 'k');
    l.grid = {4294967295u, 4294967295u, 4294967295u};
    l.summary->stall_cycles.push_back(1);
    for (auto& ls : l.summary->line_stalls) ls.cycles.push_back(UINT64_MAX / 64);
    l.summary->warp_instructions = UINT64_MAX;
    l.summary->smem_sites.push_back(ldmatrix_8way(3));
    l.summary->smem_sites.back().count = UINT64_MAX;
    l.failure = Failure{std::string(90, 'f'), std::string(450, 'm') + "\n" + std::string(30, 'w') + " " +
                                                  std::string(200, 'z'), 4, 12345678901234};
    t.launches.push_back(l);
    t.checks.push_back({std::string(120, 'o'), 1e-300, 1e300, true, std::string(120, 'v')});

    for (bool color : {false, true}) {
        ReportOptions opt;
        opt.color = color;
        opt.top = 50;
        for (const std::string& line : lines_of(report(t, opt))) {
            INFO(line);
            CHECK(columns(line) <= 100);
        }
    }
}

TEST_CASE("report uses ANSI colour only when asked", "[trace][report]") {
    std::mt19937 rng(11);
    Trace t = base_trace();
    t.launches.push_back(random_launch(rng, t));
    t.checks.push_back({"C", 0.5, 0.01, false, "v1"});
    t.checks.push_back({"C", 0.001, 0.01, true, "v2"});
    // Control characters in trace text must not become escapes of their own.
    t.launches[0].kernel = "bad\x1b[31mname";

    const std::string plain = report(t);
    CHECK(plain.find('\x1b') == std::string::npos);

    ReportOptions opt;
    opt.color = true;
    const std::string colored = report(t, opt);
    CHECK(contains(colored, "\x1b[1m"));       // bold headings
    CHECK(contains(colored, "\x1b[31mFAIL"));  // red failure
    CHECK(contains(colored, "\x1b[32mPASS"));  // green pass
}

TEST_CASE("report survives a truncated trace and out-of-range indices", "[trace][report]") {
    std::mt19937 rng(3);
    Trace t = base_trace();
    t.complete = false;
    Launch truncated;
    truncated.kernel = "cut_short";
    truncated.blocks.resize(2);
    t.launches.push_back(truncated);

    Launch odd = random_launch(rng, t);
    Summary& s = *odd.summary;
    SmemSite bad = ldmatrix_8way(9999);  // loc out of range
    bad.op = 200;                         // op out of range
    bad.count = 0;
    s.smem_sites.push_back(bad);
    SmemSite backwards = st_shared_4way(7);
    backwards.wavefronts = 1;  // fewer than ideal: no conflicts, no underflow
    s.smem_sites.push_back(backwards);
    SmemSite odd_shape = st_shared_4way(8);
    odd_shape.worst_aux = 12;
    odd_shape.worst_lanes.resize(5);
    s.smem_sites.push_back(odd_shape);
    s.barrier_sites.push_back({9999, false, 3, {}});
    s.peak_regs_loc = 123456;
    s.peak_live.push_back({77777, 8});
    s.line_stalls.push_back({4242, 1, std::vector<uint64_t>(20, 1000000)});  // reasons beyond the table
    s.stall_cycles.resize(30, 5);
    s.occupancy_limit.clear();
    s.blocks_per_sm = 0;
    odd.block = {0, 0, 0};
    t.launches.push_back(odd);
    t.arch = json::array();  // not an object: no cost-model figures at all

    std::string text;
    REQUIRE_NOTHROW(text = report(t));
    CHECK(contains(text, "no summary: the trace ends early"));
    CHECK(contains(text, "the trace file was not closed"));
    CHECK(contains(text, "1. ?  ?  8-way"));  // the bad site: place and instruction unknown
    CHECK(contains(text, "? wavefronts per run"));
    CHECK(contains(text, "colliding lanes: unknown"));
    CHECK(contains(text, "at ?"));
    CHECK(contains(text, "? us"));
    CHECK(contains(text, "blocks/SM by registers: unknown"));
    CHECK(!contains(text, ":7  st.shared"));  // wavefronts < ideal is not a conflict

    REQUIRE_NOTHROW(report(Trace{}));
    CHECK(contains(report(Trace{}), "no launches"));
}

TEST_CASE("report prints checks and failures", "[trace][report]") {
    std::mt19937 rng(17);
    Trace t = base_trace();
    Launch l = random_launch(rng, t);
    l.failure = Failure{"deadlock", "warps 0-3 wait at bar.sync 0\nwarp 4 exited without arriving", 20, 3};
    t.launches.push_back(l);
    t.failure = Failure{"error", "the run stopped after launch 0", 0, -1};
    t.checks.push_back({"C", 0.0123, 0.01, false, "swizzled"});
    t.checks.push_back({"D", 1e-5, 1e-3, true, ""});

    const std::string text = report(t);
    CHECK(contains(text, "FAIL  C  variant swizzled  max error 0.0123 > tolerance 0.01"));
    CHECK(contains(text, "PASS  D  max error 1e-05 <= tolerance 0.001"));
    CHECK(contains(text, "FAILED: deadlock"));
    CHECK(contains(text, "launch 0 gemm_kernel: deadlock at kernels/gemm.cu:20, block 3"));
    CHECK(contains(text, "\n      warps 0-3 wait at bar.sync 0\n      warp 4 exited without arriving\n"));
    CHECK(contains(text, "run: error\n"));  // host code's failure: no kernel line to name
    CHECK(!contains(text, "run: error at"));
    CHECK(contains(text, "\n      the run stopped after launch 0\n"));

    Trace quiet = base_trace();
    CHECK(contains(report(quiet), "no checks"));
    CHECK(contains(report(quiet), "no failures"));
    // A wrong result with no fault: the Failures section does not say "no failures".
    Trace wrong = base_trace();
    wrong.checks.push_back({"OUT", 0.5, 0.01, false, ""});
    CHECK(contains(report(wrong), "FAIL  OUT"));
    CHECK(!contains(report(wrong), "no failures"));
    CHECK(contains(report(wrong), "no fault stopped the run; the result is wrong (see Checks above)"));
}

TEST_CASE("report is deterministic and honours top", "[trace][report]") {
    std::mt19937 rng(2024);
    Trace t = base_trace();
    t.launches.push_back(random_launch(rng, t));
    CHECK(report(t) == report(t));

    ReportOptions opt;
    opt.top = 2;
    const std::string text = report(t, opt);
    CHECK(contains(text, "  2. "));
    CHECK(!contains(text, "  3. "));
    CHECK(contains(text, "more sites with conflicts"));
    CHECK(contains(text, "more stalled lines"));
}
