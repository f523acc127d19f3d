#include "visualizer/model/range_stats.h"
#include <algorithm>
#include <string>

namespace tklab::view {

namespace {

bool starts(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

uint64_t overlap(uint64_t a, uint64_t b, uint64_t begin, uint64_t end) {
    const uint64_t lo = std::max(a, begin), hi = std::min(b, end);
    return hi > lo ? hi - lo : 0;
}

void add_smem(trace::SmemTotals& t, const trace::SmemAccess& s) {
    t.instructions++;
    t.wavefronts += s.wavefronts;
    t.ideal += s.ideal;
    t.max_way = std::max(t.max_way, int(s.max_way));
}

} // namespace

uint64_t RangeStats::stall_total() const {
    uint64_t sum = 0;
    for (size_t i = 1; i < stall_cycles.size(); ++i) sum += stall_cycles[i];  // 0 is "none"
    return sum;
}

RangeStats range_stats(const trace::Trace& trace, const trace::Block& block, int warps,
                       uint64_t begin, uint64_t end) {
    RangeStats r;
    r.begin = begin;
    r.end = std::max(begin, end);
    r.by_op.assign(trace.ops.size(), 0);
    r.stall_cycles.assign(trace.stalls.size(), 0);
    for (const trace::Event& e : block.events) warps = std::max(warps, int(e.warp) + 1);
    r.warps = warps;
    r.warp_instructions.assign(size_t(warps), 0);
    r.warp_stall_cycles.assign(size_t(warps), 0);

    // Which SmemTotals an instruction adds to, and which stalls come after issue.
    std::vector<trace::SmemTotals*> smem_kind(trace.ops.size(), nullptr);
    for (size_t i = 0; i < trace.ops.size(); ++i) {
        const std::string& op = trace.ops[i];
        if (starts(op, "ld.shared")) smem_kind[i] = &r.ld_shared;
        else if (starts(op, "st.shared")) smem_kind[i] = &r.st_shared;
        else if (starts(op, "ldmatrix")) smem_kind[i] = &r.ldmatrix;
        else if (starts(op, "stmatrix")) smem_kind[i] = &r.stmatrix;
    }
    std::vector<bool> waits_after_issue(trace.stalls.size(), false);
    for (size_t i = 0; i < trace.stalls.size(); ++i)
        waits_after_issue[i] = trace.stalls[i] == "barrier" || trace.stalls[i] == "mbarrier";

    for (const trace::Event& e : block.events) {
        if (e.stall != 0 && e.stall_cycles > 0 && e.stall < r.stall_cycles.size()) {
            const uint64_t stop = waits_after_issue[e.stall] ? std::max(e.done, e.issue) : e.issue;
            const uint64_t start = stop >= e.stall_cycles ? stop - e.stall_cycles : 0;
            const uint64_t in = overlap(start, stop, r.begin, r.end);
            r.stall_cycles[e.stall] += in;
            r.warp_stall_cycles[e.warp] += in;
        }
        if (e.issue < r.begin || e.issue >= r.end) continue;
        r.instructions++;
        r.warp_instructions[e.warp]++;
        if (e.op < r.by_op.size()) {
            r.by_op[e.op]++;
            if (smem_kind[e.op] && e.smem >= 0 && size_t(e.smem) < block.smem.size())
                add_smem(*smem_kind[e.op], block.smem[size_t(e.smem)]);
        }
    }
    for (uint64_t n : r.warp_instructions) r.active_warps += n > 0;

    for (const trace::BarrierWait& w : block.barriers) {
        const uint64_t in = overlap(w.arrive, w.release, r.begin, r.end);
        // A wait of zero cycles inside the range still counts as a wait.
        const bool touches = in > 0 || (w.arrive >= r.begin && w.arrive < r.end);
        if (!touches) continue;
        r.barrier_waits++;
        r.barrier_wait_cycles += in;
    }
    return r;
}

} // namespace tklab::view
