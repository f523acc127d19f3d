// Blocks resident on one SM together (sm.h).
#include "sim/sm.h"

#include <algorithm>
#include <numeric>

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

std::vector<uint64_t> group_blocks(const SmLayout& layout, size_t g) {
    // The wave holding group g: its groups sit on SMs 0, 1, ... in order.
    size_t g0 = g, g1 = g + 1;
    while (g0 > 0 && layout.sm[g0] != 0) --g0;
    while (g1 < layout.groups() && layout.sm[g1] != 0) ++g1;
    const uint64_t begin = layout.first[g0], size = layout.first[g1] - begin, n = g1 - g0;
    // The wave's p-th block dealt is block (p * stride) mod size: a stride
    // coprime to the size near 0.618 of it, so that the blocks one SM gets
    // (p = i, i + n, ...) are no particular ones, as when the GPU hands each
    // block to whichever SM frees a slot first. Any order would do for the
    // model's sharing of L1; this one is the same on every machine.
    // With a block per SM nothing is shared and the order would only
    // relabel the SMs: none then.
    uint64_t stride = size > n ? std::max<uint64_t>(1, size * 618 / 1000) : 1;
    while (std::gcd(stride, size) != 1) ++stride;
    std::vector<uint64_t> blocks;
    for (uint64_t p = g - g0; p < size; p += n) blocks.push_back(begin + p * stride % size);
    std::sort(blocks.begin(), blocks.end());
    return blocks;
}

std::vector<SmStream> sm_streams(const SmLayout& layout, int sms, int waves) {
    // Each SM's groups in order; its g-th is of its g-th wave.
    std::vector<std::vector<size_t>> groups_of(size_t(std::max(sms, 1)));
    for (size_t g = 0; g < layout.groups(); ++g) groups_of[std::min<size_t>(layout.sm[g], groups_of.size() - 1)].push_back(g);
    size_t most = 0;
    for (const auto& gs : groups_of) most = std::max(most, gs.size());
    const size_t per = size_t(std::max(waves, 1));
    std::vector<SmStream> streams;
    for (size_t w0 = 0; w0 < most; w0 += per)
        for (size_t s = 0; s < groups_of.size(); ++s) {
            SmStream st;
            st.sm = uint32_t(s);
            st.first_wave = w0 == 0;
            for (size_t k = w0; k < std::min(w0 + per, groups_of[s].size()); ++k) {
                for (uint64_t b : group_blocks(layout, groups_of[s][k])) st.blocks.push_back(b);
            }
            if (!st.blocks.empty()) streams.push_back(std::move(st));
        }
    return streams;
}

void run_stream(size_t blocks, int slots, const std::function<BlockRunner*(size_t, size_t, uint64_t)>& start,
                const std::function<void(size_t, size_t)>& done, const std::function<void(size_t, size_t, std::exception_ptr)>& failed,
                const std::function<void(size_t, size_t)>& dropped) {
    struct Slot { BlockRunner* runner = nullptr; size_t block = 0; };
    std::vector<Slot> slot(size_t(std::max(slots, 1)));
    size_t next = 0;
    bool stopped = false;
    auto fill = [&](size_t j, uint64_t cycle) {
        if (stopped || next >= blocks) return;
        if (BlockRunner* r = start(next, j, cycle)) slot[j] = {r, next++};
        else stopped = true;
    };
    for (size_t j = 0; j < slot.size(); ++j) fill(j, 0);
    for (;;) {
        size_t pick = slot.size();
        uint64_t best = UINT64_MAX;
        for (size_t j = 0; j < slot.size(); ++j) {
            if (!slot[j].runner) continue;
            const uint64_t t = slot[j].runner->next_time();
            if (pick == slot.size() || t < best || (t == best && slot[j].block < slot[pick].block)) best = t, pick = j;
        }
        if (pick == slot.size()) return;
        Slot& s = slot[pick];
        try {
            if (!s.runner->advance()) continue;
            const uint64_t end = s.runner->end_cycle();
            const size_t i = s.block;
            s.runner = nullptr;
            done(i, pick);
            fill(pick, end);
        } catch (...) {
            const size_t i = s.block;
            s.runner = nullptr;
            failed(i, pick, std::current_exception());
            stopped = true;
            for (size_t j = 0; j < slot.size(); ++j)
                if (slot[j].runner && slot[j].block > i) {
                    slot[j].runner = nullptr;
                    dropped(slot[j].block, j);
                }
        }
    }
}

} // namespace tklab::sim
