// expect: tk::copy: tile layouts differ
// Mistake: copy keeps the layout; moving a tile to col layout is swap_layout.
#include "tk/tk.h"

__global__ void kernel() {
    tk::rt_bf<16, 16> a;
    tk::rt_bf<16, 16, tk::col_l> b;
    tk::copy(b, a);
}
