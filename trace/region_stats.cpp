// Per-name statistics of a launch's regions (see region_stats.h).
#include "trace/region_stats.h"

#include <algorithm>

namespace tklab::trace {

namespace {

uint64_t span(uint64_t begin, uint64_t end) { return end > begin ? end - begin : 0; }

} // namespace

RegionStats region_stats(const Trace& t, const Launch& l) {
    RegionStats s;
    std::map<uint16_t, size_t> row_of;
    auto add = [&](uint16_t name, uint64_t begin, uint64_t end, uint32_t loc) {
        auto [it, fresh] = row_of.try_emplace(name, s.rows.size());
        if (fresh) s.rows.push_back({name, 0, 0, 0, loc});
        RegionStat& r = s.rows[it->second];
        r.count++;
        r.total += span(begin, end);
        r.longest = std::max(r.longest, span(begin, end));
    };
    const bool gpu = t.from_gpu();
    for (const Block& b : l.blocks) {
        if (gpu) {
            if (b.events.empty()) continue;
            uint64_t first = UINT64_MAX, last = 0, held = 0;
            for (const Event& e : b.events) {
                first = std::min(first, e.issue), last = std::max(last, e.done);
                add(e.op_name, e.issue, e.done, e.loc);
                if (e.aux == 0) held += span(e.issue, e.done);  // aux: nesting depth
            }
            s.regions += b.events.size();
            const uint64_t time = span(first, last) * l.warps_per_block();
            s.warp_time += time;
            s.outside += time > held ? time - held : 0;
            ++s.blocks;
        } else {
            // The same span as the GPU's, so that the shares compare: not the
            // block's cycles, whose start (a first-wave block's wait for its
            // parameters) and end (its stores' drain) no marker measures.
            uint64_t first = UINT64_MAX, last = 0, held = 0;
            for (const Region& g : b.regions) {
                ++s.regions;
                if (g.open) ++s.open;
                else add(g.name, g.begin, g.end, g.loc);
                if (g.depth == 0) held += span(g.begin, g.end);
                first = std::min(first, g.begin), last = std::max(last, g.open ? b.cycles : g.end);
            }
            if (b.regions.empty()) continue;
            const uint64_t time = span(first, last) * l.warps_per_block();
            s.warp_time += time;
            s.outside += time > held ? time - held : 0;
            ++s.blocks;
        }
    }
    std::stable_sort(s.rows.begin(), s.rows.end(), [](const RegionStat& a, const RegionStat& b) { return a.total > b.total; });
    return s;
}

std::map<std::string, double> region_shares(const Trace& t) {
    std::map<std::string, uint64_t> total;
    uint64_t time = 0;
    for (const Launch& l : t.launches) {
        const RegionStats s = region_stats(t, l);
        time += s.warp_time;
        for (const RegionStat& r : s.rows) total[r.name < t.op_names.size() ? t.op_names[r.name] : "?"] += r.total;
    }
    std::map<std::string, double> shares;
    for (const auto& [name, cycles] : total) shares[name] = time ? double(cycles) / double(time) : 0.0;
    return shares;
}

} // namespace tklab::trace
