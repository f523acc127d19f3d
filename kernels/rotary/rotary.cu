// Rotary position embedding (GPT-NeoX "rotate half"), runnable by name:
// `tklab run rotary` (simulator) or `tklab_gpu run rotary` (GPU). x (B, H, N, D)
// bf16, cos and sin tables (N x D/2) fp32, out bf16, checked against a float64
// CPU reference.
#include "kernels/rotary/rotary_data.cuh"
#include "kernels/rotary/rotary_kernel.cuh"
#include "tk/host/registry.h"

namespace {

TKLAB_PROGRAM(rotary, tk::host::program_def<rotary::Data>{
    .name = "rotary",
    .kind = "kernel",
    .summary = "rotary embedding (rotate half), bf16 x, fp32 cos/sin tables (N x D/2), packed 16-byte pieces streamed past L1, tables reused over 4 heads",
    .variants = {"default"},
    .dims = {{"B", 2, 1, 1 << 10}, {"H", 4, 1, 1 << 10}, {"N", 64, 32, 1 << 20}, {"D", 128, 64, 128}},
    .inputs = [](const tk::host::dims_t& d, unsigned seed) {
        return rotary::make_inputs(d.at("B"), d.at("H"), d.at("N"), d.at("D"), seed);
    },
    .run = [](rotary::Data& g, const std::string&) { rotary::run(g.views()); },
    .output = [](rotary::Data& g) { return rotary::output(g); },
    .reference = rotary::reference,
    .output_name = "out",
    .tolerance = rotary::TOLERANCE,
    .time_ms = [](rotary::Data& g, const std::string&) -> double {
#if defined(TK_GPU)
        return rotary::time_ms(g.views());
#else
        (void)g;
        return -1;
#endif
    },
    .bytes = [](const tk::host::dims_t& d) { return rotary::bytes(d.at("B"), d.at("H"), d.at("N"), d.at("D")); },
    .data = rotary::data_size,
});

} // namespace
