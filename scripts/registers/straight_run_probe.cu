// Probe kernels for the register estimate's straight run (sim/README.md,
// "Registers"; scripts/registers/straight_run.sh compiles them with ptxas -v).
// Each warp stores an R x C tile of zeros: no tile registers (ptxas stores
// the zero register), one tile op call whose global stores' addresses ptxas
// may compute before the first.
#include "tk/tk.h"

namespace straight_run {

template <typename T, int R, int C>
__global__ void zero_store(tk::gl<T> out) {
    tk::rt<float, R, C> z;
    tk::zero(z);
    tk::store(out, z, {0, 0, int(blockIdx.y), int(blockIdx.x)});
}

template __global__ void zero_store<float, 16, 16>(tk::gl<float>);
template __global__ void zero_store<float, 16, 32>(tk::gl<float>);
template __global__ void zero_store<float, 32, 32>(tk::gl<float>);
template __global__ void zero_store<float, 32, 64>(tk::gl<float>);
template __global__ void zero_store<float, 64, 64>(tk::gl<float>);
template __global__ void zero_store<tk::bf16, 16, 32>(tk::gl<tk::bf16>);
template __global__ void zero_store<tk::bf16, 32, 32>(tk::gl<tk::bf16>);
template __global__ void zero_store<tk::bf16, 64, 64>(tk::gl<tk::bf16>);

} // namespace straight_run
