// Math and shuffles: mma.sync m16n8k16 (bf16 or f16 in, f32 accumulate) on
// each sub-partition's tensor pipe (math_pipe_throttle), and shfl.sync.
#include "sim/exec/executor.h"

#include <algorithm>
#include <cstring>

namespace tklab::sim {

float bits16_to_float(uint16_t h, bool half) {
    uint32_t u;
    if (!half) {
        u = uint32_t(h) << 16;
    } else {
        uint32_t sign = uint32_t(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
        if (exp == 0x1f) u = sign | 0x7f800000u | (man << 13);
        else if (exp != 0) u = sign | ((exp + 112) << 23) | (man << 13);
        else if (man == 0) u = sign;
        else {  // subnormal: normalise
            int e = -1;
            do { man <<= 1; ++e; } while (!(man & 0x400));
            u = sign | (uint32_t(112 - e) << 23) | ((man & 0x3ff) << 13);
        }
    }
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

namespace {

// D += A * B for one m16n8k16 tile. Products of 16-bit values are exact in
// double; summing in double and rounding once stands in for the tensor core's
// wide accumulator. The hottest loop of a GEMM simulation: on x86 the
// compiler also builds an AVX2/FMA version, picked at run time.
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target_clones("avx2", "default")))
#endif
void mma_16x8x16(double (&D)[16][8], const double (&A)[16][16], const double (&B)[16][8]) {
    for (int m = 0; m < 16; ++m)
        for (int k = 0; k < 16; ++k) {
            const double av = A[m][k];
            for (int n = 0; n < 8; ++n) D[m][n] += av * B[k][n];
        }
}

} // namespace

void Executor::math(Op op) {
    switch (op) {
    case Op::mma: mma(); break;
    case Op::shfl: shfl(); break;
    case Op::alu: alu(); break;
    default: break;
    }
}

void Executor::mma() {
    b_.sm->tensor_clock = true;
    const bool half = op0_->mma_type == MmaType::f16;
    // Gather the warp's fragments (PTX ISA m16n8k16 layouts) into plain matrices.
    double A[16][16], B[16][8], D[16][8];
    for (int l = 0; l < 32; ++l) {
        const LaneOp& o = lane_op(l);
        const uint32_t* a = static_cast<const uint32_t*>(o.in[0]);
        const uint32_t* bb = static_cast<const uint32_t*>(o.in[1]);
        const float* c = static_cast<const float*>(o.in[2]);
        const int gid = l / 4, tig = l % 4;
        for (int r = 0; r < 4; ++r) {  // A register r: rows gid (+8 if r odd), cols 2*tig (+8 if r >= 2)
            const int row = gid + 8 * (r & 1), col = 2 * tig + 8 * (r >> 1);
            A[row][col] = bits16_to_float(uint16_t(a[r]), half);
            A[row][col + 1] = bits16_to_float(uint16_t(a[r] >> 16), half);
        }
        for (int r = 0; r < 2; ++r) {  // B register r: rows (k) 2*tig (+8 if r), col (n) gid
            B[2 * tig + 8 * r][gid] = bits16_to_float(uint16_t(bb[r]), half);
            B[2 * tig + 8 * r + 1][gid] = bits16_to_float(uint16_t(bb[r] >> 16), half);
        }
        for (int i = 0; i < 4; ++i) D[gid + 8 * (i >> 1)][2 * tig + (i & 1)] = c[i];
    }
    mma_16x8x16(D, A, B);
    for (int l = 0; l < 32; ++l) {
        float* d = static_cast<float*>(lane_op(l).out);
        const int gid = l / 4, tig = l % 4;
        for (int i = 0; i < 4; ++i) d[i] = float(D[gid + 8 * (i >> 1)][2 * tig + (i & 1)]);
    }
    // An mma that adds into an earlier one's result waits for it: the
    // chain's latency, a fixed interval Nsight calls "wait" (the tile
    // library issues independent chains in between, as ptxas schedules).
    for (const Warp::MmaResult& r : w_.mma_results)
        if (r.acc && r.acc == op0_->in[2]) wait_until(r.ready, Stall::wait);
    // One tensor pipe per sub-partition. Waiting behind the warp's own last
    // mma is the fixed issue interval Nsight calls "wait"; behind another
    // warp's, the pipe is the bottleneck (math_pipe_throttle).
    const int slot = b_.warp_base + w_.id, sub = slot % 4;
    uint64_t& pipe = b_.sm->tensor_free[sub];
    wait_until(pipe, b_.sm->tensor_last[sub] == slot ? Stall::wait : Stall::math_pipe_throttle);
    pipe = t_ + cost_.mma_pipe_cycles;
    b_.sm->tensor_last[sub] = slot;
    // Its result: the accumulator's entry again, or the ring's oldest.
    auto* r = std::find_if(std::begin(w_.mma_results), std::end(w_.mma_results), [&](const Warp::MmaResult& x) { return x.acc == op0_->out; });
    if (r == std::end(w_.mma_results)) {
        r = &w_.mma_results[w_.mma_next];
        w_.mma_next = uint8_t((w_.mma_next + 1) % Warp::kMmaResults);
    }
    *r = {op0_->out, t_ + uint64_t(cost_.mma_latency)};
    w_.clock = t_ + cost_.issue_cycles;
}

// n elements of a tile op's register arithmetic. Alone on its sub-partition a
// warp takes n x latency (its instructions and their dependent waits), of
// which it issues n x instructions; the sub-partition's issue slot gives each
// op n x throughput, in turn, so warps sharing it overlap up to that rate and
// queue beyond it.
void Executor::alu() {
    const CostModel::AluCost& c = cost_.alu[size_t(op0_->alu_kind)];
    const double n = double(op0_->n);
    double& slot = b_.sm->issue_free[size_t((b_.warp_base + w_.id) % 4)];
    slot = std::max(slot, double(t_)) + n * c.throughput;
    arithmetic_stalls(n * c.instructions * double(cost_.issue_cycles), n * std::max(c.latency, c.throughput), slot);
    w_.clock = t_;
}

void Executor::shfl() {
    uint32_t in[32];
    for (int l = 0; l < 32; ++l) in[l] = (mask_ >> l & 1) ? lane_op(l).data[0] : 0;
    for_lanes([&](int l) {
        LaneOp& o = lane_op(l);
        int src = l;
        const int b = int(o.shfl_lane);
        switch (o.shfl_mode) {
        case ShflMode::idx: src = b & 31; break;
        case ShflMode::up: src = l - b >= 0 ? l - b : l; break;
        case ShflMode::down: src = l + b <= 31 ? l + b : l; break;
        case ShflMode::bfly: src = l ^ (b & 31); break;
        }
        // Reading a lane outside the exchange is undefined on the GPU: a
        // misuse (with the sync finder off, the lane keeps its own value).
        if (!(mask_ >> src & 1) && b_.checks.sync)
            fault_kind(ErrorKind::sync_misuse, lane(l),
                       "shfl.sync: lane " + std::to_string(l) + " reads lane " + std::to_string(src) + ", which its member mask " +
                           hex(o.mask) + " leaves out" + (w_.exists >> src & 1 ? "" : " (this warp has no such lane)") +
                           ": the value it gets is undefined on the GPU",
                       "name in the member mask every lane the shuffle reads from (for a half-warp mask, keep the xor offset "
                       "or the source lane inside that half), or shuffle with the full mask");
        o.data[0] = (mask_ >> src & 1) ? in[src] : in[l];
    });
    note_load(t_ + cost_.shfl_latency, Stall::short_scoreboard, 1);
    w_.clock = t_ + cost_.issue_cycles;
}

} // namespace tklab::sim
