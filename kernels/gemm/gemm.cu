// The demonstration GEMM, runnable by name: `tklab run gemm` (simulator) or
// `tklab_gpu run gemm` (GPU). C = A*B with A (M x K) and B (K x N) in bf16,
// C in fp32, checked against a float64 CPU product.
#include "kernels/gemm/gemm_data.cuh"
#include "kernels/gemm/gemm_kernel.cuh"
#include "tk/host/registry.h"

namespace {

TKLAB_PROGRAM(gemm, tk::host::program_def<gemm::Data>{
    .name = "gemm",
    .kind = "kernel",
    .summary = "bf16 GEMM, 64x64 block tiles, 4 warps, cp.async double buffering, ldmatrix + mma.sync",
    .variants = {"swizzled", "unswizzled"},
    .dims = {{"M", 256, 64}, {"N", 256, 64}, {"K", 256, 64}},
    .inputs = [](const tk::host::dims_t& d, unsigned seed) { return gemm::make_inputs(d, seed, seed + 1); },
    .run = [](gemm::Data& g, const std::string& variant) {
        if (variant == "unswizzled") gemm::run<tk::swizzle::none>(g.A(), g.B(), g.C());
        else gemm::run<tk::swizzle::automatic>(g.A(), g.B(), g.C());
    },
    .output = [](gemm::Data& g) { return g.dc->download(); },
    .reference = gemm::reference,
    .output_name = "C",
    .tolerance = 1e-2,
    .flops = gemm::flops,
    .time_ms = [](gemm::Data& g, const std::string& variant) -> double {
#if defined(TK_GPU)
        return variant == "unswizzled" ? gemm::time_ms<tk::swizzle::none>(g.A(), g.B(), g.C())
                                       : gemm::time_ms<tk::swizzle::automatic>(g.A(), g.B(), g.C());
#else
        (void)g, (void)variant;
        return -1;
#endif
    },
    .data = gemm::data_size,
});

} // namespace
