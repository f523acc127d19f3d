// mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}.{bf16,f16}.f32
// a: 4 registers (8 16-bit values), b: 2 registers, c/d: 4 floats, laid out
// as the PTX ISA's fragment figures for m16n8k16 describe.
#pragma once
#include "tk/common/base.h"

namespace tk::arch {

// `a_tile`, `b_tile`: the register sub-tiles a tile op took A and B from
// (the simulator waits only for loads into those; without them, for every
// load still in flight). The GPU ignores them.
template <bool Half = false>
TK_DEVICE void mma_m16n8k16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2], const float (&c)[4], TK_LOC,
                            const void* a_tile = nullptr, const void* b_tile = nullptr) {
#if defined(TK_GPU)
    (void)a_tile; (void)b_tile;
    if constexpr (Half)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                     : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
    else
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                     : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
#else
    tklab::sim::LaneOp op{tklab::sim::Op::mma};
    op.mma_type = Half ? tklab::sim::MmaType::f16 : tklab::sim::MmaType::bf16;
    op.in[0] = a; op.in[1] = b; op.in[2] = c; op.out = d;
    op.reg_tile[0] = a_tile; op.reg_tile[1] = b_tile;
    op.file = loc.file; op.line = loc.line;
    tklab::sim::issue(op);
#endif
}

} // namespace tk::arch
