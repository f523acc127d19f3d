// Bulk tensor copies (TMA, sm_90): cp.async.bulk.tensor loads (landing in
// shared memory, swizzled, and completing bytes on an mbarrier) and stores,
// their commit and wait groups, fence.proxy.async, and the tensor map checks
// the hardware would refuse a copy by. One copy engine per block serialises them.
#include "sim/exec/executor.h"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace tklab::sim {

namespace {

uint64_t box_bytes(const TensorMap& m) {
    uint64_t n = m.elem_bytes;
    for (uint32_t d = 0; d < m.rank; ++d) n *= m.box[d];
    return n;
}

// Visits the box's rows (all dimensions but the innermost) in box order:
// f(row, first, end, address) with [first, end) the row's elements inside
// the tensor (first == end: none) and the global address of element `first`.
template <class F>
void for_box_rows(const TensorMap& m, const int32_t* coord, F&& f) {
    uint64_t rows = 1;
    for (uint32_t d = 1; d < m.rank; ++d) rows *= m.box[d];
    const int64_t lo = std::max<int64_t>(0, coord[0]), hi = std::min<int64_t>(m.dims[0], int64_t(coord[0]) + m.box[0]);
    for (uint64_t r = 0; r < rows; ++r) {
        uint64_t rest = r, off = 0;
        bool inside = lo < hi;
        for (uint32_t d = 1; d < m.rank; ++d) {
            const int64_t c = int64_t(coord[d]) + int64_t(rest % m.box[d]);
            rest /= m.box[d];
            if (c < 0 || c >= int64_t(m.dims[d])) inside = false;
            else off += uint64_t(c) * m.strides[d];
        }
        if (!inside) { f(r, uint32_t(0), uint32_t(0), uintptr_t(0)); continue; }
        f(r, uint32_t(lo - coord[0]), uint32_t(hi - coord[0]), uintptr_t(m.global) + off + uint64_t(lo) * m.elem_bytes);
    }
}

} // namespace

void Executor::bulk_copy(Op op) {
    switch (op) {
    case Op::tma_load: tma_load(); break;
    case Op::tma_store: tma_store(); break;
    case Op::bulk_commit: bulk_commit(); break;
    case Op::bulk_wait: bulk_wait(); break;
    case Op::fence_proxy_async: w_.clock = t_ + cost_.issue_cycles; break;
    default: break;
    }
}

// The tensor map a bulk tensor copy names, checked as the hardware would refuse it.
const TensorMap& Executor::tensor_map(int l) {
    const LaneOp& o = lane_op(l);
    const uintptr_t p = uintptr_t(o.gptr);
    const std::string fix = "pass the map of a tk::gl_tma (gl.map<Tile>(), or tk::make_tensor_map on the host) and pass the gl_tma "
                            "to the kernel by value as const __grid_constant__";
    if (!p) fault(lane(l), "a bulk tensor copy was given a null tensor map", fix);
    if (p % 64 != 0) fault(lane(l), "a bulk tensor copy was given a tensor map at " + hex(p) + ", which is not 64-byte aligned", fix);
    const TensorMap& m = *static_cast<const TensorMap*>(o.gptr);
    if (m.magic != TensorMap::magic_value)
        fault(lane(l), "a bulk tensor copy was given " + hex(p) + " as its tensor map, and no tensor map is there" +
                           (find_allocation(p, 1) ? " (it points into global memory: a tensor, not its map)" : ""),
              fix);
    std::string bad;
    if (m.rank < 1 || m.rank > 5) bad = "rank " + std::to_string(m.rank) + " (1..5)";
    else if (m.elem_bytes != 1 && m.elem_bytes != 2 && m.elem_bytes != 4 && m.elem_bytes != 8) bad = "element size " + std::to_string(m.elem_bytes);
    else if (m.swizzle_bytes != 0 && m.swizzle_bytes != 32 && m.swizzle_bytes != 64 && m.swizzle_bytes != 128)
        bad = "swizzle " + std::to_string(m.swizzle_bytes) + " bytes (0, 32, 64 or 128)";
    else if (uint64_t(m.box[0]) * m.elem_bytes % 16 != 0) bad = "a box row of " + std::to_string(m.box[0] * m.elem_bytes) + " bytes (a multiple of 16)";
    else if (m.swizzle_bytes && m.box[0] * m.elem_bytes > m.swizzle_bytes)
        bad = "a box row of " + std::to_string(m.box[0] * m.elem_bytes) + " bytes, wider than its " + std::to_string(m.swizzle_bytes) + "-byte swizzle";
    for (uint32_t d = 0; bad.empty() && d < m.rank; ++d)
        if (m.box[d] < 1 || m.box[d] > 256) bad = "box dimension " + std::to_string(d) + " of " + std::to_string(m.box[d]) + " elements (1..256)";
    if (!bad.empty()) fault(lane(l), "the tensor map at " + hex(p) + " has " + bad + "; the hardware refuses it", fix);
    return m;
}

const Allocation& Executor::check_tensor_memory(int l, uintptr_t a, uint64_t bytes, uint64_t row) {
    if (const Allocation* al = find_allocation(a, bytes)) return *al;
    std::ostringstream s;
    s << "a bulk tensor copy's box row " << row << " (" << bytes << " bytes at " << hex(a)
      << ") lies inside the tensor map's dimensions but outside any global allocation" << describe_nearest_allocation(a);
    fault(lane(l), s.str(), "build the tensor map from the buffer the data lives in, with its real dimensions (tk::gl_tma over a tk::device_buffer)");
}

// The shared side of a bulk tensor copy: inside the block's shared memory,
// aligned to where the swizzle pattern starts (the hardware computes it from address bits).
void Executor::check_copy_smem(int l, uint32_t addr, uint64_t bytes, uint32_t swizzle, const char* what) {
    if (uint64_t(addr) + bytes > b_.smem_bytes) {
        std::ostringstream s;
        s << "a bulk tensor copy's shared " << what << " of " << bytes << " bytes at shared address " << hex(addr)
          << " runs past the block's " << b_.smem_bytes << " bytes of dynamic shared memory";
        fault(lane(l), s.str(), "keep shared tiles inside the shared memory requested at launch, or request more");
    }
    const uint32_t align = swizzle == 128 ? 1024 : swizzle == 64 ? 512 : swizzle == 32 ? 256 : 128;
    if (addr % align != 0) {
        std::ostringstream s;
        s << "a bulk tensor copy's shared " << what << " at " << hex(addr) << " is not " << align << "-byte aligned";
        if (swizzle) s << " (its " << swizzle << "-byte swizzle pattern repeats every " << align << " bytes)";
        fault(lane(l), s.str(), "allocate shared tiles from tk::shared_allocator (1024-byte aligned) and copy whole tiles or column blocks");
    }
}

// The copy engine moves one copy at a time: `bytes` occupy it bytes /
// bandwidth cycles after it is free; the data is there the memory path's
// latency later.
uint64_t Executor::use_copy_engine(uint64_t bytes, uint64_t& engine_done, bool load) {
    const uint64_t start = std::max(t_, b_.sm->copy_engine_free);
    const uint64_t bpc = uint64_t(std::max(1, cost_.tma_bytes_per_cycle));
    engine_done = start + (bytes + bpc - 1) / bpc;
    b_.sm->copy_engine_free = engine_done;
    b_.out->trace.global_bytes += bytes;  // whole rows of a tensor: whole sectors
    if (!load) b_.out->trace.global_write_bytes += bytes;
    else b_.out->trace.global_tma_read_bytes += bytes;
    // A load's bytes also come through the SM's share of the memory's bandwidth.
    const uint64_t landed = engine_done + uint64_t(b_.memory.tma_latency);
    return load ? std::max(landed, load_arrives(start, bytes, b_.memory.tma_latency, b_.memory.dram, true)) : landed;
}

void Executor::tma_load() {
    std::vector<uint32_t> rows;
    for_lanes([&](int l) {
        LaneOp& o = lane_op(l);
        const TensorMap& m = tensor_map(l);
        const uint64_t bytes = box_bytes(m);
        const uint32_t row_bytes = m.box[0] * m.elem_bytes;
        check_copy_smem(l, o.addr, bytes, m.swizzle_bytes, "destination");
        const uint32_t bar = o.mbarrier;
        MbarState& mb = mbar_for_tx(l, bar, "cp.async.bulk.tensor (its completion mbarrier)");
        // The box as it is in global memory at issue; elements outside the tensor read as zero.
        std::vector<uint8_t> image(bytes, 0);
        for_box_rows(m, o.coord, [&](uint64_t r, uint32_t first, uint32_t end, uintptr_t a) {
            if (first == end) return;
            const uint64_t n = uint64_t(end - first) * m.elem_bytes;
            check_global_written(lane(l), check_tensor_memory(l, a, n, r), a, n, "a bulk tensor load's box row");
            std::memcpy(image.data() + r * row_bytes + uint64_t(first) * m.elem_bytes, reinterpret_cast<const void*>(a), n);
        });
        for (uint64_t i = 0; i < bytes; i += 16) rows.push_back(swizzle_address(o.addr + uint32_t(i), m.swizzle_bytes));
        uint64_t engine_done = 0;
        const uint64_t done = use_copy_engine(bytes, engine_done, true);
        mb.in_flight += bytes;
        mb.copy_file = lane(l).kfile;
        mb.copy_line = lane(l).kline;
        Block* b = &b_;
        Thread* th = &lane(l);
        const uint32_t dst = o.addr, swizzle = m.swizzle_bytes;
        const int warp = w_.id;
        const char* file = lane(l).kfile;
        const int line = lane(l).kline;
        // The copy engine writes as its own agent, knowing what the
        // issuing warp knew at issue; its landing publishes that.
        bugs::Accessor copier{};
        bugs::VectorClock known;
        if (b_.hooks.finders_on()) {
            known = w_.hb;
            const int agent = b_.hooks.agents().copy_engine(w_.id);
            known[size_t(agent)] = ++w_.copies;
            copier = {agent, l, w_.copies, 0, nullptr, site_};
        }
        // At completion: the rows land in shared memory (swizzled) and the
        // bytes count off the barrier's transaction count.
        schedule(done, [b, th, dst, swizzle, bar, bytes, done, warp, file, line, image = std::move(image), copier,
                        known = std::move(known)]() mutable {
            if (b->hooks.finders_on()) {
                copier.clock = &known;
                for (uint64_t i = 0; i < bytes; i += 16)
                    b->hooks.access(copier, swizzle_address(dst + uint32_t(i), swizzle), 16, true, Op::tma_load, file, line, th->ids.block);
            }
            for (uint64_t i = 0; i < bytes; i += 16)
                std::memcpy(b->smem + swizzle_address(dst + uint32_t(i), swizzle), image.data() + i, 16);
            land_bytes(*b, bar, bytes, known, done, warp, file, line, where(*th));
        });
    });
    record_rows16(rows);
    w_.clock = t_ + cost_.global_issue_cycles;
}

void Executor::tma_store() {
    std::vector<uint32_t> rows;
    for_lanes([&](int l) {
        LaneOp& o = lane_op(l);
        const TensorMap& m = tensor_map(l);
        const uint64_t bytes = box_bytes(m);
        const uint32_t row_bytes = m.box[0] * m.elem_bytes;
        check_copy_smem(l, o.addr, bytes, m.swizzle_bytes, "source");
        // The engine reads the box out of shared memory (undoing the swizzle)...
        std::vector<uint8_t> image(bytes);
        for (uint64_t i = 0; i < bytes; i += 16) {
            const uint32_t a = swizzle_address(o.addr + uint32_t(i), m.swizzle_bytes);
            rows.push_back(a);
            access(lane_accessor(l), a, 16, false, lane(l));
            std::memcpy(image.data() + i, b_.smem + a, 16);
        }
        // ...and writes the elements inside the tensor (the others are dropped).
        for_box_rows(m, o.coord, [&](uint64_t r, uint32_t first, uint32_t end, uintptr_t a) {
            if (first == end) return;
            const uint64_t n = uint64_t(end - first) * m.elem_bytes;
            const Allocation& al = check_tensor_memory(l, a, n, r);
            if (b_.probe) return;
            al.mark(a, n);
            std::memcpy(reinterpret_cast<void*>(a), image.data() + r * row_bytes + uint64_t(first) * m.elem_bytes, n);
        });
        uint64_t read_done = 0;
        const uint64_t done = use_copy_engine(bytes, read_done, false);
        Thread::BulkGroup& g = lane(l).bulk_open;
        g.read = std::max(g.read, read_done);
        g.done = std::max(g.done, done);
    });
    record_rows16(rows);
    w_.clock = t_ + cost_.global_issue_cycles;
}

void Executor::bulk_commit() {
    for_lanes([&](int l) {
        Thread& t = lane(l);
        t.bulk_groups.push_back(t.bulk_open);
        t.bulk_open = {};
    });
    w_.clock = t_ + cost_.issue_cycles;
}

// Until at most N of each lane's bulk groups are pending (.read: still
// reading shared memory): all but the newest N are done. Groups whose
// writes are done by then are pending for neither form and are dropped.
void Executor::bulk_wait() {
    const size_t keep = op0_->pending;
    const bool read = op0_->read_done;
    uint64_t until = t_;
    for_lanes([&](int l) {
        const auto& gs = lane(l).bulk_groups;
        for (size_t i = 0; i + keep < gs.size(); ++i) until = std::max(until, read ? gs[i].read : gs[i].done);
    });
    wait_until(until, Stall::long_scoreboard);
    for_lanes([&](int l) {
        auto& gs = lane(l).bulk_groups;
        gs.erase(std::remove_if(gs.begin(), gs.end(), [&](const Thread::BulkGroup& g) { return g.done <= t_; }), gs.end());
    });
    w_.clock = t_ + cost_.issue_cycles;
}

void Executor::schedule(uint64_t when, std::function<void()> f) {
    b_.async.emplace(std::make_pair(when, b_.async_seq++), std::move(f));
}

} // namespace tklab::sim
