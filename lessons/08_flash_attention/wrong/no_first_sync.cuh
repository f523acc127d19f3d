// expect: no_first_sync.cuh:33: error: shared-memory race (read after write)
// Known wrong: the __syncthreads() between the block's loads of K and V and
// the first reads of them is missing. Each thread copies only its share of a
// tile (group<4>::load), so a warp's ldmatrix reads rows other threads are
// still writing, or have not written yet. The race finder stops the kernel
// at the first such read, naming the write it races with.
#pragma once
#include "tk/tk.h"

namespace lesson08::wrong_no_first_sync {

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
        // BUG: no __syncthreads() here: the tiles are read before every share has landed
        rt_fl<16, 64> s;
        {
            rt_bf<64, 64> kt;
            load(kt, ks);
            zero(s);
            mma_ABt(s, qt, kt, s);
        }
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

} // namespace lesson08::wrong_no_first_sync
