// ldmatrix / stmatrix .x1/.x2/.x4 (.trans): 8x8 matrices of 16-bit elements
// between shared memory and mma fragments. Lane 8i+j supplies the address of
// row j of matrix i; each lane receives one 32-bit register per matrix.
#pragma once
#include "tk/common/base.h"

namespace tk::arch {

// `tile`: the shared tile's base address when a tile op loads from one (the
// simulator's model of nvcc's address arithmetic); `reg_tile`: the register
// sub-tile the loaded words go to (an mma that reads it waits for them, one
// that does not, not). The GPU ignores both.
template <int N, bool Trans = false>
TK_DEVICE void ldmatrix(uint32_t (&r)[N], uint32_t addr, TK_LOC, uint32_t tile = ~0u, const void* reg_tile = nullptr) {
    static_assert(N == 1 || N == 2 || N == 4, "ldmatrix loads 1, 2 or 4 matrices (.x1/.x2/.x4)");
#if defined(TK_GPU)
    (void)tile; (void)reg_tile;
    if constexpr (N == 1) {
        if constexpr (Trans) asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(addr));
        else asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(addr));
    } else if constexpr (N == 2) {
        if constexpr (Trans) asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(addr));
        else asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(addr));
    } else {
        if constexpr (Trans) asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
        else asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
    }
#else
    tklab::sim::LaneOp op{tklab::sim::Op::ldmatrix};
    op.matrices = N; op.transpose = Trans; op.addr = addr; op.tile = tile; op.reg_tile[0] = reg_tile; op.file = loc.file; op.line = loc.line;
    tklab::sim::issue(op);
    for (int i = 0; i < N; ++i) r[i] = op.data[i];
#endif
}

// stmatrix exists on sm_90 and later; the sm_80 tile stores use st.shared.
template <int N, bool Trans = false>
TK_DEVICE void stmatrix(uint32_t addr, const uint32_t (&v)[N], TK_LOC, uint32_t tile = ~0u) {
    static_assert(N == 1 || N == 2 || N == 4, "stmatrix stores 1, 2 or 4 matrices (.x1/.x2/.x4)");
#if defined(TK_GPU)
    (void)tile;
#if defined(TK_SM90)
    if constexpr (N == 1) {
        if constexpr (Trans) asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" ::"r"(addr), "r"(v[0]) : "memory");
        else asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" ::"r"(addr), "r"(v[0]) : "memory");
    } else if constexpr (N == 2) {
        if constexpr (Trans) asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" ::"r"(addr), "r"(v[0]), "r"(v[1]) : "memory");
        else asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};" ::"r"(addr), "r"(v[0]), "r"(v[1]) : "memory");
    } else {
        if constexpr (Trans) asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(v[0]), "r"(v[1]), "r"(v[2]), "r"(v[3]) : "memory");
        else asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(v[0]), "r"(v[1]), "r"(v[2]), "r"(v[3]) : "memory");
    }
#else
    (void)addr; (void)v; tk::hopper_only_trap();  // stmatrix needs sm_90; never reached from sm_80 tile code
#endif
#else
    tklab::sim::LaneOp op{tklab::sim::Op::stmatrix};
    op.matrices = N; op.transpose = Trans; op.addr = addr; op.tile = tile; op.file = loc.file; op.line = loc.line;
    for (int i = 0; i < N; ++i) op.data[i] = v[i];
    tklab::sim::issue(op);
#endif
}

} // namespace tk::arch
