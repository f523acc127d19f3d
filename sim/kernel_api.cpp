// What kernels and the tile library call (sim/api.h, cuda_shim.h): a lane
// parking at an instruction, its ids, shared-memory addresses, register
// accounting, tile snapshots, tk::region markers and tile-op scopes. Each
// runs on the calling thread's fiber.
#include "sim/api.h"

#include "sim/diagnostics.h"
#include "sim/state.h"

#include <algorithm>
#include <limits>

namespace tklab::sim {

void issue(LaneOp& op) {
    Thread* t = g_cur;
    if (!t) throw SimError(ErrorKind::usage, std::string("instruction ") + op_name(op.op) + " called outside a simulated kernel (" +
                                                 line_of(op.file, op.line) + "); launch the kernel with tk::launch");
    t->pending = &op;
    if (t->op_depth > 0) { t->kfile = t->op_file; t->kline = t->op_line; }
    else { t->kfile = op.file; t->kline = op.line; }
    t->sched = fiber_switch::yield(std::move(t->sched));
}

const ThreadIds& current_ids() {
    if (!g_cur) throw SimError(ErrorKind::usage, "threadIdx/blockIdx/blockDim/gridDim read outside a simulated kernel");
    return g_cur->ids;
}

bool in_kernel() { return g_cur != nullptr; }

char* dynamic_smem() {
    if (!g_cur) throw SimError(ErrorKind::usage, "dynamic shared memory requested outside a simulated kernel");
    return g_cur->warp->block->smem;
}

uint32_t smem_addr(const void* p, const char* file, int line) {
    Thread* t = g_cur;
    if (!t) throw SimError(ErrorKind::usage, "shared address taken outside a simulated kernel");
    const Block& b = *t->warp->block;
    const char* c = static_cast<const char*>(p);
    if (c < b.smem || c > b.smem + b.smem_bytes) {
        t->kfile = t->op_depth > 0 ? t->op_file : file;
        t->kline = t->op_depth > 0 ? t->op_line : line;
        fault(*t, "a shared-memory instruction was given a pointer that is not into the block's shared memory",
              "take shared tiles and vectors from tk::shared_allocator; global data goes through global-memory ops");
    }
    return uint32_t(c - b.smem);
}

namespace {
// Whether a register tile's words are all `value`.
bool holds_only(const void* tile, int regs, uint32_t value) {
    const auto* words = static_cast<const uint32_t*>(tile);
    return std::all_of(words, words + regs, [&](uint32_t w) { return w == value; });
}
} // namespace

// Tiles that held one constant (since their declaration: fresh tiles hold
// NaN, see rt.h; or since a fill) and now hold other values (an op wrote
// them: the simulator checks values, not ops) count their registers from
// now on; then a new peak is taken, at `file`:`line` when the caller names
// one, else at the declaration of a tile just counted.
void count_written_constants(Thread& t, const char* file, int line) {
    for (Thread::Alloc& a : t.live) {
        if (!a.constant) continue;
        if (holds_only(a.tile, a.regs, a.value)) continue;
        a.constant = false;
        t.regs += a.regs;
        if (!file) { file = a.file; line = a.line; }
    }
    if (t.regs > t.peak_regs) {
        t.peak_regs = t.regs;
        if (file) { t.peak_file = file; t.peak_line = line; }
        t.peak_live.clear();
        for (const Thread::Alloc& a : t.live)
            if (!a.constant) t.peak_live.push_back(a);
    }
}

void reg_alloc(int regs, const char* file, int line, const void* tile) {
    Thread* t = g_cur;
    if (!t) return;
    Thread::Alloc a{file, line, regs, tile};
    if (tile && regs > 0) {
        a.value = *static_cast<const uint32_t*>(tile);
        a.constant = holds_only(tile, regs, a.value);
    }
    if (!a.constant) t->regs += regs;
    t->live.push_back(a);
    count_written_constants(*t, file, line);
}
void reg_free(int regs, const void* tile) {
    Thread* t = g_cur;
    if (!t) return;
    // A constant tile written since is counted before this one goes: the
    // peak may be now, with every other tile still alive.
    count_written_constants(*t, nullptr, 0);
    // The tile itself when it said; else (vectors, rows) the newest
    // allocation of this size: automatic objects die in reverse order.
    bool counted = true;
    for (size_t i = t->live.size(); i-- > 0;)
        if (tile ? t->live[i].tile == tile : t->live[i].regs == regs) {
            counted = !t->live[i].constant;
            t->live.erase(t->live.begin() + long(i));
            break;
        }
    if (counted) t->regs -= regs;
}

void reg_constant(const void* tile) {
    Thread* t = g_cur;
    if (!t || !tile) return;
    for (size_t i = t->live.size(); i-- > 0;) {
        Thread::Alloc& a = t->live[i];
        if (a.tile != tile) continue;
        if (!a.constant) t->regs -= a.regs;
        a.constant = true;
        a.value = *static_cast<const uint32_t*>(tile);
        return;
    }
}

void reg_from_shared(const void* tile) {
    Thread* t = g_cur;
    if (!t) return;
    for (size_t i = t->live.size(); i-- > 0;) {
        const Thread::Alloc& a = t->live[i];
        if (a.tile != tile) continue;
        const std::pair<const char*, int> site{a.file, a.line};
        if (std::find(t->from_shared.begin(), t->from_shared.end(), site) == t->from_shared.end()) t->from_shared.push_back(site);
        return;
    }
}

bool snapshots_wanted() {
    const Thread* t = g_cur;
    return t && t->warp->block->snapshots;
}

void snapshot(const SnapshotPart& part) {
    Thread* t = g_cur;
    if (!t || !t->warp->block->snapshots) return;
    Block& b = *t->warp->block;
    Warp& w = *t->warp;
    BlockTrace& bt = b.hooks.trace();
    auto& pending = b.pending_snapshots[size_t(w.id)];
    const uint32_t nth = t->snapshots++;
    // The warp's nth snapshot: the first lane to reach it creates it.
    auto it = std::find_if(pending.begin(), pending.end(), [&](const Block::PendingSnapshot& p) { return p.nth == nth; });
    if (it == pending.end()) {
        SnapshotRecord r;
        r.cycle = w.clock;
        r.warp = uint16_t(w.id);
        r.loc = b.out->locs(part.file, part.line);
        r.label = part.label;
        r.space = part.shared ? "shared" : "register";
        r.rows = part.rows;
        r.cols = part.cols;
        r.values.assign(size_t(part.rows) * size_t(part.cols), std::numeric_limits<float>::quiet_NaN());
        bt.snapshots.push_back(std::move(r));
        pending.push_back({nth, bt.snapshots.size() - 1, part.shared});
        it = pending.end() - 1;
    }
    SnapshotRecord& r = bt.snapshots[it->index];
    if (!it->shared || it->lanes_seen == 0) part.fill(part.tile, t->lane, r.values.data());
    it->lanes_seen |= 1u << t->lane;
    if ((it->lanes_seen & w.live) == w.live) pending.erase(it);  // every live lane has given its part
}

namespace {
// When a region a warp opens begins. A marker reads a __constant__ on the
// GPU (tk/ops/warp/debug/region.h) before its clocks: the first one of a
// first-wave block's warp, before its first instruction, waits there for the
// constant cache (Executor::constants_fetched), so its region begins after
// that wait, as the GPU's does, and the first instruction finds it done.
uint64_t region_clock(Block& b, Warp& w) { return w.seq > 0 ? w.clock : constants_ready(b, w.clock); }
} // namespace

int64_t region_begin(const char* name, const char* file, int line) {
    Thread* t = g_cur;
    if (!t) return -1;
    Block& b = *t->warp->block;
    Warp& w = *t->warp;
    BlockTrace& bt = b.hooks.trace();
    const uint32_t pass = t->region_passes[{name, line}]++;
    auto& pending = b.pending_regions[size_t(w.id)];
    const Block::RegionKey key{name, line, pass};
    auto it = pending.find(key);
    if (it == pending.end()) {  // the warp's first lane here: the region begins now
        RegionRecord r;
        r.begin = r.end = region_clock(b, w);
        r.warp = uint16_t(w.id);
        r.name = uint16_t(b.out->region_names(name, 0));
        r.loc = b.out->region_locs(file, line);
        r.depth = uint8_t(std::min(t->region_depth, 255));
        r.open = true;  // until its lanes have left
        bt.regions.push_back(r);
        b.region_lanes.emplace_back();
        it = pending.emplace(key, bt.regions.size() - 1).first;
    }
    const size_t index = it->second;
    Block::RegionLanes& lanes = b.region_lanes[index];
    lanes.entered |= 1u << t->lane;
    if ((lanes.entered & w.live) == w.live) pending.erase(it);  // every live lane is in
    ++t->region_depth;
    return int64_t(index);
}

void region_end(int64_t record, bool unwinding) {
    Thread* t = g_cur;
    if (!t || record < 0) return;
    --t->region_depth;
    if (unwinding) return;  // a fault or an exception: the region stays open
    Block& b = *t->warp->block;
    BlockTrace& bt = b.hooks.trace();
    if (size_t(record) >= bt.regions.size()) return;
    RegionRecord& r = bt.regions[size_t(record)];
    Block::RegionLanes& lanes = b.region_lanes[size_t(record)];
    r.end = std::max(r.end, t->warp->clock);  // the warp's last lane to leave ends it
    lanes.left |= 1u << t->lane;
    r.open = lanes.left != lanes.entered;
}

op_scope::op_scope(const char* name, const char* file, int line) {
    Thread* t = g_cur;
    if (!t) return;
    if (t->op_depth++ == 0) { t->op_name = name; t->op_file = file; t->op_line = line; ++t->op_seq; }
}
op_scope::~op_scope() {
    if (Thread* t = g_cur) --t->op_depth;
}

void note_intrinsic(AluKind kind) {
    if (Thread* t = g_cur) ++t->intrinsics[size_t(kind)];
}
uint32_t take_intrinsics(AluKind kind) {
    Thread* t = g_cur;
    if (!t) return 0;
    const uint32_t n = t->intrinsics[size_t(kind)];
    t->intrinsics[size_t(kind)] = 0;
    return n;
}

void allow_uninitialized_reads(bool on) {
    if (Thread* t = g_cur) t->allow_uninit += on ? 1 : -1;
}

size_t dynamic_smem_bytes() {
    if (!g_cur) throw SimError(ErrorKind::usage, "dynamic shared memory size asked outside a simulated kernel");
    return g_cur->warp->block->smem_bytes;
}

void check_failed(const char* file, int line, const char* what, const char* fix) {
    Thread* t = g_cur;
    if (!t) throw SimError(ErrorKind::usage, line_of(file, line) + ": error: " + what + ".\n  fix: " + fix, file, line);
    t->kfile = t->op_depth > 0 ? t->op_file : file;
    t->kline = t->op_depth > 0 ? t->op_line : line;
    fault(*t, what, fix);
}

} // namespace tklab::sim
