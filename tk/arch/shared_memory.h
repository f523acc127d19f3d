// ld.shared / st.shared of 32, 64 and 128 bits, and shared-window addresses.
#pragma once
#include "tk/common/base.h"

namespace tk::arch {

// The 32-bit shared-window address of a pointer into shared memory.
TK_DEVICE uint32_t smem_addr(const void* p, TK_LOC) {
#if defined(TK_GPU)
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
#else
    return tklab::sim::smem_addr(p, loc.file, loc.line);
#endif
}

// Words = 1, 2 or 4 (32, 64 or 128 bits per lane).
template <int Words>
TK_DEVICE void ld_shared(uint32_t (&r)[Words], uint32_t addr, TK_LOC) {
    static_assert(Words == 1 || Words == 2 || Words == 4, "ld.shared moves 1, 2 or 4 32-bit words per lane");
#if defined(TK_GPU)
    if constexpr (Words == 1) asm volatile("ld.shared.b32 %0, [%1];" : "=r"(r[0]) : "r"(addr));
    else if constexpr (Words == 2) asm volatile("ld.shared.v2.b32 {%0, %1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(addr));
    else asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
#else
    tklab::sim::LaneOp op{tklab::sim::Op::ld_shared};
    op.bytes = Words * 4; op.addr = addr; op.file = loc.file; op.line = loc.line;
    tklab::sim::issue(op);
    for (int i = 0; i < Words; ++i) r[i] = op.data[i];
#endif
}

template <int Words>
TK_DEVICE void st_shared(uint32_t addr, const uint32_t (&v)[Words], TK_LOC) {
    static_assert(Words == 1 || Words == 2 || Words == 4, "st.shared moves 1, 2 or 4 32-bit words per lane");
#if defined(TK_GPU)
    if constexpr (Words == 1) asm volatile("st.shared.b32 [%0], %1;" ::"r"(addr), "r"(v[0]) : "memory");
    else if constexpr (Words == 2) asm volatile("st.shared.v2.b32 [%0], {%1, %2};" ::"r"(addr), "r"(v[0]), "r"(v[1]) : "memory");
    else asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(v[0]), "r"(v[1]), "r"(v[2]), "r"(v[3]) : "memory");
#else
    tklab::sim::LaneOp op{tklab::sim::Op::st_shared};
    op.bytes = Words * 4; op.addr = addr; op.file = loc.file; op.line = loc.line;
    for (int i = 0; i < Words; ++i) op.data[i] = v[i];
    tklab::sim::issue(op);
#endif
}

// 16-bit accesses (single elements of bf16/half tiles).
TK_DEVICE uint16_t ld_shared_b16(uint32_t addr, TK_LOC) {
#if defined(TK_GPU)
    uint16_t r;
    asm volatile("ld.shared.b16 %0, [%1];" : "=h"(r) : "r"(addr));
    return r;
#else
    tklab::sim::LaneOp op{tklab::sim::Op::ld_shared};
    op.bytes = 2; op.addr = addr; op.file = loc.file; op.line = loc.line;
    tklab::sim::issue(op);
    return uint16_t(op.data[0]);
#endif
}
TK_DEVICE void st_shared_b16(uint32_t addr, uint16_t v, TK_LOC) {
#if defined(TK_GPU)
    asm volatile("st.shared.b16 [%0], %1;" ::"r"(addr), "h"(v) : "memory");
#else
    tklab::sim::LaneOp op{tklab::sim::Op::st_shared};
    op.bytes = 2; op.addr = addr; op.data[0] = v; op.file = loc.file; op.line = loc.line;
    tklab::sim::issue(op);
#endif
}

TK_DEVICE uint32_t ld_shared_b32(uint32_t addr, TK_LOC) { uint32_t r[1]; ld_shared<1>(r, addr, loc); return r[0]; }
TK_DEVICE void st_shared_b32(uint32_t addr, uint32_t v, TK_LOC) { const uint32_t w[1] = {v}; st_shared<1>(addr, w, loc); }

} // namespace tk::arch
