// The special-function unit's fast approximations, where a library function
// would cost several instructions more (exp2f handles subnormal results with
// extra scaling around the one MUFU.EX2 that does the work).
//
//   ex2_approx(x)   2^x as ex2.approx.ftz.f32: at most 2 ulp off (PTX ISA),
//                   results below 2^-126 flushed to zero, 2^-inf = +0.
//
// The simulator computes the same function with exp2f and flushes the same way,
// and counts the call: the tile op whose lambda made it is charged for it.
#pragma once
#include <cmath>
#include "tk/common/base.h"

namespace tk::arch {

TK_HOST_DEVICE float ex2_approx(float x) {
#if defined(__CUDA_ARCH__)
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
#else
#if defined(TK_SIM)
    tklab::sim::note_intrinsic(tklab::sim::AluKind::exp2);  // priced with the op that called it (tk/arch/alu.h)
#endif
    const float y = ::exp2f(x);
    return y < 0x1p-126f ? 0.0f : y;  // NaN compares false and passes through
#endif
}

} // namespace tk::arch
