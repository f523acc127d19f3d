// ld.global / st.global of 32, 64 and 128 bits per lane, with a cache hint.
#pragma once
#include "tk/common/base.h"

namespace tk::arch {

// How the caches should treat an access. streaming: data touched once (a
// memory-bound kernel's input and output), kept out of L1 so it leaves L1 to
// what is reused; in PTX, .L1::no_allocate (coherent: in-place use is fine).
// On an H200, rotary's loads and stores moved 2% more bytes per second with it.
// The simulator's L1 model follows it for loads (a miss does not allocate).
enum class cache_hint { normal, streaming };

template <int Words, cache_hint Hint = cache_hint::normal>
TK_DEVICE void ld_global(uint32_t (&r)[Words], const void* p, TK_LOC) {
    static_assert(Words == 1 || Words == 2 || Words == 4, "ld.global moves 1, 2 or 4 32-bit words per lane");
#if defined(TK_GPU)
#define TK_LD_GLOBAL(q)                                                                                                       \
    if constexpr (Words == 1) asm volatile("ld.global" q ".b32 %0, [%1];" : "=r"(r[0]) : "l"(p));                              \
    else if constexpr (Words == 2) asm volatile("ld.global" q ".v2.b32 {%0, %1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "l"(p));    \
    else asm volatile("ld.global" q ".v4.b32 {%0, %1, %2, %3}, [%4];" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "l"(p));
    if constexpr (Hint == cache_hint::streaming) { TK_LD_GLOBAL(".L1::no_allocate") }
    else { TK_LD_GLOBAL("") }
#undef TK_LD_GLOBAL
#else
    tklab::sim::LaneOp op{tklab::sim::Op::ld_global};
    op.bytes = Words * 4; op.gptr = p; op.file = loc.file; op.line = loc.line;
    op.no_allocate = Hint == cache_hint::streaming;
    tklab::sim::issue(op);
    for (int i = 0; i < Words; ++i) r[i] = op.data[i];
#endif
}

template <int Words, cache_hint Hint = cache_hint::normal>
TK_DEVICE void st_global(void* p, const uint32_t (&v)[Words], TK_LOC) {
    static_assert(Words == 1 || Words == 2 || Words == 4, "st.global moves 1, 2 or 4 32-bit words per lane");
#if defined(TK_GPU)
#define TK_ST_GLOBAL(q)                                                                                                       \
    if constexpr (Words == 1) asm volatile("st.global" q ".b32 [%0], %1;" ::"l"(p), "r"(v[0]) : "memory");                     \
    else if constexpr (Words == 2) asm volatile("st.global" q ".v2.b32 [%0], {%1, %2};" ::"l"(p), "r"(v[0]), "r"(v[1]) : "memory"); \
    else asm volatile("st.global" q ".v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v[0]), "r"(v[1]), "r"(v[2]), "r"(v[3]) : "memory");
    if constexpr (Hint == cache_hint::streaming) { TK_ST_GLOBAL(".L1::no_allocate") }
    else { TK_ST_GLOBAL("") }
#undef TK_ST_GLOBAL
#else
    tklab::sim::LaneOp op{tklab::sim::Op::st_global};
    op.bytes = Words * 4; op.gptr = p; op.file = loc.file; op.line = loc.line;
    for (int i = 0; i < Words; ++i) op.data[i] = v[i];
    tklab::sim::issue(op);
#endif
}

TK_DEVICE uint16_t ld_global_b16(const void* p, TK_LOC) {
#if defined(TK_GPU)
    uint16_t r;
    asm volatile("ld.global.b16 %0, [%1];" : "=h"(r) : "l"(p));
    return r;
#else
    tklab::sim::LaneOp op{tklab::sim::Op::ld_global};
    op.bytes = 2; op.gptr = p; op.file = loc.file; op.line = loc.line;
    tklab::sim::issue(op);
    return uint16_t(op.data[0]);
#endif
}
TK_DEVICE void st_global_b16(void* p, uint16_t v, TK_LOC) {
#if defined(TK_GPU)
    asm volatile("st.global.b16 [%0], %1;" ::"l"(p), "h"(v) : "memory");
#else
    tklab::sim::LaneOp op{tklab::sim::Op::st_global};
    op.bytes = 2; op.gptr = p; op.data[0] = v; op.file = loc.file; op.line = loc.line;
    tklab::sim::issue(op);
#endif
}

} // namespace tk::arch
