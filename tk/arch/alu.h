// The cost of a tile op's per-lane register arithmetic. On the GPU the
// arithmetic is the op's own code and this is nothing; in the simulator,
// where native C++ costs no simulated time, it is one `alu` instruction that
// stands for n elements of the kind's instructions, priced per element by
// the cost model's "alu" figures (measured on the GPU: bench/calibrate/alu.cu).
// The tile ops call it once per op (tk/ops/warp/register/); a kernel's own
// scalar arithmetic stays unpriced.
#pragma once
#include "tk/common/base.h"

namespace tk::arch {

#if defined(TK_GPU)
enum class alu_kind { simple, exp, exp2, log, div, convert };
#else
using alu_kind = tklab::sim::AluKind;
#endif

TK_DEVICE void alu(alu_kind kind, int elements, TK_LOC) {
#if defined(TK_GPU)
    (void)kind, (void)elements, (void)loc;
#else
    if (elements <= 0) return;
    tklab::sim::LaneOp op{tklab::sim::Op::alu};
    op.alu_kind = kind;
    op.n = uint32_t(elements);
    op.file = loc.file; op.line = loc.line;
    tklab::sim::issue(op);
#endif
}

} // namespace tk::arch
