// expect: tk::mma: the inner (K) dimensions of A and B differ
// Mistake: A is 16 x 32 (K = 32) but B is 16 x 16 (K = 16).
#include "tk/tk.h"

__global__ void kernel() {
    tk::rt_bf<16, 32> a;
    tk::rt_bf<16, 16, tk::col_l> b;
    tk::rt_fl<16, 16> c;
    tk::mma_AB(c, a, b, c);
}
