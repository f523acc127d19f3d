// bar.sync / bar.arrive with a barrier id and thread count, __syncthreads, __syncwarp.
#pragma once
#include "tk/common/base.h"

namespace tk::arch {

// Waits until `threads` threads (a multiple of 32; 0 = the whole block) have
// arrived at barrier `id` (0..15).
TK_DEVICE void bar_sync(int id, int threads, TK_LOC) {
#if defined(TK_GPU)
    if (threads == 0) asm volatile("bar.sync %0;" ::"r"(id) : "memory");
    else asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
#else
    tklab::sim::LaneOp op{tklab::sim::Op::bar_sync};
    op.barrier = uint32_t(id); op.count = uint32_t(threads); op.file = loc.file; op.line = loc.line;
    tklab::sim::issue(op);
#endif
}

// Counts this warp as arrived at barrier `id` without waiting (producers).
TK_DEVICE void bar_arrive(int id, int threads, TK_LOC) {
#if defined(TK_GPU)
    asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
#else
    tklab::sim::LaneOp op{tklab::sim::Op::bar_arrive};
    op.barrier = uint32_t(id); op.count = uint32_t(threads); op.file = loc.file; op.line = loc.line;
    tklab::sim::issue(op);
#endif
}

TK_DEVICE void syncthreads(TK_LOC) { bar_sync(0, 0, loc); }

TK_DEVICE void syncwarp(uint32_t mask = 0xffffffffu, TK_LOC) {
#if defined(TK_GPU)
    __syncwarp(mask);
#else
    tklab::sim::LaneOp op{tklab::sim::Op::syncwarp};
    op.mask = mask; op.file = loc.file; op.line = loc.line;
    tklab::sim::issue(op);
#endif
}

} // namespace tk::arch

#if defined(TK_SIM)
// Kernels written in plain CUDA style keep working in the simulator.
inline void __syncthreads(TK_LOC) { tk::arch::syncthreads(loc); }
inline void __syncwarp(uint32_t mask = 0xffffffffu, TK_LOC) { tk::arch::syncwarp(mask, loc); }
#endif
