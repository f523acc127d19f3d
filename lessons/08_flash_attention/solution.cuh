// Lesson 8, the reference solution: O = softmax(Q K^T / sqrt(64)) V, one warp
// per 16 rows of Q, the block walking K and V a 64-row tile at a time with an
// online softmax.
#pragma once
#include "tk/tk.h"

namespace lesson08::solution {

using namespace tk;

__global__ void kernel(gl<bf16> q, gl<bf16> k, gl<bf16> v, gl<float> o) {
    // 1. Shared memory: one 64 x 64 tile of K and one of V, which the block's
    //    4 warps load together and all read. st_bf picks the 128-byte swizzle
    //    for 128-byte rows (lesson 4), so the ldmatrix reads below are free of
    //    bank conflicts.
    shared_allocator al;
    st_bf<64, 64>& ks = al.allocate<st_bf<64, 64>>();
    st_bf<64, 64>& vs = al.allocate<st_bf<64, 64>>();

    // 2. This warp's 16 rows of Q (block b covers rows 64b.., warp w the
    //    strip 4b + w), kept in registers for the whole kernel: an mma A
    //    operand, so bf16 in row layout.
    const int strip = blockIdx.x * 4 + warpid();
    rt_bf<16, 64> qt;
    load(qt, q, {0, 0, strip, 0});

    // 3. The running state of the online softmax, one value per row of the
    //    strip (col_vec, as in lesson 2), and the output accumulator:
    //      m   the largest score seen so far in each row      (starts at -inf)
    //      l   the sum of exp(score - m) over the keys so far  (starts at 0)
    //      acc the sum of exp(score - m) * V[key] so far       (starts at 0)
    rt_fl<16, 64> acc;
    rt_fl<16, 64>::col_vec m, l, m_old, scale;
    zero(acc);
    neg_infty(m);
    zero(l);

    const float inv_sqrt_d = 0.125f;  // 1 / sqrt(64)
    for (int t = 0; t < k.rows / 64; ++t) {
        // 4. The block loads K and V tile t (each thread 16 bytes at a time)
        //    and waits until every warp's share has landed.
        group<4>::load(ks, k, {0, 0, t, 0});
        group<4>::load(vs, v, {0, 0, t, 0});
        __syncthreads();

        // 5. S = Q K^T / sqrt(D): this strip's 16 x 64 scores against the 64
        //    keys of the tile. mma_ABt takes K as it is stored (64 keys x 64
        //    dims, row layout). The K registers die with the braces.
        rt_fl<16, 64> s;
        {
            rt_bf<64, 64> kt;
            load(kt, ks);
            zero(s);
            mma_ABt(s, qt, kt, s);
        }
        mul(s, s, inv_sqrt_d);
        snapshot(s, "scores S of this K tile");

        // 6. The online softmax update, per row:
        //    the new max  m = max(m_old, max of this tile's scores);
        copy(m_old, m);
        row_max(m, s, m);
        //    the rescale factor exp(m_old - m): at most 1, exactly 1 when the
        //    max did not move, 0 on the first tile (m_old = -inf);
        sub(scale, m_old, m);
        exp(scale, scale);
        //    the probabilities of this tile, relative to the new max;
        sub_row(s, s, m);
        exp(s, s);
        //    what was summed so far was relative to m_old: rescale it to m,
        //    then add this tile's part.
        mul_row(acc, acc, scale);
        mul(l, l, scale);
        row_sum(l, s, l);

        // 7. acc += P V on the tensor cores: P (16 x 64) becomes bf16, an A
        //    operand; V's tile is 64 keys x 64 dims, a B operand, so it is
        //    loaded in col layout (ldmatrix .trans).
        rt_bf<16, 64> p;
        copy(p, s);
        {
            rt_bf<64, 64, col_l> vt;
            load(vt, vs);
            mma_AB(acc, p, vt, acc);
        }
        snapshot(acc, "O accumulator (not yet divided)");

        // 8. Nobody loads the next tiles over K and V while a warp still reads them.
        __syncthreads();
    }

    // 9. O = acc / l: each row divided by the sum of its weights.
    div_row(acc, acc, l);
    snapshot(acc, "O");
    store(o, acc, {0, 0, strip, 0});
}

} // namespace lesson08::solution
