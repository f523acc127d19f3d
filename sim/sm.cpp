// Blocks resident on one SM together (sm.h).
#include "sim/sm.h"

#include <algorithm>

namespace tklab::sim {

SmLayout sm_layout(uint64_t nblocks, int sms, int per_sm) {
    const uint64_t s = uint64_t(std::max(sms, 1)), k = uint64_t(std::max(per_sm, 1));
    SmLayout l;
    uint64_t b = 0;
    while (b < nblocks) {
        const uint64_t rest = nblocks - b;
        // A full wave, or the last one spread over every SM.
        const uint64_t size = rest >= s * k ? k : (rest + s - 1) / s;
        for (uint64_t g = 0; g < s && b < nblocks; ++g) {
            l.first.push_back(b);
            l.sm.push_back(uint32_t(g));
            b = std::min(nblocks, b + size);
        }
    }
    l.first.push_back(nblocks);
    return l;
}

uint64_t SmLayout::largest() const {
    uint64_t most = 0;
    for (size_t g = 0; g < groups(); ++g) most = std::max(most, first[g + 1] - first[g]);
    return most;
}

uint64_t busiest_sm_cycles(const SmLayout& layout, const std::vector<uint64_t>& block_cycles) {
    std::vector<uint64_t> sm_time;
    for (size_t g = 0; g < layout.groups(); ++g) {
        uint64_t longest = 0;
        for (uint64_t b = layout.first[g]; b < layout.first[g + 1]; ++b) longest = std::max(longest, block_cycles[b]);
        if (layout.sm[g] >= sm_time.size()) sm_time.resize(layout.sm[g] + 1);
        sm_time[layout.sm[g]] += longest;
    }
    return sm_time.empty() ? 0 : *std::max_element(sm_time.begin(), sm_time.end());
}

void run_together(const std::vector<BlockRunner*>& runners, const std::function<void(size_t)>& done,
                  const std::function<void(size_t, std::exception_ptr)>& failed, const std::function<void(size_t)>& dropped) {
    std::vector<size_t> active(runners.size());
    for (size_t i = 0; i < active.size(); ++i) active[i] = i;
    while (!active.empty()) {
        size_t pick = 0;
        if (active.size() > 1) {
            uint64_t best = UINT64_MAX;
            for (size_t a = 0; a < active.size(); ++a) {
                const uint64_t t = runners[active[a]]->next_time();
                if (t < best) best = t, pick = a;
            }
        }
        const size_t i = active[pick];
        try {
            if (!runners[i]->advance()) continue;
            active.erase(active.begin() + long(pick));
            done(i);
        } catch (...) {
            active.erase(active.begin() + long(pick));
            failed(i, std::current_exception());
            while (!active.empty() && active.back() > i) {
                dropped(active.back());
                active.pop_back();
            }
        }
    }
}

} // namespace tklab::sim
