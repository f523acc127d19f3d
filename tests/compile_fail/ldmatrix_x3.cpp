// expect: ldmatrix loads 1, 2 or 4 matrices (.x1/.x2/.x4)
// Mistake: the instruction layer's ldmatrix with 3 matrices; the hardware has
// only .x1, .x2 and .x4.
#include "tk/tk.h"

__global__ void kernel(uint32_t addr) {
    uint32_t r[3];
    tk::arch::ldmatrix<3>(r, addr);
}
