// The cost of a tile op's per-lane register arithmetic. On the GPU the
// arithmetic is the op's own code and this is nothing; in the simulator,
// where native C++ costs no simulated time, it is one `alu` instruction that
// stands for n elements of the kind's instructions, priced per element by
// the cost model's "alu" figures (measured on the GPU: bench/calibrate/alu.cu).
// The tile ops call it once per op (tk/ops/warp/register/), after their
// element function ran: the tk::arch intrinsics that function called
// (ex2_approx, counted per lane by the simulator) are charged here too, at
// their kind's rate. A kernel's own scalar arithmetic stays unpriced.
#pragma once
#include "tk/common/base.h"

namespace tk::arch {

#if defined(TK_GPU)
enum class alu_kind { simple, exp, exp2, log, div, convert };
#else
using alu_kind = tklab::sim::AluKind;
#endif

namespace detail {
// `reads_registers` false: the elements are written from nothing (a fill),
// so the instructions wait for no load.
TK_DEVICE void issue_alu(alu_kind kind, int elements, bool reads_registers, src_loc loc) {
#if defined(TK_GPU)
    (void)kind, (void)elements, (void)reads_registers, (void)loc;
#else
    auto charge = [&](tklab::sim::AluKind k, uint32_t n) {
        if (n == 0) return;
        tklab::sim::LaneOp op{tklab::sim::Op::alu};
        op.alu_kind = k;
        op.n = n;
        op.no_sources = !reads_registers;
        op.file = loc.file; op.line = loc.line;
        tklab::sim::issue(op);
    };
    const uint32_t n = elements > 0 ? uint32_t(elements) : 0u;
    charge(kind, n);
    // tk::exp2 itself calls ex2_approx once an element: its kind's price has them.
    uint32_t calls = tklab::sim::take_intrinsics(tklab::sim::AluKind::exp2);
    if (kind == tklab::sim::AluKind::exp2) calls = calls > n ? calls - n : 0u;
    charge(tklab::sim::AluKind::exp2, calls);
#endif
}

} // namespace detail

TK_DEVICE void alu(alu_kind kind, int elements, TK_LOC) { detail::issue_alu(kind, elements, true, loc); }
// A fill's arithmetic: it reads no registers.
TK_DEVICE void alu_fill(alu_kind kind, int elements, TK_LOC) { detail::issue_alu(kind, elements, false, loc); }

} // namespace tk::arch
