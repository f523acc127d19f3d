// Attention forward for Hopper, runnable by name: `tklab run attention`
// (simulator) or `tklab_gpu run attention` (GPU, sm_90). Variants
// "noncausal" and "causal"; head dimension D = 64 or 128. Checked against a
// float64 CPU softmax(Q K^T / sqrt(D)) V.
#include "kernels/attention/attention_data.cuh"

namespace {

using attention::Data;


TKLAB_PROGRAM(attention, tk::host::program_def<Data>{
    .name = "attention",
    .kind = "kernel",
    .summary = "attention forward for Hopper (wgmma, bulk copies, online softmax), causal or not, D = 64 or 128",
    .variants = {"noncausal", "causal"},
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
        return variant == "causal" ? full / 2 : full;
    },
    .time_ms = [](Data& g, const std::string& variant) -> double {
#if defined(TK_GPU)
        const bool causal = variant == "causal";
        using tk::producer_consumer::time_ms;
        if (g.d == 64) return causal ? time_ms<attention::layout<64, true>>("attention", g.globals<64>())
                                     : time_ms<attention::layout<64, false>>("attention", g.globals<64>());
        return causal ? time_ms<attention::layout<128, true>>("attention", g.globals<128>())
                      : time_ms<attention::layout<128, false>>("attention", g.globals<128>());
#else
        (void)g, (void)variant;
        return -1;
#endif
    },
});

} // namespace
