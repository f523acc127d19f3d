#include "visualizer/model/bank_view.h"
#include <algorithm>
#include <bit>

namespace tklab::view {

namespace {
bool starts(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }
// Words beyond this are not shared memory (the largest is 228 KB): a bad
// address in a file must not size the heat map.
constexpr uint32_t kMaxWords = 1u << 20;
} // namespace

SmemKind smem_kind(const std::string& op) {
    if (starts(op, "ldmatrix") || starts(op, "stmatrix")) return SmemKind::matrix;
    if (starts(op, "ld.shared") || starts(op, "st.shared")) return SmemKind::plain;
    return SmemKind::none;
}

sim::BankPhases smem_phases(SmemKind kind, int aux) {
    if (kind == SmemKind::plain) return sim::access_phases(aux);
    if (kind == SmemKind::matrix) return sim::matrix_phases(aux);
    return {};
}

int LaneSegment::first_lane() const { return lanes ? std::countr_zero(lanes) : -1; }

namespace {
// Fills `ib` in place, reusing its vectors' storage (the heat map calls this
// for every recorded instruction of a run). Segments only when asked.
void fill(InstructionBanks& ib, SmemKind kind, int aux, uint32_t mask, const uint32_t addr[32], bool segments) {
    ib.kind = kind;
    ib.has_lanes = false;
    ib.active = 0;
    ib.banks.clear();
    ib.phase_wavefronts.clear();
    ib.words.clear();
    ib.segments.clear();
    ib.wavefronts = ib.ideal = ib.max_way = 0;
    ib.lo_byte = ib.hi_byte = 0;
    ib.phases = smem_phases(kind, aux);
    const sim::BankPhases& ph = ib.phases;
    if (ph.count == 0 || addr == nullptr) return;
    ib.has_lanes = true;
    std::copy(addr, addr + 32, ib.addr.begin());
    const int used = ph.count * ph.lanes;  // ldmatrix.x1 uses lanes 0-7 only
    ib.active = mask & (used >= 32 ? ~0u : ((1u << used) - 1u));
    ib.banks.assign(size_t(ph.count), {});
    ib.phase_wavefronts.assign(size_t(ph.count), 0);
    bool any = false;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int p = 0; p < ph.count; ++p) {
        auto& banks = ib.banks[size_t(p)];
        const size_t first_word = ib.words.size();
        for (int l = p * ph.lanes; l < (p + 1) * ph.lanes; ++l) {
            if (!((ib.active >> l) & 1u)) continue;
            lo = std::min<uint64_t>(lo, addr[l] / 4 * 4);
            hi = std::max<uint64_t>(hi, (uint64_t(addr[l]) / 4 + uint64_t(ph.words_per_lane)) * 4);
            for (int k = 0; k < ph.words_per_lane; ++k) {
                const uint32_t w = addr[l] / 4 + uint32_t(k);
                auto it = std::find_if(ib.words.begin() + long(first_word), ib.words.end(),
                                       [&](const PhaseWord& x) { return x.word == w; });
                if (it == ib.words.end()) {
                    ib.words.push_back({w, uint8_t(p), 1, 0});
                    it = ib.words.end() - 1;
                    ++banks[w % 32].words;  // a word already requested is a broadcast, not a conflict
                }
                it->lanes |= 1u << l;
                banks[w % 32].lanes |= 1u << l;
            }
        }
        if (ib.words.size() == first_word) continue;  // no active lane: no wavefront, not ideal either
        int worst = 0;
        for (const BankUse& b : banks) worst = std::max(worst, int(b.words));
        ib.phase_wavefronts[size_t(p)] = worst;
        ib.wavefronts += worst;
        ib.ideal += 1;
        ib.max_way = std::max(ib.max_way, worst);
        any = true;
        for (auto it = ib.words.begin() + long(first_word); it != ib.words.end(); ++it)
            it->way = banks[it->word % 32].words;
        std::sort(ib.words.begin() + long(first_word), ib.words.end(),
                  [](const PhaseWord& a, const PhaseWord& b) { return a.word < b.word; });
    }
    if (any) { ib.lo_byte = uint32_t(lo); ib.hi_byte = uint32_t(std::min<uint64_t>(hi, UINT32_MAX)); }
    if (!segments) return;

    // Segments: each lane's words, cut at 128-byte rows; broadcasts merged.
    for (int p = 0; p < ph.count; ++p) {
        const auto& banks = ib.banks[size_t(p)];
        const size_t first_seg = ib.segments.size();
        for (int l = p * ph.lanes; l < (p + 1) * ph.lanes; ++l) {
            if (!((ib.active >> l) & 1u)) continue;
            uint32_t w = addr[l] / 4;
            int left = ph.words_per_lane;
            while (left > 0) {
                const int n = std::min(left, int(32 - w % 32));
                LaneSegment seg{w, uint8_t(n), uint8_t(p), 1, 1u << l};
                for (int k = 0; k < n; ++k) seg.way = std::max(seg.way, banks[(w + uint32_t(k)) % 32].words);
                auto same = std::find_if(ib.segments.begin() + long(first_seg), ib.segments.end(),
                                         [&](const LaneSegment& s) { return s.first_word == w && s.words == n; });
                if (same != ib.segments.end()) same->lanes |= 1u << l;
                else ib.segments.push_back(seg);
                w += uint32_t(n);
                left -= n;
            }
        }
    }
}
} // namespace

InstructionBanks instruction_banks(SmemKind kind, int aux, uint32_t mask, const uint32_t addr[32]) {
    InstructionBanks ib;
    fill(ib, kind, aux, mask, addr, true);
    return ib;
}

InstructionBanks instruction_banks(const trace::Trace& t, const trace::Block& block, size_t e) {
    InstructionBanks ib;
    if (e >= block.events.size()) return ib;
    const trace::Event& ev = block.events[e];
    const SmemKind kind = ev.op < t.ops.size() ? smem_kind(t.ops[ev.op]) : SmemKind::none;
    const trace::SmemAccess* sa = ev.smem >= 0 && size_t(ev.smem) < block.smem.size() ? &block.smem[size_t(ev.smem)] : nullptr;
    const bool kept = sa && sa->lanes >= 0 && size_t(sa->lanes) + 32 <= block.lane_addrs.size();
    if (kept) return instruction_banks(kind, ev.aux, ev.mask, &block.lane_addrs[size_t(sa->lanes)]);
    ib.kind = kind;
    ib.phases = smem_phases(kind, ev.aux);
    return ib;
}

std::vector<ConflictGroup> conflict_groups(const InstructionBanks& ib) {
    std::vector<ConflictGroup> out;
    for (size_t p = 0; p < ib.banks.size(); ++p) {
        const size_t first = out.size();
        for (int b = 0; b < 32; ++b) {
            const BankUse& u = ib.banks[p][size_t(b)];
            if (u.words < 2) continue;
            auto g = std::find_if(out.begin() + long(first), out.end(),
                                  [&](const ConflictGroup& x) { return x.way == u.words && x.lanes == u.lanes; });
            if (g == out.end()) out.push_back({int(p), int(u.words), {b}, u.lanes});
            else g->banks.push_back(b);
        }
        // The worst first within a phase.
        std::stable_sort(out.begin() + long(first), out.end(),
                         [](const ConflictGroup& a, const ConflictGroup& b) { return a.way > b.way; });
    }
    return out;
}

std::string ranges_text(const std::vector<int>& v) {
    std::string s;
    for (size_t i = 0; i < v.size();) {
        size_t j = i;
        while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
        if (!s.empty()) s += ' ';
        s += std::to_string(v[i]);
        if (j > i) {
            s += j == i + 1 ? ' ' : '-';
            s += std::to_string(v[j]);
        }
        i = j + 1;
    }
    return s;
}

std::string lanes_text(uint32_t mask) {
    std::vector<int> v;
    for (int l = 0; l < 32; ++l)
        if ((mask >> l) & 1u) v.push_back(l);
    return ranges_text(v);
}

void SmemHeat::add_block(const trace::Trace& t, const trace::Block& block, size_t min_words) {
    ++blocks;
    if (words.size() < std::min<size_t>(min_words, kMaxWords)) words.resize(std::min<size_t>(min_words, kMaxWords));
    std::vector<uint32_t> seen;  // words one execution touched, to count it once per word
    InstructionBanks ib;         // reused: no allocation per instruction
    for (const trace::SmemAccess& sa : block.smem) {
        ++executions;
        wavefronts += sa.wavefronts;
        ideal += sa.ideal;
        if (sa.event >= block.events.size()) continue;
        const bool kept = sa.lanes >= 0 && size_t(sa.lanes) + 32 <= block.lane_addrs.size();
        if (!kept) {
            if (sa.wavefronts > sa.ideal) ++conflicted_without_lanes;
            continue;
        }
        const trace::Event& ev = block.events[sa.event];
        const SmemKind kind = ev.op < t.ops.size() ? smem_kind(t.ops[ev.op]) : SmemKind::none;
        fill(ib, kind, ev.aux, ev.mask, &block.lane_addrs[size_t(sa.lanes)], false);
        if (ib.phases.count == 0) continue;
        ++with_lanes;
        const uint64_t instr_conflicts = sa.wavefronts > sa.ideal ? uint64_t(sa.wavefronts - sa.ideal) : 0;
        seen.clear();
        for (const PhaseWord& pw : ib.words) {
            if (pw.word >= kMaxWords) continue;
            if (pw.word >= words.size()) words.resize(size_t(pw.word) + 1);
            WordHeat& h = words[pw.word];
            h.extra += uint64_t(pw.way - 1);
            h.worst_way = std::max(h.worst_way, pw.way);
            max_extra = std::max(max_extra, h.extra);
            seen.push_back(pw.word);
        }
        for (const auto& phase : ib.banks)
            for (int b = 0; b < 32; ++b)
                if (phase[size_t(b)].words > 1) bank_extra[size_t(b)] += uint64_t(phase[size_t(b)].words - 1);
        std::sort(seen.begin(), seen.end());
        seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
        for (uint32_t w : seen) {
            words[w].touches += 1;
            words[w].instr_extra += instr_conflicts;
        }
    }
}

} // namespace tklab::view
