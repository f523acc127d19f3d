// expect: this array's tiles are smaller than their alignment
// Mistake: two 16x16 bf16 tiles (512 bytes each) as one array; the second
// would start 512 bytes in, off the 1024-byte alignment swizzled tiles need.
#include "tk/tk.h"

__global__ void kernel() {
    tk::shared_allocator al;
    auto& s = al.allocate<tk::st_bf<16, 16>[2]>();
    (void)s;
}
