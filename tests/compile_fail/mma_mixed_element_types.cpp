// expect: tk::mma: A and B must have the same element type
// Mistake: A is bf16 and B is half.
#include "tk/tk.h"

__global__ void kernel() {
    tk::rt_bf<16, 16> a;
    tk::rt_hf<16, 16, tk::col_l> b;
    tk::rt_fl<16, 16> c;
    tk::mma_AB(c, a, b, c);
}
