#include "sim/bug_finders/shared_shadow.h"

#include <algorithm>

namespace tklab::sim::bugs {

void SharedShadow::begin_block(size_t bytes, int warps, bool races, bool uninit) {
    races_ = races;
    uninit_ = uninit;
    agents_.warps = warps;
    if (!races && !uninit) return;
    const size_t words = (bytes + 3) / 4;
    if (words_.size() < words) words_.resize(words);
    if (++generation_ == 0) {  // wrapped: forget every record for real
        for (Word& w : words_) w.generation = 0;
        generation_ = 1;
    }
    syncs_.assign(size_t(warps), WarpSyncs{});
    partial_releases_.assign(size_t(warps), {});
    any_partial_release_ = false;
    more_reads_.clear();
}

void SharedShadow::warp_sync(int w, uint32_t seq, uint32_t mask) {
    if (!races_) return;
    WarpSyncs& s = syncs_[size_t(w)];
    s.ring[s.count % kSyncHistory] = {seq, mask};
    ++s.count;
}

void SharedShadow::warp_release(int w, uint32_t epoch, uint32_t seq, uint32_t lanes, uint32_t all) {
    if (!races_ || (lanes & all) == all) return;
    partial_releases_[size_t(w)].push_back({epoch, seq, lanes});
    any_partial_release_ = true;
}

// Whether release r of the earlier access's warp published that access: a
// lane of r made it, or its lane met one of r's at a warp-synchronous
// instruction between the access and r.
bool SharedShadow::release_covers(const PartialRelease& r, const AccessRecord& earlier) const {
    if (r.lanes >> earlier.lane & 1) return true;
    const WarpSyncs& s = syncs_[size_t(earlier.agent)];
    const size_t kept = std::min(s.count, kSyncHistory);
    for (size_t i = 0; i < kept; ++i) {
        const SyncPoint& p = s.ring[(s.count - 1 - i) % kSyncHistory];
        if (p.seq > r.seq) continue;
        if (p.seq < earlier.seq) return false;
        if ((p.mask >> earlier.lane & 1) && (p.mask & r.lanes)) return true;
    }
    return s.count > kSyncHistory;  // older than the history: the benefit of the doubt
}

[[gnu::always_inline]] inline bool SharedShadow::ordered(const AccessRecord& earlier, const Accessor& now) const {
    if (earlier.agent != now.agent) {
        const uint32_t known = (*now.clock)[earlier.agent];
        if (known < earlier.epoch) return false;
        if (!any_partial_release_ || agents_.kind(earlier.agent) != Agents::Kind::warp || partial_releases_[size_t(earlier.agent)].empty())
            return true;
        return ordered_by_partial_releases(earlier, known);
    }
    if (agents_.kind(now.agent) != Agents::Kind::warp) return true;  // an agent's own accesses are in order
    if (earlier.lane == now.lane || earlier.seq == now.seq) return true;  // program order; one instruction
    return ordered_lanes(earlier, now);
}

// The releases that ended epochs earlier.epoch .. known are what the
// accessor can have learnt the access from: one by the whole warp publishes
// it; one by some lanes only if it covers the access's lane.
bool SharedShadow::ordered_by_partial_releases(const AccessRecord& earlier, uint32_t known) const {
    const auto& partial = partial_releases_[size_t(earlier.agent)];
    auto it = std::lower_bound(partial.begin(), partial.end(), earlier.epoch,
                               [](const PartialRelease& r, uint32_t e) { return r.epoch < e; });
    for (uint32_t e = earlier.epoch; e <= known; ++e, ++it) {
        if (it == partial.end() || it->epoch != e) return true;  // epoch e ended with a release by every lane
        if (release_covers(*it, earlier)) return true;
    }
    return false;
}

// Two lanes of one warp: ordered if an instruction that synchronised both
// ran at or after the earlier access.
bool SharedShadow::ordered_lanes(const AccessRecord& earlier, const Accessor& now) const {
    const WarpSyncs& s = syncs_[size_t(now.agent)];
    const uint32_t both = (1u << earlier.lane) | (1u << now.lane);
    const size_t kept = std::min(s.count, kSyncHistory);
    for (size_t i = 0; i < kept; ++i) {
        const SyncPoint& p = s.ring[(s.count - 1 - i) % kSyncHistory];
        if (p.seq < earlier.seq) return false;
        if ((p.mask & both) == both) return true;
    }
    // Older than the history: give the benefit of the doubt (never a false report).
    return s.count > kSyncHistory;
}

namespace {
// The bytes of the 4-byte word at `word` that [addr, end) covers.
uint8_t byte_mask(uint32_t word, uint32_t addr, uint32_t end) {
    const uint32_t lo = std::max(word, addr) - word, hi = std::min(word + 4, end) - word;
    return uint8_t(((1u << hi) - 1) & ~((1u << lo) - 1));
}
} // namespace

SharedShadow::Word& SharedShadow::word(uint32_t word_addr) {
    Word& w = words_[word_addr / 4];
    if (w.generation != generation_) {
        w = Word{};
        w.generation = generation_;
    }
    return w;
}

std::optional<Finding> SharedShadow::access(const Accessor& who, uint32_t addr, uint32_t bytes, bool write, bool lands_later,
                                            bool allow_uninit, bool* uninit_allowed, bool atomic) {
    std::optional<Finding> found;
    const uint32_t end = addr + bytes;
    for (uint32_t a = addr & ~3u; a < end; a += 4) {
        auto f = access_word(word(a), who, a, byte_mask(a, addr, end), write || atomic, lands_later, allow_uninit, uninit_allowed, atomic);
        if (f && !found) found = f;
    }
    return found;
}

void SharedShadow::landed(uint32_t addr, uint32_t bytes) {
    if (!uninit_) return;
    const uint32_t end = addr + bytes;
    for (uint32_t a = addr & ~3u; a < end; a += 4) word(a).written |= byte_mask(a, addr, end);
}

std::optional<Finding> SharedShadow::access_word(Word& w, const Accessor& who, uint32_t word_addr, uint8_t mask, bool write,
                                                 bool lands_later, bool allow_uninit, bool* uninit_allowed, bool atomic) {
    std::optional<Finding> found;
    auto first_byte = [&](uint8_t m) { return word_addr + uint32_t(__builtin_ctz(m)); };
    // An atomic reads the old value first: bytes nothing wrote are a finding for it too.
    if (uninit_ && (!write || atomic) && (w.written & mask) != mask) {
        if (allow_uninit) {  // tk::allow_uninitialized_reads: a note, not a finding
            if (uninit_allowed) *uninit_allowed = true;
        } else {
            Finding f;
            f.kind = Finding::Kind::uninitialized;
            f.addr = first_byte(uint8_t(mask & ~w.written));
            found = f;
        }
    }
    if (write && !lands_later) w.written |= mask;
    if (!races_) return found;

    AccessRecord now{who.epoch, who.seq, who.site, uint16_t(who.agent), uint8_t(who.lane), uint8_t(atomic ? 1 : 0), mask};
    if (!found && w.write.epoch && (w.write.bytes & mask) && !ordered(w.write, who)) {
        Finding f;
        f.current_writes = write;
        f.earlier_writes = true;
        f.earlier = w.write;
        f.addr = first_byte(uint8_t(w.write.bytes & mask));
        found = f;
    }
    if (write && !atomic) {
        for (AccessRecord& r : w.reads) {
            if (!r.epoch || !(r.bytes & mask)) continue;
            if (!found && !ordered(r, who)) {
                Finding f;
                f.current_writes = true;
                f.earlier_writes = r.atomic;
                f.earlier = r;
                f.addr = first_byte(uint8_t(r.bytes & mask));
                found = f;
            }
            r.bytes &= uint8_t(~mask);  // reads of bytes this write leaves alone still count
            if (!r.bytes) r = AccessRecord{};
        }
        if (w.more_reads) check_more_reads(more_reads_[w.more_reads - 1], who, mask, word_addr, found);
        w.write = now;
        return found;
    }
    // An atomic is checked against the plain reads (not other atomics: they
    // do not race), a plain read against the atomics; then either is kept
    // with the reads, since any number of them may be unordered.
    if (atomic) {
        check_reads_of_kind(w, who, word_addr, mask, false, true, found);
        w.atomics = true;
    } else if (w.atomics) {
        check_reads_of_kind(w, who, word_addr, mask, true, false, found);
    }
    // Take the place of a record of the same kind it supersedes, else a free slot, else the list.
    AccessRecord* slot = nullptr;
    for (AccessRecord& r : w.reads) {
        if (!r.epoch) { if (!slot) slot = &r; continue; }
        if (supersedes(r, now, who, mask)) { slot = &r; break; }
    }
    if (slot) *slot = now;
    else add_read(w, now, who, mask);
    return found;
}

void SharedShadow::check_reads_of_kind(Word& w, const Accessor& who, uint32_t word_addr, uint8_t mask, bool atomic_records,
                                       bool current_writes, std::optional<Finding>& found) {
    if (found) return;
    auto check = [&](const AccessRecord& r) {
        if (found || !r.epoch || bool(r.atomic) != atomic_records || !(r.bytes & mask) || ordered(r, who)) return;
        Finding f;
        f.current_writes = current_writes;
        f.earlier_writes = r.atomic;
        f.earlier = r;
        f.addr = word_addr + uint32_t(__builtin_ctz(uint8_t(r.bytes & mask)));
        found = f;
    };
    for (const AccessRecord& r : w.reads) check(r);
    if (w.more_reads)
        for (const AccessRecord& r : more_reads_[w.more_reads - 1]) check(r);
}

// A write checked against, and clearing, the reads beyond a word's four.
void SharedShadow::check_more_reads(std::vector<AccessRecord>& more, const Accessor& who, uint8_t mask, uint32_t word_addr,
                                    std::optional<Finding>& found) {
    for (AccessRecord& r : more) {
        if (!r.epoch || !(r.bytes & mask)) continue;
        if (!found && !ordered(r, who)) {
            Finding f;
            f.current_writes = true;
            f.earlier_writes = r.atomic;
            f.earlier = r;
            f.addr = word_addr + uint32_t(__builtin_ctz(uint8_t(r.bytes & mask)));
            found = f;
        }
        r.bytes &= uint8_t(~mask);
        if (!r.bytes) r = AccessRecord{};
    }
    std::erase_if(more, [](const AccessRecord& r) { return !r.epoch; });
}

// A fifth unordered reader of a word: its reads continue in the block's list
// (replacing one there it supersedes).
void SharedShadow::add_read(Word& w, const AccessRecord& now, const Accessor& who, uint8_t mask) {
    if (!w.more_reads) {
        more_reads_.emplace_back();
        w.more_reads = uint32_t(more_reads_.size());
    }
    std::vector<AccessRecord>& more = more_reads_[w.more_reads - 1];
    for (AccessRecord& r : more)
        if (supersedes(r, now, who, mask)) { r = now; return; }
    more.push_back(now);
}

} // namespace tklab::sim::bugs
