// Chrome trace-event export; chrome_export.h describes the layout.
#include "trace/chrome_export.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>
#include <ostream>

namespace tklab::trace {
namespace {

// Receives each event as it is made: to_chrome appends it to an array,
// write_chrome prints it, so both produce the same events in the same order.
using Sink = std::function<void(json&&)>;

constexpr int kOverviewPid = 1;      // launches and failures outside timeline blocks
constexpr int kOverviewTid = 1;
constexpr int kFirstBlockPid = 2;
constexpr uint32_t kFullMask = 0xFFFFFFFFu;
constexpr double kDefaultClockMhz = 1000;

// tid 0 is avoided: trace processors treat it as the idle thread.
int warp_tid(int warp) { return 1 + warp; }
int wait_tid(int warp) { return 1001 + warp; }
// Each warp's waits sit just below the warp in the thread list.
int warp_sort_index(int warp) { return 2 * warp; }
int wait_sort_index(int warp) { return 2 * warp + 1; }

// nlohmann::json refuses to write invalid UTF-8, and a source file or a
// message may hold Latin-1 bytes: replace those so export never throws.
std::string valid_utf8(const std::string& s) {
    bool ascii = std::all_of(s.begin(), s.end(), [](char c) { return (unsigned char)c < 0x80; });
    if (ascii) return s;
    return json::parse(json(s).dump(-1, ' ', false, json::error_handler_t::replace)).get<std::string>();
}

std::string hex(uint32_t value, int digits = 0) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%0*x", digits, unsigned(value));
    return buf;
}

std::string coord(const Dim3& d) {
    char s[48];  // snprintf: GCC 12 warns (-Wrestrict, falsely) on "(" + std::to_string(...)
    std::snprintf(s, sizeof s, "(%u,%u,%u)", d.x, d.y, d.z);
    return s;
}

std::string table_name(const std::vector<std::string>& table, size_t index, const char* fallback) {
    if (index < table.size()) return valid_utf8(table[index]);
    return std::string(fallback) + std::to_string(index);
}

double clock_mhz(const json& arch) {
    if (!arch.is_object()) return kDefaultClockMhz;
    auto it = arch.find("clock_mhz");
    if (it == arch.end() || !it->is_number()) return kDefaultClockMhz;
    double mhz = it->get<double>();
    return std::isfinite(mhz) && mhz > 0 ? mhz : kDefaultClockMhz;
}

// The last cycle anything of a block happened at: the next launch starts after
// the latest of these over its blocks, so launches never overlap even when an
// event runs past Block::cycles.
uint64_t block_end(const Block& b) {
    uint64_t end = b.cycles;
    if (!b.timeline) return end;
    for (const Event& e : b.events) end = std::max({end, e.issue, e.done});
    for (const BarrierWait& w : b.barriers) end = std::max({end, w.arrive, w.release});
    for (const RegChange& r : b.regs) end = std::max(end, r.cycle);
    for (const Snapshot& s : b.snapshots) end = std::max(end, s.cycle);
    return end;
}

uint64_t launch_span(const Launch& l) {
    uint64_t span = 0;
    for (const Block& b : l.blocks) span = std::max(span, block_end(b));
    return span;
}

// Warps of a block: the launch's, or more if the recording names a higher warp.
int warp_count(const Launch& l, const Block& b) {
    size_t n = l.warps_per_block();
    for (const Event& e : b.events) n = std::max<size_t>(n, e.warp + 1u);
    for (const BarrierWait& w : b.barriers) n = std::max<size_t>(n, w.warp + 1u);
    for (const RegChange& r : b.regs) n = std::max<size_t>(n, r.warp + 1u);
    for (const Snapshot& s : b.snapshots) n = std::max<size_t>(n, s.warp + 1u);
    return int(n);
}

// A slice on a track, in block cycles.
struct Span { uint64_t start = 0, end = 0; };

// Slices on one track must not overlap or viewers draw garbage. Recorded ones
// should not, but clamp each to start where the previous ended.
Span after(uint64_t& prev_end, uint64_t start, uint64_t end) {
    Span s;
    s.start = std::max(start, prev_end);
    s.end = std::max(end, s.start);
    prev_end = s.end;
    return s;
}

// ---- event constructors ----

double us(int64_t ns) { return double(ns) / 1000.0; }

json metadata(const char* name, int pid, int tid, json args) {
    return {{"name", name}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", std::move(args)}};
}

json slice(std::string name, int pid, int tid, int64_t start_ns, int64_t end_ns, json args) {
    return {{"name", std::move(name)}, {"ph", "X"}, {"pid", pid}, {"tid", tid},
            {"ts", us(start_ns)}, {"dur", us(end_ns - start_ns)}, {"args", std::move(args)}};
}

// scope: "t" thread, "p" process, "g" global.
json instant(std::string name, int pid, int tid, int64_t ns, const char* scope, json args) {
    return {{"name", std::move(name)}, {"ph", "i"}, {"s", scope}, {"pid", pid}, {"tid", tid},
            {"ts", us(ns)}, {"args", std::move(args)}};
}

json counter(const char* name, int pid, int tid, int64_t ns, json args) {
    return {{"name", name}, {"ph", "C"}, {"pid", pid}, {"tid", tid}, {"ts", us(ns)}, {"args", std::move(args)}};
}

// Where a timeline block's events go: its process and its launch's start.
struct BlockTracks {
    int pid = 0;
    uint64_t base = 0;   // launch offset, cycles
    int warps = 0;
};

class Exporter {
public:
    Exporter(const Trace& t, const ChromeOptions& options)
        : t_(t), options_(options), clock_mhz_(clock_mhz(t.arch)), locs_(t.locations.size()) {}

    json other_data() const {
        std::string arch;
        if (t_.arch.is_object() && t_.arch.contains("name") && t_.arch["name"].is_string())
            arch = t_.arch["name"].get<std::string>();
        return {{"program", valid_utf8(t_.program)}, {"variant", valid_utf8(t_.variant)},
                {"arch", valid_utf8(arch)}, {"clock_mhz", clock_mhz_}, {"producer", valid_utf8(t_.producer)}};
    }

    void run(const Sink& sink) {
        sink_ = &sink;
        emit_overview_metadata();
        uint64_t base = 0;
        int next_pid = kFirstBlockPid;
        for (size_t li = 0; li < t_.launches.size(); ++li) {
            const Launch& l = t_.launches[li];
            uint64_t span = launch_span(l);
            emit_launch_slice(l, li, base, span);
            bool failure_shown = false;
            for (const Block& b : l.blocks) {
                if (!b.timeline) continue;
                BlockTracks tracks{next_pid++, base, warp_count(l, b)};
                emit_block(l, li, b, tracks);
                if (l.failure && l.failure->block == int64_t(b.index)) {
                    emit_failure(*l.failure, tracks.pid, warp_tid(0), base + block_end(b));
                    failure_shown = true;
                }
            }
            if (l.failure && !failure_shown) emit_failure(*l.failure, kOverviewPid, kOverviewTid, base + span);
            base += span;
        }
        if (t_.failure) emit_failure(*t_.failure, kOverviewPid, kOverviewTid, base);
        sink_ = nullptr;
    }

private:
    struct LocText { std::string where, source; };

    // Source lines are looked up once per location: line_text scans the file.
    const LocText& loc_text(uint32_t loc) {
        static const LocText unknown{"?", ""};
        if (loc >= locs_.size()) return unknown;
        if (!locs_[loc]) locs_[loc] = LocText{valid_utf8(t_.where(loc)), valid_utf8(t_.line_text(loc))};
        return *locs_[loc];
    }

    void add_location(json& args, uint32_t loc) {
        const LocText& text = loc_text(loc);
        args["where"] = text.where;
        if (!text.source.empty()) args["source"] = text.source;
    }

    // Nanoseconds of a block cycle. Rounding is monotonic, so slices that nest
    // in cycles still nest after it.
    int64_t ns(const BlockTracks& tracks, uint64_t cycle) const {
        return std::llround(double(tracks.base + cycle) * 1000.0 / clock_mhz_);
    }
    int64_t ns(uint64_t absolute_cycle) const { return ns(BlockTracks{}, absolute_cycle); }

    void emit(json&& event) { (*sink_)(std::move(event)); }

    // ---- launches ----

    void emit_overview_metadata() {
        std::string name = t_.program.empty() ? "launches" : valid_utf8(t_.program) + " · launches";
        emit(metadata("process_name", kOverviewPid, kOverviewTid, {{"name", name}}));
        emit(metadata("process_sort_index", kOverviewPid, kOverviewTid, {{"sort_index", 0}}));
        emit(metadata("thread_name", kOverviewPid, kOverviewTid, {{"name", "kernels"}}));
        emit(metadata("thread_sort_index", kOverviewPid, kOverviewTid, {{"sort_index", 0}}));
    }

    void emit_launch_slice(const Launch& l, size_t index, uint64_t base, uint64_t span) {
        size_t timeline = std::count_if(l.blocks.begin(), l.blocks.end(), [](const Block& b) { return b.timeline; });
        json args = {{"launch", index}, {"grid", coord(l.grid)}, {"block", coord(l.block)},
                     {"blocks", l.blocks.size()}, {"timeline_blocks", timeline},
                     {"cycles", span}, {"smem_bytes", l.smem_bytes}};
        if (l.summary) args["est_kernel_cycles"] = l.summary->est_kernel_cycles;
        emit(slice(valid_utf8(l.kernel), kOverviewPid, kOverviewTid, ns(base), ns(base + span), std::move(args)));
    }

    void emit_failure(const Failure& f, int pid, int tid, uint64_t absolute_cycle) {
        json args = {{"message", valid_utf8(f.message)}};
        if (f.loc != 0) add_location(args, f.loc);
        if (f.block >= 0) args["block"] = f.block;
        emit(instant("failure: " + valid_utf8(f.kind), pid, tid, ns(absolute_cycle), "g", std::move(args)));
    }

    // ---- one timeline block ----

    using WaitsByWarp = std::vector<std::vector<const BarrierWait*>>;

    void emit_block(const Launch& l, size_t launch_index, const Block& b, const BlockTracks& tracks) {
        std::vector<std::vector<uint32_t>> events_by_warp(tracks.warps);
        for (uint32_t i = 0; i < b.events.size(); ++i) events_by_warp[b.events[i].warp].push_back(i);
        WaitsByWarp waits = waits_by_warp(b, tracks.warps);

        emit_block_metadata(l, launch_index, b, tracks, waits);
        for (int w = 0; w < tracks.warps; ++w) emit_warp(b, tracks, w, events_by_warp[w]);
        for (const Snapshot& s : b.snapshots) emit_snapshot(s, tracks);
        for (int w = 0; w < tracks.warps; ++w) emit_waits(tracks, w, waits[w]);
        emit_registers(b, tracks);
    }

    void emit_block_metadata(const Launch& l, size_t launch_index, const Block& b, const BlockTracks& tracks,
                             const WaitsByWarp& waits) {
        std::string name = valid_utf8(l.kernel) + " · block " + coord(b.coord);
        if (t_.launches.size() > 1) name += " · launch " + std::to_string(launch_index);
        int pid = tracks.pid;
        emit(metadata("process_name", pid, warp_tid(0), {{"name", name}}));
        emit(metadata("process_sort_index", pid, warp_tid(0), {{"sort_index", pid}}));
        for (int w = 0; w < tracks.warps; ++w) {
            std::string warp = "warp " + std::to_string(w);
            emit(metadata("thread_name", pid, warp_tid(w), {{"name", warp}}));
            emit(metadata("thread_sort_index", pid, warp_tid(w), {{"sort_index", warp_sort_index(w)}}));
            if (waits[w].empty()) continue;
            emit(metadata("thread_name", pid, wait_tid(w), {{"name", warp + " · waits"}}));
            emit(metadata("thread_sort_index", pid, wait_tid(w), {{"sort_index", wait_sort_index(w)}}));
        }
    }

    // A warp's track: each run of events with the same non-zero op_seq becomes
    // a tile-op slice with its instructions as children; instructions outside
    // tile ops sit at the top level between them.
    void emit_warp(const Block& b, const BlockTracks& tracks, int warp, const std::vector<uint32_t>& events) {
        std::vector<Span> spans;
        spans.reserve(events.size());
        uint64_t prev_end = 0;
        for (uint32_t i : events) spans.push_back(after(prev_end, b.events[i].issue, b.events[i].done));

        for (size_t i = 0; i < events.size();) {
            const Event& first = b.events[events[i]];
            size_t j = i + 1;
            if (first.op_seq != 0)
                while (j < events.size() && b.events[events[j]].op_seq == first.op_seq) ++j;
            if (first.op_seq != 0) emit_op(b, tracks, warp, events, spans, i, j);
            for (size_t k = i; k < j; ++k) emit_instruction(b, tracks, warp, events[k], spans[k]);
            i = j;
        }
    }

    // The tile-op slice over events[begin, end) of one warp.
    void emit_op(const Block& b, const BlockTracks& tracks, int warp, const std::vector<uint32_t>& events,
                 const std::vector<Span>& spans, size_t begin, size_t end) {
        const Event& first = b.events[events[begin]];
        const Event& last = b.events[events[end - 1]];
        json args = {{"op_seq", first.op_seq}, {"instructions", end - begin},
                     {"issue", first.issue}, {"done", last.done}};
        add_location(args, first.loc);
        emit(slice(table_name(t_.op_names, first.op_name, "op "), tracks.pid, warp_tid(warp),
                   ns(tracks, spans[begin].start), ns(tracks, spans[end - 1].end), std::move(args)));
    }

    void emit_instruction(const Block& b, const BlockTracks& tracks, int warp, uint32_t index, const Span& span) {
        const Event& e = b.events[index];
        const SmemAccess* smem = e.smem >= 0 && size_t(e.smem) < b.smem.size() ? &b.smem[e.smem] : nullptr;
        if (options_.instructions) {
            json args = {{"issue", e.issue}, {"done", e.done}};
            add_location(args, e.loc);
            if (e.stall != 0) args["stall"] = table_name(t_.stalls, e.stall, "stall ");
            if (e.stall_cycles != 0) args["stall_cycles"] = e.stall_cycles;
            if (e.mask != kFullMask) args["mask"] = hex(e.mask, 8);
            if (smem) {
                args["wavefronts"] = smem->wavefronts;
                args["ideal"] = smem->ideal;
            }
            emit(slice(table_name(t_.ops, e.op, "op "), tracks.pid, warp_tid(warp),
                       ns(tracks, span.start), ns(tracks, span.end), std::move(args)));
        }
        // At the slice's start (the issue cycle unless clamped) so it sits inside it.
        if (smem && smem->conflicts() > 0) emit_conflict(*smem, e, tracks, warp, span.start);
    }

    void emit_conflict(const SmemAccess& s, const Event& e, const BlockTracks& tracks, int warp, uint64_t cycle) {
        json args = {{"wavefronts", s.wavefronts}, {"ideal", s.ideal}, {"conflicts", s.conflicts()},
                     {"cycle", e.issue}, {"where", loc_text(e.loc).where}};
        emit(instant("bank conflict " + std::to_string(s.max_way) + "-way", tracks.pid, warp_tid(warp),
                     ns(tracks, cycle), "t", std::move(args)));
    }

    void emit_snapshot(const Snapshot& s, const BlockTracks& tracks) {
        json args = {{"rows", s.rows}, {"cols", s.cols}, {"space", valid_utf8(s.space)}, {"cycle", s.cycle}};
        add_location(args, s.loc);
        emit(instant("snapshot " + valid_utf8(s.label), tracks.pid, warp_tid(s.warp), ns(tracks, s.cycle), "t",
                     std::move(args)));
    }

    // ---- barrier waits, on a thread of their own per warp ----

    static WaitsByWarp waits_by_warp(const Block& b, int warps) {
        WaitsByWarp waits(warps);
        for (const BarrierWait& w : b.barriers) waits[w.warp].push_back(&w);
        for (auto& list : waits)
            std::stable_sort(list.begin(), list.end(),
                             [](const BarrierWait* x, const BarrierWait* y) { return x->arrive < y->arrive; });
        return waits;
    }

    static std::string wait_name(const BarrierWait& w) {
        if (w.mbarrier) return "wait mbarrier @" + hex(w.address) + " phase " + std::to_string(w.phase);
        return "wait bar.sync " + std::to_string(w.id);
    }

    void emit_waits(const BlockTracks& tracks, int warp, const std::vector<const BarrierWait*>& waits) {
        uint64_t prev_end = 0;
        for (const BarrierWait* w : waits) {
            Span span = after(prev_end, w->arrive, w->release);
            json args = {{"last_warp", w->last_warp}, {"arrive", w->arrive}, {"release", w->release},
                         {"cycles", w->release >= w->arrive ? w->release - w->arrive : 0}};
            add_location(args, w->loc);
            emit(slice(wait_name(*w), tracks.pid, wait_tid(warp), ns(tracks, span.start), ns(tracks, span.end),
                       std::move(args)));
        }
    }

    // ---- registers: one counter sample per distinct cycle, every warp in each ----

    void emit_registers(const Block& b, const BlockTracks& tracks) {
        if (b.regs.empty()) return;
        std::vector<RegChange> changes = b.regs;
        std::stable_sort(changes.begin(), changes.end(),
                         [](const RegChange& x, const RegChange& y) { return x.cycle < y.cycle; });
        std::vector<uint16_t> regs(tracks.warps, 0);
        // Start every series at zero at the block's start so each is a step from the beginning.
        if (changes.front().cycle > 0) emit_register_sample(tracks, 0, regs);
        for (size_t i = 0; i < changes.size();) {
            uint64_t cycle = changes[i].cycle;
            for (; i < changes.size() && changes[i].cycle == cycle; ++i) regs[changes[i].warp] = changes[i].regs;
            emit_register_sample(tracks, cycle, regs);
        }
    }

    void emit_register_sample(const BlockTracks& tracks, uint64_t cycle, const std::vector<uint16_t>& regs) {
        json args = json::object();
        for (size_t w = 0; w < regs.size(); ++w) args["warp " + std::to_string(w)] = regs[w];
        emit(counter("registers per thread", tracks.pid, warp_tid(0), ns(tracks, cycle), std::move(args)));
    }

    const Trace& t_;
    ChromeOptions options_;
    double clock_mhz_;
    std::vector<std::optional<LocText>> locs_;
    const Sink* sink_ = nullptr;
};

} // namespace

json to_chrome(const Trace& t, const ChromeOptions& options) {
    Exporter exporter(t, options);
    json doc = {{"displayTimeUnit", "ns"}, {"otherData", exporter.other_data()}, {"traceEvents", json::array()}};
    json& events = doc["traceEvents"];
    exporter.run([&](json&& e) { events.push_back(std::move(e)); });
    return doc;
}

void write_chrome(std::ostream& out, const Trace& t, const ChromeOptions& options) {
    Exporter exporter(t, options);
    out << "{\"displayTimeUnit\":\"ns\",\"otherData\":" << exporter.other_data().dump() << ",\"traceEvents\":[";
    const char* separator = "\n";
    exporter.run([&](json&& e) {
        out << separator << e.dump();
        separator = ",\n";
    });
    out << "\n]}\n";
}

} // namespace tklab::trace
