// Decoding the intra-kernel region buffer (profiler/decode/regions.h) on the
// CPU, from synthetic buffers laid out exactly as tk::region writes them on
// the GPU: ordering, alignment across SMs, nesting, unknown names, full
// slices, bad input, and a round trip through the trace writer and reader.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <sstream>
#include "profiler/decode/regions.h"
#include "trace/codec.h"
#include "trace/region_stats.h"
#include "trace/report.h"

using namespace tklab;
using tklab::regions::Header;
using tklab::regions::Record;

namespace {

constexpr double kMhz = 1755;  // the SM clock of the synthetic runs

// A buffer written the way the device writes one: each region that ends
// bumps its warp's count and is stored only while the slice has room.
struct SyntheticBuffer {
    Header h;
    double true_mhz = kMhz;  // the rate clock64 really runs at
    std::vector<uint32_t> counts;
    std::vector<Record> records;

    SyntheticBuffer(uint32_t grid_x, uint32_t grid_y, uint32_t threads, uint32_t records_per_warp) {
        h.grid[0] = grid_x, h.grid[1] = grid_y;
        h.block[0] = threads;
        h.warps_per_block = (threads + 31) / 32;
        h.warps = grid_x * grid_y * h.warps_per_block;
        h.records_per_warp = records_per_warp;
        counts.assign(h.warps, 0);
        records.assign(size_t(h.warps) * records_per_warp, Record{});
    }
    // A region of `warp` in `block` on SM `sm`, from true kernel cycle `begin`
    // for `cycles`. The SM's clock64 reads true cycle + sm_offset; the
    // globaltimer reads ns since t_base, floored to its `quantum_ns`.
    void end_region(uint32_t block, uint32_t warp, uint16_t sm, uint64_t sm_offset, uint64_t begin, uint64_t cycles,
                    const char* name, uint32_t line, uint64_t quantum_ns = 32) {
        const uint64_t t_base = 1'700'000'000'000'000'000ull;  // globaltimer: ns since an epoch, large
        auto timer = [&](uint64_t cycle) {
            const uint64_t ns = uint64_t(double(cycle) / (true_mhz / 1000.0));
            return t_base + ns / quantum_ns * quantum_ns;
        };
        const uint32_t slice = block * h.warps_per_block + warp;
        const uint32_t n = counts[slice]++;
        if (n >= h.records_per_warp) return;
        Record& r = records[size_t(slice) * h.records_per_warp + n];
        r.t0 = timer(begin), r.t1 = timer(begin + cycles);
        r.c0 = sm_offset + begin, r.c1 = sm_offset + begin + cycles;
        r.id = regions::fnv1a32(name);
        r.block = block, r.warp = uint16_t(warp), r.smid = sm, r.line = line;
    }
    std::string bytes() const {
        std::string b(regions::buffer_bytes(h.warps, h.records_per_warp), '\0');
        std::memcpy(b.data(), &h, sizeof h);
        std::memcpy(b.data() + regions::kCountsOffset, counts.data(), 4 * counts.size());
        std::memcpy(b.data() + regions::records_offset(h.warps), records.data(), records.size() * sizeof(Record));
        return b;
    }
};

profiler::GpuDevice h100() { return {"NVIDIA H100 80GB HBM3", 0, 9, 0, 132, kMhz}; }

profiler::RegionStats decode(trace::Trace& t, const std::string& bytes, const std::vector<std::string>& names) {
    profiler::RegionDecodeOptions opt;
    opt.kernel = "demo";
    opt.sm_clock_mhz = kMhz;
    return profiler::add_region_launch(t, bytes.data(), bytes.size(), profiler::RegionNames(names), opt);
}

std::vector<const trace::Event*> warp_events(const trace::Block& b, int warp) {
    std::vector<const trace::Event*> out;
    for (const trace::Event& e : b.events)
        if (e.warp == warp) out.push_back(&e);
    return out;
}

std::string name_of(const trace::Trace& t, const trace::Event* e) { return t.op_names.at(e->op_name); }

} // namespace

TEST_CASE("region ids are FNV-1a 32 of the name, and names are found in a kernel's source", "[profiler][regions]") {
    STATIC_REQUIRE(regions::fnv1a32("") == 0x811c9dc5u);
    STATIC_REQUIRE(regions::fnv1a32("a") == 0xe40c292cu);
    STATIC_REQUIRE(regions::fnv1a32("foobar") == 0xbf9cf968u);
    const std::string src = "  tk::region r(\"prologue\");\n for(;;) { tk::region step{\"mma\"}; }\n"
                            "  tk::region again(\"prologue\"); region_name x(\"not a marker\");\n";
    CHECK(profiler::region_names_in(src) == std::vector<std::string>{"prologue", "mma"});
    profiler::RegionNames names({"prologue"});
    CHECK(names.name_of(regions::fnv1a32("prologue")) == "prologue");
    CHECK(names.name_of(0x1234abcdu) == "region 0x1234abcd");
}

TEST_CASE("regions decode per warp in order, nested ones inside their parent", "[profiler][regions]") {
    SyntheticBuffer buf(2, 1, 64, 8);  // 2 blocks of 2 warps
    // Warp 1 of block 1: "loop" holds two "step"s; records land in end order (inner first).
    buf.end_region(1, 1, 3, 5000, 100, 50, "step", 20);
    buf.end_region(1, 1, 3, 5000, 160, 40, "step", 20);
    buf.end_region(1, 1, 3, 5000, 90, 200, "loop", 18);
    buf.end_region(1, 1, 3, 5000, 300, 10, "store", 25);
    // One region for each other warp, so the kernel's earliest start is block 0's.
    buf.end_region(0, 0, 2, 9000, 0, 30, "loop", 18);
    buf.end_region(0, 1, 2, 9000, 5, 30, "loop", 18);
    buf.end_region(1, 0, 3, 5000, 40, 30, "loop", 18);

    trace::Trace t = profiler::gpu_trace(h100());
    const profiler::RegionStats st = decode(t, buf.bytes(), {"loop", "step", "store"});
    CHECK(st.regions == 7);
    CHECK(st.dropped == 0);
    CHECK(st.warning().empty());
    REQUIRE(t.launches.size() == 1);
    const trace::Launch& l = t.launches[0];
    CHECK(l.kernel == "demo");
    CHECK(l.grid == trace::Dim3{2, 1, 1});
    CHECK(l.block == trace::Dim3{64, 1, 1});
    REQUIRE(l.blocks.size() == 2);
    CHECK(l.blocks[0].index == 0);
    CHECK(l.blocks[1].index == 1);
    CHECK(l.blocks[1].coord == trace::Dim3{1, 0, 0});

    const auto w = warp_events(l.blocks[1], 1);
    REQUIRE(w.size() == 4);
    CHECK(name_of(t, w[0]) == "loop");
    CHECK(name_of(t, w[1]) == "step");
    CHECK(name_of(t, w[2]) == "step");
    CHECK(name_of(t, w[3]) == "store");
    // Durations are clock64 deltas, exactly.
    CHECK(w[0]->done - w[0]->issue == 200);
    CHECK(w[1]->done - w[1]->issue == 50);
    CHECK(w[3]->done - w[3]->issue == 10);
    // Begins keep their clock64 spacing within a warp.
    CHECK(w[1]->issue - w[0]->issue == 10);
    CHECK(w[2]->issue - w[1]->issue == 60);
    // Nesting depth in aux; regions numbered per warp in op_seq.
    CHECK(w[0]->aux == 0);
    CHECK(w[1]->aux == 1);
    CHECK(w[2]->aux == 1);
    CHECK(w[3]->aux == 0);
    for (size_t i = 0; i < w.size(); ++i) CHECK(w[i]->op_seq == i + 1);
    CHECK(t.ops[w[0]->op] == "region");
    CHECK(t.locations.at(w[0]->loc).line == 18);
    CHECK(t.locations.at(w[1]->loc).line == 20);
    // Block events come in execution order.
    for (const trace::Block& b : l.blocks)
        for (size_t i = 1; i < b.events.size(); ++i) CHECK(b.events[i - 1].issue <= b.events[i].issue);
    REQUIRE(l.summary);
    CHECK(l.summary->warp_instructions == 7);
    CHECK(l.summary->by_op.at(size_t(t.op_index("region"))) == 7);
    // Time in no region: each block's span times its warps, less each warp's
    // outermost regions (the steps inside the loop are not counted twice).
    // Block 0: span 35 x 2 warps, regions 30 + 30. Block 1: span 40..310 x 2,
    // regions 30 (warp 0) and 200 + 10 (warp 1).
    const trace::RegionStats rs = trace::region_stats(t, l);
    CHECK(rs.warp_time == 70 + 540);
    CHECK(rs.outside == 10 + 300);
}

TEST_CASE("regions on two SMs with different clock64 origins line up on one axis", "[profiler][regions]") {
    // Same true times on two SMs whose clock64 origins differ by ~8.9e11
    // cycles; the globaltimer ticks every 32 ns. 40 regions per warp give the
    // fit its samples; the warps start 1000 true cycles apart.
    SyntheticBuffer buf(2, 1, 32, 64);
    const uint64_t off_a = 123'456'789, off_b = 888'888'888'888ull;
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> len(200, 3000);
    uint64_t ta = 0, tb = 1000;
    std::vector<uint64_t> true_a, true_b;
    for (int i = 0; i < 40; ++i) {
        const uint64_t la = uint64_t(len(rng)), lb = uint64_t(len(rng));
        true_a.push_back(ta), true_b.push_back(tb);
        buf.end_region(0, 0, 0, off_a, ta, la, "step", 10);
        buf.end_region(1, 0, 77, off_b, tb, lb, "step", 10);
        ta += la + 50, tb += lb + 50;
    }
    trace::Trace t = profiler::gpu_trace(h100());
    const profiler::RegionStats st = decode(t, buf.bytes(), {"step"});
    CHECK(st.sms == 2);
    const auto a = warp_events(t.launches[0].blocks[0], 0), b = warp_events(t.launches[0].blocks[1], 0);
    REQUIRE(a.size() == 40);
    REQUIRE(b.size() == 40);
    // One globaltimer tick is 56 cycles at 1755 MHz: each SM's fit is within it.
    CHECK(std::llabs(int64_t(a[0]->issue) - 0) <= 56);
    for (size_t i = 0; i < 40; ++i) {
        const int64_t err = (int64_t(b[i]->issue) - int64_t(a[0]->issue)) - int64_t(true_b[i]);
        CHECK(std::llabs(err) <= 56);
        CHECK(a[i]->issue - a[0]->issue == true_a[i]);  // within an SM: exact clock64 spacing
    }
    // Without alignment the offsets would put block 1 ~8.9e11 cycles away.
    CHECK(t.launches[0].summary->est_kernel_cycles < 200'000);
}

TEST_CASE("the SM clock's real rate is measured from long runs, not taken from the peak", "[profiler][regions]") {
    // clock64 runs at 1500 MHz while the device reports a 1755 MHz peak; two
    // SMs, regions over ~600 us. With the peak rate the fit would misplace
    // the later warp by thousands of cycles.
    SyntheticBuffer buf(2, 1, 32, 64);
    buf.true_mhz = 1500;
    std::vector<uint64_t> true_b;
    for (int i = 0; i < 60; ++i) buf.end_region(0, 0, 1, 1'000'000, uint64_t(i) * 10'000, 9'000, "step", 3);
    for (int i = 40; i < 60; ++i) {  // the second SM works only late in the run
        true_b.push_back(uint64_t(i) * 10'000 + 3'000);
        buf.end_region(1, 0, 9, 77'000'000'000ull, true_b.back(), 9'000, "step", 3);
    }
    for (bool fit : {true, false}) {
        trace::Trace t = profiler::gpu_trace(h100());
        profiler::RegionDecodeOptions opt;
        opt.sm_clock_mhz = kMhz;
        opt.fit_clock = fit;
        const std::string bytes = buf.bytes();
        const profiler::RegionStats st = profiler::add_region_launch(t, bytes.data(), bytes.size(), profiler::RegionNames({"step"}), opt);
        const auto a = warp_events(t.launches[0].blocks[0], 0), b = warp_events(t.launches[0].blocks[1], 0);
        REQUIRE(b.size() == 20);
        int64_t worst = 0;
        for (size_t i = 0; i < b.size(); ++i)
            worst = std::max<int64_t>(worst, std::llabs(int64_t(b[i]->issue - a[0]->issue) - int64_t(true_b[i])));
        if (fit) {
            CHECK(st.clock_fitted);
            CHECK(std::abs(st.clock_mhz - 1500) < 1500 * 0.002);
            CHECK(t.arch["clock_mhz"] == 1500);
            CHECK(t.arch["peak_clock_mhz"] == kMhz);
            CHECK(worst <= 60);
        } else {
            CHECK_FALSE(st.clock_fitted);
            CHECK(st.clock_mhz == kMhz);
            CHECK(worst > 1000);
        }
    }
}

TEST_CASE("unknown region ids get a hex name and a warning", "[profiler][regions]") {
    SyntheticBuffer buf(1, 1, 32, 4);
    buf.end_region(0, 0, 0, 0, 0, 10, "named", 1);
    buf.end_region(0, 0, 0, 0, 20, 10, "secret", 2);
    trace::Trace t = profiler::gpu_trace(h100());
    const profiler::RegionStats st = decode(t, buf.bytes(), {"named"});
    CHECK(st.unknown == 1);
    const auto w = warp_events(t.launches[0].blocks[0], 0);
    REQUIRE(w.size() == 2);
    char hex[32];
    std::snprintf(hex, sizeof hex, "region 0x%08x", regions::fnv1a32("secret"));
    CHECK(name_of(t, w[1]) == hex);
    CHECK_THAT(st.warning(), Catch::Contains("1 regions have ids that match no given name"));
}

TEST_CASE("a region that began but never ended is left out and reported", "[profiler][regions]") {
    SyntheticBuffer buf(1, 1, 32, 4);
    buf.end_region(0, 0, 0, 0, 0, 10, "a", 1);
    buf.end_region(0, 0, 0, 0, 20, 10, "a", 1);
    buf.end_region(0, 0, 0, 0, 40, 10, "a", 1);
    buf.records[1].t1 = buf.records[1].c1 = 0;  // the end half never written (the buffer starts zeroed)
    buf.records[2] = {};  // counted, nothing written (a marker that writes its whole record at its end)
    trace::Trace t = profiler::gpu_trace(h100());
    const profiler::RegionStats st = decode(t, buf.bytes(), {"a"});
    CHECK(st.regions == 1);
    CHECK(st.unfinished == 2);
    CHECK_THAT(st.warning(), Catch::Contains("2 regions began but never ended"));
}

TEST_CASE("a full slice keeps its first records and counts the rest as dropped", "[profiler][regions]") {
    SyntheticBuffer buf(1, 1, 96, 3);  // 3 warps, 3 records each
    for (int i = 0; i < 5; ++i) buf.end_region(0, 1, 0, 0, uint64_t(100 * i), 50, "step", 7);
    buf.end_region(0, 2, 0, 0, 0, 50, "step", 7);
    buf.h.lost = 4;  // as if 4 regions came from warps beyond the slices
    trace::Trace t = profiler::gpu_trace(h100());
    const profiler::RegionStats st = decode(t, buf.bytes(), {"step"});
    CHECK(st.regions == 4);
    CHECK(st.dropped == 2);
    CHECK(st.dropped_per_warp == std::vector<uint32_t>{0, 2, 0});
    CHECK(st.lost == 4);
    const auto w = warp_events(t.launches[0].blocks[0], 1);
    REQUIRE(w.size() == 3);
    CHECK(w[2]->issue - w[0]->issue == 200);  // the first three were kept
    CHECK_THAT(st.warning(), Catch::Contains("2 regions were dropped: 1 warps filled their 3 records"));
    CHECK_THAT(st.warning(), Catch::Contains("4 regions came from warps beyond the buffer's 3 slices"));
}

TEST_CASE("bad region buffers are clear errors and leave the trace as it was", "[profiler][regions]") {
    SyntheticBuffer buf(1, 1, 32, 2);
    buf.end_region(0, 0, 0, 0, 0, 10, "a", 1);
    const std::string good = buf.bytes();
    trace::Trace t = profiler::gpu_trace(h100());
    const trace::Trace before = t;
    auto fails = [&](const std::string& bytes, const std::string& text) {
        INFO("expecting: " << text);
        CHECK_THROWS_WITH(decode(t, bytes, {"a"}), Catch::Contains(text));
        CHECK(t == before);
    };
    fails("", "shorter than its 64-byte header");
    fails(good.substr(0, 40), "shorter than its 64-byte header");
    fails(good.substr(0, good.size() - 1), "cut short; copy the whole buffer back");
    fails(good + "xx", "bytes beyond its end");
    std::string garbage(good.size(), '\0');
    std::mt19937 rng(3);
    for (char& c : garbage) c = char(rng());
    fails(garbage, "not a tk::region buffer");
    std::string v2 = good;
    v2[4] = 2;
    fails(v2, "version 2");
    // A record that sits in warp 0's slice but names block 5.
    SyntheticBuffer wrong = buf;
    wrong.records[0].block = 5;
    fails(wrong.bytes(), "says block 5");
    SyntheticBuffer backwards = buf;
    backwards.records[0].c0 = backwards.records[0].c1 + 1;
    fails(backwards.bytes(), "ends before it begins");
    SyntheticBuffer big = buf;
    big.h.warps = 1000;
    fails(big.bytes(), "slices for a launch of 1 warps");
    profiler::RegionDecodeOptions no_clock;
    CHECK_THROWS_WITH(profiler::add_region_launch(t, good.data(), good.size(), {}, no_clock), Catch::Contains("SM clock rate"));
    CHECK_NOTHROW(profiler::RegionNames({"x", "x", "y"}));  // the same name twice is fine
}

TEST_CASE("a decoded GPU trace round-trips through the writer and the reader", "[profiler][regions]") {
    SyntheticBuffer buf(3, 2, 128, 6);
    std::mt19937 rng(11);
    for (uint32_t b = 0; b < 6; ++b)
        for (uint32_t w = 0; w < 4; ++w) {
            uint64_t at = uint64_t(rng() % 500);
            for (const char* name : {"prologue", "main loop", "store"}) {
                const uint64_t len = 100 + rng() % 1000;
                buf.end_region(b, w, uint16_t(b % 3), 1'000'000ull * (b % 3), at, len, name, 40);
                at += len + 5;
            }
        }
    trace::Trace t = profiler::gpu_trace(h100());
    t.program = "gemm", t.variant = "swizzled", t.problem = {{"M", 192}, {"N", 128}, {"K", 64}};
    decode(t, buf.bytes(), {"prologue", "main loop", "store"});
    decode(t, buf.bytes(), {"prologue", "main loop", "store"});  // a second launch shares the tables
    REQUIRE(t.launches.size() == 2);
    CHECK(t.op_names.size() == 4);
    CHECK(t.arch["gpu"] == true);
    CHECK(t.arch["name"] == "NVIDIA H100 80GB HBM3");
    t.complete = true;
    const auto dir = std::filesystem::temp_directory_path();
    for (const char* ext : {".json", ".cbor"}) {
        const std::string path = (dir / ("tklab_regions_roundtrip" + std::string(ext))).string();
        trace::write_trace(path, t);
        const trace::Loaded loaded = trace::load_trace(path);
        CHECK(loaded.warning.empty());
        CHECK(loaded.trace == t);
        std::filesystem::remove(path);
    }
    std::ostringstream report;
    trace::write_report(report, t);
    CHECK_THAT(report.str(), Catch::Contains("tklab profiler"));
}

TEST_CASE("a GPU trace's report lists its regions by total time, with counts, means and shares", "[profiler][regions]") {
    // One block of 2 warps: "main loop" 900 + 700 cycles, "store" 100 + 100; each warp's span is its two regions.
    SyntheticBuffer buf(1, 1, 64, 4);
    buf.end_region(0, 0, 0, 0, 0, 900, "main loop", 40);
    buf.end_region(0, 0, 0, 0, 900, 100, "store", 50);
    buf.end_region(0, 1, 0, 0, 0, 700, "main loop", 40);
    buf.end_region(0, 1, 0, 0, 700, 100, "store", 50);
    trace::Trace t = profiler::gpu_trace(h100());
    decode(t, buf.bytes(), {"store", "main loop"});
    t.complete = true;
    std::ostringstream out;
    trace::write_report(out, t);
    const std::string r = out.str();
    INFO(r);
    CHECK_THAT(r, Catch::Contains("Regions (intra-kernel timing on the GPU)"));
    CHECK_THAT(r, Catch::Contains("4 regions in 1 block"));
    // Block span 1000 cycles x 2 warps = 2000 warp-cycles: main loop 1600 (80%), store 200 (10%).
    CHECK_THAT(r, Catch::Contains("main loop        2 times      mean 800 cycles"));
    CHECK_THAT(r, Catch::Contains("max 900, 80.0% of block time"));
    CHECK_THAT(r, Catch::Contains("store            2 times      mean 100 cycles"));
    CHECK_THAT(r, Catch::Contains("10.0% of block time"));
    // Warp 1's span ends at 800, the block's at 1000: 200 warp-cycles in no region.
    CHECK_THAT(r, Catch::Contains("in no region     10.0% of block time"));
    CHECK(r.find("main loop") < r.find("store "));  // by total time
    // None of the simulator's sections: a GPU run has no simulated banks or stalls.
    CHECK(r.find("Bank conflicts") == std::string::npos);
    CHECK(r.find("Stalls") == std::string::npos);
}
