// The lane-to-word patterns of the shared-atomics measurement
// (bench/gpu/smem_atomics.cu, scripts/gpu/smem_atomics.sh): which 4-byte
// word of shared memory each lane of a warp updates. The GPU's wavefronts for
// them, read with Nsight Compute, are in results/smem_atomics_h100.txt; the
// simulator's bank rule for atomics (sim/banks.h, analyze_atomic) is tested
// against that file on the same patterns (tests/sim/test_atomic_banks_measured.cpp).
#pragma once
#include <cstdint>

namespace smem_atomics {

constexpr int kPatterns = 8;

// Word of shared memory lane `lane` updates under pattern `p` (bank = word % 32).
#if defined(__CUDACC__)
__host__ __device__
#endif
constexpr uint32_t word_of(int p, int lane) {
    const uint32_t l = uint32_t(lane);
    switch (p) {
    case 0: return l;                        // one word per lane, every bank once
    case 1: return 2 * l;                    // lanes l and l + 16 share a bank, on different words
    case 2: return 32 * l;                   // every lane on bank 0, each on its own word
    case 3: return 0;                        // every lane on one word
    case 4: return l / 4;                    // 8 words, 4 lanes each, 8 banks
    case 5: return l % 16;                   // 16 words, 2 lanes each (l and l + 16)
    case 6: return l < 16 ? 0 : l;           // lanes 0-15 on one word; 16-31 one word each
    case 7: return l < 16 ? 32 * l : 32 * (l - 16);  // bank 0: 16 words, 2 lanes on each
    }
    return l;
}

constexpr const char* pattern_name(int p) {
    constexpr const char* names[kPatterns] = {"one word per lane",     "2 words per bank",   "32 words on one bank",
                                              "one word, 32 lanes",     "4 lanes per word",   "2 lanes per word",
                                              "16 lanes on one word",   "16 words on bank 0, 2 lanes each"};
    return p >= 0 && p < kPatterns ? names[p] : "?";
}

// The ops, in launch order. "1" adds the constant 1 (ptxas may turn a red
// of it into a population-count increment); "v" a value that differs by lane.
constexpr int kOps = 12;
constexpr const char* op_name(int o) {
    constexpr const char* names[kOps] = {"atom.add.u32 1", "red.add.u32 1", "atom.add.f32",  "atom.cas.b32",
                                         "atom.exch.b32",  "atom.max.s32",  "red.add.u32 v", "atom.add.u32 v",
                                         "red.add.f32",    "atom.min.u32",  "atom.or.b32",   "atom.xor.b32"};
    return o >= 0 && o < kOps ? names[o] : "?";
}

} // namespace smem_atomics
