// expect: correctness: wrong at D=64 N=128: 3556 of 8192 elements differ
// Known wrong: the running max is kept, but acc and l are never rescaled when
// it moves. What tile 0 added stays relative to tile 0's max while the later
// tiles' terms are relative to the new one, so the early keys weigh
// exp(m_new - m_old) times too much. Right with one K tile (N = 64: nothing
// to rescale), wrong from N = 128 on.
#pragma once
#include "tk/tk.h"

namespace lesson08::wrong_no_rescale {

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
        rt_fl<16, 64> s;
        {
            rt_bf<64, 64> kt;
            load(kt, ks);
            zero(s);
            mma_ABt(s, qt, kt, s);
        }
        mul(s, s, 0.125f);
        row_max(m, s, m);
        sub_row(s, s, m);
        exp(s, s);
        // missing: mul_row(acc, acc, scale) and mul(l, l, scale)
        row_sum(l, s, l);
        rt_bf<16, 64> p;
        copy(p, s);
        {
            rt_bf<64, 64, col_l> vt;
            load(vt, vs);
            mma_AB(acc, p, vt, acc);
        }
        __syncthreads();
    }
    div_row(acc, acc, l);
    store(o, acc, {0, 0, strip, 0});
}

} // namespace lesson08::wrong_no_rescale
