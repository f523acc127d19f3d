// The shared-memory panel's picture of bank use, without ImGui: for one warp
// instruction, which lane touches which 4-byte word and bank, phase by phase
// (the hardware's phases, from sim/banks.h); and, over a whole run, how many
// conflict wavefronts each word took part in. Tests check it against
// sim::analyze_access / analyze_matrix.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>
#include "sim/banks.h"
#include "trace/trace.h"

namespace tklab::view {

enum class SmemKind : uint8_t { none, plain, matrix };
// ld.shared / st.shared are plain (Event::aux = bytes per lane); ldmatrix /
// stmatrix are matrix (Event::aux = matrices); anything else is none.
SmemKind smem_kind(const std::string& op);
// How the hardware splits such an instruction; count 0 when it cannot.
sim::BankPhases smem_phases(SmemKind kind, int aux);

// One bank within one phase.
struct BankUse {
    uint8_t words = 0;    // distinct words it must serve: the phase needs this many wavefronts if it is the busiest
    uint32_t lanes = 0;   // lanes that touch it
};

// One distinct word one phase touches.
struct PhaseWord {
    uint32_t word = 0;        // byte address / 4; its bank is word % 32
    uint8_t phase = 0;
    uint8_t way = 1;          // distinct words its bank serves in this phase (1 = no conflict)
    uint32_t lanes = 0;       // lanes that touch it
};

// A lane's consecutive words within one 128-byte row: what the panel draws as
// one box (a 16-byte ldmatrix row spans 4 banks). Lanes touching exactly the
// same words in the same phase (a broadcast) share one segment.
struct LaneSegment {
    uint32_t first_word = 0;  // byte address / 4
    uint8_t words = 1;        // 1..4, never crossing a 128-byte row
    uint8_t phase = 0;
    uint8_t way = 1;          // the worst degree among its words' banks in its phase
    uint32_t lanes = 0;
    int first_lane() const;
};

// One warp shared-memory instruction, phase by phase.
struct InstructionBanks {
    SmemKind kind = SmemKind::none;
    sim::BankPhases phases;                   // count 0: an unknown shape (nothing below is filled)
    bool has_lanes = false;                   // the trace kept its lane addresses
    uint32_t active = 0;                      // active lanes among those the phases use
    std::array<uint32_t, 32> addr{};          // lane byte addresses (valid when has_lanes)
    std::vector<std::array<BankUse, 32>> banks;  // [phase][bank]
    std::vector<int> phase_wavefronts;        // the busiest bank's words, per phase (0: no active lane)
    std::vector<PhaseWord> words;             // by phase, then word
    std::vector<LaneSegment> segments;        // by phase, then first lane
    int wavefronts = 0, ideal = 0, max_way = 0;  // from the lanes; equal the trace's numbers
    uint32_t lo_byte = 0, hi_byte = 0;        // [lo, hi): the bytes it touches

    // The first lane of phase p and one past its last.
    int phase_first_lane(int p) const { return p * phases.lanes; }
    int phase_end_lane(int p) const { return (p + 1) * phases.lanes; }
};

// Analyses event `e` of `block`, a shared-memory instruction (Event::smem >= 0).
// Without kept lane addresses only kind and phases are filled.
InstructionBanks instruction_banks(const trace::Trace& t, const trace::Block& block, size_t e);
// The same from raw operands (what the tests drive).
InstructionBanks instruction_banks(SmemKind kind, int aux, uint32_t mask, const uint32_t addr[32]);

// Banks of one phase that conflict, grouped: banks with the same lanes and
// degree form one group, e.g. "8-way on banks 0-3: lanes 0-7".
struct ConflictGroup {
    int phase = 0, way = 0;
    std::vector<int> banks;
    uint32_t lanes = 0;
};
std::vector<ConflictGroup> conflict_groups(const InstructionBanks& ib);

// "0-7", "0 2 4-6": a lane (or bank) set in few characters.
std::string ranges_text(const std::vector<int>& sorted);
std::string lanes_text(uint32_t mask);

// Per shared-memory word over a run: the conflicts it took part in.
struct WordHeat {
    uint64_t extra = 0;          // sum over (execution, phase) touching it of (its bank's words - 1)
    uint64_t instr_extra = 0;    // sum of (wavefronts - ideal) of the executions touching it
    uint32_t touches = 0;        // recorded executions touching it
    uint8_t worst_way = 0;       // its bank's worst degree in a phase touching it
};

struct SmemHeat {
    std::vector<WordHeat> words;         // by word (byte address / 4) from 0
    uint64_t max_extra = 0;
    uint64_t executions = 0;             // shared-memory instructions seen
    uint64_t with_lanes = 0;             // ... whose lane addresses were kept
    uint64_t conflicted_without_lanes = 0;  // conflicted ones without addresses (cannot be placed)
    uint64_t wavefronts = 0, ideal = 0;  // of every execution seen
    std::array<uint64_t, 32> bank_extra{};  // per bank: its distinct words beyond one, per phase, summed (the replays it caused)
    uint32_t blocks = 0;

    // Adds one timeline block's recorded instructions. `min_words` sizes the
    // map (e.g. the launch's shared bytes / 4) so untouched words show too.
    void add_block(const trace::Trace& t, const trace::Block& block, size_t min_words = 0);
};

} // namespace tklab::view
