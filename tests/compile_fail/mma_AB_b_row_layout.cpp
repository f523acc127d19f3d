// expect: tk::mma: B's layout is wrong
// Mistake: mma_AB with B (K x N) held in row layout; mma_AB wants B in col
// layout (or use mma_ABt with B stored as N x K in row layout).
#include "tk/tk.h"

__global__ void kernel() {
    tk::rt_bf<16, 16> a;
    tk::rt_bf<16, 16, tk::row_l> b;
    tk::rt_fl<16, 16> c;
    tk::mma_AB(c, a, b, c);
}
