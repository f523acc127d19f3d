// The demonstration GEMM: correct against float64 at 256^3 on both backends;
// in the simulator the unswizzled variant shows 8-way ldmatrix conflicts and
// the swizzled one none.
#include <catch2/catch.hpp>
#include "kernels/gemm/gemm_kernel.cuh"
#include "tk/host/reference.h"
#if defined(TK_SIM)
#include "sim/simulator.h"
#endif

namespace {

template <int Swizzle>
double run_demo(int m, int n, int k, unsigned seed) {
    auto a = tk::host::random_values<tk::bf16>(size_t(m) * k, seed), b = tk::host::random_values<tk::bf16>(size_t(k) * n, seed + 1);
    tk::device_buffer<tk::bf16> da(a.size(), a, "A"), db(b.size(), b, "B");
    tk::device_buffer<float> dc(size_t(m) * n, "C");
    gemm::run<Swizzle>({da.data(), 1, 1, m, k}, {db.data(), 1, 1, k, n}, {dc.data(), 1, 1, m, n});
    return tk::host::max_relative_error(dc.download(), tk::host::matmul_reference(tk::host::to_floats(a), tk::host::to_floats(b), m, n, k));
}

} // namespace

TEST_CASE("demo GEMM, unswizzled: correct, with 8-way ldmatrix conflicts", "[kernels][gemm]") {
    CHECK(run_demo<tk::swizzle::none>(256, 256, 256, 11) <= 1e-2);
#if defined(TK_SIM)
    const auto& st = tklab::sim::last_run().stats;
    CHECK(st.ldmatrix.max_way == 8);
    CHECK(st.ldmatrix.wavefronts == 8 * st.ldmatrix.ideal);  // every phase is 8-way
    CHECK(st.ldmatrix.instructions == 16 * 4 * 4 * 16);      // blocks x warps x k-steps x (8 A + 8 B)
#endif
}

TEST_CASE("demo GEMM, swizzled: correct, no ldmatrix conflicts", "[kernels][gemm]") {
    CHECK(run_demo<tk::swizzle::automatic>(256, 256, 256, 12) <= 1e-2);
#if defined(TK_SIM)
    const auto& st = tklab::sim::last_run().stats;
    CHECK(st.ldmatrix.conflicts() == 0);
    CHECK(st.ldmatrix.max_way == 1);
    CHECK(st.ldmatrix.instructions > 0);
#endif
}

TEST_CASE("demo GEMM on non-square shapes", "[kernels][gemm]") {
    CHECK(run_demo<tk::swizzle::automatic>(128, 192, 64, 13) <= 1e-2);
    CHECK(run_demo<tk::swizzle::none>(64, 128, 320, 14) <= 1e-2);
}

#if defined(TK_SIM)
TEST_CASE("swizzling makes the demo GEMM faster in simulated cycles", "[kernels][gemm]") {
    run_demo<tk::swizzle::none>(128, 128, 128, 15);
    const uint64_t plain = tklab::sim::last_run().stats.max_block_cycles;
    run_demo<tk::swizzle::automatic>(128, 128, 128, 15);
    const uint64_t swizzled = tklab::sim::last_run().stats.max_block_cycles;
    CHECK(swizzled < plain);
}
#endif

#if defined(TK_SIM)
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/registers_table.h"

TEST_CASE("demo GEMM: the address arithmetic sim/README.md quotes beside the H100's SASS is the simulator's", "[kernels][gemm]") {
    // One block of the one-wave launch (K = 1024; every warp of that launch
    // runs the same loop, so per warp the counts are the launch's).
    run_demo<tk::swizzle::automatic>(64, 64, 1024, 16);
    const auto& st = tklab::sim::last_run().stats;
    const uint64_t warps = 4;
    const long arithmetic = std::lround(double(st.overhead_instructions) / double(warps));
    // results/sass_counts_h100.txt: "sass: gemm swizzled warps W instructions_per_warp I ...".
    const std::filesystem::path root = std::filesystem::path(__FILE__).parent_path().parent_path().parent_path();
    std::ifstream counts(root / "results/sass_counts_h100.txt");
    REQUIRE(counts.good());
    double gpu_per_warp = 0;
    for (std::string line; std::getline(counts, line);)
        if (line.rfind("sass: gemm swizzled ", 0) == 0) {
            std::istringstream in(line);
            std::string word;
            while (in >> word)
                if (word == "instructions_per_warp") in >> gpu_per_warp;
        }
    REQUIRE(gpu_per_warp > 0);
    // What the H100 runs beyond the instructions the simulator models.
    const long beyond = std::lround(gpu_per_warp - double(st.warp_instructions) / double(warps));
    const std::string readme = registers_table::one_line(root / "sim/README.md");
    const std::string text = "at one wave is " + std::to_string(arithmetic) + " instructions a warp where the H100 runs " + std::to_string(beyond);
    INFO("sim/README.md should say: " << text);
    CHECK(readme.find(text) != std::string::npos);
}
#endif
