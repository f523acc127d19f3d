// expect: tk::add: shapes differ
// Mistake: adding a 16 x 32 tile into a 32 x 16 tile.
#include "tk/tk.h"

__global__ void kernel() {
    tk::rt_fl<32, 16> dst;
    tk::rt_fl<16, 32> a, b;
    tk::add(dst, a, b);
}
