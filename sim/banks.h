#pragma once
#include <cstdint>
namespace tklab::sim {
enum class AtomOp : uint8_t;    // sim/api.h
enum class AtomType : uint8_t;
// How the hardware splits one shared-memory instruction into phases: phase p is
// lanes [p * lanes, (p + 1) * lanes), each touching words_per_lane consecutive
// 4-byte words; only words within one phase can conflict. count 0: not a shape
// the hardware has. The analysis below and the trace report both use this.
struct BankPhases {
    int count = 0, lanes = 0, words_per_lane = 0;
};
// A plain access of 1, 2, 4, 8 or 16 bytes per lane: at most 128 bytes per phase.
BankPhases access_phases(int bytes);
// ldmatrix / stmatrix of 1, 2 or 4 matrices: one 8x8 matrix (8 rows of 16 bytes) per phase.
BankPhases matrix_phases(int nmat);

// Bank-conflict analysis of one warp shared-memory instruction, counted the way
// Nsight Compute counts wavefronts: 32 banks of 4 bytes, and each wavefront serves
// at most one distinct 4-byte word per bank (lanes on the same word broadcast).
struct BankAnalysis {
    uint16_t wavefronts = 0;  // what the hardware needs
    uint16_t ideal = 0;       // what a conflict-free access of this shape needs
    uint8_t  max_way = 0;     // worst number of distinct words in one bank within one phase (1 = no conflict)
    uint8_t  bank_words[32] = {};  // distinct words touched in each bank, summed over phases (the histogram we draw)
    uint8_t  instructions = 1;     // SASS instructions it takes (an f32 shared atomic's compare-and-swap rounds)
    int conflicts() const { return int(wavefronts) - int(ideal); }
};
// A plain shared load/store: addr[l] is lane l's byte address in shared memory, bytes is 1, 2, 4, 8 or 16.
// Any other size yields an empty analysis.
BankAnalysis analyze_access(uint32_t active_mask, const uint32_t addr[32], int bytes);
// A shared atomic (atom/red.shared, 32 bits per lane), as Nsight Compute
// counts it on an H100 (results/smem_atomics_h100.txt, measured with
// scripts/gpu/smem_atomics.sh on the lane patterns of
// bench/gpu/smem_atomic_patterns.h): one phase of 32 lanes in which every
// active lane's word is its own access -- lanes on different words of one
// bank conflict, as for a store, and lanes on the SAME word do not broadcast:
// their read-modify-writes serialise. So the busiest bank's count of lanes,
// `worst`, sets the cost, and bank_words counts lanes, not distinct words.
//   - integer and bitwise ops (add, min, max, exch, and, or, xor): one
//     instruction of `worst` wavefronts (ideal 1);
//   - cas carries two operands: `2 * worst` wavefronts, of which Nsight
//     calls `worst - 1` conflicts (one per lane past the first, not per wavefront);
//   - f32 add (atom or red) is a compare-and-swap loop in SASS: `worst`
//     instructions of 2 wavefronts each, none of them a conflict to Nsight.
// Not modelled: ptxas turns a red.add.u32 of the literal 1 into a population
// count increment, which merges lanes on the same word.
BankAnalysis analyze_atomic(uint32_t active_mask, const uint32_t addr[32], AtomOp op, AtomType type);
// ldmatrix / stmatrix with nmat = 1, 2 or 4 matrices; addr[l] is the 16-byte row address supplied by lane l.
// Lanes >= 8*nmat supply no address and are ignored. Any other nmat yields an empty analysis.
BankAnalysis analyze_matrix(uint32_t active_mask, const uint32_t addr[32], int nmat);
}
