// Fused residual add + layernorm, runnable by name: `tklab run layernorm`
// (simulator) or `tklab_gpu run layernorm` (GPU). x and residual (rows x D),
// weight and bias (D), all bf16; outputs residual_out = x + residual and out =
// layernorm(residual_out) * weight + bias, both bf16, checked together against
// a float64 CPU reference.
#include "kernels/layernorm/layernorm_data.cuh"
#include "kernels/layernorm/layernorm_kernel.cuh"
#include "tk/host/registry.h"

namespace {

TKLAB_PROGRAM(layernorm, tk::host::program_def<layernorm::Data>{
    .name = "layernorm",
    .kind = "kernel",
    .summary = "fused residual add + layernorm, bf16, one warp per row in 16-byte pieces, fp32 statistics, persistent grid",
    .variants = {"default"},
    .dims = {{"rows", 256, 16, 1 << 20}, {"D", 1024, 256, layernorm::MAX_D}},
    .inputs = [](const tk::host::dims_t& d, unsigned seed) { return layernorm::make_inputs(d.at("rows"), d.at("D"), seed); },
    .run = [](layernorm::Data& g, const std::string&) { layernorm::run(g.views()); },
    .output = [](layernorm::Data& g) { return layernorm::output(g); },
    .reference = layernorm::reference,
    .output_name = "out and residual_out",
    .tolerance = layernorm::TOLERANCE,
    .time_ms = [](layernorm::Data& g, const std::string&) -> double {
#if defined(TK_GPU)
        return layernorm::time_ms(g.views());
#else
        (void)g;
        return -1;
#endif
    },
    .bytes = [](const tk::host::dims_t& d) { return layernorm::bytes(d.at("rows"), d.at("D")); },
    .data = layernorm::data_size,
});

} // namespace
