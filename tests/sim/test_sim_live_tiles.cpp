// The live tiles a trace records with each register change (what the
// visualizer's Registers panel shows at the cursor) agree with the run's
// summary: at the demo GEMM's peak they are the summary's peak_live.
#include <catch2/catch.hpp>

#include "kernels/gemm/gemm_kernel.cuh"
#include "sim/trace_recorder.h"
#include "tk/host/reference.h"

#include <numeric>

TEST_CASE("registers: the live list at the demo GEMM's peak is the summary's peak_live", "[sim][registers][trace]") {
    constexpr int n = 128;
    auto a = tk::host::random_values<tk::bf16>(size_t(n) * n, 3), b = tk::host::random_values<tk::bf16>(size_t(n) * n, 4);
    tk::device_buffer<tk::bf16> da(a.size(), a, "A"), db(b.size(), b, "B");
    tk::device_buffer<float> dc(size_t(n) * n, "C");
    tklab::sim::RecorderOptions ro;  // in memory only
    ro.recording.timeline_blocks = "all";
    ro.keep_events = true;
    tklab::sim::TraceRecorder rec(ro);
    gemm::run<tk::swizzle::none>({da.data(), 1, 1, n, n}, {db.data(), 1, 1, n, n}, {dc.data(), 1, 1, n, n});
    rec.close();

    const tklab::trace::Trace& t = rec.trace();
    REQUIRE(t.launches.size() == 1);
    const auto& l = t.launches[0];
    REQUIRE(l.summary);
    const auto& s = *l.summary;
    REQUIRE(s.peak_regs == 96);  // acc, a and b: 32 each
    REQUIRE(s.peak_live.size() == 3);

    // The first change in block order that reaches the peak lists what the summary lists.
    const tklab::trace::RegChange* peak = nullptr;
    for (const auto& blk : l.blocks) {
        REQUIRE(blk.timeline);
        REQUIRE(!blk.regs.empty());
        for (const auto& c : blk.regs) {
            // Every list adds up to its count and names declarations of the kernel.
            const int sum = std::accumulate(c.live.begin(), c.live.end(), 0, [](int acc, const auto& x) { return acc + x.regs; });
            CHECK(sum == c.regs);
            for (const auto& x : c.live) {
                REQUIRE(x.loc < t.locations.size());
                CHECK(t.files[t.locations[x.loc].file].path == "kernels/gemm/gemm_kernel.cuh");
            }
            if (!peak && c.regs == s.peak_regs) peak = &c;
        }
    }
    REQUIRE(peak);
    CHECK(peak->live == s.peak_live);
    CHECK(t.line_text(peak->live.back().loc).find("rt_bf<BLOCK, 32, col_l> b;") != std::string::npos);
}
