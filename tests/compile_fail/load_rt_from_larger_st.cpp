// expect: tk::load: register and shared tiles must have the same shape
// Mistake: loading a 16 x 32 register tile from a 32 x 32 shared tile (load a
// tk::subtile of the shared tile instead).
#include "tk/tk.h"

__global__ void kernel() {
    tk::shared_allocator al;
    auto& s = al.allocate<tk::st_bf<32, 32>>();
    tk::rt_bf<16, 32> r;
    tk::load(r, s);
}
