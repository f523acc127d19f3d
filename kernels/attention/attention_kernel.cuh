// Attention forward for Hopper: O = softmax(Q K^T / sqrt(D)) V, optionally
// causal, bf16 in and out, fp32 softmax and accumulation. Q, K, V, O are
// (batch, heads, N, D) tensors. A layout for tk's producer/consumer template
// (tk/templates/producer_consumer.h), in the FlashAttention-3 style:
//
//   * a work item is one block of query rows of one (batch, head): 64 rows
//     for each consumer warpgroup, two at D = 128 and three at D = 64 (below);
//     the grid is persistent and walks a head's query blocks together, so K
//     and V are read from L2; causal items are walked longest first;
//   * the producer's one thread streams 128-row K and V tiles into the ring
//     with bulk tensor copies (a causal item stops at the diagonal);
//   * each consumer warpgroup owns 64 query rows, copied to shared memory
//     by a bulk copy that starts during the previous item; per step:
//       S = Q K^T          wgmma, both operands in shared memory
//       online softmax     row max / rescale / exp2 / row sum, in registers
//       O += P V           wgmma with P (bf16) from registers
//     in one of three schedules (below; the program's variants pick one);
//   * O is divided by the row sums and stored straight from registers.
//
// At D = 64 a step's multiplies are half as long as at D = 128 but its
// softmax is not, and a warpgroup's softmax cannot overlap its own
// multiplies (issuing a wgmma waits until the tensor cores take it): with two
// warpgroups taking turns the tensor cores idle while both are in softmax. A
// third consumer warpgroup (192-row items, as FlashAttention-3 does at D = 64)
// keeps them fed. N need not be a multiple of 192: the last item of a head is
// ragged, and a warpgroup whose 64 rows lie past N (or, causal, whose rows all
// lie above a key block) skips that work.
#pragma once
#include <algorithm>
#include <vector>
#include "tk/tk.h"
#include "tk/templates/producer_consumer.h"

namespace attention {

constexpr int BKV = 128;  // key/value rows per stage

template <int D>
struct globals_t {
    static constexpr int d = D;
    tk::gl_tma<tk::bf16, tk::st_bf<64, D>> Q;  // 64 rows per consumer warpgroup, once per item
    tk::gl_tma<tk::bf16, tk::st_bf<BKV, D>> K, V;
    tk::gl<tk::bf16> O;
    float scale_log2;  // log2(e) / sqrt(D): softmax in base 2
    // Causal: the order the grid walks the items in (causal_item; the host's
    // layout::plan_order picks it for the grid's size).
    int group_heads = 1;  // heads walked together, longest item first
    int snake = 0;        // 1: every other round of the grid takes its items in reverse
};

// Causal item -> (head, query block), for a grid of `blocks` blocks dealing
// out `heads` x `nq` items round-robin (block b takes items b, b + blocks,
// ...). Heads go in groups of group_heads, the group's items longest (last
// query block) first; with snake, in every other full round block b takes
// the item of block blocks - 1 - b, so a block drawing a long item in one
// round draws a short one in the next.
TK_HOST_DEVICE void causal_item(int item, int heads, int nq, int blocks, int group_heads, int snake, int& bh, int& qb) {
    if (snake) {
        const int round = item / blocks;
        if ((round & 1) && (round + 1) * blocks <= heads * nq) item = round * blocks + blocks - 1 - item % blocks;
    }
    const int first = item / (group_heads * nq) * group_heads, count = heads - first < group_heads ? heads - first : group_heads;
    const int in_group = item - first * nq;
    bh = first + in_group % count;
    qb = nq - 1 - in_group / count;
}

// Schedules, fastest last (the program's variants pick one; see attention.cu):
//   serial     S = Q K^T, wait, softmax, O += P V: a warpgroup's tensor-core
//              work and its softmax take turns (the other warpgroup may fill in);
//   pipelined  the P V of step k-1 is issued with step k's S and runs during
//              step k's softmax (FlashAttention-3's intra-warpgroup overlap);
//   pingpong   pipelined, and the consumer warpgroups take turns to issue
//              their wgmmas, so one's softmax runs under another's
//              multiplies (FlashAttention-3's warpgroup ping-pong).
// On an H200 at B = H = 16, N = 4096, non-causal, in one run: D = 128, 468,
// 596 and 598 TFLOP/s; D = 64, 488, 474 and 498 (cuDNN on an H200: about 620
// and 470). At D = 64 the exponentials (16 a clock per SM) bound the softmax
// about as much as the tensor cores bound the multiplies, and with three
// consumer warpgroups one's softmax already runs under the others'
// multiplies, so the schedules differ less.
enum class schedule { serial, pipelined, pingpong };

template <int D, bool Causal, schedule Schedule = schedule::pingpong>
struct layout {
    static_assert(D == 64 || D == 128, "attention: head dimension 64 or 128");
    static constexpr bool pipelined = Schedule != schedule::serial;
    static constexpr int consumers = D == 64 ? 3 : 2, BQ = 64 * consumers;  // query rows per item
    // A pipelined step holds two stages (k's K and V, k-1's V): one more to prefetch into.
    static constexpr int stages = D == 64 ? 4 : pipelined ? 3 : 2;
    // setmaxnreg counts: 65536 registers over 128 producer and 128 x consumers threads.
    static constexpr int producer_registers = 24, consumer_registers = consumers == 3 ? 160 : 240;

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
        int first_row = 0;                        // of the item: this warpgroup's first query row
        int b = 0, h = 0;                         // of the item: its batch and head
        int next_b = 0, next_h = 0, next_qb = 0;  // of the next item, worked out when its Q is requested
        bool pending = false;                     // pipelined: p and v hold a P V not yet issued
        tk::rt_fl<16, D> o;                       // this warp's 16 rows of O, not yet divided
        typename tk::rt_fl<16, BKV>::col_vec m, l;  // running row max (of unscaled scores) and row sum
        tk::rt_bf<16, BKV> p;                     // pipelined: step k-1's probabilities ...
        const kv_tile* v = nullptr;               // ... and its V, multiplied during step k
    };

    // Ping-pong: warpgroup c issues its wgmmas after passing named barrier
    // turn(c), then lets the next one through (c + 1, cyclically); each
    // barrier counts the two warpgroups that meet there. Ids 1..consumers are
    // each warpgroup's own (warpgroup::sync(1 + c)).
    static TK_DEVICE tk::named_barrier turn(int c) { return {1 + consumers + c, 2 * 128}; }
    static TK_DEVICE int next(int c) { return c + 1 == consumers ? 0 : c + 1; }

    // Whether warpgroup c has work at key block k: rows inside the tensor
    // and, causal, not all above the block.
    static TK_DEVICE bool has_work(const state& st, const globals& g, int k) {
        return st.first_row < g.Q.rows && (!Causal || k <= last_key_block(st.first_row));
    }

    // Causal: the last key block the 64 rows from first_row attend to, and
    // the key blocks query block qb steps through (up to its last row).
    static TK_HOST_DEVICE int last_key_block(int first_row) { return (first_row + 63) / BKV; }
    static TK_HOST_DEVICE int causal_steps(int qb, int rows) {
        const int end = (qb + 1) * BQ < rows ? (qb + 1) * BQ : rows;
        return (end + BKV - 1) / BKV;
    }
    static TK_HOST_DEVICE int q_blocks(int rows) { return (rows + BQ - 1) / BQ; }
    static TK_HOST_DEVICE int q_blocks(const globals& g) { return q_blocks(g.Q.rows); }
    static TK_HOST_DEVICE int work_items(const globals& g) { return g.Q.batch * g.Q.depth * q_blocks(g); }
    // Item -> (batch, head, query block). The blocks running at once (one per
    // SM, taking consecutive items) should share heads, so that each head's K
    // and V come from DRAM once and then from L2: items go through a head's
    // query blocks before the next head's. Causal items differ in length (a
    // query block attends to the keys up to its own rows), and the persistent
    // grid deals them out round-robin, so their order decides how evenly the
    // blocks are loaded; causal_item walks them longest first in groups of
    // heads, optionally snaking, and plan_order picks the group and snake.
    static TK_DEVICE void item_of(const globals& g, int item, int& b, int& h, int& qb) {
        const int nq = q_blocks(g);
        int bh;
        if (!Causal) {
            bh = item / nq;
            qb = item % nq;
        } else {
            causal_item(item, g.Q.batch * g.Q.depth, nq, int(gridDim.x), g.group_heads, g.snake, bh, qb);
        }
        b = bh / g.Q.depth;
        h = bh % g.Q.depth;
    }
    static TK_DEVICE int iterations_of_block(const globals& g, int qb) {
        return Causal ? causal_steps(qb, g.Q.rows) : g.K.rows / BKV;
    }
    static TK_DEVICE int iterations(const globals& g, int item) {
        int b, h, qb;
        item_of(g, item, b, h, qb);
        return iterations_of_block(g, qb);
    }

    // Host: the causal order of `heads` heads of `n` rows for a grid of
    // `blocks` blocks (globals' group_heads and snake). Each candidate
    // order (groups of 1 to 16 heads, snaking or not) is dealt out as the
    // grid will, each item costing its warpgroup steps (over the consumers)
    // plus one for its start and store; the order taken is the one with the
    // fewest heads a group (the fewest K and V in L2 at once, then no snake)
    // whose busiest block is within 3% of the best order's. The old rule (4
    // heads, or 16 from 17 query blocks) lost 4 to 46% at a resonance: at
    // N = 2048, D = 64, a group of 4 heads held 44 items and 132 blocks drew
    // the same query block of every group. Measured on an H200 (B = H = 16,
    // causal, ms; the best order of 16, the one picked, the old rule):
    //   D = 64:  N = 1024 0.120 0.120 0.131, N = 2048 0.391 0.391 0.571, N = 4096 1.347 1.347 1.410
    //   D = 128: N = 1024 0.179 0.186 0.186, N = 2048 0.596 0.601 0.626, N = 4096 2.118 2.118 2.302
    // A dynamic scheduler (blocks taking the next item from a counter) would
    // need no plan; it is left for now (the simulator's blocks would then race
    // for items, and its traces would no longer be reproducible).
    struct order { int group_heads, snake; double busiest, mean; };  // the busiest block's load, and the mean
    static order plan_order(int heads, int n, int blocks) {
        const int nq = q_blocks(n), items = heads * nq;
        std::vector<double> cost(size_t(nq), 1.0), busy(static_cast<size_t>(blocks));  // each query block's cost, each block's load
        double total = 0;
        for (int qb = 0; qb < nq; ++qb) {
            const int steps = causal_steps(qb, n);
            for (int c = 0; c < consumers && qb * BQ + 64 * c < n; ++c) {
                const int own = last_key_block(qb * BQ + 64 * c) + 1;  // the steps this warpgroup has work in (has_work)
                cost[size_t(qb)] += double(own < steps ? own : steps) / consumers;
            }
            total += cost[size_t(qb)] * heads;
        }
        std::vector<order> candidates;
        for (int group : {1, 2, 3, 4, 6, 8, 12, 16})
            for (int snake : {0, 1}) {
                std::fill(busy.begin(), busy.end(), 0.0);
                for (int item = 0; item < items; ++item) {
                    int bh, qb;
                    causal_item(item, heads, nq, blocks, group, snake, bh, qb);
                    busy[size_t(item % blocks)] += cost[size_t(qb)];
                }
                candidates.push_back({group, snake, *std::max_element(busy.begin(), busy.end()), total / blocks});
            }
        double best = candidates[0].busiest;
        for (const order& o : candidates) best = std::min(best, o.busiest);
        for (const order& o : candidates)  // in order: fewest heads, then no snake
            if (o.busiest <= best * 1.03) return o;
        return candidates[0];  // not reached: the best is within 3% of itself
    }

    static TK_DEVICE void load(input_stage& s, tk::semaphore& full, const globals& g, int item, int k) {
        int b, h, qb;
        item_of(g, item, b, h, qb);
        tk::tma::expect<kv_tile, kv_tile>(full);
        tk::tma::load_async(s.k, g.K, {b, h, k, 0}, full);
        tk::tma::load_async(s.v, g.V, {b, h, k, 0}, full);
    }

    // One thread of consumer c starts the copy of its 64 rows of the next
    // item's Q (rows past N, in a head's last item, arrive as zeros). The
    // item's coordinates are kept for start() and finish(): item_of's integer
    // divisions by runtime values cost tens of instructions each, and
    // working them out once an item instead of five times made causal
    // attention 4 to 5% faster at N = 1024 and 2048 (short items; H200).
    static TK_DEVICE void load_q(state& st, scratch& sc, const globals& g, int item, int c) {
        item_of(g, item, st.next_b, st.next_h, st.next_qb);
        if (tk::warpgroup::laneid() == 0) {
            tk::tma::expect<q_tile>(sc.q_landed[c]);
            tk::tma::load_async(sc.q[c], g.Q, {st.next_b, st.next_h, st.next_qb * consumers + c, 0}, sc.q_landed[c]);
        }
        ++st.q_loads;
    }

    static TK_DEVICE void start(state& st, scratch& sc, const globals& g, int item, int c) {
        if (item == int(blockIdx.x)) {  // the block's first item: nothing prefetched its Q
            if (tk::warpgroup::laneid() == 0) tk::init_semaphore(sc.q_landed[c], 1);
            tk::warpgroup::sync(1 + c);
            load_q(st, sc, g, item, c);
            // Ping-pong: the last warpgroup lets warpgroup 0 go first (its first turn).
            if (Schedule == schedule::pingpong && c == consumers - 1) turn(0).arrive();
        }
        // Worked out once per item, not in every step's softmax.
        st.b = st.next_b, st.h = st.next_h;
        st.first_row = st.next_qb * BQ + c * 64;
        st.row_tile = st.first_row / 16 + tk::warpgroup::warpid();
        st.pending = false;
        st.last_k = iterations_of_block(g, st.next_qb) - 1;
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
        if (Schedule == schedule::pingpong) turn(c).sync();
        if (!has_work(st, g, k)) {  // still takes its turn, so the others' turns go round
            if (pipelined && st.pending) {
                tk::warpgroup::mma_AB(st.o, st.p, *st.v);  // the last P V; its stage is released after this step
                st.pending = false;
            }
            if (Schedule == schedule::pingpong) turn(next(c)).arrive();
            tk::warpgroup::mma_async_wait<0>();
            prefetch_next_q(st, sc, g, item, k, c);
            return;
        }
        tk::rt_fl<16, BKV> scores;
        tk::warpgroup::mm_ABt(scores, sc.q[c], s.k);
        if (pipelined && st.pending) {
            tk::warpgroup::mma_AB(st.o, st.p, *st.v);  // step k-1's P V, running on during this softmax
            if (Schedule == schedule::pingpong) turn(next(c)).arrive();
            tk::warpgroup::mma_async_wait<1>();       // S is ready
        } else {
            if (Schedule == schedule::pingpong) turn(next(c)).arrive();
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
            st.pending = true;
        } else {
            tk::mul_row(st.o, st.o, rescale);
            tk::rt_bf<16, BKV> p;
            tk::copy(p, scores);
            tk::warpgroup::mma_AB(st.o, p, s.v);  // left in flight: the template waits before releasing the stage
        }
    }

    // Pipelined: the item's last P V, while its stage is still held.
    static TK_DEVICE void tail(state& st, input_stage& s, scratch&, const globals&, int, int) {
        if constexpr (pipelined)
            if (st.pending) tk::warpgroup::mma_AB(st.o, st.p, s.v);
    }

    static TK_DEVICE void finish(state& st, scratch&, const globals& g, int, int) {
        if (st.first_row >= g.Q.rows) return;  // past N: a head's ragged last item
        // One division per row, then multiplies: 64 IEEE divisions per thread
        // (each a check and a slow path) were most of this epilogue.
        typename tk::rt_fl<16, BKV>::col_vec inv_l;
        tk::unary_map(inv_l, st.l, [](float l) { return 1.0f / l; });
        tk::mul_row(st.o, st.o, inv_l);
        tk::store(g.O, st.o, {st.b, st.h, st.row_tile, 0});
    }

    // Ping-pong: the last warpgroup's last turn-passing arrive still waits at
    // turn(0); warpgroup 0 meets it, so no barrier is left half-arrived.
    // (Every block has an item: the grid is at most the item count.)
    static TK_DEVICE void drain(scratch&, const globals&, int c) {
        if (Schedule == schedule::pingpong && c == 0) turn(0).sync();
    }
};

} // namespace attention
