// Attention forward for Hopper: O = softmax(Q K^T / sqrt(D)) V, optionally
// causal, bf16 in and out, fp32 softmax and accumulation. Q, K, V, O are
// (batch, heads, N, D) tensors. A layout for tk's producer/consumer template
// (tk/templates/producer_consumer.h), in the FlashAttention style:
//
//   * a work item is one block of 128 query rows of one (batch, head); the
//     grid is persistent; causal items are walked longest first;
//   * the producer's one thread streams 128-row K and V tiles into the ring
//     with bulk tensor copies (a causal item stops at the diagonal);
//   * two consumer warpgroups each own 64 query rows (Q in shared memory):
//       S = Q K^T          wgmma, both operands in shared memory
//       online softmax     row max / rescale / exp2 / row sum, in registers
//       O += P V           wgmma with P (bf16) from registers
//   * O is divided by the row sums and stored straight from registers.
#pragma once
#include "tk/tk.h"
#include "tk/templates/producer_consumer.h"

namespace attention {

constexpr int BQ = 128, BKV = 128;  // query rows per item (64 per consumer), key/value rows per stage

template <int D>
struct globals_t {
    tk::gl<tk::bf16> Q;  // read by the consumers (64 rows each, once per item)
    tk::gl_tma<tk::bf16, tk::st_bf<BKV, D>> K, V;
    tk::gl<tk::bf16> O;
    float scale_log2;  // log2(e) / sqrt(D): softmax in base 2
};

template <int D, bool Causal>
struct layout {
    static_assert(D == 64 || D == 128, "attention: head dimension 64 or 128");
    static constexpr int stages = D == 64 ? 4 : 2, consumers = 2;
    static constexpr int producer_registers = 24, consumer_registers = 240;

    using globals = globals_t<D>;
    using kv_tile = tk::st_bf<BKV, D>;
    using q_tile = tk::st_bf<64, D>;
    struct input_stage { kv_tile k, v; };
    struct scratch { q_tile q[consumers]; };
    struct state {
        tk::rt_fl<16, D> o;                       // this warp's 16 rows of O, not yet divided
        typename tk::rt_fl<16, BKV>::col_vec m, l;  // running row max (base-2 scaled) and row sum
    };

    static TK_HOST_DEVICE int q_blocks(const globals& g) { return g.Q.rows / BQ; }
    static TK_HOST_DEVICE int work_items(const globals& g) { return g.Q.batch * g.Q.depth * q_blocks(g); }
    // Item -> (batch, head, query block); causal items longest (last block) first.
    static TK_DEVICE void item_of(const globals& g, int item, int& b, int& h, int& qb) {
        const int nq = q_blocks(g), bh = item % (g.Q.batch * g.Q.depth);
        qb = item / (g.Q.batch * g.Q.depth);
        if (Causal) qb = nq - 1 - qb;
        b = bh / g.Q.depth;
        h = bh % g.Q.depth;
    }
    static TK_DEVICE int iterations(const globals& g, int item) {
        int b, h, qb;
        item_of(g, item, b, h, qb);
        return Causal ? ((qb + 1) * BQ + BKV - 1) / BKV : g.K.rows / BKV;
    }

    static TK_DEVICE void load(input_stage& s, tk::semaphore& full, const globals& g, int item, int k) {
        int b, h, qb;
        item_of(g, item, b, h, qb);
        tk::tma::expect<kv_tile, kv_tile>(full);
        tk::tma::load_async(s.k, g.K, {b, h, k, 0}, full);
        tk::tma::load_async(s.v, g.V, {b, h, k, 0}, full);
    }

    static TK_DEVICE void start(state& st, scratch& sc, const globals& g, int item, int c) {
        int b, h, qb;
        item_of(g, item, b, h, qb);
        tk::warpgroup::load(sc.q[c], g.Q, {b, h, qb * 2 + c, 0});
        tk::tma::store_fence();  // wgmma reads shared memory through the async proxy
        tk::warpgroup::sync(1 + c);
        tk::zero(st.o);
        tk::neg_infty(st.m);
        tk::zero(st.l);
    }

    static TK_DEVICE void compute(state& st, input_stage& s, scratch& sc, const globals& g, int item, int k, int c) {
        tk::rt_fl<16, BKV> scores;
        tk::warpgroup::mm_ABt(scores, sc.q[c], s.k);
        tk::warpgroup::mma_async_wait<0>();
        tk::mul(scores, scores, g.scale_log2);
        if constexpr (Causal) {
            int b, h, qb;
            item_of(g, item, b, h, qb);
            // In tile units: this warp's 16 rows against key block k (BKV columns).
            const int row_tile = (qb * BQ + c * 64) / 16 + tk::warpgroup::warpid();
            if ((k + 1) * BKV > row_tile * 16) tk::make_causal(scores, scores, row_tile, k);
        }
        typename tk::rt_fl<16, BKV>::col_vec m_old, rescale;
        tk::copy(m_old, st.m);
        tk::row_max(st.m, scores, st.m);
        tk::sub(rescale, m_old, st.m);
        tk::exp2(rescale, rescale);
        tk::sub_row(scores, scores, st.m);
        tk::exp2(scores, scores);
        tk::mul_row(st.o, st.o, rescale);
        tk::mul(st.l, st.l, rescale);
        tk::row_sum(st.l, scores, st.l);
        tk::rt_bf<16, BKV> p;
        tk::copy(p, scores);
        tk::warpgroup::mma_AB(st.o, p, s.v);  // left in flight: the template waits before releasing the stage
    }

    static TK_DEVICE void finish(state& st, scratch&, const globals& g, int item, int c) {
        int b, h, qb;
        item_of(g, item, b, h, qb);
        tk::div_row(st.o, st.o, st.l);
        tk::store(g.O, st.o, {b, h, (qb * BQ + c * 64) / 16 + tk::warpgroup::warpid(), 0});
    }
};

template <int D, bool Causal>
void run(const globals_t<D>& g) { tk::producer_consumer::launch<layout<D, Causal>>(Causal ? "attention_causal" : "attention", g); }

} // namespace attention
