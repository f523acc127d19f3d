// expect: correctness: wrong at K=16 M=128 N=128
// Known wrong, a precision mistake: to save registers the running sum is kept
// in a bf16 tile between k-steps (16 registers where an fp32 accumulator
// takes 32). mma needs an fp32 accumulator, so each step widens it, adds the
// product and rounds it back: every step loses all but 8 significant bits,
// far more than the check's 1e-3. It does not even save registers: the fp32
// tile is alive during each step anyway, next to the bf16 one.
#pragma once
#include "tk/tk.h"

namespace lesson06::wrong_bf16_accumulator {

using namespace tk;

__global__ void kernel(gl<bf16> a, gl<bf16> b, gl<float> c) {
    const int w = warpid();
    const int row0 = blockIdx.y * 128 + (w / 2) * 64;
    const int col0 = blockIdx.x * 128 + (w % 2) * 64;
    for (int pm = 0; pm < 2; ++pm)
        for (int pn = 0; pn < 2; ++pn) {
            const int tr = row0 / 32 + pm, tc = col0 / 32 + pn;
            rt_bf<32, 32> sum;  // the running sum, in bf16
            zero(sum);
            for (int k = 0; k < a.cols / 16; ++k) {
                rt_bf<32, 16> at;
                rt_bf<16, 32, col_l> bt;
                load(at, a, {0, 0, tr, k});
                load(bt, b, {0, 0, k, tc});
                rt_fl<32, 32> acc;
                copy(acc, sum);             // widened...
                mma_AB(acc, at, bt, acc);
                copy(sum, acc);             // ...and rounded to 8 significant bits again
            }
            rt_fl<32, 32> out;
            copy(out, sum);
            store(c, out, {0, 0, tr, tc});
        }
}

} // namespace lesson06::wrong_bf16_accumulator
