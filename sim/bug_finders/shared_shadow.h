// Shadow state of a block's shared memory, for two bug finders:
//   races  -- two accesses to the same bytes, at least one a write, by
//             different threads (or a thread and an asynchronous agent) that
//             nothing orders (vector_clock.h); two atomics (atom/red) never
//             race with each other, an atomic and a plain load or store do;
//   uninit -- a read of bytes nothing has written since the block began.
//
// Kept per 4-byte word: the last write and every read since it that no later
// read supersedes, each with a byte mask, so accesses to different bytes of
// one word never clash. A read that is ordered after an earlier read (or is
// the same agent's) replaces it: a write ordered after the later one is
// ordered after both. Four reads fit in the word; more unordered ones (many
// warps reading one value) go to a list of the block's, so a write is checked
// against every reader, however many. The words are reused from block to
// block: a generation number marks which block's records a word holds, so
// nothing is cleared per block.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/bug_finders/vector_clock.h"

namespace tklab::sim::bugs {

struct AccessRecord {
    uint32_t epoch = 0;  // 0: no access
    uint32_t seq = 0;    // the warp's instruction number (ordering inside a warp)
    uint32_t site = 0;   // the caller's id of the instruction's kernel line and op
    uint16_t agent = 0;
    uint8_t lane : 7 = 0;
    uint8_t atomic : 1 = 0;  // an atomic read-modify-write (kept with the reads: many may be unordered)
    uint8_t bytes = 0;   // which bytes of the word
};

// Who is accessing, and what it knows.
struct Accessor {
    int agent = 0;
    int lane = 0;
    uint32_t epoch = 0;             // the agent's own clock now
    uint32_t seq = 0;               // the warp's instruction number (warp agents)
    const VectorClock* clock = nullptr;  // what the agent has acquired
    uint32_t site = 0;
};

// What a check found.
struct Finding {
    enum class Kind { race, uninitialized } kind = Kind::race;
    bool current_writes = false;  // the access being checked writes
    bool earlier_writes = false;  // the earlier access wrote (races)
    AccessRecord earlier;         // races: the access it clashes with
    uint32_t addr = 0;            // first byte concerned
};

class SharedShadow {
public:
    // A new block: `bytes` of shared memory, `warps` warps.
    void begin_block(size_t bytes, int warps, bool races, bool uninit);

    // An instruction of warp w executed with `mask` lanes that orders them
    // among themselves (syncwarp, shfl, ldmatrix, mma, bar, ...): lanes'
    // accesses before it are ordered before their accesses after it.
    void warp_sync(int w, uint32_t seq, uint32_t mask);
    // Warp w's instruction `seq`, executed by `lanes` of the warp's `all`
    // lanes, released (an mbarrier arrival, a bar.arrive), ending its epoch
    // `epoch`. When some lanes stay out (one elected lane arrives; exited
    // lanes too: an exit publishes nothing), the release publishes only what
    // those lanes did, and what the others did before a warp-synchronous
    // instruction they shared with them.
    void warp_release(int w, uint32_t epoch, uint32_t seq, uint32_t lanes, uint32_t all);

    // Checks, then records, an access of `bytes` bytes at `addr`. Returns the
    // first problem found (the access is still recorded). A write whose data
    // `lands_later` (a cp.async: racing from its issue) leaves the bytes
    // unwritten for the uninitialised-read finder until landed() says so.
    // `allow_uninit`: a read of unwritten bytes is no finding; `uninit_allowed`
    // then says it happened (tk::allow_uninitialized_reads). `atomic`: an
    // atomic read-modify-write (pass write = true): it reads (unwritten bytes
    // are a finding) and writes, and races with plain accesses only.
    std::optional<Finding> access(const Accessor& who, uint32_t addr, uint32_t bytes, bool write, bool lands_later = false,
                                  bool allow_uninit = false, bool* uninit_allowed = nullptr, bool atomic = false);
    // The data of such a write is in shared memory now.
    void landed(uint32_t addr, uint32_t bytes);

    const Agents& agents() const { return agents_; }

private:
    struct Word {
        uint32_t generation = 0;
        uint8_t written = 0;  // bytes written since the block began
        bool atomics = false;  // atomic records among its reads (this block): plain reads check them
        AccessRecord write;
        AccessRecord reads[4];
        uint32_t more_reads = 0;  // 1 + index into more_reads_ of the reads beyond four; 0: none
    };
    struct SyncPoint { uint32_t seq; uint32_t mask; };
    // A release by some of a warp's lanes only, by the epoch it ended (a
    // release by every live lane is not kept: it publishes the whole warp).
    struct PartialRelease { uint32_t epoch, seq, lanes; };
    bool release_covers(const PartialRelease& r, const AccessRecord& earlier) const;
    static constexpr size_t kSyncHistory = 64;
    struct WarpSyncs { SyncPoint ring[kSyncHistory]; size_t count = 0; };

    bool ordered(const AccessRecord& earlier, const Accessor& now) const;
    // The rarer cases, out of line so that the common ones stay fast: a warp
    // with partial releases, two lanes of one warp, reads beyond four.
    bool ordered_by_partial_releases(const AccessRecord& earlier, uint32_t known) const;
    bool ordered_lanes(const AccessRecord& earlier, const Accessor& now) const;
    void check_more_reads(std::vector<AccessRecord>& more, const Accessor& who, uint8_t mask, uint32_t word_addr,
                          std::optional<Finding>& found);
    void add_read(Word& w, const AccessRecord& now, const Accessor& who, uint8_t mask);
    // Record r may give its place to `now`: the same kind, on no more bytes, and by the same agent or ordered before it.
    bool supersedes(const AccessRecord& r, const AccessRecord& now, const Accessor& who, uint8_t mask) const {
        return r.atomic == now.atomic && (r.bytes & ~mask) == 0 && (r.agent == now.agent || ordered(r, who));
    }
    std::optional<Finding> access_word(Word& w, const Accessor& who, uint32_t word_addr, uint8_t mask, bool write, bool lands_later,
                                       bool allow_uninit, bool* uninit_allowed, bool atomic);
    // An atomic, or a plain read, checked against the word's reads of the other kind (plain reads, or atomics).
    void check_reads_of_kind(Word& w, const Accessor& who, uint32_t word_addr, uint8_t mask, bool atomic_records, bool current_writes,
                             std::optional<Finding>& found);
    Word& word(uint32_t word_addr);  // this block's record of the word (older blocks' are forgotten)

    // Reads beyond a word's four, per word that has them (this block's).
    std::vector<std::vector<AccessRecord>> more_reads_;
    std::vector<Word> words_;
    std::vector<WarpSyncs> syncs_;
    std::vector<std::vector<PartialRelease>> partial_releases_;  // by warp, in epoch order
    bool any_partial_release_ = false;                           // in this block: else every release covers every lane
    uint32_t generation_ = 0;
    Agents agents_;
    bool races_ = false, uninit_ = false;
};

} // namespace tklab::sim::bugs
