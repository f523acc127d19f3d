// Thread, lane and warp indices of a (linearised) block.
#pragma once
#include "tk/common/base.h"

namespace tk {
TK_DEVICE int thread_id() { return int(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)); }
TK_DEVICE int laneid() { return thread_id() % 32; }
TK_DEVICE int warpid() { return thread_id() / 32; }
TK_DEVICE int num_warps() { return int(blockDim.x * blockDim.y * blockDim.z + 31) / 32; }

// v, as lane 0 of the warp holds it: for a value every lane already agrees on
// (a warp or warpgroup index) that the compiler cannot prove so. Code that
// depends on the broadcast value (a warpgroup's role, its loop counters, the
// shared-memory addresses of its wgmma descriptors) compiles to the uniform
// datapath instead of per-thread registers moved over before each wgmma:
// +4-11% for attention and +3-5% for the Hopper GEMM on an H100. Call it with
// the whole warp (it is a shuffle on the GPU; the simulator just returns v).
TK_DEVICE int warp_uniform(int v) {
#if defined(TK_GPU)
    return __shfl_sync(0xffffffffu, v, 0);
#else
    return v;
#endif
}
} // namespace tk
