// The demonstration GEMM, runnable by name: `tklab run gemm` (simulator) or
// `tklab_gpu run gemm` (GPU). C = A*B with A (M x K) and B (K x N) in bf16,
// C in fp32, checked against a float64 CPU product.
#include <memory>
#include "kernels/gemm/gemm_kernel.cuh"
#include "tk/host/registry.h"

namespace {

struct GemmData {
    int m = 0, n = 0, k = 0;
    std::vector<tk::bf16> a, b;
    std::shared_ptr<tk::device_buffer<tk::bf16>> da, db;
    std::shared_ptr<tk::device_buffer<float>> dc;
    tk::gl<tk::bf16> A() const { return {da->data(), 1, 1, m, k}; }
    tk::gl<tk::bf16> B() const { return {db->data(), 1, 1, k, n}; }
    tk::gl<float> C() const { return {dc->data(), 1, 1, m, n}; }
};

TKLAB_PROGRAM(gemm, tk::host::program_def<GemmData>{
    .name = "gemm",
    .kind = "kernel",
    .summary = "bf16 GEMM, 64x64 block tiles, 4 warps, cp.async double buffering, ldmatrix + mma.sync",
    .variants = {"swizzled", "unswizzled"},
    .dims = {{"M", 256, 64}, {"N", 256, 64}, {"K", 256, 64}},
    .inputs = [](const tk::host::dims_t& d, unsigned seed) {
        GemmData g;
        g.m = d.at("M"), g.n = d.at("N"), g.k = d.at("K");
        g.a = tk::host::random_values<tk::bf16>(size_t(g.m) * g.k, seed);
        g.b = tk::host::random_values<tk::bf16>(size_t(g.k) * g.n, seed + 1);
        g.da = std::make_shared<tk::device_buffer<tk::bf16>>(g.a.size(), g.a, "A");
        g.db = std::make_shared<tk::device_buffer<tk::bf16>>(g.b.size(), g.b, "B");
        g.dc = std::make_shared<tk::device_buffer<float>>(size_t(g.m) * g.n, "C");
        return g;
    },
    .run = [](GemmData& g, const std::string& variant) {
        if (variant == "unswizzled") gemm::run<tk::swizzle::none>(g.A(), g.B(), g.C());
        else gemm::run<tk::swizzle::automatic>(g.A(), g.B(), g.C());
    },
    .output = [](GemmData& g) { return g.dc->download(); },
    .reference = [](const GemmData& g) {
        return tk::host::matmul_reference(tk::host::to_floats(g.a), tk::host::to_floats(g.b), g.m, g.n, g.k);
    },
    .output_name = "C",
    .tolerance = 1e-2,
    .flops = [](const tk::host::dims_t& d) { return 2.0 * d.at("M") * d.at("N") * d.at("K"); },
    .time_ms = [](GemmData& g, const std::string& variant) -> double {
#if defined(TK_GPU)
        return variant == "unswizzled" ? gemm::time_ms<tk::swizzle::none>(g.A(), g.B(), g.C())
                                       : gemm::time_ms<tk::swizzle::automatic>(g.A(), g.B(), g.C());
#else
        (void)g, (void)variant;
        return -1;
#endif
    },
});

} // namespace
