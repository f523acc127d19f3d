// Attention forward for Hopper: O = softmax(Q K^T / sqrt(D)) V, optionally
// causal, bf16 in and out, fp32 softmax and accumulation. Q, K, V, O are
// (batch, heads, N, D) tensors. A layout for tk's producer/consumer template
// (tk/templates/producer_consumer.h), in the FlashAttention-3 style:
//
//   * a work item is one block of 128 query rows of one (batch, head); the
//     grid is persistent and walks a head's query blocks together, so K and V
//     are read from L2; causal items are walked longest first;
//   * the producer's one thread streams 128-row K and V tiles into the ring
//     with bulk tensor copies (a causal item stops at the diagonal);
//   * two consumer warpgroups each own 64 query rows, copied to shared memory
//     by a bulk copy that starts during the previous item; per step:
//       S = Q K^T          wgmma, both operands in shared memory
//       online softmax     row max / rescale / exp2 / row sum, in registers
//       O += P V           wgmma with P (bf16) from registers
//     in one of three schedules (below; the program's variants pick one);
//   * O is divided by the row sums and stored straight from registers.
#pragma once
#include "tk/tk.h"
#include "tk/templates/producer_consumer.h"

namespace attention {

constexpr int BQ = 128, BKV = 128;  // query rows per item (64 per consumer), key/value rows per stage

template <int D>
struct globals_t {
    static constexpr int d = D;
    tk::gl_tma<tk::bf16, tk::st_bf<64, D>> Q;  // 64 rows per consumer warpgroup, once per item
    tk::gl_tma<tk::bf16, tk::st_bf<BKV, D>> K, V;
    tk::gl<tk::bf16> O;
    float scale_log2;  // log2(e) / sqrt(D): softmax in base 2
};

// Schedules, fastest last (the program's variants pick one; see attention.cu):
//   serial     S = Q K^T, wait, softmax, O += P V: a warpgroup's tensor-core
//              work and its softmax take turns (the other warpgroup may fill in);
//   pipelined  the P V of step k-1 is issued with step k's S and runs during
//              step k's softmax (FlashAttention-3's intra-warpgroup overlap);
//   pingpong   pipelined, and the two consumer warpgroups take turns to issue
//              their wgmmas, so one's softmax runs under the other's
//              multiplies (FlashAttention-3's warpgroup ping-pong).
// On an H200 at B = H = 16, N = 4096, non-causal, in one run: D = 128, 414,
// 506 and 539 TFLOP/s (cuDNN: 615); D = 64, 345, 352 and 383 (cuDNN: 472).
// At D = 64 the exponentials (16 a clock per SM) bound the softmax about as
// much as the tensor cores bound the multiplies, so overlap gains less.
enum class schedule { serial, pipelined, pingpong };

template <int D, bool Causal, schedule Schedule = schedule::pingpong>
struct layout {
    static_assert(D == 64 || D == 128, "attention: head dimension 64 or 128");
    static constexpr bool pipelined = Schedule != schedule::serial;
    // A pipelined step holds two stages (k's K and V, k-1's V): one more to prefetch into.
    static constexpr int stages = D == 64 ? 4 : pipelined ? 3 : 2, consumers = 2;
    static constexpr int producer_registers = 24, consumer_registers = 240;

    using globals = globals_t<D>;
    using kv_tile = tk::st_bf<BKV, D>;
    using q_tile = tk::st_bf<64, D>;
    struct input_stage { kv_tile k, v; };
    struct scratch {
        q_tile q[consumers];
        tk::semaphore q_landed[consumers];  // each consumer's Q copies complete here
    };
    struct state {
        int q_loads = 0;                          // Q copies this consumer has started (the phase to wait on)
        int row_tile = 0, last_k = 0;             // of the item: this warp's first query row / 16, its last step
        tk::rt_fl<16, D> o;                       // this warp's 16 rows of O, not yet divided
        typename tk::rt_fl<16, BKV>::col_vec m, l;  // running row max (of unscaled scores) and row sum
        tk::rt_bf<16, BKV> p;                     // pipelined: step k-1's probabilities ...
        const kv_tile* v = nullptr;               // ... and its V, multiplied during step k
    };

    // Ping-pong: warpgroup c issues its wgmmas after passing named barrier
    // 3 + c, then lets the other through; both barriers count both warpgroups.
    static TK_DEVICE tk::named_barrier turn(int c) { return {3 + c, 2 * 128}; }

    static TK_HOST_DEVICE int q_blocks(const globals& g) { return g.Q.rows / BQ; }
    static TK_HOST_DEVICE int work_items(const globals& g) { return g.Q.batch * g.Q.depth * q_blocks(g); }
    // Item -> (batch, head, query block). The blocks running at once (one per
    // SM, taking consecutive items) should share heads, so that each head's K
    // and V come from DRAM once and then from L2: items go through a head's
    // query blocks before the next head's. Causal items are walked in groups
    // of group_heads() heads, longest (last query block) first within each
    // group, so the short items fill in at the end.
    //
    // The group size matters because the persistent grid deals items out
    // round-robin (block b takes items b, b + grid, ...): when a group holds
    // about as many items as there are blocks, the same blocks draw the long
    // items of every group. Measured on an H100 (132 blocks, B = H = 16,
    // causal D = 128, ms): N = 1024 (8 query blocks a head): 4 heads 0.168,
    // 8 heads 0.187, 16 heads 0.239; N = 2048: 0.605, 0.677, 0.610; N = 4096:
    // 2.38, 2.18, 2.13; all heads in one group: 0.245, 0.826, 2.99 (K and V
    // of too many heads at once for L2). A dynamic scheduler (blocks taking
    // the next item from a counter) would balance without this rule.
    static TK_HOST_DEVICE int group_heads(int nq) { return nq <= 16 ? 4 : 16; }
    static TK_DEVICE void item_of(const globals& g, int item, int& b, int& h, int& qb) {
        const int nq = q_blocks(g), heads = g.Q.batch * g.Q.depth;
        int bh;
        if (!Causal) {
            bh = item / nq;
            qb = item % nq;
        } else {
            const int GROUP = group_heads(nq);
            const int first = item / (GROUP * nq) * GROUP, count = heads - first < GROUP ? heads - first : GROUP;
            const int in_group = item - first * nq;
            bh = first + in_group % count;
            qb = nq - 1 - in_group / count;
        }
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

    // One thread of consumer c starts the copy of its 64 rows of the item's Q.
    static TK_DEVICE void load_q(state& st, scratch& sc, const globals& g, int item, int c) {
        int b, h, qb;
        item_of(g, item, b, h, qb);
        if (tk::warpgroup::laneid() == 0) {
            tk::tma::expect<q_tile>(sc.q_landed[c]);
            tk::tma::load_async(sc.q[c], g.Q, {b, h, qb * 2 + c, 0}, sc.q_landed[c]);
        }
        ++st.q_loads;
    }

    static TK_DEVICE void start(state& st, scratch& sc, const globals& g, int item, int c) {
        if (item == int(blockIdx.x)) {  // the block's first item: nothing prefetched its Q
            if (tk::warpgroup::laneid() == 0) tk::init_semaphore(sc.q_landed[c], 1);
            tk::warpgroup::sync(1 + c);
            load_q(st, sc, g, item, c);
            // Ping-pong: warpgroup 1 lets warpgroup 0 go first (its first turn).
            if (Schedule == schedule::pingpong && c == 1) turn(0).arrive();
        }
        // Worked out once per item, not in every step's softmax (integer
        // division by runtime values costs tens of instructions).
        int b, h, qb;
        item_of(g, item, b, h, qb);
        st.row_tile = (qb * BQ + c * 64) / 16 + tk::warpgroup::warpid();
        st.last_k = iterations(g, item) - 1;
        tk::wait(sc.q_landed[c], (st.q_loads - 1) & 1);
        tk::zero(st.o);
        tk::neg_infty(st.m);
        tk::zero(st.l);
    }

    // After the item's last S = Q K^T: Q is no longer read, so the next
    // item's Q can start coming, hidden behind this item's last softmax,
    // P V and store.
    static TK_DEVICE void prefetch_next_q(state& st, scratch& sc, const globals& g, int item, int k, int c) {
        if (k != st.last_k || item + int(gridDim.x) >= work_items(g)) return;
        tk::warpgroup::sync(1 + c);  // every warp's S wgmma is done with Q
        load_q(st, sc, g, item + int(gridDim.x), c);
    }

    static TK_DEVICE void compute(state& st, input_stage& s, scratch& sc, const globals& g, int item, int k, int c) {
        tk::rt_fl<16, BKV> scores;
        if (Schedule == schedule::pingpong) turn(c).sync();
        tk::warpgroup::mm_ABt(scores, sc.q[c], s.k);
        if (pipelined && k > 0) {
            tk::warpgroup::mma_AB(st.o, st.p, *st.v);  // step k-1's P V, running on during this softmax
            if (Schedule == schedule::pingpong) turn(1 - c).arrive();
            tk::warpgroup::mma_async_wait<1>();       // S is ready
        } else {
            if (Schedule == schedule::pingpong) turn(1 - c).arrive();
            tk::warpgroup::mma_async_wait<0>();
        }
        prefetch_next_q(st, sc, g, item, k, c);
        // In tile units: this warp's 16 rows against key block k (BKV columns).
        if (Causal && (k + 1) * BKV > st.row_tile * 16) tk::make_causal(scores, scores, st.row_tile, k);
        typename tk::rt_fl<16, BKV>::col_vec m_old, rescale, m_scaled;
        tk::copy(m_old, st.m);
        tk::row_max(st.m, scores, st.m);  // of the unscaled scores (the scale is positive)
        const float scale = g.scale_log2;
        tk::binary_map(rescale, m_old, st.m, [scale](float old_max, float new_max) { return (old_max - new_max) * scale; });
        tk::exp2(rescale, rescale);
        tk::mul(m_scaled, st.m, scale);
        // P = 2^(S * scale - max * scale): one fused multiply-add and one ex2 per score.
        tk::row_map(scores, scores, m_scaled, [scale](float s, float m) { return tk::arch::ex2_approx(s * scale - m); });
        tk::mul(st.l, st.l, rescale);
        tk::row_sum(st.l, scores, st.l);
        if constexpr (pipelined) {
            tk::warpgroup::mma_async_wait<0>();  // step k-1's P V is in O: rescale it
            tk::mul_row(st.o, st.o, rescale);
            tk::copy(st.p, scores);
            st.v = &s.v;
        } else {
            tk::mul_row(st.o, st.o, rescale);
            tk::rt_bf<16, BKV> p;
            tk::copy(p, scores);
            tk::warpgroup::mma_AB(st.o, p, s.v);  // left in flight: the template waits before releasing the stage
        }
    }

    // Pipelined: the item's last P V, while its stage is still held.
    static TK_DEVICE void tail(state& st, input_stage& s, scratch&, const globals&, int, int) {
        if constexpr (pipelined) tk::warpgroup::mma_AB(st.o, st.p, s.v);
    }

    static TK_DEVICE void finish(state& st, scratch&, const globals& g, int item, int c) {
        int b, h, qb;
        item_of(g, item, b, h, qb);
        // One division per row, then multiplies: 64 IEEE divisions per thread
        // (each a check and a slow path) were most of this epilogue.
        typename tk::rt_fl<16, BKV>::col_vec inv_l;
        tk::unary_map(inv_l, st.l, [](float l) { return 1.0f / l; });
        tk::mul_row(st.o, st.o, inv_l);
        tk::store(g.O, st.o, {b, h, (qb * BQ + c * 64) / 16 + tk::warpgroup::warpid(), 0});
    }

    // Ping-pong: warpgroup 1's last turn-passing arrive still waits at
    // barrier 3; warpgroup 0 meets it, so no barrier is left half-arrived.
    // (Every block has an item: the grid is at most the item count.)
    static TK_DEVICE void drain(scratch&, const globals&, int c) {
        if (Schedule == schedule::pingpong && c == 0) turn(0).sync();
    }
};

} // namespace attention
