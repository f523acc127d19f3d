// Lesson 8, the exercise: attention, O = softmax(Q K^T / sqrt(64)) V, with an
// online softmax. Everything but the softmax's bookkeeping is here: the
// tiles, the loads, both matrix products. Fill in the four holes (a line or
// two of tk ops each). It builds as it is, and `tklab lesson check 8` fails
// until they are right. Stuck? `tklab lesson hint 8`.
#pragma once
#include "tk/tk.h"

namespace lesson08::exercise {

using namespace tk;

__global__ void kernel(gl<bf16> q, gl<bf16> k, gl<bf16> v, gl<float> o) {
    // Shared memory: one 64 x 64 tile of K and one of V (128-byte swizzle).
    shared_allocator al;
    st_bf<64, 64>& ks = al.allocate<st_bf<64, 64>>();
    st_bf<64, 64>& vs = al.allocate<st_bf<64, 64>>();

    // This warp's 16 rows of Q, in registers for the whole kernel.
    const int strip = blockIdx.x * 4 + warpid();
    rt_bf<16, 64> qt;
    load(qt, q, {0, 0, strip, 0});

    // The running state, one value per row of the strip:
    //   m   the largest score seen so far            (starts at -inf)
    //   l   the sum of exp(score - m) so far         (starts at 0)
    //   acc the sum of exp(score - m) * V[key] so far (starts at 0)
    // m_old and scale are yours to use in the holes.
    rt_fl<16, 64> acc;
    rt_fl<16, 64>::col_vec m, l, m_old, scale;
    zero(acc);
    neg_infty(m);
    zero(l);

    const float inv_sqrt_d = 0.125f;  // 1 / sqrt(64)
    for (int t = 0; t < k.rows / 64; ++t) {
        // The block loads K and V tile t together, then waits for all of it.
        group<4>::load(ks, k, {0, 0, t, 0});
        group<4>::load(vs, v, {0, 0, t, 0});
        __syncthreads();

        // S = Q K^T / sqrt(D): 16 x 64 scores, this strip against the tile's 64 keys.
        rt_fl<16, 64> s;
        {
            rt_bf<64, 64> kt;
            load(kt, ks);
            zero(s);
            mma_ABt(s, qt, kt, s);
        }
        mul(s, s, inv_sqrt_d);
        snapshot(s, "scores S of this K tile");

        // HOLE 1: the new running max. Keep the old one in m_old (tk::copy),
        // then make m the larger of m_old and the largest score of each row
        // of s. tk::row_max has a form with an accumulator:
        // row_max(dst, tile, accum) = max(accum, max of each row of tile).

        // HOLE 2: the rescale factor, scale = exp(m_old - m), one per row
        // (vector ops: tk::sub(dst, a, b), tk::exp(dst, src)).

        // The probabilities of this tile, relative to the new max.
        sub_row(s, s, m);
        exp(s, s);

        // HOLE 3: acc and l were summed relative to m_old. Rescale both to m
        // (tk::mul_row(tile, tile, vec) for acc, tk::mul(vec, vec, vec) for l);
        // then add this tile's row sums into l (row_sum with an accumulator).

        // acc += P V: P as bf16 (an mma A operand), V's tile in col layout.
        rt_bf<16, 64> p;
        copy(p, s);
        {
            rt_bf<64, 64, col_l> vt;
            load(vt, vs);
            mma_AB(acc, p, vt, acc);
        }
        snapshot(acc, "O accumulator (not yet divided)");

        // Nobody loads the next tiles over K and V while a warp still reads them.
        __syncthreads();
    }

    // HOLE 4: O = acc divided by l, row by row (tk::div_row).

    snapshot(acc, "O");
    store(o, acc, {0, 0, strip, 0});
    (void)m_old, (void)scale;  // quiets "unused" warnings until the holes use them
}

} // namespace lesson08::exercise
