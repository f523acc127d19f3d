// Attention forward (kernels/attention) against a float64 CPU reference,
// causal and not, every schedule, head dimension 64 and 128, through the program registry
// (the data and launch `tklab run attention` uses).
#include <algorithm>
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
    check(3, 3, 256, 64, "causal", 15);  // 9 heads, in the order the host plans (one round of the grid here)
    // D = 64 items are 192 query rows (three consumer warpgroups): N = 512 and
    // 640 leave a ragged last item per head, with one or two warpgroups past N.
    check(1, 2, 512, 64, "causal", 23);
    check(1, 2, 640, 64, "noncausal", 25);
    check(1, 1, 512, 64, "causal_pipelined", 27);
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
    {   // Two blocks, many rounds: causal orders with groups of heads and snaking all compute O.
        const int sms = tklab::sim::options().sms;
        tklab::sim::options().sms = 2;
        attention::Data g = attention::make_inputs({{"B", 1}, {"H", 3}, {"N", 448}, {"D", 64}}, 29);
        g.causal = true;
        const std::vector<double> want = attention::reference(g, true);
        for (auto [group, snake] : {std::pair{1, 1}, {2, 1}, {3, 0}}) {
            g.dout = std::make_shared<tk::device_buffer<tk::bf16>>(g.q.size(), "O");  // nothing left from the last order
            attention::globals_t<64> gl = g.globals<64>();
            gl.group_heads = group, gl.snake = snake;
            tk::producer_consumer::launch<attention::layout<64, true>>("attention_causal", gl);
            const double err = tk::host::max_relative_error(tk::host::to_floats(g.dout->download()), want);
            INFO("groups of " << group << " heads, snake " << snake << ": max error " << err);
            CHECK(err < 1e-2);
        }
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

TEST_CASE("attention's causal orders deal out every item once, and the plan balances the grid", "[kernels][attention]") {
    for (int heads : {1, 5, 9, 40})
        for (int nq : {1, 3, 6, 11})
            for (int blocks : {1, 7, 132})
                for (int group : {1, 3, 4, 16})
                    for (int snake : {0, 1}) {
                        std::vector<int> seen(size_t(heads * nq), 0);
                        for (int item = 0; item < heads * nq; ++item) {
                            int bh = -1, qb = -1;
                            attention::causal_item(item, heads, nq, blocks, group, snake, bh, qb);
                            REQUIRE((bh >= 0 && bh < heads && qb >= 0 && qb < nq));
                            ++seen[size_t(bh * nq + qb)];
                        }
                        INFO(heads << " heads, " << nq << " query blocks, " << blocks << " blocks, groups of " << group << ", snake " << snake);
                        CHECK(std::count(seen.begin(), seen.end(), 1) == heads * nq);
                    }
    // B = H = 16 on 132 SMs: groups of 4 heads without snaking load the busiest
    // block 1.75x the mean at N = 2048, D = 64 (each block draws one query block
    // of every group); the plan stays within about 10% at every size.
    for (int n : {1024, 2048, 4096}) {
        const auto o64 = attention::layout<64, true>::plan_order(256, n, 132);
        const auto o128 = attention::layout<128, true>::plan_order(256, n, 132);
        INFO("N " << n << ": D = 64 groups of " << o64.group_heads << " snake " << o64.snake << ", busiest/mean " << o64.busiest / o64.mean
                  << "; D = 128 groups of " << o128.group_heads << " snake " << o128.snake << ", " << o128.busiest / o128.mean);
        CHECK(o64.busiest / o64.mean < 1.12);
        CHECK(o128.busiest / o128.mean < 1.12);
        CHECK(o64.group_heads <= 16);
    }
}
