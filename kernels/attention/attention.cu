// Attention forward for Hopper, runnable by name: `tklab run attention`
// (simulator) or `tklab_gpu run attention` (GPU, sm_90). Variants
// "noncausal" and "causal", and each with an earlier schedule to compare
// ("noncausal_pipelined", "causal_serial", ...; attention_kernel.cuh says
// what each adds); head dimension D = 64 or 128. Checked against a float64
// CPU softmax(Q K^T / sqrt(D)) V.
#include "kernels/attention/attention_data.cuh"

namespace {

using attention::Data;


TKLAB_PROGRAM(attention, tk::host::program_def<Data>{
    .name = "attention",
    .kind = "kernel",
    .summary = "attention forward for Hopper (wgmma, bulk copies, online softmax), causal or not, D = 64 or 128",
    .variants = attention::variants(),
    .dims = {{"B", 1, 1}, {"H", 1, 1}, {"N", 256, 128}, {"D", 64, 64, 128}},
    .inputs = attention::make_inputs,
    .run = attention::run_variant,
    .output = [](Data& g) { return tk::host::to_floats(g.dout->download()); },
    .reference = [](const Data& g) { return attention::reference(g, g.causal); },
    .output_name = "O",
    .tolerance = 2e-2,
    // Causal attention computes about half the score matrix (the blocks on or below the diagonal).
    .variant_flops = [](const tk::host::dims_t& d, const std::string& variant) {
        const double full = 4.0 * d.at("B") * d.at("H") * double(d.at("N")) * d.at("N") * d.at("D");
        return attention::is_causal(variant) ? full / 2 : full;
    },
    .time_ms = [](Data& g, const std::string& variant) -> double {
#if defined(TK_GPU)
        double ms = -1;
        attention::with_layout(g, variant, [&](auto l) {
            using L = decltype(l);
            ms = tk::producer_consumer::time_ms<L>("attention", g.globals<L::globals::d>());
        });
        return ms;
#else
        (void)g, (void)variant;
        return -1;
#endif
    },
    .data = attention::data_size,
});

} // namespace
