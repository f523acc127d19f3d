// Register-level helpers for packed 16-bit pairs, where how the compiler
// holds them matters to wgmma.
//
//   cvt_pack<T>(x, y)   two floats rounded (RNE) to T = bf16 or half, packed
//                       into one 32-bit word with x in the low half: one
//                       cvt.rn.{bf16x2,f16x2}.f32 on the GPU.
//   pin_register(r)     r exists as one 32-bit register at this point: the
//                       compiler may not move its computation later (an
//                       empty asm that reads and writes it).
//
// Why: a wgmma reads its A operand from registers, and ptxas must fence and
// wait for each wgmma of a group on its own when any of those registers is
// written after the group's wgmma.fence. Left alone, the compiler may keep a
// bf16 tile as 16-bit halves and pair them up (or move them into place) right
// at each wgmma, after the fence; the attention kernel then ran 10-20% slower.
// The simulator rounds the same way and has nothing to pin.
#pragma once
#include "tk/common/base.h"
#include "tk/common/dtypes.h"

namespace tk::arch {

template <typename T>
TK_HOST_DEVICE uint32_t cvt_pack(float x, float y) {
    static_assert(std::is_same_v<T, bf16> || std::is_same_v<T, half>, "tk::arch::cvt_pack: T must be bf16 or half");
#if defined(__CUDA_ARCH__)
    uint32_t w;
    if constexpr (std::is_same_v<T, bf16>) asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(y), "f"(x));
    else asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(y), "f"(x));
    return w;
#else
    return uint32_t(as_bits(from_float<T>(x))) | (uint32_t(as_bits(from_float<T>(y))) << 16);
#endif
}

TK_DEVICE void pin_register(uint32_t& r) {
#if defined(TK_GPU)
    asm volatile("" : "+r"(r)::"memory");
#else
    (void)r;
#endif
}

} // namespace tk::arch
