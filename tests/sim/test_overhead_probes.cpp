// The calibration's tile-op probes (bench/calibrate/overhead_probes.h) run in
// the simulator: one call of each is the instructions kModelled says, so the
// GPU's SASS count per call minus kModelled is what the simulator leaves out
// (scripts/dev/arch_from_calibration.py turns it into the cost model's
// "overhead" figures).
#include "support/bug_finders_off.h"
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "bench/calibrate/overhead_probes.h"
#include "sim/simulator.h"

namespace {

namespace ov = cal::overhead;

// Instructions the simulator models (its register arithmetic aside), per warp.
uint64_t modelled_per_warp(const tklab::sim::RunResult& r) {
    uint64_t n = 0;
    for (size_t op = 0; op < size_t(tklab::sim::Op::count_); ++op)
        if (op != size_t(tklab::sim::Op::alu)) n += r.stats.by_op[op];
    return n / (ov::kThreads / 32);
}

} // namespace

TEST_CASE("overhead probes: one call is the instructions the calibration says the simulator models", "[sim][calibration]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;
    std::mt19937 rng(7);
    std::vector<tk::bf16> a(size_t(ov::kRows) * ov::kCols);
    std::vector<float> f(a.size());
    for (size_t i = 0; i < a.size(); ++i) a[i] = tk::from_float<tk::bf16>(float(rng() % 64) / 64.0f), f[i] = float(rng() % 100);
    tk::device_buffer<tk::bf16> A(a.size(), a, "A");
    tk::device_buffer<float> F(f.size(), f, "F");
    tk::device_buffer<uint32_t> sink(ov::kThreads, "sink");
    const tk::gl<tk::bf16> ga{A.data(), 1, 1, ov::kRows, ov::kCols};
    const tk::gl<float> gf{F.data(), 1, 1, ov::kRows, ov::kCols};
    const int lo = 1 + int(rng() % 3), hi = lo + 2 + int(rng() % 4);
    double got[ov::probes] = {};
    ov::for_each_probe([&](auto kernel, int p) {
        auto modelled = [&](int calls) {
            tk::launch("probe", kernel, dim3(1), dim3(ov::kThreads), ov::kSharedBytes, ga, gf, calls, sink.data(), static_cast<long long*>(nullptr));
            return modelled_per_warp(tklab::sim::last_run());
        };
        const uint64_t a = modelled(lo), b = modelled(hi);
        got[p] = double(b - a) / double(hi - lo);
    });
    for (int p = 0; p < ov::probes; ++p) {
        INFO(ov::kNames[p]);
        CHECK(got[p] == Approx(ov::kModelled[p]));
    }
}
