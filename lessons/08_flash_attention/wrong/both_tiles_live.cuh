// expect: 232 registers per thread live at the peak
// Known wrong, though its output is right: K's and V's register tiles are
// both loaded at the top of the loop and live through the whole iteration
// (64 + 64 registers per thread), where each needs to live only around its
// own mma. With Q, the accumulator, S and P that is 232 tile registers, past
// the goal's 192 (ptxas may still move each load down to its mma; the goal
// counts what the source keeps live). It misses the goal.
#pragma once
#include "tk/tk.h"

namespace lesson08::wrong_both_tiles_live {

using namespace tk;

__global__ void kernel(gl<bf16> q, gl<bf16> k, gl<bf16> v, gl<float> o) {
    shared_allocator al;
    st_bf<64, 64>& ks = al.allocate<st_bf<64, 64>>();
    st_bf<64, 64>& vs = al.allocate<st_bf<64, 64>>();
    const int strip = blockIdx.x * 4 + warpid();
    rt_bf<16, 64> qt;
    load(qt, q, {0, 0, strip, 0});
    rt_fl<16, 64> acc;
    rt_fl<16, 64>::col_vec m, l, m_old, scale;
    zero(acc);
    neg_infty(m);
    zero(l);
    for (int t = 0; t < k.rows / 64; ++t) {
        group<4>::load(ks, k, {0, 0, t, 0});
        group<4>::load(vs, v, {0, 0, t, 0});
        __syncthreads();
        rt_bf<64, 64> kt;             // both tiles, from here to the end of the iteration
        rt_bf<64, 64, col_l> vt;
        load(kt, ks);
        load(vt, vs);
        rt_fl<16, 64> s;
        zero(s);
        mma_ABt(s, qt, kt, s);
        mul(s, s, 0.125f);
        copy(m_old, m);
        row_max(m, s, m);
        sub(scale, m_old, m);
        exp(scale, scale);
        sub_row(s, s, m);
        exp(s, s);
        mul_row(acc, acc, scale);
        mul(l, l, scale);
        row_sum(l, s, l);
        rt_bf<16, 64> p;
        copy(p, s);
        mma_AB(acc, p, vt, acc);
        __syncthreads();
    }
    div_row(acc, acc, l);
    store(o, acc, {0, 0, strip, 0});
}

} // namespace lesson08::wrong_both_tiles_live
