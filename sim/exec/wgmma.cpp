// Warpgroup instructions (sm_90): wgmma.mma_async (descriptors decoded into
// the PTX ISA's canonical layouts, timed on the sub-partitions' tensor pipes),
// its fence, commit and wait groups, and setmaxnreg.
#include "sim/exec/executor.h"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace tklab::sim {

namespace {

double bf16_at(const char* p) {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return bits16_to_float(h, false);
}

} // namespace

void Executor::warpgroup(Op op) {
    switch (op) {
    case Op::wgmma: wgmma(); break;
    case Op::wgmma_fence: w_.clock = t_ + cost_.issue_cycles; break;
    case Op::wgmma_commit: wgmma_commit(); break;
    case Op::wgmma_wait: wgmma_wait(); break;
    case Op::setmaxnreg: setmaxnreg(); break;
    default: break;
    }
}

void Executor::check_full_warpgroup(const char* what) {
    const int first = w_.id / 4 * 4;
    const int have = std::min(int(b_.warps.size()) - first, 4);
    bool full = have == 4;
    for (int i = 0; full && i < 4; ++i) full = b_.warps[size_t(first + i)].exists == 0xffffffffu;
    if (!full) {
        std::ostringstream s;
        s << what << " is a warpgroup instruction, but warp " << w_.id << " is in warpgroup " << w_.id / 4
          << ", which does not have 4 whole warps in this block of " << b_.threads.size() << " threads";
        fault(*t0_, s.str(), "launch blocks whose thread count is a multiple of 128 (whole warpgroups)");
    }
}

Executor::Descriptor Executor::decode_descriptor(uint64_t d, const char* which) {
    Descriptor r;
    r.start = uint32_t(d & 0x3FFF) << 4;
    r.lbo = uint32_t((d >> 16) & 0x3FFF) << 4;
    r.sbo = uint32_t((d >> 32) & 0x3FFF) << 4;
    const uint32_t base = uint32_t(d >> 49) & 7, mode = uint32_t(d >> 62);
    if (base != 0)
        fault(*t0_, std::string("wgmma's ") + which + " descriptor " + hex(d) + " has base offset " + std::to_string(base) +
                        "; the simulator models base offset 0 only (operands in swizzle-aligned tiles)",
              "keep shared tiles 1024-byte aligned (tk::shared_allocator does) and build descriptors with make_wgmma_descriptor");
    r.swizzle = mode == 1 ? 128 : mode == 2 ? 64 : mode == 3 ? 32 : 0;
    return r;
}

// Shared byte address of element (mn, k) of an operand, following the
// PTX ISA's canonical layouts (T = 16 bytes, S = the swizzle span):
//   K-major:  8-row groups SBO apart; swizzled rows S bytes apart, else 8x8 core matrices (k groups LBO apart);
//   MN-major: 8-k groups SBO apart; swizzled span-wide mn blocks LBO apart, else core matrices (mn groups SBO, k groups LBO).
uint32_t Executor::operand_address(const Descriptor& d, int mn, int k, bool mn_major, const char* which, uint64_t raw) {
    const uint32_t S = d.swizzle;
    uint64_t a;
    if (!mn_major) {
        a = S ? uint64_t(d.start) + uint64_t(mn / 8) * d.sbo + uint64_t(mn % 8) * S + uint64_t(k) * 2
              : uint64_t(d.start) + uint64_t(mn / 8) * d.sbo + uint64_t(k / 8) * d.lbo + uint64_t(mn % 8) * 16 + uint64_t(k % 8) * 2;
    } else {
        const int span = int(S / 2);
        a = S ? uint64_t(d.start) + uint64_t(mn / span) * d.lbo + uint64_t(mn % span) * 2 + uint64_t(k / 8) * d.sbo + uint64_t(k % 8) * S
              : uint64_t(d.start) + uint64_t(mn / 8) * d.sbo + uint64_t(mn % 8) * 2 + uint64_t(k / 8) * d.lbo + uint64_t(k % 8) * 16;
    }
    if (a + 2 > b_.smem_bytes) {
        std::ostringstream s;
        s << "wgmma's " << which << " descriptor " << hex(raw) << " (start " << hex(d.start) << ", LBO " << d.lbo << ", SBO " << d.sbo
          << ", swizzle " << S << ") addresses element (" << (which[0] == 'A' ? "m " : "n ") << mn << ", k " << k << ") at shared address "
          << hex(a) << ", outside the block's " << b_.smem_bytes << " bytes of shared memory";
        fault(*t0_, s.str(), "build descriptors from shared tiles (tk::warpgroup::mma does) with the offsets of their layout");
    }
    return swizzle_address(uint32_t(a), S);
}

// This warp's part of a warpgroup's m64nNk16: rows 16(w%4)..+15 of D.
void Executor::wgmma() {
    b_.sm->tensor_clock = true;
    const int N = int(op0_->n);
    if (N < 8 || N > 256 || N % 8 != 0)
        fault(*t0_, "wgmma with N = " + std::to_string(N) + "; bf16 wgmma.m64nNk16 has N = 8, 16, ..., 256 (a multiple of 8)",
              "use a supported N (tk::warpgroup::mma: 16, 32, 64, 128 or 256 columns)");
    check_full_warpgroup("wgmma.mma_async");
    const int q = w_.id % 4;
    const uint8_t flags = op0_->wgmma_flags;
    const bool a_regs = flags & wgmma_a_in_registers, ta = flags & wgmma_trans_a, tb = flags & wgmma_trans_b;
    std::vector<uint32_t> rows;  // core-matrix rows read from shared memory, 8 per matrix
    double A[16][16];
    if (a_regs) {
        for (int l = 0; l < 32; ++l) {
            const uint32_t* a = static_cast<const uint32_t*>(lane_op(l).in[0]);
            const int gid = l / 4, tig = l % 4;
            for (int r = 0; r < 4; ++r) {  // mma.sync's A fragment
                const int row = gid + 8 * (r & 1), col = 2 * tig + 8 * (r >> 1);
                A[row][col] = bits16_to_float(uint16_t(a[r]), false);
                A[row][col + 1] = bits16_to_float(uint16_t(a[r] >> 16), false);
            }
        }
    } else {
        const Descriptor da = decode_descriptor(op0_->desc[0], "A");
        for (int m = 0; m < 16; ++m)
            for (int k = 0; k < 16; ++k) A[m][k] = bf16_at(b_.smem + operand_address(da, 16 * q + m, k, ta, "A", op0_->desc[0]));
        for (int mg = 0; mg < 2; ++mg)  // this warp's 2 x 2 core matrices
            for (int kg = 0; kg < 2; ++kg)
                for (int i = 0; i < 8; ++i)
                    rows.push_back(ta ? operand_address(da, 16 * q + 8 * mg, 8 * kg + i, true, "A", op0_->desc[0])
                                      : operand_address(da, 16 * q + 8 * mg + i, 8 * kg, false, "A", op0_->desc[0]));
    }
    const Descriptor db = decode_descriptor(op0_->desc[1], "B");
    std::vector<double> B(size_t(16) * size_t(N));
    for (int k = 0; k < 16; ++k)
        for (int n = 0; n < N; ++n) B[size_t(k * N + n)] = bf16_at(b_.smem + operand_address(db, n, k, tb, "B", op0_->desc[1]));
    if (q == 0)  // B is read once for the warpgroup: counted with its first warp
        for (int ng = 0; ng < N / 8; ++ng)
            for (int kg = 0; kg < 2; ++kg)
                for (int i = 0; i < 8; ++i)
                    rows.push_back(tb ? operand_address(db, 8 * ng, 8 * kg + i, true, "B", op0_->desc[1])
                                      : operand_address(db, 8 * ng + i, 8 * kg, false, "B", op0_->desc[1]));
    // D: lane l holds, per 8-column group j, d[4j..4j+1] = (row l/4, cols 8j + 2(l%4) + 0..1), d[4j+2..3] = row l/4 + 8.
    std::vector<double> D(size_t(16) * size_t(N), 0.0);
    const bool accumulate = op0_->accumulate;
    if (accumulate)
        for (int l = 0; l < 32; ++l) {
            const float* d = static_cast<const float*>(lane_op(l).out);
            for (int j = 0; j < N / 8; ++j)
                for (int i = 0; i < 4; ++i) D[size_t((l / 4 + 8 * (i >> 1)) * N + 8 * j + 2 * (l % 4) + (i & 1))] = d[4 * j + i];
        }
    for (int m = 0; m < 16; ++m)
        for (int k = 0; k < 16; ++k) {
            const double av = A[m][k];
            double* drow = &D[size_t(m * N)];
            const double* brow = &B[size_t(k * N)];
            for (int n = 0; n < N; ++n) drow[n] += av * brow[n];
        }
    for (int l = 0; l < 32; ++l) {
        float* d = static_cast<float*>(lane_op(l).out);
        for (int j = 0; j < N / 8; ++j)
            for (int i = 0; i < 4; ++i) d[4 * j + i] = float(D[size_t((l / 4 + 8 * (i >> 1)) * N + 8 * j + 2 * (l % 4) + (i & 1))]);
    }
    // The operands are read by the warpgroup's tensor cores, an agent of
    // their own, until a wgmma wait retires this group; what they read
    // must be ordered before the wgmma's issue by this warp.
    if (b_.hooks.finders_on()) {
        const bugs::Accessor cores{b_.hooks.agents().tensor_cores(w_.id), 0, w_.wgmma_commits + 1, 0, &w_.hb, site_};
        for (uint32_t r : rows) access(cores, r, 16, false, *t0_);
    }
    record_rows16(rows);
    // Asynchronous: the sub-partition's tensor pipe takes this warp's
    // 16 x N x 16 multiply-adds at a quarter of the SM's rate; the result
    // is ready `latency` after the pipe finishes. The warp goes on.
    uint64_t& pipe = b_.sm->tensor_free[(b_.warp_base + w_.id) % 4];
    const uint64_t per_partition = uint64_t(std::max(4, cost_.wgmma_fma_per_cycle / 4));
    const uint64_t cycles = (uint64_t(16) * uint64_t(N) * 16 + per_partition - 1) / per_partition;
    pipe = std::max(t_, pipe) + cycles;
    w_.wgmma_open = std::max(w_.wgmma_open, pipe + uint64_t(cost_.wgmma_latency));
    w_.clock = t_ + cost_.issue_cycles;
}

void Executor::wgmma_commit() {
    w_.wgmma_groups.push_back(std::max(w_.wgmma_open, t_));
    ++w_.wgmma_commits;
    w_.wgmma_open = 0;
    w_.clock = t_ + cost_.issue_cycles;
}

void Executor::wgmma_wait() {
    const size_t keep = op0_->pending;
    while (w_.wgmma_groups.size() > keep) {
        // Committed groups have epochs up to wgmma_commits, the oldest first.
        const uint32_t epoch = w_.wgmma_commits - uint32_t(w_.wgmma_groups.size()) + 1;
        // PC sampling on the H100 shows a warp in wgmma.wait_group as
        // `barrier` (results/fidelity_timing_h100.txt: every hot
        // mma_async_wait line of the Hopper GEMM, attention and lesson 10).
        wait_until(w_.wgmma_groups.front(), Stall::barrier);
        w_.wgmma_groups.erase(w_.wgmma_groups.begin());
        // The group's operand reads are over: ordered before what follows.
        if (b_.hooks.finders_on()) b_.hooks.acquire_epoch(w_.hb, b_.hooks.agents().tensor_cores(w_.id), epoch);
    }
    w_.clock = t_ + cost_.issue_cycles;
}

// setmaxnreg: 24..256 in steps of 8, .inc never lowers and .dec never
// raises the limit, and the warps of a warpgroup ask the same counts in the same order.
void Executor::setmaxnreg() {
    const uint32_t n = op0_->registers;
    const bool inc = op0_->increase;
    const char* name = inc ? "setmaxnreg.inc" : "setmaxnreg.dec";
    if (n < 24 || n > 256 || n % 8 != 0)
        fault(*t0_, std::string(name) + " " + std::to_string(n) + ": the count must be 24..256 and a multiple of 8",
              "pass a multiple of 8 between 24 and 256");
    check_full_warpgroup(name);
    if (!w_.maxnreg.empty()) {
        const uint32_t prev = w_.maxnreg.back().first;
        if ((inc && n < prev) || (!inc && n > prev))
            fault(*t0_, std::string(name) + " " + std::to_string(n) + " after a limit of " + std::to_string(prev) + " would " +
                            (inc ? "lower" : "raise") + " it",
                  inc ? "use decrease_registers to give registers up" : "use increase_registers to take registers");
    }
    const size_t nth = w_.maxnreg.size();
    const int first = w_.id / 4 * 4;
    for (int i = first; i < first + 4; ++i) {
        const Warp& o = b_.warps[size_t(i)];
        if (i == w_.id || o.maxnreg.size() <= nth) continue;
        if (o.maxnreg[nth] != std::make_pair(n, inc))
            fault(*t0_, std::string(name) + " " + std::to_string(n) + " is this warp's setmaxnreg number " + std::to_string(nth + 1) +
                            ", but warp " + std::to_string(i) + " of its warpgroup asked " +
                            (o.maxnreg[nth].second ? "setmaxnreg.inc " : "setmaxnreg.dec ") + std::to_string(o.maxnreg[nth].first) + " there",
                  "every warp of a warpgroup must reallocate registers the same way (call it in warpgroup-uniform code)");
    }
    w_.maxnreg.emplace_back(n, inc);
    w_.clock = t_ + cost_.issue_cycles;
}

} // namespace tklab::sim
