// Thread, lane and warp indices of a (linearised) block.
#pragma once
#include "tk/common/base.h"

namespace tk {
TK_DEVICE int thread_id() { return int(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)); }
TK_DEVICE int laneid() { return thread_id() % 32; }
TK_DEVICE int warpid() { return thread_id() / 32; }
TK_DEVICE int num_warps() { return int(blockDim.x * blockDim.y * blockDim.z + 31) / 32; }
} // namespace tk
