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

template <int P>
double per_call(tk::gl<tk::bf16> A, tk::gl<float> F, uint32_t* sink, int lo, int hi) {
    const size_t smem = sizeof(tk::st_bf<64, 64, tk::swizzle::b128>) + sizeof(tk::st_bf<32, 64>) + 1024;
    tk::launch("probe", ov::probe<P>, dim3(1), dim3(ov::kThreads), smem, A, F, lo, sink, static_cast<long long*>(nullptr));
    const uint64_t a = modelled_per_warp(tklab::sim::last_run());
    tk::launch("probe", ov::probe<P>, dim3(1), dim3(ov::kThreads), smem, A, F, hi, sink, static_cast<long long*>(nullptr));
    const uint64_t b = modelled_per_warp(tklab::sim::last_run());
    return double(b - a) / double(hi - lo);
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
    const double got[ov::probes] = {
        per_call<ov::mma>(ga, gf, sink.data(), lo, hi), per_call<ov::mma_small>(ga, gf, sink.data(), lo, hi),
        per_call<ov::ldmatrix_mma>(ga, gf, sink.data(), lo, hi), per_call<ov::ldmatrix_mma_small>(ga, gf, sink.data(), lo, hi),
        per_call<ov::st_shared>(ga, gf, sink.data(), lo, hi), per_call<ov::cp_async>(ga, gf, sink.data(), lo, hi),
        per_call<ov::cp_async_one_warp>(ga, gf, sink.data(), lo, hi), per_call<ov::st_global>(ga, gf, sink.data(), lo, hi),
        per_call<ov::st_global_large>(ga, gf, sink.data(), lo, hi), per_call<ov::ld_st_global>(ga, gf, sink.data(), lo, hi),
        per_call<ov::ld_st_global_large>(ga, gf, sink.data(), lo, hi), per_call<ov::group_load>(ga, gf, sink.data(), lo, hi),
        per_call<ov::group_load_one_warp>(ga, gf, sink.data(), lo, hi)};
    for (int p = 0; p < ov::probes; ++p) {
        INFO(ov::kNames[p]);
        CHECK(got[p] == Approx(ov::kModelled[p]));
    }
}
