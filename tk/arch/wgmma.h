// wgmma: warpgroup matrix multiply-accumulate (sm_90a). Four warps (a
// warpgroup, 128 threads) compute D (64 x N, f32) = A (64 x 16) * B (16 x N)
// [+ D], asynchronously. B is always in shared memory, described by a 64-bit
// matrix descriptor (see make_wgmma_descriptor); A is in shared memory (a
// descriptor) or in registers (each warp its 16 rows, in mma.sync's A fragment).
// D in registers: warp w holds rows 16w..16w+15 in mma.sync's accumulator
// fragment, repeated over the N/8 column groups (an rt_fl<16, N>'s layout).
//
//   wgmma_fence();              // registers written before are visible to wgmma
//   wgmma_ss<N, 0, 1>(d, da, db, 1);  ...
//   wgmma_commit_group();       // the wgmmas issued so far form one group
//   wgmma_wait_group<0>();      // until at most 0 groups are in flight; D is ready
#pragma once
#include "tk/common/base.h"

namespace tk::arch {

#if defined(TK_GPU) && defined(TK_HOPPER)
namespace detail {
#include "tk/arch/wgmma_ptx.inc"
}
#endif

// The shared-memory layouts a descriptor can name (PTX ISA, "Matrix
// Descriptor Format": bits 62-63).
enum class wgmma_swizzle : uint32_t { none = 0, b128 = 1, b64 = 2, b32 = 3 };

// A wgmma matrix descriptor: start address, leading- and stride-dimension
// byte offsets (all in 16-byte units, 14 bits each) and the swizzle mode.
// Base offset (bits 49-51) is 0: tklab's shared tiles are 1024-byte aligned.
TK_HOST_DEVICE constexpr uint64_t make_wgmma_descriptor(uint32_t smem_addr, uint32_t leading_bytes, uint32_t stride_bytes, wgmma_swizzle swizzle) {
    return uint64_t((smem_addr & 0x3FFFF) >> 4) | (uint64_t((leading_bytes & 0x3FFFF) >> 4) << 16) |
           (uint64_t((stride_bytes & 0x3FFFF) >> 4) << 32) | (uint64_t(uint32_t(swizzle)) << 62);
}

template <int N>
inline constexpr bool wgmma_n_supported = N == 16 || N == 32 || N == 64 || N == 128 || N == 256;

// D (N/2 floats per thread) = A * B + (scale_d ? D : 0), both operands from
// shared memory. TransA / TransB: 0 when the operand is K-major (K
// contiguous), 1 when it is M- or N-major.
template <int N, int TransA, int TransB>
TK_DEVICE void wgmma_ss(float* d, uint64_t desc_a, uint64_t desc_b, int scale_d, TK_LOC) {
    static_assert(wgmma_n_supported<N>, "wgmma: N must be 16, 32, 64, 128 or 256 (scripts/dev/gen_wgmma_ptx.py lists them)");
#if defined(TK_GPU)
#if defined(TK_HOPPER)
    if constexpr (N == 16) detail::wgmma_ss_n16<TransA, TransB>(d, desc_a, desc_b, scale_d);
    else if constexpr (N == 32) detail::wgmma_ss_n32<TransA, TransB>(d, desc_a, desc_b, scale_d);
    else if constexpr (N == 64) detail::wgmma_ss_n64<TransA, TransB>(d, desc_a, desc_b, scale_d);
    else if constexpr (N == 128) detail::wgmma_ss_n128<TransA, TransB>(d, desc_a, desc_b, scale_d);
    else detail::wgmma_ss_n256<TransA, TransB>(d, desc_a, desc_b, scale_d);
#else
    (void)d, (void)desc_a, (void)desc_b, (void)scale_d;
    tk::hopper_only_trap();
#endif
#else
    tklab::sim::LaneOp op{tklab::sim::Op::wgmma};
    op.wgmma_flags = uint8_t((TransA ? tklab::sim::wgmma_trans_a : 0) | (TransB ? tklab::sim::wgmma_trans_b : 0));
    op.n = N; op.accumulate = scale_d != 0;
    op.desc[0] = desc_a; op.desc[1] = desc_b; op.out = d;
    op.file = loc.file; op.line = loc.line;
    tklab::sim::issue(op);
#endif
}

// The same with A from registers: a = this warp's 16 x 16 slice of A in
// mma.sync's A fragment (an rt_bf<16, 16>'s four packed pairs).
template <int N, int TransB>
TK_DEVICE void wgmma_rs(float* d, const uint32_t (&a)[4], uint64_t desc_b, int scale_d, TK_LOC) {
    static_assert(wgmma_n_supported<N>, "wgmma: N must be 16, 32, 64, 128 or 256 (scripts/dev/gen_wgmma_ptx.py lists them)");
#if defined(TK_GPU)
#if defined(TK_HOPPER)
    if constexpr (N == 16) detail::wgmma_rs_n16<TransB>(d, a, desc_b, scale_d);
    else if constexpr (N == 32) detail::wgmma_rs_n32<TransB>(d, a, desc_b, scale_d);
    else if constexpr (N == 64) detail::wgmma_rs_n64<TransB>(d, a, desc_b, scale_d);
    else if constexpr (N == 128) detail::wgmma_rs_n128<TransB>(d, a, desc_b, scale_d);
    else detail::wgmma_rs_n256<TransB>(d, a, desc_b, scale_d);
#else
    (void)d, (void)a, (void)desc_b, (void)scale_d;
    tk::hopper_only_trap();
#endif
#else
    tklab::sim::LaneOp op{tklab::sim::Op::wgmma};
    op.wgmma_flags = uint8_t(tklab::sim::wgmma_a_in_registers | (TransB ? tklab::sim::wgmma_trans_b : 0));
    op.n = N; op.accumulate = scale_d != 0;
    op.in[0] = a; op.desc[1] = desc_b; op.out = d;
    op.file = loc.file; op.line = loc.line;
    tklab::sim::issue(op);
#endif
}

// Orders this thread's earlier register and shared-memory writes before the
// wgmmas that follow (required before the first wgmma that reads them).
TK_DEVICE void wgmma_fence(TK_LOC) {
#if defined(TK_GPU)
#if defined(TK_HOPPER)
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#else
    tk::hopper_only_trap();
#endif
#else
    tklab::sim::LaneOp op{tklab::sim::Op::wgmma_fence};
    op.file = loc.file; op.line = loc.line;
    tklab::sim::issue(op);
#endif
}

TK_DEVICE void wgmma_commit_group(TK_LOC) {
#if defined(TK_GPU)
#if defined(TK_HOPPER)
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
#else
    tk::hopper_only_trap();
#endif
#else
    tklab::sim::LaneOp op{tklab::sim::Op::wgmma_commit};
    op.file = loc.file; op.line = loc.line;
    tklab::sim::issue(op);
#endif
}

// Waits until at most N committed wgmma groups are still in flight.
template <int N>
TK_DEVICE void wgmma_wait_group(TK_LOC) {
#if defined(TK_GPU)
#if defined(TK_HOPPER)
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
#else
    tk::hopper_only_trap();
#endif
#else
    tklab::sim::LaneOp op{tklab::sim::Op::wgmma_wait};
    op.pending = N; op.file = loc.file; op.line = loc.line;
    tklab::sim::issue(op);
#endif
}

// Register reallocation between warpgroups: every thread of the warpgroup
// asks for the same count (24..256, a multiple of 8). A producer warpgroup
// gives registers up (.dec) so consumers can take them (.inc).
template <int Registers, bool Increase>
TK_DEVICE void setmaxnreg(TK_LOC) {
    static_assert(Registers >= 24 && Registers <= 256 && Registers % 8 == 0, "setmaxnreg: the count must be 24..256 and a multiple of 8");
#if defined(TK_GPU)
#if defined(TK_HOPPER)
    if constexpr (Increase) asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(Registers));
    else asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(Registers));
#else
    tk::hopper_only_trap();
#endif
#else
    tklab::sim::LaneOp op{tklab::sim::Op::setmaxnreg};
    op.registers = Registers; op.increase = Increase;
    op.file = loc.file; op.line = loc.line;
    tklab::sim::issue(op);
#endif
}

} // namespace tk::arch
