// Build mode, qualifiers and source locations shared by every tk header.
//
// The same kernel source compiles two ways:
//   nvcc       -> TK_GPU: instruction-layer functions are inline PTX.
//   g++/clang  -> TK_SIM: instruction-layer functions call into sim/, which
//                 executes each instruction for the whole warp and records it.
#pragma once
#include <cstdint>
#include <cstddef>
#include <type_traits>

// TK_UNROLL before a loop over a tile's parts: on the GPU it is unrolled
// whole when its trip count is known at compile time, so a register tile's
// elements are indexed by constants and stay in registers. Without it nvcc
// left such loops rolled and put the tiles in local memory (a 256-304 byte
// stack frame per thread in the mma.sync GEMMs: scripts/registers/table.sh).
// The simulator ignores it.
#if defined(__CUDACC__)
#define TK_UNROLL _Pragma("unroll")
#else
#define TK_UNROLL
#endif

#if defined(__CUDACC__)
#define TK_GPU 1
#define TK_DEVICE __device__ __forceinline__
#ifndef TK_HOST_DEVICE
#define TK_HOST_DEVICE __host__ __device__ __forceinline__
#endif
#else
#define TK_SIM 1
#define TK_DEVICE inline
#ifndef TK_HOST_DEVICE
#define TK_HOST_DEVICE inline
#endif
#include "sim/cuda_shim.h"
#endif

// Hopper instructions (wgmma, setmaxnreg, multicast bulk copies: sm_90a; bulk
// tensor copies, mbarrier transaction counts, stmatrix and clusters: sm_90).
// In a GPU build for an older target (sm_80 is built too) each one's body is
// tk::hopper_only_trap() instead: a kernel that reaches one stops there, and
// its launch fails ("unspecified launch failure"), rather than running on
// without the instruction. A kernel that uses them runs only on Hopper (the
// GPU tests skip theirs on other GPUs).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define TK_SM90 1
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TK_HOPPER 1
#endif
#endif

namespace tk {

// Where a tile op or instruction was called from. Every public op takes one as
// its last, defaulted parameter so the simulator can name the kernel's line.
// On the GPU it is empty and costs nothing.
#if defined(TK_SIM)
struct src_loc {
    const char* file = "";
    int line = 0;
    static constexpr src_loc current(const char* f = __builtin_FILE(), int l = __builtin_LINE()) { return {f, l}; }
};
#else
struct src_loc {
    TK_HOST_DEVICE static constexpr src_loc current() { return {}; }
};
#endif
#define TK_LOC ::tk::src_loc loc = ::tk::src_loc::current()

#if defined(TK_GPU)
// The body of every Hopper-only instruction (above) in a GPU build for an
// older target: one way for all of them, a trap.
__device__ __forceinline__ void hopper_only_trap() { __trap(); }
#endif

} // namespace tk

#if defined(TK_SIM)
#include "sim/api.h"
// Marks the body of a public tile op: instructions issued inside it are
// attributed to the kernel line that called the op (the outermost op wins).
#define TK_OP(name) ::tklab::sim::op_scope tk_op_scope_(name, loc.file, loc.line)
#else
#define TK_OP(name) ((void)0)
#endif
