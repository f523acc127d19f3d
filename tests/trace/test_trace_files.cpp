// Trace files: what the simulator records survives both encodings unchanged,
// a bad file is a clear error (never a crash), and a kernel that fails half
// way leaves a file that loads with the failure in it.
#include <catch2/catch.hpp>

#include "tk/tk.h"
#include "tk/host/reference.h"
#include "sim/simulator.h"
#include "sim/trace_recorder.h"
#include "trace/chrome_export.h"
#include "trace/codec.h"
#include "trace/report.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace {

namespace fs = std::filesystem;
using tklab::trace::json;
using tklab::trace::TraceError;
using Catch::Matchers::Contains;

std::string temp_path(const std::string& name) {
    return (fs::temp_directory_path() / ("tklab_test_" + std::to_string(::getpid()) + "_" + name)).string();
}

std::string read_file(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A small kernel with a bit of everything a trace holds: tile ops, conflicted
// and clean shared accesses, barriers, registers, snapshots.
constexpr int kN = 32;
__global__ void traced_kernel(tk::gl<tk::bf16> in, tk::gl<float> out) {
    tk::shared_allocator al;
    auto& s = al.allocate<tk::st<tk::bf16, kN, kN, tk::swizzle::none>>();
    tk::rt_bf<16, kN> a;
    tk::rt_fl<16, kN> f;
    const int w = tk::warpid();
    tk::load(a, in, {0, 0, int(blockIdx.x) * 2 + w % 2, 0});
    tk::store(tk::subtile<16, kN>(s, w % 2, 0), a);
    __syncthreads();
    tk::load(a, tk::subtile<16, kN>(s, (w + 1) % 2, 0));
    tk::copy(f, a);
    tk::snapshot(f, "f");
    tk::mul(f, f, 2.f);
    tk::store(out, f, {0, 0, int(blockIdx.x) * 2 + w % 2, 0});
}

tklab::trace::Trace record(const std::string& path, const std::string& timeline = "all", bool snapshots = true, int blocks = 3) {
    auto in = tk::host::random_values<tk::bf16>(size_t(blocks) * 2 * 16 * kN, 77);
    tk::device_buffer<tk::bf16> din(in.size(), in, "in");
    tk::device_buffer<float> dout(in.size(), "out");
    tklab::sim::RecorderOptions ro;
    ro.path = path;
    ro.recording.timeline_blocks = timeline;
    ro.recording.snapshots = snapshots;
    ro.program = "traced_kernel";
    ro.problem = {{"blocks", blocks}};
    ro.seed = 77;
    ro.keep_events = true;
    tklab::sim::TraceRecorder rec(ro);
    const size_t smem = sizeof(tk::st<tk::bf16, kN, kN, tk::swizzle::none>) + 1024;
    TK_LAUNCH(traced_kernel, dim3(blocks), dim3(64), smem,
              tk::gl<tk::bf16>(din.data(), 1, 1, blocks * 32, kN), tk::gl<float>(dout.data(), 1, 1, blocks * 32, kN));
    rec.add_check({"out", 0.0, 1e-2, true, "default"});
    rec.close();
    return rec.trace();
}

} // namespace

TEST_CASE("trace: JSON and CBOR hold the same document, and load back to what was recorded", "[trace][file]") {
    const std::string pj = temp_path("rt.json"), pc = temp_path("rt.cbor");
    const auto recorded = record(pj);
    record(pc);
    // Same document, two encodings (the runs' wall-clock times aside).
    auto no_wall = [](json d) {
        for (json& r : d["records"])
            if (r["type"] == "summary") r["wall_seconds"] = 0;
        return d;
    };
    const std::string cbor = read_file(pc);
    const json dj = json::parse(read_file(pj)), dc = json::from_cbor(cbor.begin(), cbor.end());
    CHECK(no_wall(dj) == no_wall(dc));
    CHECK(dj.dump().size() > 1000);
    CHECK(dj["format"] == "tklab-trace");
    CHECK(dj["version"] == tklab::trace::kVersion);

    auto lj = tklab::trace::load_trace(pj), lc = tklab::trace::load_trace(pc);
    CHECK(lj.trace.complete);
    CHECK(lj.warning.empty());
    lc.trace.launches[0].wall_seconds = lj.trace.launches[0].wall_seconds;
    CHECK(lj.trace == lc.trace);
    // A whole in-memory trace written at once reads back identical too.
    const std::string pw = temp_path("whole.cbor");
    tklab::trace::write_trace(pw, lj.trace);
    CHECK(tklab::trace::load_trace(pw).trace == lj.trace);
    fs::remove(pw);
    // Everything the recorder had in memory is in the file (the wall time is
    // per run; compare the rest).
    auto a = recorded, b = lj.trace;
    REQUIRE(a.launches.size() == 1);
    REQUIRE(b.launches.size() == 1);
    b.launches[0].wall_seconds = a.launches[0].wall_seconds;
    CHECK(a.launches[0].blocks == b.launches[0].blocks);
    CHECK(a.launches[0].summary == b.launches[0].summary);
    CHECK(a.files == b.files);
    CHECK(a.locations == b.locations);
    CHECK(a == b);

    // What it holds: three timeline blocks, conflicted shared stores with their
    // lanes, barrier waits, register changes, snapshots of a 16x32 tile.
    const auto& l = b.launches[0];
    CHECK(l.blocks.size() == 3);
    CHECK(l.summary->blocks == 3);
    const auto& blk = l.blocks[1];
    CHECK(blk.timeline);
    CHECK(blk.events.size() == blk.instructions);
    CHECK(!blk.barriers.empty());
    CHECK(!blk.regs.empty());
    REQUIRE(blk.snapshots.size() == 2);  // one per warp
    CHECK(blk.snapshots[0].rows == 16);
    CHECK(blk.snapshots[0].cols == kN);
    CHECK(blk.snapshots[0].label == "f");
    bool conflicted_with_lanes = false;
    for (const auto& s : blk.smem) conflicted_with_lanes |= s.conflicts() > 0 && s.lanes >= 0;
    CHECK(conflicted_with_lanes);
    // Each register change lists the tiles live after it (a and f, declared in
    // traced_kernel), adding up to its count; the round trip above kept them.
    bool both_listed = false;
    for (const auto& c : blk.regs) {
        int sum = 0;
        for (const auto& x : c.live) {
            sum += x.regs;
            CHECK_THAT(b.where(x.loc), Contains("tests/trace/test_trace_files.cpp:"));
        }
        CHECK(sum == c.regs);
        both_listed |= c.live.size() == 2;
    }
    CHECK(both_listed);
    // Source text travels with the trace: this file is in it, by relative path.
    bool found = false;
    for (const auto& f : b.files) found |= f.path == "tests/trace/test_trace_files.cpp" && f.text && !f.hash.empty();
    CHECK(found);
    fs::remove(pj);
    fs::remove(pc);
}

TEST_CASE("trace: snapshot values are the tile's values", "[trace][file]") {
    const auto t = record({}, "0", true, 1);
    const auto& blk = t.launches[0].blocks[0];
    REQUIRE(blk.snapshots.size() == 2);
    // Warp 0 loaded rows 16..31 of block 0's input (the other warp's half, via shared memory).
    const auto in = tk::host::random_values<tk::bf16>(2 * 16 * kN, 77);
    const auto& s = blk.snapshots[0];
    CHECK(s.warp == 0);
    for (int r = 0; r < 16; ++r)
        for (int c = 0; c < kN; ++c) REQUIRE(s.values[size_t(r * kN + c)] == float(in[size_t((16 + r) * kN + c)]));
}

TEST_CASE("trace: only the chosen blocks get a timeline, statistics cover all", "[trace][file]") {
    const auto t = record({}, "1", false, 3);
    const auto& l = t.launches[0];
    REQUIRE(l.blocks.size() == 3);
    CHECK(!l.blocks[0].timeline);
    CHECK(l.blocks[1].timeline);
    CHECK(!l.blocks[2].timeline);
    CHECK(l.blocks[0].events.empty());
    CHECK(l.summary->warp_instructions == l.blocks[0].instructions + l.blocks[1].instructions + l.blocks[2].instructions);
    uint64_t site_count = 0;
    for (const auto& s : l.summary->smem_sites) site_count += s.count;
    CHECK(site_count == l.summary->ld_shared.instructions + l.summary->st_shared.instructions +
                            l.summary->ldmatrix.instructions + l.summary->stmatrix.instructions);
    CHECK(l.blocks[1].snapshots.empty());  // not asked for
    CHECK_THROWS_WITH(tklab::sim::parse_timeline_blocks("3-1"), Contains("backwards"));
    CHECK_THROWS_WITH(tklab::sim::parse_timeline_blocks("x"), Contains("not a block number"));
}

TEST_CASE("trace: loading without timelines keeps every total and region, and frees the timelines", "[trace][file]") {
    for (int blocks : {2, 5}) {
        const std::string pc = temp_path("slim.cbor"), pj = temp_path("slim.json");
        record(pc, "all", true, blocks);
        record(pj, "all", true, blocks);
        for (const std::string& path : {pc, pj}) {
            INFO(path << ", " << blocks << " blocks");
            const auto full = tklab::trace::load_trace(path).trace;
            tklab::trace::LoadOptions slim_opt;
            slim_opt.timelines = false;
            const auto slim = tklab::trace::load_trace(path, slim_opt).trace;
            REQUIRE(slim.launches.size() == full.launches.size());
            const auto& fl = full.launches[0];
            const auto& sl = slim.launches[0];
            CHECK(sl.summary == fl.summary);
            REQUIRE(sl.blocks.size() == fl.blocks.size());
            for (size_t i = 0; i < sl.blocks.size(); ++i) {
                const auto& fb = fl.blocks[i];
                const auto& sb = sl.blocks[i];
                CHECK(fb.timeline);
                CHECK(!fb.events.empty());
                CHECK(!sb.timeline);
                // Dropped and freed: nothing of them stays allocated.
                CHECK(sb.events.capacity() == 0);
                CHECK(sb.smem.capacity() == 0);
                CHECK(sb.lane_addrs.capacity() == 0);
                CHECK(sb.barriers.capacity() == 0);
                CHECK(sb.regs.capacity() == 0);
                CHECK(sb.snapshots.capacity() == 0);
                CHECK(sb.regions == fb.regions);
                CHECK(sb.cycles == fb.cycles);
                CHECK(sb.instructions == fb.instructions);
                CHECK(sb.warp_peak_regs == fb.warp_peak_regs);
            }
            // The report reads only what is kept: the same text either way.
            std::ostringstream a, b;
            tklab::trace::write_report(a, full, {});
            tklab::trace::write_report(b, slim, {});
            CHECK(a.str() == b.str());
            CHECK(a.str().size() > 500);
            // Streaming from the file reads what the bytes give.
            CHECK(tklab::trace::load_trace_bytes(read_file(path), tklab::trace::encoding_of(path), path).trace == full);
        }
        fs::remove(pc);
        fs::remove(pj);
    }
}

namespace {

// A deadlock: warp 0 waits for an mbarrier phase nothing completes, warp 1 at
// a __syncthreads() warp 0 never reaches.
__global__ void stuck_kernel() {
    tk::semaphore& bar = *reinterpret_cast<tk::semaphore*>(tk::dynamic_shared_memory());
    if (threadIdx.x == 0) tk::init_semaphore(bar, 1);
    tk::arch::syncthreads();
    if (tk::warpid() == 0) {
        tk::wait(bar, 0);  // never completes: nobody arrives
    } else {
        uint32_t v[1];
        tk::arch::ld_shared<1>(v, tk::arch::smem_addr(&bar));  // some work first
        tk::arch::syncthreads();
    }
}

// Warp 0 waits for parity 1 on a barrier that has completed no phase (it goes
// on at once), then every warp arrives and waits for phase 0 (a real wait
// for warp 0, which arrives first... and one that finds it done for the last).
__global__ void fresh_wait_kernel(int spin) {
    tk::semaphore& bar = *reinterpret_cast<tk::semaphore*>(tk::dynamic_shared_memory());
    if (threadIdx.x == 0) tk::init_semaphore(bar, 64);
    tk::arch::syncthreads();
    if (tk::warpid() == 0) tk::wait(bar, 1);  // "the phase before the first": at once
    uint32_t v[1];
    for (int i = 0; i < spin * int(tk::warpid()); ++i) tk::arch::ld_shared<1>(v, tk::arch::smem_addr(&bar));
    tk::arrive(bar);
    tk::wait(bar, 0);
}

} // namespace

TEST_CASE("trace: a wait on a fresh mbarrier that went on at once is recorded, in both encodings", "[trace][file]") {
    std::mt19937 rng(67);
    for (const char* name : {"fresh.cbor", "fresh.json"}) {
        const std::string path = temp_path(name);
        tklab::sim::RecorderOptions ro;
        ro.path = path;
        ro.program = "fresh";
        tklab::sim::TraceRecorder rec(ro);
        tk::launch("fresh_wait_kernel", fresh_wait_kernel, dim3(1), dim3(64), 64, 40 + int(rng() % 40));
        const auto& sim = tklab::sim::last_run().blocks.at(0);
        rec.close();
        const auto t = tklab::trace::load_trace(path).trace;
        REQUIRE(t.launches.size() == 1);
        const auto& b = t.launches[0].blocks.at(0);
        CHECK(b.barriers == sim.barriers);  // unchanged through the file
        size_t at_once = 0, waited = 0;
        for (const auto& w : b.barriers) {
            if (!w.mbarrier) continue;
            if (w.at_once) {
                ++at_once;
                CHECK(w.warp == 0);
                CHECK(w.arrive == w.release);
            } else {
                ++waited;
                CHECK(w.release > w.arrive);
            }
        }
        CHECK(at_once == 1);  // the wait for parity 1; warp 1's wait for phase 0 found it done, which is not recorded
        CHECK(waited == 1);   // warp 0's wait for phase 0, until warp 1 arrived
        // A kernel with no register tiles: the report says so, not "peak 0 ... at ?".
        std::ostringstream report;
        tklab::trace::write_report(report, t, {});
        CHECK_THAT(report.str(), Contains("no register tiles or vectors"));
        CHECK_THAT(report.str(), !Contains("at ?"));
        fs::remove(path);
    }
}

TEST_CASE("trace: waits a deadlocked run stopped in are recorded open, to the cycle it reached", "[trace][file]") {
    for (const char* name : {"stuck.cbor", "stuck.json"}) {
        const std::string path = temp_path(name);
        tklab::sim::RecorderOptions ro;
        ro.path = path;
        ro.program = "stuck";
        tklab::sim::TraceRecorder rec(ro);
        CHECK_THROWS_AS(tk::launch("stuck_kernel", stuck_kernel, dim3(1), dim3(64), 64), tklab::sim::SimError);
        rec.close();
        const auto t = tklab::trace::load_trace(path).trace;
        REQUIRE(t.launches.size() == 1);
        REQUIRE(t.launches[0].failure);
        CHECK(t.launches[0].failure->kind == "deadlock");
        REQUIRE(t.launches[0].blocks.size() == 1);
        const auto& b = t.launches[0].blocks[0];
        CHECK(b.cycles > 0);
        size_t open = 0;
        for (const auto& w : b.barriers) {
            if (!w.open) continue;
            ++open;
            CHECK(w.release == b.cycles);  // to the cycle the block reached
            CHECK(w.arrive <= w.release);
            CHECK(w.last_warp == w.warp);
            CHECK(w.mbarrier == (w.warp == 0));
            // The waiting instruction's event ends there too.
            bool found = false;
            for (const auto& e : b.events)
                if (e.warp == w.warp && e.issue == w.arrive && e.done == w.release) found = true;
            CHECK(found);
        }
        CHECK(open == 2);
        fs::remove(path);
    }
}

TEST_CASE("trace: malformed files are errors that say what and where", "[trace][file]") {
    const std::string pj = temp_path("bad.json"), pc = temp_path("bad.cbor");
    record(pj, "all", false, 2);
    record(pc, "all", false, 2);
    const std::string jtext = read_file(pj), cbor = read_file(pc);
    using tklab::trace::Encoding;
    using tklab::trace::load_trace_bytes;

    SECTION("empty") {
        CHECK_THROWS_WITH(load_trace_bytes("", Encoding::cbor, "x.cbor"), Contains("empty file"));
    }
    SECTION("unknown extension") {
        CHECK_THROWS_WITH(tklab::trace::load_trace("trace.txt"), Contains("*.json") && Contains("*.cbor"));
    }
    SECTION("truncated anywhere: an error naming the byte, or with salvage the complete records") {
        std::mt19937 rng(5);
        for (int i = 0; i < 40; ++i) {
            const size_t cut = 1 + rng() % (cbor.size() - 2);
            const std::string part = cbor.substr(0, cut);
            CHECK_THROWS_WITH(load_trace_bytes(part, Encoding::cbor, "t.cbor"), Contains("t.cbor") && Contains("byte"));
            const size_t jcut = 1 + rng() % (jtext.size() - 2);
            CHECK_THROWS_WITH(load_trace_bytes(jtext.substr(0, jcut), Encoding::json, "t.json"), Contains("byte"));
        }
        // Cut inside the second block record: salvage keeps the first block.
        const auto full = load_trace_bytes(cbor, Encoding::cbor, "t.cbor").trace;
        const json doc = json::from_cbor(cbor.begin(), cbor.end());
        size_t cut = cbor.size() / 2;
        tklab::trace::Loaded salvaged;
        for (;; cut += 97) {
            REQUIRE(cut < cbor.size());
            salvaged = load_trace_bytes(cbor.substr(0, cut), Encoding::cbor, "t.cbor", {true});
            if (salvaged.trace.launches.size() == 1 && salvaged.trace.launches[0].blocks.size() == 1) break;
        }
        CHECK(!salvaged.trace.complete);
        CHECK_THAT(salvaged.warning, Contains("complete records"));
        CHECK(salvaged.trace.launches[0].blocks[0] == full.launches[0].blocks[0]);
        CHECK(!salvaged.trace.launches[0].summary);
    }
    SECTION("wrong version") {
        json d = json::parse(jtext);
        d["version"] = 99;
        CHECK_THROWS_WITH(load_trace_bytes(d.dump(), Encoding::json, "v.json"), Contains("version 99") && Contains("update tklab"));
    }
    SECTION("not a trace") {
        CHECK_THROWS_WITH(load_trace_bytes("[1,2,3]", Encoding::json, "a.json"), Contains("not a tklab trace"));
        CHECK_THROWS_WITH(load_trace_bytes("{\"format\":\"other\",\"version\":1,\"header\":{},\"records\":[]}", Encoding::json, "a.json"),
                          Contains("not a tklab trace"));
        CHECK_THROWS_WITH(load_trace_bytes("42", Encoding::json, "a.json"), Contains("not a tklab trace"));
    }
    SECTION("a missing field or a field of the wrong type names its JSON path") {
        json d = json::parse(jtext);
        auto& recs = d["records"];
        size_t bi = 0;
        while (recs[bi]["type"] != "block") ++bi;
        const std::string path = "records[" + std::to_string(bi) + "]";
        json bad = d;
        bad["records"][bi]["events"]["loc"][3] = "seven";
        CHECK_THROWS_WITH(load_trace_bytes(bad.dump(), Encoding::json, "w.json"),
                          Contains(path + ".events.loc[3]") && Contains("expected an integer, found a string"));
        bad = d;
        bad["records"][bi]["events"]["loc"][2] = 100000;
        CHECK_THROWS_WITH(load_trace_bytes(bad.dump(), Encoding::json, "w.json"), Contains(path + ".events.loc[2]") && Contains("out of range"));
        bad = d;
        bad["records"][bi].erase("cycles");
        CHECK_THROWS_WITH(load_trace_bytes(bad.dump(), Encoding::json, "w.json"), Contains(path) && Contains("missing field \"cycles\""));
        bad = d;
        bad["records"][bi]["events"]["op"].erase(0);
        CHECK_THROWS_WITH(load_trace_bytes(bad.dump(), Encoding::json, "w.json"), Contains(path + ".events.op") && Contains("one per row"));
        bad = d;
        bad["header"].erase("ops");
        CHECK_THROWS_WITH(load_trace_bytes(bad.dump(), Encoding::json, "w.json"), Contains("header") && Contains("\"ops\""));
        bad = d;
        bad["records"].erase(bad["records"].size() - 1);  // the end record
        CHECK_THROWS_WITH(load_trace_bytes(bad.dump(), Encoding::json, "w.json"), Contains("end record is missing"));
        // The same checks hold for the binary encoding.
        bad = d;
        bad["records"][bi]["events"]["warp"][0] = -1;
        const auto bytes = json::to_cbor(bad);
        CHECK_THROWS_WITH(load_trace_bytes(std::string(bytes.begin(), bytes.end()), Encoding::cbor, "w.cbor"),
                          Contains(path + ".events.warp[0]"));
    }
    SECTION("register changes' live lists: checked when present, optional (files from before them load)") {
        json d = json::parse(jtext);
        size_t bi = 0;
        while (d["records"][bi]["type"] != "block") ++bi;
        const std::string path = "records[" + std::to_string(bi) + "].regs.live";
        json& live = d["records"][bi]["regs"]["live"];
        REQUIRE(live.size() == d["records"][bi]["regs"]["regs"].size());
        REQUIRE(live[0].size() >= 2);
        auto load = [](const json& doc) { return load_trace_bytes(doc.dump(), Encoding::json, "l.json"); };
        json bad = d;
        bad["records"][bi]["regs"]["live"][0][0] = 100000;  // no such location
        CHECK_THROWS_WITH(load(bad), Contains(path + "[0][0]") && Contains("out of range"));
        const auto bytes = json::to_cbor(bad);
        CHECK_THROWS_WITH(load_trace_bytes(std::string(bytes.begin(), bytes.end()), Encoding::cbor, "l.cbor"),
                          Contains(path + "[0][0]") && Contains("out of range"));
        bad = d;
        bad["records"][bi]["regs"]["live"][0].erase(live[0].size() - 1);  // a location without its registers
        CHECK_THROWS_WITH(load(bad), Contains(path + "[0]") && Contains("pairs"));
        bad = d;
        bad["records"][bi]["regs"]["live"][0][1] = "eight";
        CHECK_THROWS_WITH(load(bad), Contains(path + "[0][1]") && Contains("expected an integer, found a string"));
        bad = d;
        bad["records"][bi]["regs"]["live"][0] = 3;
        CHECK_THROWS_WITH(load(bad), Contains(path + "[0]") && Contains("expected an array"));
        bad = d;
        bad["records"][bi]["regs"]["live"].erase(0);
        CHECK_THROWS_WITH(load(bad), Contains(path) && Contains("one per row"));

        // Without the column: the same trace, with nothing listed.
        json old = d;
        for (json& r : old["records"])
            if (r["type"] == "block" && r.contains("regs")) r["regs"].erase("live");
        auto want = load(d).trace;
        for (auto& blk : want.launches[0].blocks)
            for (auto& c : blk.regs) c.live.clear();
        CHECK(load(old).trace == want);
    }
    SECTION("random bytes, and random damage to a real trace, never crash") {
        std::mt19937 rng(11);
        for (int i = 0; i < 300; ++i) {
            std::string junk(size_t(1 + rng() % 2000), '\0');
            for (char& c : junk) c = char(rng());
            CHECK_THROWS_AS(load_trace_bytes(junk, Encoding::cbor, "r.cbor"), TraceError);
            CHECK_THROWS_AS(load_trace_bytes(junk, Encoding::json, "r.json"), TraceError);
            std::string damaged = cbor;
            for (int k = 0; k < 4; ++k) damaged[rng() % damaged.size()] = char(rng());
            try {
                load_trace_bytes(damaged, Encoding::cbor, "d.cbor");  // may survive (a changed number) or not
            } catch (const TraceError&) {
            }
        }
    }
    fs::remove(pj);
    fs::remove(pc);
}

namespace {
__global__ void fault_in_block_two(const float* p, float* out) {
    const float* q = blockIdx.x == 2 ? p + 1000000 : p + threadIdx.x;  // block 2 reads far past the end
    uint32_t v[1];
    tk::arch::ld_global<1>(v, q);
    __syncthreads();
    tk::arch::st_global<1>(out + blockIdx.x * 32 + threadIdx.x, v);
}
} // namespace

TEST_CASE("trace: a kernel that faults half way leaves a loadable trace with the fault", "[trace][file]") {
    for (const char* ext : {".json", ".cbor"}) {
        const std::string p = temp_path(std::string("fault") + ext);
        tk::device_buffer<float> in(32, std::vector<float>(32, 1.f), "in"), out(4 * 32, "out");
        {
            tklab::sim::RecorderOptions ro;
            ro.path = p;
            tklab::sim::TraceRecorder rec(ro);
            CHECK_THROWS_AS(TK_LAUNCH(fault_in_block_two, dim3(4), dim3(32), 0, (const float*)in.data(), out.data()),
                            tklab::sim::SimError);
        }  // the recorder closes the file, as a run that stops on the error does
        const auto t = tklab::trace::load_trace(p).trace;
        REQUIRE(t.launches.size() == 1);
        const auto& l = t.launches[0];
        CHECK(l.blocks.size() == 3);  // blocks 0 and 1, and the failing block 2 up to the fault
        REQUIRE(l.failure);
        CHECK(l.failure->kind == "fault");
        CHECK(l.failure->block == 2);
        CHECK_THAT(t.where(l.failure->loc), Contains("tests/trace/test_trace_files.cpp:"));
        CHECK_THAT(l.failure->message, Contains("global"));
        REQUIRE(l.summary);
        CHECK(l.summary->blocks == 3);
        fs::remove(p);
    }
}

TEST_CASE("trace: the Chrome export of a recorded run has what Perfetto needs", "[trace][chrome]") {
    const auto t = record({}, "all", true, 2);
    const json doc = tklab::trace::to_chrome(t);
    REQUIRE(doc.contains("traceEvents"));
    size_t slices = 0, conflicts = 0, counters = 0, waits = 0;
    for (const json& e : doc["traceEvents"]) {
        REQUIRE(e.contains("ph"));
        REQUIRE(e.contains("pid"));
        REQUIRE(e.contains("name"));
        const std::string ph = e["ph"];
        if (ph == "M") continue;
        REQUIRE(e["ts"].is_number());
        if (ph == "X") {
            ++slices;
            CHECK(e["dur"].get<double>() >= 0);
            waits += e["name"].get<std::string>().rfind("wait bar.sync", 0) == 0;
        }
        if (ph == "i" && e["name"].get<std::string>().rfind("bank conflict", 0) == 0) ++conflicts;
        if (ph == "C") ++counters;
    }
    uint64_t instructions = 0;
    for (const auto& b : t.launches[0].blocks) instructions += b.events.size();
    CHECK(slices >= instructions);
    CHECK(conflicts > 0);
    CHECK(counters > 0);
    CHECK(waits > 0);
    std::ostringstream streamed;
    tklab::trace::write_chrome(streamed, t);
    CHECK(json::parse(streamed.str()) == doc);
}
