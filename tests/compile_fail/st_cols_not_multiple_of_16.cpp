// expect: tk::st<T, R, C>: C (columns) must be a positive multiple of 16
// Mistake: a shared tile with 24 columns.
#include "tk/tk.h"

__global__ void kernel() {
    tk::shared_allocator al;
    auto& s = al.allocate<tk::st_bf<16, 24>>();
    (void)s;
}
