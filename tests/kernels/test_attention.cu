// Attention forward (kernels/attention) against a float64 CPU reference,
// causal and not, every schedule, head dimension 64 and 128, through the program registry
// (the data and launch `tklab run attention` uses).
#include <catch2/catch.hpp>
#include "support/gpu_arch.h"
#include "kernels/attention/attention_data.cuh"
#if defined(TK_SIM)
#include "sim/simulator.h"
#endif

namespace {

void check(int b, int h, int n, int d, const char* variant, unsigned seed) {
    attention::Data g = attention::make_inputs({{"B", b}, {"H", h}, {"N", n}, {"D", d}}, seed);
    attention::run_variant(g, variant);
    const double err = tk::host::max_relative_error(tk::host::to_floats(g.dout->download()), attention::reference(g, g.causal));
    INFO(variant << " B " << b << " H " << h << " N " << n << " D " << d << ": max error " << err);
    // bf16 output (2^-9 relative) of values of magnitude < 1, bf16 P in the second product.
    CHECK(err < 1e-2);
}

} // namespace

TEST_CASE("attention forward matches a float64 reference", "[kernels][hopper][attention]") {
    if (!tktest::hopper_here()) { WARN("skipped: needs an sm_90 GPU"); return; }
    for (const std::string& v : attention::variants()) {  // every schedule
        check(1, 2, 256, 64, v.c_str(), 3);
        check(1, 1, 384, 128, v.c_str(), 5);
    }
    check(3, 3, 256, 64, "causal", 15);  // 9 heads: causal items go in groups of 8 heads
#if defined(TK_SIM)
    {   // setmaxnreg: the block holds 128 x 24 + 256 x 240 registers, so one block fits an SM
        // (counting every thread at the consumers' peak would fit none).
        check(1, 1, 128, 128, "noncausal", 21);
        const tklab::sim::Stats& st = tklab::sim::last_run().stats;
        CHECK(st.blocks_per_sm == 1);
        CHECK(st.est_kernel_cycles > 0);
    }
    {   // Two blocks walk all 18 items: each block's next Q is prefetched during its current item.
        const int sms = tklab::sim::options().sms;
        tklab::sim::options().sms = 2;
        for (const char* v : {"causal", "noncausal_serial"}) check(3, 3, 256, 64, v, 17);
        check(1, 3, 256, 128, "noncausal", 19);
        tklab::sim::options().sms = sms;
    }
#endif
#if defined(TK_GPU)
    check(2, 2, 1024, 128, "causal", 7);
    check(1, 3, 2048, 64, "noncausal", 9);
    check(2, 3, 1024, 64, "causal_pipelined", 11);
    check(1, 2, 1024, 128, "noncausal_serial", 13);
#endif
}
