// expect: tk::mma: A and B must be tk::bf16 or tk::half tiles
// Mistake: A is a float tile; the tensor cores multiply bf16 or half inputs
// (convert with tk::copy into an rt_bf first).
#include "tk/tk.h"

__global__ void kernel() {
    tk::rt_fl<16, 16> a;
    tk::rt_bf<16, 16, tk::col_l> b;
    tk::rt_fl<16, 16> c;
    tk::mma_AB(c, a, b, c);
}
