// expect: tk::add: b's shape or layout differs from dst's
// Mistake: the second operand is 32 x 16 while dst and a are 16 x 32.
#include "tk/tk.h"

__global__ void kernel() {
    tk::rt_fl<16, 32> dst, a;
    tk::rt_fl<32, 16> b;
    tk::add(dst, a, b);
}
