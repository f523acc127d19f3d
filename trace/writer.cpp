// Trace records, and the streaming writer of both encodings.
//
// Per-block data is stored as columns (one array per field) with cycles and
// sequence numbers as deltas per warp: small integers take one or two bytes
// in CBOR, which keeps a binary trace far below 100 bytes per instruction.
#include "trace/codec.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <cmath>
#include <cstring>

namespace tklab::trace {

Encoding encoding_of(const std::string& path) {
    auto ends = [&](const char* ext) {
        const size_t n = std::strlen(ext);
        return path.size() >= n && path.compare(path.size() - n, n, ext) == 0;
    };
    if (ends(".json")) return Encoding::json;
    if (ends(".cbor")) return Encoding::cbor;
    throw TraceError(path + ": unknown trace file type; name it *.json (text, for small runs) or *.cbor (binary, for large runs)");
}

std::string text_hash(const std::string& text) {
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : text) { h ^= c; h *= 1099511628211ull; }
    char out[32];
    std::snprintf(out, sizeof out, "fnv1a64:%016llx", (unsigned long long)h);
    return out;
}

namespace {

json dim3_json(const Dim3& d) { return json::array({d.x, d.y, d.z}); }

template <class V, class F>
json column(const V& rows, F&& get) {
    json a = json::array();
    auto& arr = a.get_ref<json::array_t&>();
    arr.reserve(rows.size());
    for (const auto& r : rows) arr.emplace_back(get(r));
    return a;
}

// JSON has no NaN or infinity: spell them as strings, in both encodings.
json float_json(float v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
    return v;
}

json events_json(const std::vector<Event>& ev) {
    // Deltas per warp: issue cycles and tile-op numbers only grow within a warp.
    std::vector<uint64_t> last_issue;
    std::vector<uint32_t> last_seq;
    json warp = json::array(), op = json::array(), issue = json::array(), duration = json::array(), stall = json::array(),
         stall_cycles = json::array(), inactive = json::array(), loc = json::array(), op_seq = json::array(),
         op_name = json::array(), aux = json::array();
    for (json* c : {&warp, &op, &issue, &duration, &stall, &stall_cycles, &inactive, &loc, &op_seq, &op_name, &aux})
        c->get_ref<json::array_t&>().reserve(ev.size());
    for (const Event& e : ev) {
        if (e.warp >= last_issue.size()) { last_issue.resize(e.warp + 1u, 0); last_seq.resize(e.warp + 1u, 0); }
        warp.emplace_back(e.warp);
        op.emplace_back(e.op);
        issue.emplace_back(int64_t(e.issue - last_issue[e.warp]));
        duration.emplace_back(int64_t(e.done - e.issue));
        stall.emplace_back(e.stall);
        stall_cycles.emplace_back(e.stall_cycles);
        inactive.emplace_back(~e.mask);
        loc.emplace_back(e.loc);
        op_seq.emplace_back(int64_t(e.op_seq) - int64_t(last_seq[e.warp]));
        op_name.emplace_back(e.op_name);
        aux.emplace_back(e.aux);
        last_issue[e.warp] = e.issue;
        last_seq[e.warp] = e.op_seq;
    }
    return {{"warp", std::move(warp)}, {"op", std::move(op)}, {"issue", std::move(issue)},
            {"duration", std::move(duration)}, {"stall", std::move(stall)}, {"stall_cycles", std::move(stall_cycles)},
            {"inactive", std::move(inactive)}, {"loc", std::move(loc)}, {"op_seq", std::move(op_seq)},
            {"op_name", std::move(op_name)}, {"aux", std::move(aux)}};
}

json smem_json(const Block& b, json& lane_addrs) {
    json event = json::array(), wavefronts = json::array(), ideal = json::array(), max_way = json::array(),
         kept = json::array();
    int64_t last_event = 0;
    for (const SmemAccess& s : b.smem) {
        event.emplace_back(int64_t(s.event) - last_event);
        last_event = s.event;
        wavefronts.emplace_back(s.wavefronts);
        ideal.emplace_back(s.ideal);
        max_way.emplace_back(s.max_way);
        kept.emplace_back(s.lanes >= 0 ? 1 : 0);
        if (s.lanes >= 0) {
            // Lane 0's address, then each lane's step from the one before.
            const uint32_t* a = b.lane_addrs.data() + s.lanes;
            lane_addrs.emplace_back(a[0]);
            for (int l = 1; l < 32; ++l) lane_addrs.emplace_back(int64_t(a[l]) - int64_t(a[l - 1]));
        }
    }
    return {{"event", std::move(event)}, {"wavefronts", std::move(wavefronts)}, {"ideal", std::move(ideal)},
            {"max_way", std::move(max_way)}, {"lanes", std::move(kept)}};
}

json barriers_json(const std::vector<BarrierWait>& bw) {
    json j = {{"warp", column(bw, [](const BarrierWait& b) { return b.warp; })},
            {"arrive", column(bw, [](const BarrierWait& b) { return b.arrive; })},
            {"wait", column(bw, [](const BarrierWait& b) { return int64_t(b.release - b.arrive); })},
            {"loc", column(bw, [](const BarrierWait& b) { return b.loc; })},
            {"last_warp", column(bw, [](const BarrierWait& b) { return b.last_warp; })},
            {"mbarrier", column(bw, [](const BarrierWait& b) { return b.mbarrier ? 1 : 0; })},
            {"id", column(bw, [](const BarrierWait& b) { return b.id; })},
            {"address", column(bw, [](const BarrierWait& b) { return b.address; })},
            {"phase", column(bw, [](const BarrierWait& b) { return b.phase; })}};
    // Waits the run stopped in: a column only when there are any.
    if (std::any_of(bw.begin(), bw.end(), [](const BarrierWait& b) { return b.open; }))
        j["open"] = column(bw, [](const BarrierWait& b) { return b.open ? 1 : 0; });
    if (std::any_of(bw.begin(), bw.end(), [](const BarrierWait& b) { return b.at_once; }))
        j["at_once"] = column(bw, [](const BarrierWait& b) { return b.at_once ? 1 : 0; });
    return j;
}

json regs_json(const std::vector<RegChange>& rc) {
    // What is live after each change, flat: [loc, regs, loc, regs, ...].
    auto live = [](const RegChange& r) {
        json a = json::array();
        for (const LiveTile& t : r.live) { a.emplace_back(t.loc); a.emplace_back(t.regs); }
        return a;
    };
    return {{"warp", column(rc, [](const RegChange& r) { return r.warp; })},
            {"cycle", column(rc, [](const RegChange& r) { return r.cycle; })},
            {"regs", column(rc, [](const RegChange& r) { return r.regs; })},
            {"live", column(rc, live)}};
}

json snapshot_json(const Snapshot& s) {
    return {{"cycle", s.cycle}, {"warp", s.warp}, {"loc", s.loc}, {"label", s.label}, {"space", s.space},
            {"rows", s.rows}, {"cols", s.cols}, {"values", column(s.values, float_json)}};
}

json regions_json(const std::vector<Region>& rs) {
    return {{"warp", column(rs, [](const Region& r) { return r.warp; })},
            {"name", column(rs, [](const Region& r) { return r.name; })},
            {"begin", column(rs, [](const Region& r) { return r.begin; })},
            {"duration", column(rs, [](const Region& r) { return r.end - r.begin; })},
            {"loc", column(rs, [](const Region& r) { return r.loc; })},
            {"depth", column(rs, [](const Region& r) { return r.depth; })},
            {"open", column(rs, [](const Region& r) { return r.open ? 1 : 0; })}};
}

json totals_json(const SmemTotals& t) {
    return {{"instructions", t.instructions}, {"wavefronts", t.wavefronts}, {"ideal", t.ideal}, {"max_way", t.max_way}};
}

} // namespace

json header_of(const Trace& t) {
    return {{"producer", t.producer},
            {"program", t.program},
            {"variant", t.variant},
            {"problem", t.problem},
            {"seed", t.seed},
            {"arch", t.arch},
            {"recording", {{"timeline_blocks", t.recording.timeline_blocks},
                           {"all_lane_addresses", t.recording.all_lane_addresses},
                           {"snapshots", t.recording.snapshots}}},
            {"ops", t.ops},
            {"stalls", t.stalls}};
}

json file_record(uint32_t id, const SourceFile& f) {
    return {{"type", "file"}, {"id", id}, {"path", f.path}, {"hash", f.hash},
            {"text", f.text ? json(*f.text) : json(nullptr)}};
}

json locations_record(uint32_t first, const std::vector<Location>& locs) {
    json file = json::array(), line = json::array();
    for (size_t i = first; i < locs.size(); ++i) { file.push_back(locs[i].file); line.push_back(locs[i].line); }
    return {{"type", "locations"}, {"first", first}, {"file", std::move(file)}, {"line", std::move(line)}};
}

json op_names_record(uint32_t first, const std::vector<std::string>& names) {
    json n = json::array();
    for (size_t i = first; i < names.size(); ++i) n.push_back(names[i]);
    return {{"type", "op_names"}, {"first", first}, {"names", std::move(n)}};
}

json launch_record(uint32_t launch, const Launch& l) {
    return {{"type", "launch"}, {"launch", launch}, {"kernel", l.kernel}, {"grid", dim3_json(l.grid)},
            {"block", dim3_json(l.block)}, {"smem_bytes", l.smem_bytes}, {"first_wave_blocks", l.first_wave_blocks}};
}

json block_record(uint32_t launch, const Block& b) {
    json r = {{"type", "block"}, {"launch", launch}, {"index", b.index}, {"coord", dim3_json(b.coord)},
              {"cycles", b.cycles}, {"instructions", b.instructions}, {"warp_peak_regs", b.warp_peak_regs},
              {"timeline", b.timeline}};
    if (!b.regions.empty()) r["regions"] = regions_json(b.regions);  // absent when none: files stay as they were
    if (!b.timeline) return r;
    r["events"] = events_json(b.events);
    json lanes = json::array();
    r["smem"] = smem_json(b, lanes);
    r["lane_addrs"] = std::move(lanes);
    r["barriers"] = barriers_json(b.barriers);
    r["regs"] = regs_json(b.regs);
    r["snapshots"] = column(b.snapshots, snapshot_json);
    return r;
}

json summary_record(uint32_t launch, const Launch& l) {
    const Summary& s = *l.summary;
    json sites = column(s.smem_sites, [](const SmemSite& x) {
        return json{{"loc", x.loc}, {"op", x.op}, {"count", x.count}, {"wavefronts", x.wavefronts},
                    {"ideal", x.ideal}, {"max_way", x.max_way}, {"bank_words", x.bank_words},
                    {"worst_aux", x.worst_aux}, {"worst_mask", x.worst_mask}, {"worst_lanes", x.worst_lanes}};
    });
    json bars = column(s.barrier_sites, [](const BarrierSite& x) {
        return json{{"loc", x.loc}, {"mbarrier", x.mbarrier}, {"id", x.id},
                    {"warps", column(x.warps, [](const BarrierWarpStats& w) {
                         return json::array({w.waits, w.total, w.longest, w.arrived_last});
                     })}};
    });
    json stalls = column(s.line_stalls, [](const LineStalls& x) {
        return json{{"loc", x.loc}, {"instructions", x.instructions}, {"cycles", x.cycles}};
    });
    json rec = {{"type", "summary"},
            {"launch", launch},
            {"wall_seconds", l.wall_seconds},
            {"blocks", s.blocks},
            {"warp_instructions", s.warp_instructions},
            {"warp_cycles", s.warp_cycles},
            {"ld_shared", totals_json(s.ld_shared)},
            {"st_shared", totals_json(s.st_shared)},
            {"ldmatrix", totals_json(s.ldmatrix)},
            {"stmatrix", totals_json(s.stmatrix)},
            {"by_op", s.by_op},
            {"stall_cycles", s.stall_cycles},
            {"barrier_wait_cycles", s.barrier_wait_cycles},
            {"max_block_cycles", s.max_block_cycles},
            {"sum_block_cycles", s.sum_block_cycles},
            {"est_kernel_cycles", s.est_kernel_cycles},
            {"wave_cycles", s.wave_cycles},
            {"store_ack_cycles", s.store_ack_cycles},
            {"blocks_together", s.blocks_together},
            {"global_bytes", s.global_bytes},
            {"global_write_bytes", s.global_write_bytes},
            {"l1_hit_bytes", s.l1_hit_bytes},
            {"overhead_instructions", s.overhead_instructions},
            {"dram_bytes", s.dram_bytes},
            {"l2_cycles", s.l2_cycles},
            {"dram_cycles", s.dram_cycles},
            {"launch_overhead_cycles", s.launch_overhead_cycles},
            {"clock_mhz", s.clock_mhz},
            {"time_limit", s.time_limit},
            {"allowed_uninit_reads", s.allowed_uninit_reads},
            {"allowed_uninit_loc", s.allowed_uninit_loc},
            {"blocks_per_sm", s.blocks_per_sm},
            {"occupancy_limit", s.occupancy_limit},
            {"peak_regs", s.peak_regs},
            {"estimated_registers", s.estimated_registers},
            {"peak_loaded_regs", s.peak_loaded_regs},
            {"loop_addresses", s.loop_addresses},
            {"run_addresses", s.run_addresses},
            {"peak_from_shared_regs", s.peak_from_shared_regs},
            {"peak_regs_loc", s.peak_regs_loc},
            {"peak_live", column(s.peak_live, [](const LiveTile& t) { return json::array({t.loc, t.regs}); })},
            {"smem_sites", std::move(sites)},
            {"barrier_sites", std::move(bars)},
            {"line_stalls", std::move(stalls)}};
    // Shared atomics came later within version 1: written only when there were any.
    if (s.atom_shared.instructions) rec["atom_shared"] = totals_json(s.atom_shared);
    if (s.compiler) {
        const CompilerFigures& c = *s.compiler;
        rec["compiler"] = {{"tool", c.tool}, {"arch", c.arch}, {"entry", c.entry}, {"registers", c.registers}, {"stack_bytes", c.stack_bytes},
                           {"spill_store_bytes", c.spill_store_bytes}, {"spill_load_bytes", c.spill_load_bytes},
                           {"static_shared_bytes", c.static_shared_bytes}};
    }
    return rec;
}

json failure_record(int64_t launch, const Failure& f) {
    return {{"type", "failure"}, {"launch", launch}, {"kind", f.kind}, {"message", f.message},
            {"loc", f.loc}, {"block", f.block}};
}

json check_record(const Check& c) {
    return {{"type", "check"}, {"output", c.output}, {"variant", c.variant}, {"max_error", c.max_error},
            {"tolerance", c.tolerance}, {"passed", c.passed}};
}

json gpu_kernel_record(const GpuKernel& k) {
    return {{"type", "gpu_kernel"}, {"name", k.name}, {"mangled", k.mangled}, {"start_ns", k.start_ns},
            {"end_ns", k.end_ns}, {"registers", k.registers}, {"static_smem", k.static_smem},
            {"dynamic_smem", k.dynamic_smem}, {"grid", dim3_json(k.grid)}, {"block", dim3_json(k.block)},
            {"device", k.device}, {"stream", k.stream}, {"correlation", k.correlation}};
}

json gpu_counters_record(const GpuCounters& c) {
    json m = json::object();
    for (const auto& [name, value] : c.metrics) m[name] = value;
    return {{"type", "gpu_counters"}, {"kernel", c.kernel}, {"launch", c.launch}, {"metrics", m}};
}

json gpu_stalls_record(const GpuStalls& s) {
    const auto sites_json = [](const std::vector<GpuStallSite>& v) {
        json sites = json::array();
        for (const GpuStallSite& x : v)
            sites.push_back({{"file", x.file}, {"line", x.line}, {"reason", x.reason}, {"samples", x.samples}});
        return sites;
    };
    json r = {{"type", "gpu_stalls"}, {"kernel", s.kernel}, {"period_cycles", s.period_cycles}, {"samples", s.samples},
              {"dropped", s.dropped}, {"sites", sites_json(s.sites)}};
    if (!s.inner_sites.empty()) r["inner_sites"] = sites_json(s.inner_sites);
    return r;
}

// ---------------------------------------------------------------- writer

namespace {
// Where a trace for `path` is written until it is closed.
std::string writing_path_for(const std::string& path) {
    std::error_code ec;
    const auto st = std::filesystem::status(path, ec);  // follows a link to its target
    if (!ec && std::filesystem::exists(st) && !std::filesystem::is_regular_file(st)) return path;
    static std::atomic<unsigned> count{0};  // two writers in one process get two names too
    return path + ".partial-" + std::to_string(::getpid()) + "-" + std::to_string(count++);
}
} // namespace

Writer::Writer(const std::string& path) : path_(path), writing_path_(writing_path_for(path)), enc_(encoding_of(path)) {
    f_ = std::fopen(writing_path_.c_str(), "wb");
    if (!f_) throw TraceError(path + ": cannot create the trace file (" + std::strerror(errno) + ")");
}

Writer::~Writer() {
    try { close(); } catch (...) {}
}

void Writer::fail(const std::string& what) {
    error_ = path_ + ": " + what + " after " + std::to_string(bytes_) + " bytes (" + std::strerror(errno) + ")";
    // What reached the disk keeps the trace's name: `tklab report --salvage` reads its complete records.
    std::fclose(f_);
    f_ = nullptr;
    closed_ = true;
    if (writing_path_ != path_) std::rename(writing_path_.c_str(), path_.c_str());
    throw TraceError(error_);
}

void Writer::put(const void* p, size_t n) {
    if (failed() || !f_) return;
    if (n && std::fwrite(p, 1, n, f_) != n) fail("write failed");
    bytes_ += n;
}

void Writer::begin(const Trace& t) {
    // {"format": ..., "version": ..., "header": {...}, "records": [ ...
    if (enc_ == Encoding::json) {
        std::string s = "{\"format\":" + json(kFormat).dump() + ",\"version\":" + std::to_string(t.version) +
                        ",\n\"header\":" + header_of(t).dump() + ",\n\"records\":[";
        put(s.data(), s.size());
    } else {
        // A map of four entries whose last value is an array of unknown length,
        // closed by a break byte in close(): CBOR's way to stream an array.
        std::vector<uint8_t> out{0xa4};
        auto add = [&](const json& j) {
            std::vector<uint8_t> v = json::to_cbor(j);
            out.insert(out.end(), v.begin(), v.end());
        };
        add("format"); add(kFormat);
        add("version"); add(t.version);
        add("header"); add(header_of(t));
        add("records");
        out.push_back(0x9f);
        put(out.data(), out.size());
    }
    if (f_ && std::fflush(f_) != 0) fail("write failed");
}

void Writer::record(const json& r) {
    if (failed()) return;
    if (enc_ == Encoding::json) {
        buf_ = (first_ ? "\n" : ",\n") + r.dump();
        put(buf_.data(), buf_.size());
    } else {
        std::vector<uint8_t> v = json::to_cbor(r);
        put(v.data(), v.size());
    }
    first_ = false;
    if (f_ && std::fflush(f_) != 0) fail("write failed");
}

void Writer::close() {
    if (closed_ || !f_) return;
    record(json{{"type", "end"}});
    if (enc_ == Encoding::json) put("\n]}\n", 4);
    else put("\xff", 1);
    if (std::fclose(f_) != 0) {
        f_ = nullptr;
        const int e = errno;
        closed_ = true;
        if (writing_path_ != path_) std::rename(writing_path_.c_str(), path_.c_str());
        errno = e;
        error_ = path_ + ": closing the trace file failed after " + std::to_string(bytes_) + " bytes (" + std::strerror(e) + ")";
        throw TraceError(error_);
    }
    f_ = nullptr;
    closed_ = true;
    if (writing_path_ != path_ && std::rename(writing_path_.c_str(), path_.c_str()) != 0) {
        error_ = path_ + ": could not give the trace its name (" + std::strerror(errno) + "); it is in " + writing_path_;
        throw TraceError(error_);
    }
}

void write_trace(const std::string& path, const Trace& t) {
    Writer w(path);
    w.begin(t);
    for (uint32_t i = 1; i < t.files.size(); ++i) w.record(file_record(i, t.files[i]));
    if (t.locations.size() > 1) w.record(locations_record(1, t.locations));
    if (t.op_names.size() > 1) w.record(op_names_record(1, t.op_names));
    for (uint32_t li = 0; li < t.launches.size(); ++li) {
        const Launch& l = t.launches[li];
        w.record(launch_record(li, l));
        for (const Block& b : l.blocks) w.record(block_record(li, b));
        if (l.summary) w.record(summary_record(li, l));
        if (l.failure) w.record(failure_record(li, *l.failure));
    }
    for (const GpuKernel& k : t.gpu_kernels) w.record(gpu_kernel_record(k));
    for (const GpuCounters& c : t.gpu_counters) w.record(gpu_counters_record(c));
    for (const GpuStalls& s : t.gpu_stalls) w.record(gpu_stalls_record(s));
    for (const Check& c : t.checks) w.record(check_record(c));
    if (t.failure) w.record(failure_record(-1, *t.failure));
    w.close();
}

} // namespace tklab::trace
