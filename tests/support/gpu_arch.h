// Whether this run can execute Hopper (sm_90) kernels: always in the
// simulator; on a GPU, when the device is compute capability 9.0 or later.
// Tests of wgmma / bulk-copy kernels skip (with a warning) elsewhere.
#pragma once
#include "tk/common/base.h"
#if defined(TK_GPU)
#include <cuda_runtime.h>
#endif

namespace tktest {

inline bool hopper_here() {
#if defined(TK_GPU)
    int dev = 0, major = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    return major >= 9;
#else
    return true;
#endif
}

} // namespace tktest
