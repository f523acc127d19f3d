// The visualizer's model on a real recorded GEMM (the demo kernel, both
// shared layouts): stepping back undoes stepping forward, units and warps
// land where they say, breakpoints stop at the events that match, and the
// state a headless script reaches is what the panels are given.
#include <catch2/catch.hpp>

#include "kernels/gemm/gemm_kernel.cuh"
#include "tk/host/reference.h"
#include "sim/simulator.h"
#include "sim/trace_recorder.h"
#include "trace/codec.h"
#include "visualizer/model/document.h"
#include "visualizer/model/replay.h"
#include "visualizer/model/view_state.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using namespace tklab::view;
namespace trace = tklab::trace;

std::string temp_path(const std::string& name) {
    return (fs::temp_directory_path() / ("tklab_view_test_" + std::to_string(::getpid()) + "_" + name)).string();
}

// A 128x128x128 demo GEMM (4 blocks of 4 warps), traced with every block's timeline.
template <int Swizzle>
std::string record_gemm(const std::string& name) {
    static std::map<std::string, std::string> made;  // one recording per file per test run
    if (auto it = made.find(name); it != made.end()) return it->second;
    const int n = 128;
    auto a = tk::host::random_values<tk::bf16>(size_t(n) * n, 11), b = tk::host::random_values<tk::bf16>(size_t(n) * n, 12);
    tk::device_buffer<tk::bf16> da(a.size(), a, "A"), db(b.size(), b, "B");
    tk::device_buffer<float> dc(size_t(n) * n, "C");
    tklab::sim::RecorderOptions ro;
    ro.path = temp_path(name);
    ro.recording.timeline_blocks = "all";
    ro.program = "gemm";
    ro.variant = Swizzle ? "swizzled" : "unswizzled";
    ro.seed = 11;
    tklab::sim::TraceRecorder rec(ro);
    gemm::run<Swizzle>({da.data(), 1, 1, n, n}, {db.data(), 1, 1, n, n}, {dc.data(), 1, 1, n, n});
    rec.close();
    return made[name] = ro.path;
}

Document unswizzled() { return load_document(record_gemm<tk::swizzle::none>("unswizzled.cbor")); }
Document swizzled() { return load_document(record_gemm<tk::swizzle::b128>("swizzled.json")); }

} // namespace

TEST_CASE("viewer: a recorded trace opens with its timeline blocks and nothing to complain about", "[viewer]") {
    const Document d = unswizzled();
    REQUIRE(d.trace);
    CHECK(d.problems.empty());
    CHECK(d.timeline_blocks().size() == 4);
    ViewState v;
    v.docs.push_back(d);
    v.reset();
    REQUIRE(v.replay);
    CHECK(v.replay->pos() == 0);
    CHECK(v.replay->warps() == 4);
    CHECK(v.replay->size() == v.trace()->launches[0].blocks[0].events.size());
    CHECK(v.max_cycle() >= v.replay->end_cycle());
}

TEST_CASE("viewer: stepping back undoes stepping forward, for any unit and warp", "[viewer][step]") {
    const Document d = unswizzled();
    REQUIRE(d.trace);
    Replay r(*d.trace, 0, 1);
    std::mt19937 rng(2024);
    for (int trial = 0; trial < 40; ++trial) {
        r.seek(std::uniform_int_distribution<size_t>(0, r.size())(rng));
        std::vector<size_t> trail{r.pos()};
        std::vector<std::pair<StepUnit, int>> moves;
        const int steps = std::uniform_int_distribution<int>(1, 12)(rng);
        for (int s = 0; s < steps; ++s) {
            const StepUnit u = StepUnit(std::uniform_int_distribution<int>(0, 2)(rng));
            const int w = std::uniform_int_distribution<int>(-1, r.warps() - 1)(rng);
            if (!r.step(+1, u, w)) continue;
            moves.push_back({u, w});
            trail.push_back(r.pos());
        }
        // Back, step by step, through every position visited.
        for (size_t s = moves.size(); s-- > 0;) {
            REQUIRE(r.step(-1, moves[s].first, moves[s].second));
            CHECK(r.pos() == trail[s]);
        }
    }
}

TEST_CASE("viewer: a step lands just after the next instruction, tile op or barrier of the warp", "[viewer][step]") {
    const Document d = unswizzled();
    REQUIRE(d.trace);
    const trace::Block& b = d.trace->launches[0].blocks[0];
    Replay r(*d.trace, 0, 0);
    const int warp = 2;

    // Instructions: one event of warp 2 at a time, in its program order.
    const auto& mine = r.warp_events(warp);
    REQUIRE(mine.size() > 20);
    for (size_t k = 0; k < 20; ++k) {
        REQUIRE(r.step(+1, StepUnit::instruction, warp));
        CHECK(r.pos() == mine[k] + 1);
        CHECK(r.current(warp) == long(mine[k]));
    }

    // Tile ops: every instruction of the op has run, and the next one is another op's.
    r.seek(0);
    for (int k = 0; k < 15 && r.next(warp) >= 0; ++k) {
        const uint32_t seq = b.events[size_t(r.next(warp))].op_seq;
        REQUIRE(r.step(+1, StepUnit::tile_op, warp));
        const long last = r.current(warp), next = r.next(warp);
        REQUIRE(last >= 0);
        CHECK(b.events[size_t(last)].op_seq == seq);
        if (next >= 0 && seq != 0) CHECK(b.events[size_t(next)].op_seq != seq);
    }

    // Barriers: the instruction just run is a barrier, and none of the warp's was skipped.
    r.seek(0);
    size_t barriers = 0;
    for (uint32_t e : mine) barriers += r.is_barrier(e);
    REQUIRE(barriers >= 2);
    size_t seen = 0;
    while (r.step(+1, StepUnit::barrier, warp) && r.current(warp) >= 0 && r.is_barrier(size_t(r.current(warp)))) ++seen;
    CHECK(seen == barriers);
    // Every bar.sync wait of the block is tied to one instruction.
    size_t tied = 0;
    for (size_t e = 0; e < b.events.size(); ++e) tied += r.barrier_wait(e) >= 0;
    CHECK(tied == b.barriers.size());
}

TEST_CASE("viewer: breakpoints stop at the first matching event, forward and back", "[viewer][break]") {
    const Document d = unswizzled();
    REQUIRE(d.trace);
    const trace::Block& b = d.trace->launches[0].blocks[0];
    Replay r(*d.trace, 0, 0);
    Breakpoints bp;
    bp.fault = false;
    bp.conflict_way = 4;
    // The expected stops, found the plain way.
    std::vector<size_t> want;
    for (size_t e = 0; e < b.events.size(); ++e)
        if (b.events[e].smem >= 0 && b.smem[size_t(b.events[e].smem)].max_way >= 4) want.push_back(e);
    REQUIRE(want.size() >= 2);  // the unswizzled GEMM's ldmatrix loads conflict
    for (size_t k = 0; k < want.size(); ++k) {
        auto hit = r.run(+1, bp);
        REQUIRE(hit);
        CHECK(hit->event == long(want[k]));
        CHECK(r.pos() == want[k] + 1);
        CHECK_THAT(hit->why, Catch::Matchers::Contains("-way bank conflict at kernels/gemm/gemm_kernel.cuh:"));
    }
    CHECK_FALSE(r.run(+1, bp));
    CHECK(r.pos() == r.size());
    // Back: the same stops in reverse order.
    r.seek(want.back() + 1);
    for (size_t k = want.size() - 1; k-- > 0;) {
        auto hit = r.run(-1, bp);
        REQUIRE(hit);
        CHECK(hit->event == long(want[k]));
    }

    // Waits: every stop waited at least the threshold, and nothing between stops did.
    Breakpoints wait;
    wait.fault = false;
    wait.wait_cycles = 50;
    r.seek(0);
    size_t from = 0;
    while (auto hit = r.run(+1, wait)) {
        CHECK(r.wait_cycles(size_t(hit->event)) >= 50);
        for (size_t e = from; e < size_t(hit->event); ++e) CHECK(r.wait_cycles(e) < 50);
        from = size_t(hit->event) + 1;
    }
}

TEST_CASE("viewer: the swizzled GEMM never stops at a conflict breakpoint", "[viewer][break]") {
    const Document d = swizzled();
    REQUIRE(d.trace);
    ViewState v;
    v.docs.push_back(d);
    v.reset();
    CHECK(run_script(v, "break-conflict 2; break-fault off; run") == "");
    CHECK(v.replay->pos() == v.replay->size());
    CHECK_THAT(v.status, Catch::Matchers::Contains("no breakpoint hit"));
}

TEST_CASE("viewer: scripts drive the state the way the transport does", "[viewer][script]") {
    ViewState v;
    v.docs.push_back(unswizzled());
    v.reset();
    CHECK(run_script(v, "unit op; warp 1; step 10") == "");
    const auto after10 = v.to_json();
    CHECK(after10["cursor"]["event"]["warp"] == 1);
    CHECK(after10["unit"] == "tile op");
    CHECK(run_script(v, "step 4") == "");
    CHECK(v.replay->pos() > size_t(after10["cursor"]["pos"]));
    CHECK(run_script(v, "back 4") == "");
    CHECK(v.to_json() == after10);
    CHECK(run_script(v, "back 10") == "");
    CHECK(v.replay->pos() == 0);

    // Seeking by cycle: everything issued by then has run, nothing after.
    CHECK(run_script(v, "seek 700") == "");
    const trace::Block& b = v.replay->block();
    for (size_t e = 0; e < b.events.size(); ++e) CHECK((e < v.replay->pos()) == (b.events[e].issue <= 700));

    // Another block keeps the cycle.
    CHECK(run_script(v, "block 3") == "");
    CHECK(v.to_json()["cursor"]["block"] == 3);
    CHECK(v.replay->cycle() <= 700);

    // Playing moves the cursor by speed x time, through idle gaps too, and
    // stops at the end.
    CHECK(run_script(v, "pos 0; speed 1000; play 0.5") == "");
    CHECK(v.replay->cycle() <= 500);
    CHECK(v.replay->cycle() > 450);
    CHECK(v.replay->pos() == v.replay->pos_at_cycle(v.replay->cycle()));
    CHECK(run_script(v, "speed 100000000; play 1") == "");
    CHECK(v.replay->pos() == v.replay->size());

    // Lines are named as FILE:LINE, by any suffix of the path.
    const trace::Event& first = b.events[0];
    const std::string where = v.trace()->where(first.loc);
    CHECK(run_script(v, "line " + where.substr(where.find("gemm_kernel"))) == "");
    CHECK(v.sel.loc == first.loc);

    // Snapshot labels keep their spaces.
    CHECK(run_script(v, "snapshot  acc after the main loop ") == "");
    CHECK(v.sel.snapshot == "acc after the main loop");
    CHECK(run_script(v, "tile-lanes on") == "");
    CHECK(v.tile.lanes);
    CHECK(v.to_json()["tile"]["lanes"] == true);
    CHECK_THAT(run_script(v, "tile-lanes yes"), Catch::Matchers::Contains("expected tile-lanes on|off"));

    // Mistakes say what was expected.
    CHECK_THAT(run_script(v, "step x"), Catch::Matchers::Contains("expected step [COUNT]"));
    CHECK_THAT(run_script(v, "warp 9"), Catch::Matchers::Contains("below the block's warp count"));
    CHECK_THAT(run_script(v, "jump 3"), Catch::Matchers::Contains("unknown command \"jump\""));
    CHECK_THAT(run_script(v, "line nowhere.cu:3"), Catch::Matchers::Contains("no instruction of this trace is at"));
    CHECK_THAT(run_script(v, "block 99"), Catch::Matchers::Contains("block 99 has no timeline"));
}

TEST_CASE("viewer: bad files open as documents that say what is wrong", "[viewer][input]") {
    // Missing.
    Document missing = load_document(temp_path("no_such.cbor"));
    CHECK_FALSE(missing.trace);
    REQUIRE(missing.problems.size() == 1);
    CHECK_THAT(missing.problems[0], Catch::Matchers::Contains("no such file"));

    // Cut in half: the complete records before the cut are kept.
    const std::string whole = record_gemm<tk::swizzle::none>("unswizzled.cbor");
    std::ifstream in(whole, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string cut = temp_path("cut.cbor");
    std::ofstream(cut, std::ios::binary).write(bytes.data(), long(bytes.size() * 2 / 3));
    Document half = load_document(cut);
    REQUIRE(half.trace);
    CHECK(half.salvaged);
    CHECK_FALSE(half.problems.empty());
    CHECK(half.timeline_blocks().size() >= 1);
    CHECK(half.timeline_blocks().size() < 4);
    ViewState v;
    v.docs.push_back(half);
    v.reset();
    CHECK(v.replay);

    // Random bytes: nothing to show, and a reason.
    std::mt19937 rng(5);
    std::string noise(4096, '\0');
    for (char& c : noise) c = char(rng());
    const std::string junk = temp_path("junk.cbor");
    std::ofstream(junk, std::ios::binary).write(noise.data(), long(noise.size()));
    Document bad = load_document(junk);
    CHECK_FALSE(bad.trace);
    CHECK(bad.problems.size() >= 1);
    ViewState w;
    w.docs.push_back(bad);
    w.reset();
    CHECK_FALSE(w.replay);
    CHECK(run_script(w, "step 3") != "");

    // Source text left out and not on disk: named, with the fix.
    auto t = std::make_shared<trace::Trace>(*unswizzled().trace);
    for (auto& f : t->files)
        if (f.path.size()) { f.text.reset(); f.path = "moved/" + f.path; }
    const std::string stripped = temp_path("stripped.json");
    trace::write_trace(stripped, *t);
    Document s = load_document(stripped);
    REQUIRE(s.trace);
    REQUIRE_FALSE(s.problems.empty());
    CHECK_THAT(s.problems[0], Catch::Matchers::Contains("--source-root"));
    for (const std::string& p : {cut, junk, stripped}) fs::remove(p);
}

namespace {
// Block 1 of 2 writes shared memory past its end after a barrier: a fault in
// the middle of the block's timeline.
__global__ void faults_in_block_one(float* out) {
    tk::shared_allocator al;
    auto& s = al.allocate<tk::st<float, 16, 16>>();
    const uint32_t v[1] = {threadIdx.x};
    const uint32_t base = tk::arch::smem_addr(&s.data[0]);
    tk::arch::st_shared<1>(base + 4 * threadIdx.x, v);
    __syncthreads();
    const uint32_t past = blockIdx.x == 1 ? 1u << 20 : 0u;  // block 1 goes a megabyte past the arena
    tk::arch::st_shared<1>(base + past + 4 * threadIdx.x, v);
    tk::arch::st_global<1>(out + blockIdx.x * 32 + threadIdx.x, v);
}
} // namespace

TEST_CASE("viewer: a fault breakpoint stops at the end of the failing block, with the failure's words", "[viewer][break]") {
    const std::string p = temp_path("fault.cbor");
    {
        tk::device_buffer<float> out(64, "out");
        tklab::sim::RecorderOptions ro;
        ro.path = p;
        ro.recording.timeline_blocks = "all";
        tklab::sim::TraceRecorder rec(ro);
        CHECK_THROWS_AS(TK_LAUNCH(faults_in_block_one, dim3(2), dim3(32), sizeof(tk::st<float, 16, 16>) + 1024, out.data()),
                        tklab::sim::SimError);
    }
    ViewState v;
    v.docs.push_back(load_document(p));
    REQUIRE(v.trace());
    const auto& l = v.trace()->launches.at(0);
    REQUIRE(l.failure);
    REQUIRE(l.blocks.size() == 2);
    CHECK(run_script(v, "block 0; run") == "");
    CHECK_THAT(v.status, Catch::Matchers::Contains("no breakpoint hit"));  // block 0 ran clean
    CHECK(run_script(v, "block 1; pos 0; run") == "");
    CHECK(v.replay->pos() == v.replay->size());
    CHECK_THAT(v.status, Catch::Matchers::Contains("stopped: fault at tests/visualizer/test_replay.cpp:"));
    // Switched off, the same run just reaches the end.
    CHECK(run_script(v, "pos 0; break-fault off; run") == "");
    CHECK_THAT(v.status, Catch::Matchers::Contains("no breakpoint hit"));
    // Stepping onto the end says what happened there.
    CHECK(run_script(v, "pos 0; step 1000") == "");
    CHECK_THAT(v.status, Catch::Matchers::Contains("fault at"));
    fs::remove(p);
}
