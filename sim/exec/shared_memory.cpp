// Shared memory: ld.shared / st.shared of 1..16 bytes per lane, and
// ldmatrix / stmatrix (8x8 matrices of 16-bit values, one 16-byte row per
// lane). Bank conflicts are counted by the hardware's rule (sim/banks.h) and
// cost time on the block's shared-memory pipe (mio_throttle).
#include "sim/exec/executor.h"

#include <cstring>

namespace tklab::sim {

void Executor::shared_memory(Op op) {
    switch (op) {
    case Op::ld_shared: case Op::st_shared: shared_access(op); break;
    case Op::ldmatrix: case Op::stmatrix: matrix_access(op); break;
    default: break;
    }
}

void Executor::shared_access(Op op) {
    const bool load = op == Op::ld_shared;
    const uint32_t bytes = op0_->bytes;
    uint32_t addr[32] = {};
    for_lanes([&](int l) {
        addr[l] = lane_op(l).addr;
        check_shared(b_, lane(l), addr[l], bytes, load ? "load" : "store");
    });
    for_lanes([&](int l) { access(lane_accessor(l), addr[l], bytes, !load, lane(l)); });
    BankAnalysis ba = analyze_access(mask_, addr, int(bytes));
    uint64_t end = use_smem_pipe(ba.wavefronts);
    for_lanes([&](int l) {
        if (load) std::memcpy(lane_op(l).data, b_.smem + addr[l], bytes);
        else std::memcpy(b_.smem + addr[l], lane_op(l).data, bytes);
    });
    if (load) note_load(end + cost_.shared_latency, Stall::short_scoreboard, (bytes + 3) / 4);
    w_.clock = t_ + cost_.issue_cycles;
    record_smem(ba, addr);
}

void Executor::matrix_access(Op op) {
    const bool load = op == Op::ldmatrix;
    const int n = op0_->matrices;
    const bool trans = op0_->transpose;
    uint32_t addr[32] = {};
    const uint32_t need = n == 4 ? 0xffffffffu : (n == 2 ? 0xffffu : 0xffu);
    for (int l = 0; l < 32; ++l) {
        if (!(need >> l & 1)) continue;
        addr[l] = lane_op(l).addr;
        check_shared(b_, lane(l), addr[l], 16, load ? "ldmatrix row read" : "stmatrix row write");
    }
    for (int l = 0; l < 32; ++l)
        if (need >> l & 1) access(lane_accessor(l), addr[l], 16, !load, lane(l));
    BankAnalysis ba = analyze_matrix(mask_, addr, n);
    uint64_t end = use_smem_pipe(ba.wavefronts, !load);
    // Matrix i, row r lives at addr[8i+r] as 8 16-bit values.
    for (int i = 0; i < n; ++i) {
        for (int l = 0; l < 32; ++l) {
            uint32_t& reg = lane_op(l).data[i];
            if (!trans) {
                uint8_t* p = reinterpret_cast<uint8_t*>(b_.smem + addr[8 * i + l / 4] + 4 * (l % 4));
                if (load) std::memcpy(&reg, p, 4);
                else std::memcpy(p, &reg, 4);
            } else {
                // Transposed: this lane's pair is column l/4 of rows 2(l%4) and 2(l%4)+1.
                uint8_t* lo = reinterpret_cast<uint8_t*>(b_.smem + addr[8 * i + 2 * (l % 4)] + 2 * (l / 4));
                uint8_t* hi = reinterpret_cast<uint8_t*>(b_.smem + addr[8 * i + 2 * (l % 4) + 1] + 2 * (l / 4));
                if (load) {
                    uint16_t a, c;
                    std::memcpy(&a, lo, 2);
                    std::memcpy(&c, hi, 2);
                    reg = uint32_t(a) | (uint32_t(c) << 16);
                } else {
                    uint16_t a = uint16_t(reg), c = uint16_t(reg >> 16);
                    std::memcpy(lo, &a, 2);
                    std::memcpy(hi, &c, 2);
                }
            }
        }
    }
    if (load) note_load(end + cost_.ldmatrix_latency, Stall::short_scoreboard, uint32_t(op0_->matrices), op0_->reg_tile[0]);
    w_.clock = t_ + cost_.issue_cycles;
    record_smem(ba, addr);
}

} // namespace tklab::sim
