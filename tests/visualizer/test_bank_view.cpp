// The shared-memory panel's bank model (visualizer/model/bank_view.h) against
// the simulator's own analysis (sim/banks.h) and hand-worked patterns.
#include <catch2/catch.hpp>

#include "visualizer/model/bank_view.h"

#include <array>
#include <map>
#include <random>
#include <set>

using namespace tklab;
using view::InstructionBanks;
using view::SmemKind;

namespace {

using Addrs = std::array<uint32_t, 32>;

// 128-byte XOR swizzle of a tile with 128-byte rows: chunk c of row r.
uint32_t swz128(uint32_t row, uint32_t chunk) { return row * 128 + ((chunk ^ (row % 8)) * 16); }

// Random operands: aligned to the access size, clustered so that conflicts and broadcasts both occur.
Addrs random_addrs(std::mt19937& rng, int bytes) {
    Addrs a{};
    const uint32_t align = uint32_t(std::max(bytes, 4));
    std::uniform_int_distribution<uint32_t> pick(0, 3), word(0, 2047);
    const uint32_t stride = align * (1u << pick(rng));
    const uint32_t base = word(rng) * 4 / align * align;
    for (uint32_t l = 0; l < 32; ++l) {
        switch (pick(rng)) {
            case 0: a[l] = base; break;                                   // broadcast
            case 1: a[l] = base + l * stride; break;                      // strided
            default: a[l] = word(rng) * 4 / align * align; break;         // anywhere
        }
    }
    return a;
}

// Distinct words per bank in lanes [first, end) of `mask`, each touching `wpl` words.
std::map<uint32_t, std::set<uint32_t>> bank_words(const Addrs& a, uint32_t mask, int first, int end, int wpl) {
    std::map<uint32_t, std::set<uint32_t>> out;
    for (int l = first; l < end; ++l)
        if ((mask >> l) & 1u)
            for (int k = 0; k < wpl; ++k) out[(a[size_t(l)] / 4 + uint32_t(k)) % 32].insert(a[size_t(l)] / 4 + uint32_t(k));
    return out;
}

trace::Trace small_trace() {
    trace::Trace t;
    t.ops = {"ld.shared", "st.shared", "ldmatrix", "stmatrix", "mma.sync"};
    return t;
}

} // namespace

TEST_CASE("bank view: counts equal the simulator's on random operands", "[visualizer][banks]") {
    std::mt19937 rng(20240611);
    const int bytes[] = {1, 2, 4, 8, 16};
    const int mats[] = {1, 2, 4};
    std::uniform_int_distribution<uint32_t> any_mask;
    for (int iter = 0; iter < 3000; ++iter) {
        const bool matrix = iter % 3 == 0;
        const int aux = matrix ? mats[(iter / 3) % 3] : bytes[iter % 5];
        const uint32_t mask = iter % 4 == 0 ? ~0u : any_mask(rng);
        const Addrs a = random_addrs(rng, matrix ? 16 : aux);
        const sim::BankAnalysis ref =
            matrix ? sim::analyze_matrix(mask, a.data(), aux) : sim::analyze_access(mask, a.data(), aux);
        const InstructionBanks ib = view::instruction_banks(matrix ? SmemKind::matrix : SmemKind::plain, aux, mask, a.data());
        INFO("iteration " << iter << " aux " << aux << " mask " << mask);
        REQUIRE(ib.has_lanes);
        CHECK(ib.wavefronts == ref.wavefronts);
        CHECK(ib.ideal == ref.ideal);
        CHECK(ib.max_way == ref.max_way);
        for (int b = 0; b < 32; ++b) {
            int sum = 0;
            for (const auto& phase : ib.banks) sum += phase[size_t(b)].words;
            CHECK(sum == ref.bank_words[b]);
        }
        // Every word's degree is its bank's distinct words within its phase.
        for (const view::PhaseWord& w : ib.words) {
            const auto words = bank_words(a, ib.active, ib.phase_first_lane(w.phase), ib.phase_end_lane(w.phase),
                                          ib.phases.words_per_lane);
            CHECK(int(w.way) == int(words.at(w.word % 32).size()));
        }
        // Segments cover exactly each active lane's words, once per lane.
        std::map<int, int> covered;
        for (const view::LaneSegment& s : ib.segments) {
            CHECK(s.words >= 1);
            CHECK(s.first_word / 32 == (s.first_word + s.words - 1) / 32);  // within one 128-byte row
            for (int l = 0; l < 32; ++l)
                if ((s.lanes >> l) & 1u) covered[l] += s.words;
        }
        for (int l = 0; l < 32; ++l)
            CHECK(covered[l] == (((ib.active >> l) & 1u) ? ib.phases.words_per_lane : 0));
    }
}

TEST_CASE("bank view: unswizzled ldmatrix stacks 8 lanes in banks 0-3", "[visualizer][banks]") {
    Addrs a{};
    for (uint32_t l = 0; l < 32; ++l) a[l] = (l % 16) * 128 + (l / 16) * 16;  // A tile's 16 rows, two column chunks
    const InstructionBanks ib = view::instruction_banks(SmemKind::matrix, 4, ~0u, a.data());
    CHECK(ib.wavefronts == 32);
    CHECK(ib.ideal == 4);
    CHECK(ib.max_way == 8);
    CHECK(ib.lo_byte == 0);
    CHECK(ib.hi_byte == 15 * 128 + 32);
    const auto groups = view::conflict_groups(ib);
    REQUIRE(groups.size() == 4);  // one per phase
    CHECK(groups[0].phase == 0);
    CHECK(groups[0].way == 8);
    CHECK(groups[0].banks == std::vector<int>{0, 1, 2, 3});
    CHECK(groups[0].lanes == 0xffu);
    CHECK(groups[2].banks == std::vector<int>{4, 5, 6, 7});
    CHECK(view::lanes_text(groups[2].lanes) == "16-23");
    for (const view::LaneSegment& s : ib.segments) {
        CHECK(s.words == 4);
        CHECK(s.way == 8);
    }
}

TEST_CASE("bank view: the 128-byte swizzle spreads the 8 lanes of a phase over all banks", "[visualizer][banks]") {
    Addrs a{};
    for (uint32_t l = 0; l < 32; ++l) a[l] = swz128(l % 16, l / 16);
    const InstructionBanks ib = view::instruction_banks(SmemKind::matrix, 4, ~0u, a.data());
    CHECK(ib.wavefronts == 4);
    CHECK(ib.max_way == 1);
    CHECK(view::conflict_groups(ib).empty());
    // Lane l of phase 0 reads row l, whose chunk 0 moved to chunk l: banks 4l..4l+3, a diagonal.
    for (const view::LaneSegment& s : ib.segments)
        if (s.phase == 0) CHECK(s.first_word % 32 == 4u * uint32_t(s.first_lane()));
}

TEST_CASE("bank view: broadcasts, inactive phases and row-crossing lanes", "[visualizer][banks]") {
    Addrs same{};
    same.fill(64);
    InstructionBanks ib = view::instruction_banks(SmemKind::plain, 4, ~0u, same.data());
    CHECK(ib.wavefronts == 1);
    REQUIRE(ib.segments.size() == 1);
    CHECK(ib.segments[0].lanes == ~0u);
    CHECK(ib.segments[0].first_lane() == 0);

    // ldmatrix.x4 with lanes 8-15 off: that matrix's phase costs nothing.
    Addrs rows{};
    for (uint32_t l = 0; l < 32; ++l) rows[l] = l * 16;
    ib = view::instruction_banks(SmemKind::matrix, 4, ~0xff00u, rows.data());
    CHECK(ib.ideal == 3);
    CHECK(ib.phase_wavefronts[1] == 0);

    // ldmatrix.x1: lanes 8-31 supply no address, even when active.
    Addrs wild = rows;
    for (uint32_t l = 8; l < 32; ++l) wild[l] = 0;
    ib = view::instruction_banks(SmemKind::matrix, 1, ~0u, wild.data());
    CHECK(ib.active == 0xffu);
    CHECK(ib.wavefronts == 1);

    // A 16-byte access at byte 120 crosses into the next 128-byte row: two boxes.
    Addrs cross{};
    cross.fill(0);
    cross[0] = 120;
    ib = view::instruction_banks(SmemKind::plain, 16, 1u, cross.data());
    REQUIRE(ib.segments.size() == 2);
    CHECK(ib.segments[0].first_word == 30);
    CHECK(ib.segments[0].words == 2);
    CHECK(ib.segments[1].first_word == 32);

    // Shapes the hardware does not have.
    CHECK(view::instruction_banks(SmemKind::plain, 3, ~0u, same.data()).phases.count == 0);
    CHECK(view::instruction_banks(SmemKind::matrix, 3, ~0u, same.data()).phases.count == 0);
    CHECK(view::smem_kind("ldmatrix") == SmemKind::matrix);
    CHECK(view::smem_kind("st.shared") == SmemKind::plain);
    CHECK(view::smem_kind("mma.sync") == SmemKind::none);
}

TEST_CASE("bank view: the run's heat map sums each word's conflicts", "[visualizer][banks]") {
    std::mt19937 rng(7);
    const trace::Trace t = small_trace();
    trace::Block block;
    std::map<uint32_t, uint64_t> extra, instr_extra, touches;
    std::array<uint64_t, 32> bank_extra{};
    uint64_t conflicted_unkept = 0;
    for (int i = 0; i < 400; ++i) {
        trace::Event ev;
        const bool matrix = i % 2 == 0;
        ev.op = matrix ? 2 : 0;
        ev.aux = uint8_t(matrix ? 4 : 4 << (i % 3));  // 4, 8, 16 bytes
        ev.mask = i % 5 == 0 ? 0x0f0f0f0fu : ~0u;
        ev.smem = int32_t(block.smem.size());
        const Addrs a = random_addrs(rng, matrix ? 16 : ev.aux);
        const sim::BankAnalysis r =
            matrix ? sim::analyze_matrix(ev.mask, a.data(), 4) : sim::analyze_access(ev.mask, a.data(), ev.aux);
        trace::SmemAccess sa{uint32_t(block.events.size()), r.wavefronts, r.ideal, r.max_way, -1};
        const bool keep = i % 7 != 3;  // some instructions without addresses
        if (keep) {
            sa.lanes = int32_t(block.lane_addrs.size());
            block.lane_addrs.insert(block.lane_addrs.end(), a.begin(), a.end());
            // Brute force: each distinct word of each phase adds its bank's words - 1.
            const sim::BankPhases ph = matrix ? sim::matrix_phases(4) : sim::access_phases(ev.aux);
            std::set<uint32_t> seen;
            for (int p = 0; p < ph.count; ++p) {
                const auto words = bank_words(a, ev.mask, p * ph.lanes, (p + 1) * ph.lanes, ph.words_per_lane);
                for (const auto& [bank, ws] : words) {
                    bank_extra[bank] += ws.size() - 1;
                    for (uint32_t w : ws) {
                        extra[w] += ws.size() - 1;
                        seen.insert(w);
                    }
                }
            }
            for (uint32_t w : seen) {
                touches[w] += 1;
                instr_extra[w] += uint64_t(r.conflicts());
            }
        } else if (r.conflicts() > 0) {
            ++conflicted_unkept;
        }
        block.smem.push_back(sa);
        block.events.push_back(ev);
        block.events.push_back(trace::Event{});  // an instruction that is not shared memory
        block.events.back().op = 4;
    }
    view::SmemHeat heat;
    heat.add_block(t, block, 4096);
    CHECK(heat.words.size() >= 4096);
    CHECK(heat.executions == 400);
    CHECK(heat.conflicted_without_lanes == conflicted_unkept);
    uint64_t max_extra = 0;
    for (size_t w = 0; w < heat.words.size(); ++w) {
        INFO("word " << w);
        CHECK(heat.words[w].extra == extra[uint32_t(w)]);
        CHECK(heat.words[w].instr_extra == instr_extra[uint32_t(w)]);
        CHECK(heat.words[w].touches == touches[uint32_t(w)]);
        max_extra = std::max(max_extra, heat.words[w].extra);
    }
    CHECK(heat.max_extra == max_extra);
    CHECK(heat.bank_extra == bank_extra);
    CHECK(max_extra > 0);  // the random data does conflict
}

TEST_CASE("bank view: lane and bank sets in few characters", "[visualizer][banks]") {
    CHECK(view::ranges_text({}) == "");
    CHECK(view::ranges_text({3}) == "3");
    CHECK(view::ranges_text({0, 1}) == "0 1");
    CHECK(view::ranges_text({0, 1, 2, 3, 8, 10, 11, 12}) == "0-3 8 10-12");
    CHECK(view::lanes_text(0x800000ffu) == "0-7 31");
}
