// expect: tk::mma: C and D must be float (fp32 accumulator) tiles
// Mistake: accumulating into a bf16 tile; mma.sync accumulates in fp32.
#include "tk/tk.h"

__global__ void kernel() {
    tk::rt_bf<16, 16> a;
    tk::rt_bf<16, 16, tk::col_l> b;
    tk::rt_bf<16, 16> c;
    tk::mma_AB(c, a, b, c);
}
