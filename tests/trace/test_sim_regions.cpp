// tk::region in the simulator: one record per warp per marker in the block's
// `regions` table, bracketing the instructions inside it, nested as written,
// costing no cycles (the instructions are the same with and without markers),
// surviving both encodings, optional in older files, left open by a failure,
// and summed by the report.
#include <catch2/catch.hpp>

#include "tk/tk.h"
#include "tk/host/reference.h"
#include "sim/simulator.h"
#include "sim/trace_recorder.h"
#include "trace/codec.h"
#include "trace/report.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <type_traits>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using tklab::trace::json;
using Catch::Matchers::Contains;

std::string temp_path(const std::string& name) {
    return (fs::temp_directory_path() / ("tklab_test_regions_" + std::to_string(::getpid()) + "_" + name)).string();
}

// The same kernel with markers or without: `unmarked` takes a name and does nothing.
struct unmarked {
    explicit unmarked(tk::region_name) {}
};

constexpr int kN = 32;
using Shared = tk::st<tk::bf16, kN, kN, tk::swizzle::none>;

// Line spans below are counted from each marker's line: keep them in step.
constexpr int kOuterLines = 9, kInnerLines = 3, kStoreLines = 1;

template <bool Marked>
__global__ void regions_kernel(tk::gl<tk::bf16> in, tk::gl<float> out) {
    using R = std::conditional_t<Marked, tk::region, unmarked>;
    tk::shared_allocator al;
    auto& s = al.allocate<Shared>();
    tk::rt_bf<16, kN> a;
    tk::rt_fl<16, kN> f;
    const int w = tk::warpid();
    {
        R outer("outer");                                    // outer: the 9 lines after this one
        tk::load(a, in, {0, 0, int(blockIdx.x) * 2 + w, 0});
        {
            R inner("inner");                                // inner: the 3 lines after this one
            tk::store(tk::subtile<16, kN>(s, w, 0), a);
            __syncthreads();
            tk::load(a, tk::subtile<16, kN>(s, (w + 1) % 2, 0));
        }
        tk::copy(f, a);
        tk::mul(f, f, 2.f);
    }
    R st("store");                                           // store: the next line, to the kernel's end
    tk::store(out, f, {0, 0, int(blockIdx.x) * 2 + w, 0});
}

constexpr int kBlocks = 2;

template <bool Marked>
tklab::trace::Trace record(const std::string& path = {}, const std::string& timeline = "all") {
    auto in = tk::host::random_values<tk::bf16>(size_t(kBlocks) * 2 * 16 * kN, 1234);
    tk::device_buffer<tk::bf16> din(in.size(), in, "in");
    tk::device_buffer<float> dout(in.size(), "out");
    tklab::sim::RecorderOptions ro;
    ro.path = path;
    ro.recording.timeline_blocks = timeline;
    ro.seed = 1234;
    ro.keep_events = true;
    tklab::sim::TraceRecorder rec(ro);
    tk::launch("regions_kernel", regions_kernel<Marked>, dim3(kBlocks), dim3(64), sizeof(Shared) + 1024,
               tk::gl<tk::bf16>(din.data(), 1, 1, kBlocks * 32, kN), tk::gl<float>(dout.data(), 1, 1, kBlocks * 32, kN));
    rec.close();
    return rec.trace();
}

const std::string& name_of(const tklab::trace::Trace& t, const tklab::trace::Region& r) { return t.op_names.at(r.name); }

const tklab::trace::Region& find_region(const tklab::trace::Trace& t, const tklab::trace::Block& b, int warp, const std::string& name) {
    auto it = std::find_if(b.regions.begin(), b.regions.end(),
                           [&](const tklab::trace::Region& r) { return r.warp == warp && name_of(t, r) == name; });
    REQUIRE(it != b.regions.end());
    return *it;
}

std::string report_of(const tklab::trace::Trace& t) {
    std::ostringstream s;
    tklab::trace::write_report(s, t);
    return s.str();
}

} // namespace

TEST_CASE("sim regions: one per warp per marker, nested, bracketing the instructions inside", "[trace][regions]") {
    const auto t = record<true>();
    REQUIRE(t.launches.size() == 1);
    const auto& l = t.launches[0];
    REQUIRE(l.blocks.size() == kBlocks);
    for (const auto& b : l.blocks) {
        INFO("block " << b.index);
        REQUIRE(b.regions.size() == 2 * 3);  // two warps, three markers, each once
        for (int w = 0; w < 2; ++w) {
            INFO("warp " << w);
            const auto& outer = find_region(t, b, w, "outer");
            const auto& inner = find_region(t, b, w, "inner");
            const auto& store = find_region(t, b, w, "store");
            for (const auto* r : {&outer, &inner, &store}) {
                CHECK(r->begin <= r->end);
                CHECK_FALSE(r->open);
                CHECK(r->end <= b.cycles);
                CHECK(t.where(r->loc).find("test_sim_regions.cpp:") != std::string::npos);
            }
            CHECK(outer.depth == 0);
            CHECK(inner.depth == 1);
            CHECK(store.depth == 0);
            // Nesting: inner lies within outer; store begins after outer ends.
            CHECK(outer.begin <= inner.begin);
            CHECK(inner.end <= outer.end);
            CHECK(outer.end <= store.begin);
            CHECK(t.locations[inner.loc].line == t.locations[outer.loc].line + 3);
            // Each region brackets the warp's instructions on the lines it spans.
            struct Span { const tklab::trace::Region* r; int lines; };
            for (const Span& sp : {Span{&outer, kOuterLines}, Span{&inner, kInnerLines}, Span{&store, kStoreLines}}) {
                const int first = t.locations[sp.r->loc].line + 1, last = first + sp.lines - 1;
                uint64_t lo = UINT64_MAX, hi = 0;
                size_t inside = 0;
                for (const auto& e : b.events) {
                    const int line = t.locations[e.loc].line;
                    if (e.warp != w || line < first || line > last) continue;
                    ++inside;
                    lo = std::min(lo, e.issue);
                    hi = std::max(hi, e.done);
                }
                INFO(name_of(t, *sp.r) << ": lines " << first << ".." << last << ", " << inside << " instructions, cycles "
                                       << lo << ".." << hi << ", region " << sp.r->begin << ".." << sp.r->end);
                REQUIRE(inside > 0);
                CHECK(sp.r->begin <= lo);
                CHECK(sp.r->end >= hi);
            }
            // The outer region spans a barrier wait: it cannot be empty.
            CHECK(outer.end > outer.begin);
        }
    }
}

TEST_CASE("sim regions: markers cost nothing, the instructions are the same without them", "[trace][regions]") {
    const auto marked = record<true>();
    const auto plain = record<false>();
    REQUIRE(marked.launches.size() == 1);
    REQUIRE(plain.launches.size() == 1);
    const auto& ml = marked.launches[0];
    const auto& pl = plain.launches[0];
    REQUIRE(ml.blocks.size() == pl.blocks.size());
    for (size_t i = 0; i < ml.blocks.size(); ++i) {
        INFO("block " << i);
        CHECK(pl.blocks[i].regions.empty());
        CHECK(ml.blocks[i].cycles == pl.blocks[i].cycles);
        CHECK(ml.blocks[i].instructions == pl.blocks[i].instructions);
        REQUIRE(ml.blocks[i].events.size() == pl.blocks[i].events.size());
        CHECK(ml.blocks[i].events == pl.blocks[i].events);  // cycles, stalls, lines and op names alike
        CHECK(ml.blocks[i].barriers == pl.blocks[i].barriers);
    }
    REQUIRE(ml.summary);
    REQUIRE(pl.summary);
    CHECK(*ml.summary == *pl.summary);
    // Region names follow the tile-op names, whose ids therefore stay put;
    // "store" names a tile op too, and shares its id.
    REQUIRE(marked.op_names.size() == plain.op_names.size() + 2);
    CHECK(marked.op_names[marked.op_names.size() - 2] == "outer");
    CHECK(marked.op_names.back() == "inner");
    CHECK(std::equal(plain.op_names.begin(), plain.op_names.end(), marked.op_names.begin()));
}

TEST_CASE("sim regions: every block carries them, timeline or not", "[trace][regions]") {
    const auto t = record<true>({}, "0");
    const auto& l = t.launches.at(0);
    REQUIRE(l.blocks.size() == kBlocks);
    CHECK(l.blocks[0].timeline);
    CHECK_FALSE(l.blocks[1].timeline);
    CHECK(l.blocks[1].events.empty());
    CHECK(l.blocks[1].regions.size() == 6);
    CHECK(l.blocks[1].regions == l.blocks[0].regions);  // the blocks run alike
}

TEST_CASE("sim regions: JSON and CBOR round trip, a file without the table loads", "[trace][regions][file]") {
    const std::string pj = temp_path("rt.json"), pc = temp_path("rt.cbor");
    const auto recorded = record<true>(pj);
    record<true>(pc);
    const auto j = tklab::trace::load_trace(pj).trace;
    const auto c = tklab::trace::load_trace(pc).trace;
    CHECK(j.op_names == recorded.op_names);
    CHECK(c.op_names == recorded.op_names);
    CHECK(j.locations == recorded.locations);
    CHECK(c.locations == recorded.locations);
    REQUIRE(j.launches.size() == 1);
    REQUIRE(c.launches.size() == 1);
    REQUIRE(j.launches[0].blocks.size() == kBlocks);
    REQUIRE(c.launches[0].blocks.size() == kBlocks);
    for (size_t i = 0; i < kBlocks; ++i) {
        const auto& want = recorded.launches[0].blocks[i];
        REQUIRE(want.regions.size() == 6);
        CHECK(j.launches[0].blocks[i] == want);  // regions, events and everything else
        CHECK(c.launches[0].blocks[i] == want);
    }

    SECTION("without `regions` (an older file) it loads with none") {
        std::ifstream in(pj);
        json doc = json::parse(in);
        size_t removed = 0;
        for (json& r : doc["records"])
            if (r["type"] == "block") removed += r.erase("regions");
        CHECK(removed == kBlocks);
        const std::string old = temp_path("old.json");
        std::ofstream(old) << doc.dump();
        const auto o = tklab::trace::load_trace(old).trace;
        REQUIRE(o.launches.size() == 1);
        for (size_t i = 0; i < o.launches[0].blocks.size(); ++i) {
            CHECK(o.launches[0].blocks[i].regions.empty());
            CHECK(o.launches[0].blocks[i].events == recorded.launches[0].blocks[i].events);
        }
        CHECK_THAT(report_of(o), !Contains("Regions"));
        fs::remove(old);
    }
    SECTION("a region naming a name that does not exist is an error with its path") {
        std::ifstream in(pj);
        json doc = json::parse(in);
        for (json& r : doc["records"])
            if (r["type"] == "block") { r["regions"]["name"][0] = 9999; break; }
        const std::string bad = temp_path("bad.json");
        std::ofstream(bad) << doc.dump();
        CHECK_THROWS_WITH(tklab::trace::load_trace(bad), Contains(".regions.name[0]") && Contains("out of range"));
        fs::remove(bad);
    }
    SECTION("columns of different lengths are an error") {
        std::ifstream in(pj);
        json doc = json::parse(in);
        for (json& r : doc["records"])
            if (r["type"] == "block") { r["regions"]["depth"].erase(0); break; }
        const std::string bad = temp_path("bad2.json");
        std::ofstream(bad) << doc.dump();
        CHECK_THROWS_WITH(tklab::trace::load_trace(bad), Contains(".regions.depth") && Contains("one per row"));
        fs::remove(bad);
    }
    fs::remove(pj);
    fs::remove(pc);
}

TEST_CASE("sim regions: the report's Regions section", "[trace][regions][report]") {
    const auto marked = record<true>();
    const std::string r = report_of(marked);
    INFO(r);
    CHECK_THAT(r, Contains("Regions (tk::region markers, per warp, simulated cycles)"));
    CHECK_THAT(r, Contains("12 regions in 2 blocks"));
    // Each name: 2 warps x 2 blocks, its mean and max, its share of the block time.
    const auto& l = marked.launches[0];
    uint64_t warp_time = 0;
    for (const auto& b : l.blocks) warp_time += b.cycles * 2;
    for (const char* name : {"outer", "inner", "store"}) {
        uint64_t total = 0, longest = 0;
        for (const auto& b : l.blocks)
            for (const auto& g : b.regions)
                if (marked.op_names[g.name] == name) total += g.end - g.begin, longest = std::max(longest, g.end - g.begin);
        const size_t at = r.find(std::string("  ") + name + " ");
        REQUIRE(at != std::string::npos);
        const std::string line = r.substr(at, r.find('\n', at) - at);
        INFO(line);
        CHECK_THAT(line, Contains("4 times"));
        CHECK_THAT(line, Contains("mean " + std::to_string((total + 2) / 4)) || Contains("mean " + std::to_string(total / 4)));
        CHECK_THAT(line, Contains("max " + std::to_string(longest) + ","));
        CHECK_THAT(line, Contains("of block time"));
    }
    // Heaviest first: outer contains inner, so it comes before it.
    CHECK(r.find("  outer ") < r.find("  inner "));
    CHECK_THAT(report_of(record<false>()), !Contains("Regions"));
}

namespace {

// Warp 1 leaves its region and exits; warp 0 waits at a barrier inside its
// region for ever: a deadlock stops the block with warp 0's region open.
__global__ void stuck_kernel() {
    tk::region r("stuck");
    if (tk::warpid() == 0) __syncthreads();
}

} // namespace

TEST_CASE("sim regions: a failure leaves the regions it stopped inside open", "[trace][regions]") {
    tklab::sim::RecorderOptions ro;
    ro.keep_events = true;
    tklab::sim::TraceRecorder rec(ro);
    CHECK_THROWS_AS(tk::launch("stuck_kernel", stuck_kernel, dim3(1), dim3(64), 0), tklab::sim::SimError);
    rec.close();
    const auto& t = rec.trace();
    REQUIRE(t.launches.size() == 1);
    REQUIRE(t.launches[0].failure);
    REQUIRE(t.launches[0].blocks.size() == 1);
    const auto& b = t.launches[0].blocks[0];
    REQUIRE(b.regions.size() == 2);
    const auto& w0 = find_region(t, b, 0, "stuck");
    const auto& w1 = find_region(t, b, 1, "stuck");
    CHECK(w0.open);
    CHECK_FALSE(w1.open);
    CHECK(w0.begin <= w0.end);
    CHECK(w1.begin <= w1.end);
    const std::string r = report_of(t);
    INFO(r);
    CHECK_THAT(r, Contains("1 region never closed"));
    CHECK_THAT(r, Contains("stuck            1 time"));
}
