#include "sim/banks.h"
#include "sim/api.h"

#include <algorithm>
#include <bit>

namespace tklab::sim {
namespace {

// Adds one phase to `out`: lanes [first, first + nlanes) each touch `wpl` consecutive
// words starting at addr/4. Every shape has nlanes * wpl <= 32, so one phase touches at
// most 32 distinct words and fixed stack arrays suffice (no allocation on this hot path).
// Phases without an active lane cost nothing and are not part of `ideal`.
void add_phase(BankAnalysis& out, uint32_t mask, const uint32_t addr[32],
               int first, int nlanes, int wpl) {
    // Distinct words of this phase, chained per bank so that a new word is only compared
    // with earlier words of its own bank (cheap unless the bank is already conflicted).
    uint32_t word[32];
    int8_t next[32];
    int8_t head[32];
    uint8_t per_bank[32] = {};   // distinct words per bank in this phase
    for (int8_t& h : head) h = -1;
    int nseen = 0;
    for (int l = first; l < first + nlanes; ++l) {
        if (!((mask >> l) & 1u)) continue;
        for (int k = 0; k < wpl; ++k) {
            const uint32_t w = addr[l] / 4 + uint32_t(k);
            const uint32_t b = w % 32;
            // A word already requested in this phase is a broadcast, not a conflict.
            bool dup = false;
            for (int i = head[b]; i >= 0 && !dup; i = next[i]) dup = (word[i] == w);
            if (dup) continue;
            word[nseen] = w;
            next[nseen] = head[b];
            head[b] = int8_t(nseen++);
            ++per_bank[b];
        }
    }
    if (nseen == 0) return;
    // Each wavefront serves one word per bank, so the busiest bank sets the count.
    uint8_t worst = 0;
    for (int b = 0; b < 32; ++b) {
        if (per_bank[b] > worst) worst = per_bank[b];
        out.bank_words[b] = uint8_t(out.bank_words[b] + per_bank[b]);
    }
    out.wavefronts = uint16_t(out.wavefronts + worst);
    out.ideal = uint16_t(out.ideal + 1);
    if (worst > out.max_way) out.max_way = worst;
}

}  // namespace

BankPhases access_phases(int bytes) {
    // Sub-word accesses (1, 2 bytes) count as their containing word, so lanes in the
    // same word broadcast. Wider accesses are split into phases that each move at most
    // 128 bytes: 8 bytes -> 2 phases of 16 lanes, 16 bytes -> 4 phases of 8 lanes.
    switch (bytes) {
        case 1: case 2: case 4: return {1, 32, 1};
        case 8: return {2, 16, 2};
        case 16: return {4, 8, 4};
        default: return {};
    }
}

BankPhases matrix_phases(int nmat) {
    // One phase per 8x8 matrix: lanes 8i..8i+7 give its 8 rows of 16 bytes (4 words).
    if (nmat != 1 && nmat != 2 && nmat != 4) return {};
    return {nmat, 8, 4};
}

namespace {
BankAnalysis analyze(uint32_t active_mask, const uint32_t addr[32], BankPhases p) {
    BankAnalysis out;
    for (int i = 0; i < p.count; ++i) add_phase(out, active_mask, addr, i * p.lanes, p.lanes, p.words_per_lane);
    return out;
}
}  // namespace

BankAnalysis analyze_access(uint32_t active_mask, const uint32_t addr[32], int bytes) {
    return analyze(active_mask, addr, access_phases(bytes));
}

BankAnalysis analyze_atomic(uint32_t active_mask, const uint32_t addr[32], AtomOp op, AtomType type) {
    BankAnalysis out;
    if (active_mask == 0) return out;
    uint8_t per_bank[32] = {};
    for (uint32_t m = active_mask; m; m &= m - 1) ++per_bank[(addr[std::countr_zero(m)] / 4) % 32];
    const uint8_t worst = *std::max_element(per_bank, per_bank + 32);
    std::copy(per_bank, per_bank + 32, out.bank_words);
    out.max_way = worst;
    if (op == AtomOp::add && type == AtomType::f32) {
        out.instructions = worst;  // one compare-and-swap round per lane of the busiest bank
        out.wavefronts = uint16_t(2 * worst);
        out.ideal = out.wavefronts;
    } else if (op == AtomOp::cas) {
        out.wavefronts = uint16_t(2 * worst);
        out.ideal = uint16_t(worst + 1);  // Nsight counts worst - 1 of them as conflicts: one per extra lane
    } else {
        out.wavefronts = worst;
        out.ideal = 1;
    }
    return out;
}

BankAnalysis analyze_matrix(uint32_t active_mask, const uint32_t addr[32], int nmat) {
    return analyze(active_mask, addr, matrix_phases(nmat));
}

}  // namespace tklab::sim
