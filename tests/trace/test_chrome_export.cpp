// Tests for the Chrome trace-event export (trace/chrome_export.h).
#include <catch2/catch.hpp>

#include "trace/chrome_export.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <tuple>

using namespace tklab::trace;

namespace {

constexpr uint32_t kFull = 0xFFFFFFFFu;

Trace empty_trace(bool with_clock) {
    Trace t;
    t.producer = "tklab simulator";
    t.program = "gemm";
    t.variant = "swizzled";
    t.arch = {{"name", "h100"}};
    if (with_clock) t.arch["clock_mhz"] = 1755;
    t.ops = {"ld.shared", "ldmatrix", "mma.sync", "bar.sync", "cp.async", "st.shared"};
    t.stalls = {"none", "barrier", "long_scoreboard", "mio_throttle"};
    t.files = {SourceFile{}, SourceFile{"kernels/gemm.cu", "", std::string("int x;\n  load(a_s, a);\n  mma_AB(c, a, b);\n  __syncthreads();\n")}};
    t.locations = {Location{}, Location{1, 2}, Location{1, 3}, Location{1, 4}};
    t.op_names = {"", "load", "mma_AB", "store"};
    return t;
}

// Events of `warps` warps, interleaved as a scheduler would issue them, with
// runs of tile ops, shared-memory accesses (some conflicted) and register changes.
Block random_block(std::mt19937& rng, uint32_t index, int warps, int events) {
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    Block b;
    b.index = index;
    b.coord = Dim3{index, 0, 0};
    b.timeline = true;
    std::vector<uint64_t> cursor(warps, 0);
    std::vector<uint32_t> op_seq(warps, 0), run_left(warps, 0);
    std::vector<uint16_t> op_name(warps, 0);
    for (int i = 0; i < events; ++i) {
        int w = pick(0, warps - 1);
        if (run_left[w] == 0) {  // start a tile op, or issue outside one
            bool in_op = pick(0, 3) != 0;
            op_seq[w] = in_op ? op_seq[w] + 1 : op_seq[w];
            run_left[w] = in_op ? pick(1, 5) : 0;
            op_name[w] = in_op ? uint16_t(pick(1, 3)) : 0;
        }
        Event e;
        e.warp = uint16_t(w);
        e.stall = uint8_t(pick(0, 3));
        e.stall_cycles = e.stall ? uint32_t(pick(1, 20)) : 0;
        e.issue = cursor[w] + e.stall_cycles;
        e.done = e.issue + pick(1, 40);
        cursor[w] = e.done;
        e.mask = pick(0, 4) == 0 ? 0x0000FFFFu : kFull;
        e.loc = uint32_t(pick(1, 3));
        e.op = uint8_t(pick(0, 5));
        e.op_seq = run_left[w] ? op_seq[w] : 0;
        e.op_name = run_left[w] ? op_name[w] : 0;
        if (run_left[w]) --run_left[w];
        if (e.op == 0 || e.op == 5) {  // ld.shared / st.shared: a bank analysis
            SmemAccess s;
            s.event = uint32_t(b.events.size());
            s.ideal = uint16_t(pick(1, 2));
            s.max_way = uint8_t(pick(0, 1) ? pick(2, 8) : 1);
            s.wavefronts = uint16_t(s.ideal * s.max_way);
            e.smem = int32_t(b.smem.size());
            b.smem.push_back(s);
        }
        b.events.push_back(e);
        b.cycles = std::max(b.cycles, e.done);
        if (pick(0, 4) == 0) b.regs.push_back(RegChange{e.issue, uint16_t(w), uint16_t(pick(8, 128)), {}});
    }
    b.instructions = b.events.size();
    return b;
}

// Two launches: the first with a timeline block (two warps, a barrier wait of
// each kind, a snapshot, a conflicted access for sure, an out-of-order event
// to clamp) and a block without a timeline; the second with one block and a failure.
Trace sample_trace(bool with_clock = true) {
    std::mt19937 rng(20240611);
    Trace t = empty_trace(with_clock);

    Launch first;
    first.kernel = "gemm_kernel<1>";
    first.grid = Dim3{2, 1, 1};
    first.block = Dim3{64, 1, 1};
    Block b0 = random_block(rng, 0, 2, 80);
    Event conflicted;  // a 4-way conflict, certain whatever the generator did
    conflicted.warp = 1;
    conflicted.issue = b0.cycles + 5;
    conflicted.done = conflicted.issue + 12;
    conflicted.mask = kFull;
    conflicted.loc = 1;
    conflicted.op = 0;
    conflicted.smem = int32_t(b0.smem.size());
    b0.smem.push_back(SmemAccess{uint32_t(b0.events.size()), 4, 1, 4, -1});
    b0.events.push_back(conflicted);
    Event early = conflicted;  // issues before its warp's previous instruction finished: clamped
    early.issue = conflicted.issue + 3;
    early.done = conflicted.done + 10;
    early.smem = -1;
    early.op = 2;
    b0.events.push_back(early);
    b0.cycles = early.done + 20;
    b0.barriers.push_back(BarrierWait{b0.cycles / 4, b0.cycles / 2, 3, 0, 0, 1, 0, false, 0});
    b0.barriers.push_back(BarrierWait{b0.cycles / 3, b0.cycles / 2 + 7, 3, 0x1f40, 1, 0, 0, true, 1});
    b0.snapshots.push_back(Snapshot{b0.cycles / 2, 0, 2, "acc", "register", 16, 8, std::vector<float>(128, 1.f)});
    Block b1;  // no timeline: only totals
    b1.index = 1;
    b1.coord = Dim3{1, 0, 0};
    b1.cycles = b0.cycles + 100;
    b1.instructions = 500;
    first.blocks = {b0, b1};
    t.launches.push_back(first);

    Launch second;
    second.kernel = "gemm_kernel<2>";
    second.grid = Dim3{1, 1, 1};
    second.block = Dim3{64, 1, 1};
    second.blocks = {random_block(rng, 0, 2, 30)};
    second.failure = Failure{"fault", "out of bounds shared store", 2, 0};
    t.launches.push_back(second);
    return t;
}

const json& events_of(const json& doc) { return doc.at("traceEvents"); }

// Perfetto turns microseconds into whole nanoseconds this way.
int64_t to_ns(const json& us) { return std::llround(us.get<double>() * 1000.0); }

struct Interval { int64_t start, end; std::string name; };

// Slices and thread-scoped instants (zero-length slices) per (pid, tid).
std::map<std::pair<int, int>, std::vector<Interval>> thread_intervals(const json& doc) {
    std::map<std::pair<int, int>, std::vector<Interval>> tracks;
    for (const json& e : events_of(doc)) {
        std::string ph = e["ph"];
        bool thread_instant = ph == "i" && e.value("s", "t") == "t";
        if (ph != "X" && !thread_instant) continue;
        int64_t start = to_ns(e["ts"]);
        int64_t end = ph == "X" ? start + to_ns(e["dur"]) : start;
        tracks[{e["pid"].get<int>(), e["tid"].get<int>()}].push_back({start, end, e["name"]});
    }
    return tracks;
}

// Every slice lies inside the one open when it starts, and siblings do not overlap.
void check_nesting(const std::vector<Interval>& slices) {
    std::vector<Interval> sorted = slices;
    std::stable_sort(sorted.begin(), sorted.end(), [](const Interval& a, const Interval& b) {
        return a.start != b.start ? a.start < b.start : a.end > b.end;
    });
    std::vector<Interval> open;
    for (const Interval& s : sorted) {
        while (!open.empty() && open.back().end <= s.start) open.pop_back();
        if (!open.empty()) {
            INFO(s.name << " [" << s.start << "," << s.end << "] inside " << open.back().name << " ["
                        << open.back().start << "," << open.back().end << "]");
            CHECK(s.end <= open.back().end);
        }
        open.push_back(s);
    }
}

std::set<int> pids_named(const json& doc, const std::string& substring) {
    std::set<int> pids;
    for (const json& e : events_of(doc))
        if (e["ph"] == "M" && e["name"] == "process_name" &&
            e["args"]["name"].get<std::string>().find(substring) != std::string::npos)
            pids.insert(e["pid"].get<int>());
    return pids;
}

std::vector<json> named(const json& doc, const std::string& prefix) {
    std::vector<json> out;
    for (const json& e : events_of(doc))
        if (e["name"].get<std::string>().rfind(prefix, 0) == 0) out.push_back(e);
    return out;
}

} // namespace

TEST_CASE("chrome export: the document parses and every event is well formed", "[trace][chrome]") {
    Trace t = sample_trace();
    json doc = to_chrome(t);
    REQUIRE(json::parse(doc.dump()) == doc);
    CHECK(doc["displayTimeUnit"] == "ns");
    CHECK(doc["otherData"]["program"] == "gemm");
    CHECK(doc["otherData"]["variant"] == "swizzled");
    CHECK(doc["otherData"]["arch"] == "h100");

    const json& events = events_of(doc);
    REQUIRE(events.size() > 100);
    for (const json& e : events) {
        INFO(e.dump());
        REQUIRE(e.is_object());
        CHECK(e["name"].is_string());
        CHECK(e["ph"].is_string());
        CHECK(e["pid"].is_number_integer());
        CHECK(e["tid"].is_number_integer());
        if (e["ph"] != "M") CHECK(e["ts"].is_number());
        if (e["ph"] == "X") {
            REQUIRE(e["dur"].is_number());
            CHECK(e["dur"].get<double>() >= 0);
        }
        if (e["ph"] == "i") CHECK((e["s"] == "t" || e["s"] == "g"));
    }
}

TEST_CASE("chrome export: slices nest properly on every thread", "[trace][chrome]") {
    Trace t = sample_trace();
    for (bool instructions : {true, false}) {
        json doc = to_chrome(t, ChromeOptions{instructions});
        auto tracks = thread_intervals(doc);
        REQUIRE(tracks.size() >= 6);  // two blocks of two warps, waits, the launch track
        for (const auto& [track, slices] : tracks) {
            INFO("instructions " << instructions << " pid " << track.first << " tid " << track.second);
            check_nesting(slices);
        }
    }
}

TEST_CASE("chrome export: every pid and tid used is named", "[trace][chrome]") {
    json doc = to_chrome(sample_trace());
    std::set<int> processes, process_order;
    std::set<std::pair<int, int>> threads, thread_order;
    for (const json& e : events_of(doc)) {
        if (e["ph"] != "M") continue;
        std::pair<int, int> id{e["pid"], e["tid"]};
        if (e["name"] == "process_name") processes.insert(id.first);
        if (e["name"] == "process_sort_index") process_order.insert(id.first);
        if (e["name"] == "thread_name") threads.insert(id);
        if (e["name"] == "thread_sort_index") thread_order.insert(id);
        CHECK(e["args"].is_object());
    }
    CHECK(processes == process_order);
    CHECK(threads == thread_order);
    for (const json& e : events_of(doc)) {
        INFO(e.dump());
        std::pair<int, int> id{e["pid"], e["tid"]};
        CHECK(processes.count(id.first) == 1);
        CHECK(threads.count(id) == 1);
    }
    // Each warp has a track in each timeline block, and waits get their own.
    CHECK(named(doc, "thread_name").size() >= 2 * 2 + 1);
    bool waits_thread = false;
    for (const json& e : named(doc, "thread_name"))
        waits_thread |= e["args"]["name"] == "warp 1 · waits";
    CHECK(waits_thread);
}

TEST_CASE("chrome export: time is cycles at the modelled clock, launches one after another", "[trace][chrome]") {
    Trace t = sample_trace();
    json doc = to_chrome(t);
    const Block& b0 = t.launches[0].blocks[0];

    // The first instruction of warp 0 in launch 0 starts at issue / 1755 MHz.
    std::set<int> launch0 = pids_named(doc, "gemm_kernel<1>"), launch1 = pids_named(doc, "gemm_kernel<2>");
    REQUIRE(launch0.size() == 1);
    REQUIRE(launch1.size() == 1);
    const Event* first_op = nullptr;
    for (const Event& e : b0.events)
        if (e.warp == 0) { first_op = &e; break; }
    REQUIRE(first_op);
    bool found = false;
    for (const json& e : events_of(doc))
        if (e["ph"] == "X" && launch0.count(e["pid"]) && e["tid"] == 1 && e["args"]["issue"] == first_op->issue &&
            e["name"] == t.ops[first_op->op]) {
            CHECK(e["ts"].get<double>() == Approx(first_op->issue / 1755.0).margin(0.0005));
            CHECK(e["args"]["done"] == first_op->done);
            found = true;
        }
    CHECK(found);

    // Launch 1 starts where launch 0's slowest block (the one without a timeline) ended.
    double end0 = 0, start1 = 1e300;
    for (const json& e : events_of(doc)) {
        if (e["ph"] == "M") continue;
        double end = e["ts"].get<double>() + e.value("dur", 0.0);
        if (launch0.count(e["pid"])) end0 = std::max(end0, end);
        if (launch1.count(e["pid"])) start1 = std::min(start1, e["ts"].get<double>());
    }
    CHECK(start1 >= end0);
    CHECK(start1 >= t.launches[0].blocks[1].cycles / 1755.0 - 0.0005);

    auto launches = named(doc, "gemm_kernel<");  // the launch slices on the overview
    REQUIRE(launches.size() == 2);
    CHECK(launches[1]["ts"].get<double>() == Approx(launches[0]["dur"].get<double>()).margin(0.0005));
}

TEST_CASE("chrome export: without clock_mhz a cycle is a nanosecond", "[trace][chrome]") {
    Trace t = empty_trace(false);
    Launch l;
    l.kernel = "k";
    Block b;
    b.timeline = true;
    b.events.push_back(Event{1000, 2500, 0, kFull, 1, 0, 0, 0, 2, 0, 0, -1});
    b.cycles = 2500;
    l.blocks = {b};
    t.launches = {l};
    json doc = to_chrome(t);
    CHECK(doc["otherData"]["clock_mhz"] == 1000.0);
    auto mma = named(doc, "mma.sync");
    REQUIRE(mma.size() == 1);
    CHECK(mma[0]["ts"] == 1.0);
    CHECK(mma[0]["dur"] == 1.5);
}

TEST_CASE("chrome export: tile ops, instructions and their arguments", "[trace][chrome]") {
    Trace t = sample_trace();
    json doc = to_chrome(t);
    size_t ops = named(doc, "load").size() + named(doc, "mma_AB").size() + named(doc, "store").size();
    CHECK(ops > 3);
    for (const char* name : {"load", "mma_AB", "store"})
        for (const json& e : named(doc, name)) CHECK(e["args"]["instructions"].get<int>() >= 1);

    size_t timeline_events = t.launches[0].blocks[0].events.size() + t.launches[1].blocks[0].events.size();
    size_t instructions = 0;
    bool masked = false, stalled = false, sourced = false;
    for (const json& e : events_of(doc)) {
        if (e["ph"] != "X" || !e["args"].contains("issue") || e["args"].contains("op_seq")) continue;
        ++instructions;
        masked |= e["args"].value("mask", "") == "0x0000ffff";
        stalled |= e["args"].contains("stall") && e["args"]["stall_cycles"].get<int>() > 0;
        sourced |= e["args"].value("source", "") == "mma_AB(c, a, b);";
        CHECK(e["args"]["where"].get<std::string>().rfind("kernels/gemm.cu:", 0) == 0);
    }
    CHECK(instructions == timeline_events);
    CHECK(masked);
    CHECK(stalled);
    CHECK(sourced);

    json ops_only = to_chrome(t, ChromeOptions{false});
    size_t op_slices = 0;
    for (const json& e : events_of(ops_only)) {
        if (e["ph"] != "X" || !e["args"].contains("issue")) continue;
        CHECK(e["args"].contains("op_seq"));  // tile ops only, no instructions
        ++op_slices;
    }
    CHECK(op_slices == ops);
}

TEST_CASE("chrome export: bank conflicts are instants with their counts", "[trace][chrome]") {
    Trace t = sample_trace();
    json doc = to_chrome(t);
    std::multiset<std::tuple<int, int, int, int>> expected, seen;  // max_way, wavefronts, ideal, conflicts
    for (const Launch& l : t.launches)
        for (const Block& b : l.blocks)
            for (const SmemAccess& s : b.smem)
                if (b.timeline && s.conflicts() > 0) expected.insert({s.max_way, s.wavefronts, s.ideal, s.conflicts()});
    REQUIRE(expected.size() >= 2);
    for (const json& e : named(doc, "bank conflict ")) {
        CHECK(e["ph"] == "i");
        CHECK(e["s"] == "t");
        const json& a = e["args"];
        int way = std::stoi(e["name"].get<std::string>().substr(14));
        CHECK(e["name"] == "bank conflict " + std::to_string(way) + "-way");
        CHECK(a["conflicts"] == a["wavefronts"].get<int>() - a["ideal"].get<int>());
        CHECK(a["where"].is_string());
        seen.insert({way, a["wavefronts"], a["ideal"], a["conflicts"]});
    }
    CHECK(seen == expected);
    CHECK(seen.count({4, 4, 1, 3}) >= 1);
}

TEST_CASE("chrome export: barrier waits, registers, snapshots and failures", "[trace][chrome]") {
    Trace t = sample_trace();
    json doc = to_chrome(t);

    auto bar = named(doc, "wait bar.sync 0");
    auto mbar = named(doc, "wait mbarrier @0x1f40 phase 1");
    REQUIRE(bar.size() == 1);
    REQUIRE(mbar.size() == 1);
    CHECK(bar[0]["tid"] == 1001);
    CHECK(bar[0]["args"]["last_warp"] == 1);
    CHECK(mbar[0]["tid"] == 1002);
    CHECK(mbar[0]["args"]["where"] == "kernels/gemm.cu:4");
    CHECK(mbar[0]["dur"].get<double>() > 0);

    auto regs = named(doc, "registers per thread");
    size_t changes = 0;
    for (const Launch& l : t.launches) changes += l.blocks[0].regs.size();
    REQUIRE(!regs.empty());
    CHECK(regs.size() <= changes + 2);  // changes at one cycle merge; a zero sample may start each block
    for (const json& e : regs) {
        CHECK(e["ph"] == "C");
        CHECK(e["args"].size() == 2);
        CHECK(e["args"]["warp 0"].is_number());
        CHECK(e["args"]["warp 1"].is_number());
    }

    auto snapshot = named(doc, "snapshot acc");
    REQUIRE(snapshot.size() == 1);
    CHECK(snapshot[0]["args"]["rows"] == 16);
    CHECK(snapshot[0]["args"]["cols"] == 8);
    CHECK_FALSE(snapshot[0]["args"].contains("values"));

    auto failure = named(doc, "failure: fault");
    REQUIRE(failure.size() == 1);
    CHECK(failure[0]["s"] == "g");
    CHECK(failure[0]["args"]["message"] == "out of bounds shared store");
    CHECK(pids_named(doc, "gemm_kernel<2>").count(failure[0]["pid"]) == 1);  // in its block
}

TEST_CASE("chrome export: blocks without a timeline get no tracks", "[trace][chrome]") {
    Trace t = sample_trace();
    json doc = to_chrome(t);
    CHECK(pids_named(doc, "block (1,0,0)").empty());
    CHECK(pids_named(doc, " · block ").size() == 2);  // one per timeline block

    t.launches[0].blocks[0].timeline = false;
    t.launches[1].blocks[0].timeline = false;
    json bare = to_chrome(t);
    CHECK(pids_named(bare, " · block ").empty());
    for (const json& e : events_of(bare)) CHECK(e["pid"] == 1);  // only the launches overview
}

TEST_CASE("chrome export: the stream parses to the same document", "[trace][chrome]") {
    Trace t = sample_trace();
    t.files[1].text = std::string("int x;\n  load(a_s, a); // \xe9t\xe9\n");  // Latin-1 bytes in a comment
    for (bool instructions : {true, false}) {
        std::ostringstream out;
        write_chrome(out, t, ChromeOptions{instructions});
        json streamed = json::parse(out.str());
        CHECK(streamed == to_chrome(t, ChromeOptions{instructions}));
    }
}
