// mbarrier: init, arrive, and waiting on a phase's parity (sm_80), plus
// transaction counts (sm_90): a phase completes when its arrivals are all in
// AND the bytes it was told to expect have all landed (bulk copies count them
// down as they complete). The barrier is an 8-byte object in shared memory,
// addressed by its shared address.
#pragma once
#include "tk/common/base.h"

namespace tk::arch {

TK_DEVICE void mbarrier_init(uint32_t bar, uint32_t count, TK_LOC) {
#if defined(TK_GPU)
    asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
#else
    tklab::sim::LaneOp op{tklab::sim::Op::mbar_init};
    op.addr = bar; op.count = count; op.file = loc.file; op.line = loc.line;
    tklab::sim::issue(op);
#endif
}

TK_DEVICE void mbarrier_arrive(uint32_t bar, TK_LOC) {
#if defined(TK_GPU)
    asm volatile("{ .reg .b64 st; mbarrier.arrive.shared.b64 st, [%0]; }" ::"r"(bar) : "memory");
#else
    tklab::sim::LaneOp op{tklab::sim::Op::mbar_arrive};
    op.addr = bar; op.file = loc.file; op.line = loc.line;
    tklab::sim::issue(op);
#endif
}

// True when the phase with this parity has completed; never blocks.
TK_DEVICE bool mbarrier_test_wait(uint32_t bar, uint32_t parity, TK_LOC) {
#if defined(TK_GPU)
    uint32_t done;
    asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(bar), "r"(parity) : "memory");
    return done != 0;
#else
    tklab::sim::LaneOp op{tklab::sim::Op::mbar_test_wait};
    op.addr = bar; op.parity = parity; op.file = loc.file; op.line = loc.line;
    tklab::sim::issue(op);
    return op.data[0] != 0;
#endif
}

// Adds `bytes` to the transaction count the current phase waits for, and
// (Arrive) counts this thread's arrival too: mbarrier.arrive.expect_tx.
template <bool Arrive>
TK_DEVICE void mbarrier_expect_tx(uint32_t bar, uint32_t bytes, TK_LOC) {
#if defined(TK_GPU)
#if defined(TK_SM90)
    if constexpr (Arrive) asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
    else asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
#else
    (void)bar, (void)bytes;
    tk::hopper_only_trap();
#endif
#else
    tklab::sim::LaneOp op{tklab::sim::Op::mbar_expect_tx};
    op.addr = bar; op.tx_bytes = bytes; op.arrive = Arrive; op.file = loc.file; op.line = loc.line;
    tklab::sim::issue(op);
#endif
}

// Blocks until the phase with this parity has completed. The simulator parks
// the warp instead of spinning, so a phase that never completes is a deadlock
// it can report rather than a hang.
TK_DEVICE void mbarrier_wait(uint32_t bar, uint32_t parity, TK_LOC) {
#if defined(TK_GPU)
#if defined(TK_SM90)
    // try_wait suspends the thread for a while in hardware instead of spinning.
    uint32_t done = 0;
    while (!done)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(bar), "r"(parity) : "memory");
#else
    while (!mbarrier_test_wait(bar, parity, loc)) {}
#endif
#else
    tklab::sim::LaneOp op{tklab::sim::Op::mbar_wait};
    op.addr = bar; op.parity = parity; op.file = loc.file; op.line = loc.line;
    tklab::sim::issue(op);
#endif
}

} // namespace tk::arch
