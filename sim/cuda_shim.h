// What CUDA C++ gives a kernel for free, for the host (simulator) build:
// qualifiers, dim3, threadIdx/blockIdx/blockDim/gridDim, warpSize.
// Included only when compiling without nvcc; needs no CUDA headers.
#pragma once
#include <cstdint>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)
#define __align__(n) alignas(n)
#define __restrict__
#define __grid_constant__
// Static __shared__ arrays would be per-fiber locals in the simulator; kernels
// take shared memory from the dynamic arena instead (tk::shared_allocator).
#define __shared__ static_assert(false, "tklab: declare shared memory through tk::shared_allocator (dynamic shared memory), not __shared__ variables, so the simulator can see it");

struct dim3 {
    unsigned x = 1, y = 1, z = 1;
    constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

namespace tklab::sim {
struct ThreadIds { dim3 thread, block, block_dim, grid_dim; };
const ThreadIds& current_ids();
}
#define threadIdx (::tklab::sim::current_ids().thread)
#define blockIdx (::tklab::sim::current_ids().block)
#define blockDim (::tklab::sim::current_ids().block_dim)
#define gridDim (::tklab::sim::current_ids().grid_dim)
constexpr int warpSize = 32;

// CUDA's __trap(): stops the simulated kernel with a SimError naming this line
// (on a GPU it aborts the launch). sim/kernel_crash.cpp.
namespace tklab::sim {
[[noreturn]] void kernel_trap(const char* file, int line);
}
#define __trap() ::tklab::sim::kernel_trap(__FILE__, __LINE__)
