// expect: tk::row_max: dst must be the tile's col_vec
// Mistake: one value per row of a 32 x 16 tile needs a vector of length 32,
// not 16 (declare it as typename decltype(tile)::col_vec).
#include "tk/tk.h"

__global__ void kernel() {
    tk::rt_fl<32, 16> t;
    tk::rv_fl<16> m;
    tk::row_max(m, t);
}
