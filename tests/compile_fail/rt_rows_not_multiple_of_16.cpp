// expect: tk::rt<T, R, C>: R (rows) must be a positive multiple of 16
// Mistake: a register tile with 20 rows. Register tiles are built from 16x16
// hardware tiles, so rows and columns must be multiples of 16.
#include "tk/tk.h"

__global__ void kernel() {
    tk::rt_bf<20, 16> a;
    (void)a;
}
