// The trace recorder: simulator blocks -> trace records and summaries.
#include "sim/trace_recorder.h"

#include "sim/kernel_source.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace tklab::sim {

namespace {

uint64_t parse_index(const std::string& s, const std::string& spec) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
        throw std::invalid_argument("timeline blocks '" + spec + "': '" + s +
                                    "' is not a block number; use first-wave, all, none or a list like 0-3,7");
    return std::stoull(s);
}

} // namespace

std::function<bool(uint64_t, uint64_t)> parse_timeline_blocks(const std::string& spec) {
    if (spec == "first-wave") return [](uint64_t i, uint64_t first_wave) { return i < first_wave; };
    if (spec == "all") return [](uint64_t, uint64_t) { return true; };
    if (spec == "none") return [](uint64_t, uint64_t) { return false; };
    std::vector<std::pair<uint64_t, uint64_t>> ranges;
    std::stringstream ss(spec);
    std::string part;
    while (std::getline(ss, part, ',')) {
        const size_t dash = part.find('-');
        const uint64_t a = parse_index(part.substr(0, dash), spec);
        const uint64_t b = dash == std::string::npos ? a : parse_index(part.substr(dash + 1), spec);
        if (b < a) throw std::invalid_argument("timeline blocks '" + spec + "': range " + part + " runs backwards");
        ranges.emplace_back(a, b);
    }
    if (ranges.empty()) throw std::invalid_argument("timeline blocks: empty list; use first-wave, all, none or a list like 0-3,7");
    return [ranges](uint64_t i, uint64_t) {
        for (auto [a, b] : ranges)
            if (i >= a && i <= b) return true;
        return false;
    };
}

// Per-line summaries over every block of the current launch.
struct TraceRecorder::Aggregates {
    std::map<std::pair<uint32_t, uint8_t>, trace::SmemSite> sites;
    std::map<std::pair<uint32_t, uint8_t>, int> worst;  // wavefronts of the kept worst execution
    std::map<std::tuple<uint32_t, bool, uint8_t>, trace::BarrierSite> bars;
    std::map<uint32_t, trace::LineStalls> lines;
    uint64_t warp_cycles = 0;
};

TraceRecorder::TraceRecorder(RecorderOptions opt) : opt_(std::move(opt)), agg_(std::make_unique<Aggregates>()) {
    timeline_ = parse_timeline_blocks(opt_.recording.timeline_blocks);
    trace_.producer = "tklab simulator";
    trace_.program = opt_.program;
    trace_.variant = opt_.variant;
    trace_.problem = opt_.problem;
    trace_.seed = opt_.seed;
    trace_.arch = trace::json::parse(CostModel::load(options().arch).source_json);
    if (options().l1 >= 0) trace_.arch["l1_modelled"] = options().l1 == 1;  // as the run had it (tklab run --l1 / --no-l1)
    if (!options().constant_miss && trace_.arch.contains("constant")) trace_.arch["constant"]["miss_cycles"] = 0;
    trace_.recording = opt_.recording;
    for (int i = 0; i < int(Op::count_); ++i) trace_.ops.push_back(op_name(Op(i)));
    for (int i = 0; i < int(Stall::count_); ++i) trace_.stalls.push_back(stall_name(Stall(i)));
    trace_.files = {trace::SourceFile{}};
    trace_.locations = {trace::Location{}};
    trace_.op_names = {std::string{}};
    if (!opt_.path.empty()) {
        writer_ = std::make_unique<trace::Writer>(opt_.path);
        writer_->begin(trace_);
    }
    saved_lanes_ = options().all_lane_addresses;
    saved_snapshots_ = options().snapshots;
    options().all_lane_addresses = opt_.recording.all_lane_addresses;
    options().snapshots = opt_.recording.snapshots;
    previous_ = observer();
    set_observer(this);
    installed_ = true;
}

TraceRecorder::~TraceRecorder() {
    try { close(); } catch (...) {}
}

void TraceRecorder::close() {
    if (installed_) {
        set_observer(previous_);
        options().all_lane_addresses = saved_lanes_;
        options().snapshots = saved_snapshots_;
        installed_ = false;
    }
    if (writer_) {
        flush_tables();
        writer_->close();
    }
    trace_.complete = true;
}

void TraceRecorder::emit(const trace::json& record) {
    if (writer_) writer_->record(record);
}

uint32_t TraceRecorder::file_id(const std::string& raw) {
    // Stored relative to the project's root (or a user's, kernel_source.h).
    const std::string path = source_relative(raw);
    for (uint32_t i = 1; i < trace_.files.size(); ++i)
        if (trace_.files[i].path == path) return i;
    trace::SourceFile f;
    f.path = path;
    f.text = read_source_text(path);
    if (f.text) f.hash = trace::text_hash(*f.text);
    trace_.files.push_back(std::move(f));
    return uint32_t(trace_.files.size() - 1);
}

uint32_t TraceRecorder::loc_id(const std::string& file, int line) {
    if (file.empty()) return 0;
    const uint32_t f = file_id(file);
    for (uint32_t i = 1; i < trace_.locations.size(); ++i)
        if (trace_.locations[i].file == f && trace_.locations[i].line == line) return i;
    trace_.locations.push_back({f, line});
    return uint32_t(trace_.locations.size() - 1);
}

// The simulator's ids are per launch; the trace's are per trace.
void TraceRecorder::map_launch_ids(const RunResult& r) {
    while (loc_map_.size() < r.locations.size()) {
        const Location& l = r.locations[loc_map_.size()];
        loc_map_.push_back(loc_map_.empty() ? 0 : loc_id(l.file, l.line));
    }
    while (name_map_.size() < r.op_names.size()) {
        const std::string& n = r.op_names[name_map_.size()];
        uint16_t id = 0;
        if (!name_map_.empty()) {
            auto it = std::find(trace_.op_names.begin() + 1, trace_.op_names.end(), n);
            if (it == trace_.op_names.end()) { trace_.op_names.push_back(n); it = trace_.op_names.end() - 1; }
            id = uint16_t(it - trace_.op_names.begin());
        }
        name_map_.push_back(id);
    }
}

// Files, locations and op names before the records that use them.
void TraceRecorder::flush_tables() {
    for (; files_written_ < trace_.files.size(); ++files_written_)
        emit(trace::file_record(uint32_t(files_written_), trace_.files[files_written_]));
    if (locs_written_ < trace_.locations.size()) {
        emit(trace::locations_record(uint32_t(locs_written_), trace_.locations));
        locs_written_ = trace_.locations.size();
    }
    if (names_written_ < trace_.op_names.size()) {
        emit(trace::op_names_record(uint32_t(names_written_), trace_.op_names));
        names_written_ = trace_.op_names.size();
    }
}

void TraceRecorder::launch_begin(const RunResult& r, const CostModel&) {
    if (!installed_) return;
    trace::Launch l;
    l.kernel = r.kernel;
    l.grid = {r.grid.x, r.grid.y, r.grid.z};
    l.block = {r.block.x, r.block.y, r.block.z};
    l.smem_bytes = r.smem_bytes;
    l.first_wave_blocks = r.first_wave_blocks;
    first_wave_ = r.first_wave_blocks;
    blocks_total_ = uint64_t(r.grid.x) * r.grid.y * r.grid.z;
    blocks_done_ = 0;
    loc_map_.clear();
    name_map_.clear();
    *agg_ = Aggregates{};
    trace_.launches.push_back(std::move(l));
    emit(trace::launch_record(uint32_t(trace_.launches.size() - 1), trace_.launches.back()));
}

bool TraceRecorder::wants_timeline(uint64_t index) { return timeline_(index, first_wave_); }

void TraceRecorder::block_done(const BlockTrace& bt, const RunResult& r) {
    if (!installed_) return;
    map_launch_ids(r);
    trace::Launch& launch = trace_.launches.back();
    const uint32_t nwarps = launch.warps_per_block();
    Aggregates& agg = *agg_;
    const size_t nstalls = trace_.stalls.size();

    trace::Block b;
    b.index = uint32_t(bt.index);
    b.coord = {bt.block.x, bt.block.y, bt.block.z};
    b.cycles = bt.cycles;
    b.instructions = bt.events.size();
    b.warp_peak_regs = bt.warp_peak_regs;
    b.timeline = bt.timeline;
    agg.warp_cycles += bt.cycles * nwarps;
    // Regions in every block (they are few): the report's Regions section
    // covers the whole launch, and they stay in trace() without keep_events.
    b.regions.reserve(bt.regions.size());
    for (const RegionRecord& g : bt.regions) {
        trace::Region& t = b.regions.emplace_back(g);
        t.loc = loc_map_[g.loc];
        t.name = name_map_[g.name];
    }

    auto line = [&](const Event& e) -> trace::LineStalls& {
        trace::LineStalls& ls = agg.lines[loc_map_[e.loc]];
        if (ls.cycles.empty()) { ls.loc = loc_map_[e.loc]; ls.cycles.assign(nstalls, 0); }
        return ls;
    };
    for (const Event& e : bt.events) line(e).instructions++;
    for_each_stall(bt, [&](const Event& e, uint8_t stall, uint64_t cycles) { line(e).cycles[stall] += cycles; });
    for (const SmemRecord& s : bt.smem) {
        const Event& e = bt.events[s.event];
        const auto key = std::make_pair(loc_map_[e.loc], e.op);
        trace::SmemSite& site = agg.sites[key];
        site.loc = key.first;
        site.op = key.second;
        site.count++;
        site.wavefronts += s.banks.wavefronts;
        site.ideal += s.banks.ideal;
        site.max_way = std::max(site.max_way, s.banks.max_way);
        for (int k = 0; k < 32; ++k) site.bank_words[size_t(k)] += s.banks.bank_words[k];
        int& worst = agg.worst[key];
        if (s.lanes >= 0 && s.banks.wavefronts > worst) {
            worst = s.banks.wavefronts;
            site.worst_aux = e.aux;
            site.worst_mask = e.mask;
            site.worst_lanes.assign(bt.lane_addrs.begin() + s.lanes, bt.lane_addrs.begin() + s.lanes + 32);
        }
    }
    for (const BarrierRecord& w : bt.barriers) {
        const uint32_t loc = loc_map_[w.loc];
        trace::BarrierSite& site = agg.bars[{loc, w.mbarrier, w.mbarrier ? uint8_t(0) : w.id}];
        site.loc = loc;
        site.mbarrier = w.mbarrier;
        site.id = w.mbarrier ? 0 : w.id;
        site.warps.resize(nwarps);
        trace::BarrierWarpStats& ws = site.warps[w.warp];
        ws.waits++;
        ws.total += w.release - w.arrive;
        ws.longest = std::max(ws.longest, w.release - w.arrive);
        if (w.warp == w.last_warp) ws.arrived_last++;
        else if (w.mbarrier && w.last_warp < nwarps) site.warps[w.last_warp].arrived_last++;
    }

    if (bt.timeline) {
        b.events.reserve(bt.events.size());
        for (const Event& e : bt.events) {
            trace::Event& t = b.events.emplace_back(e);  // the same record; only its ids become the trace's
            t.loc = loc_map_[e.loc];
            t.op_name = name_map_[e.op_name];
        }
        b.smem.reserve(bt.smem.size());
        for (const SmemRecord& s : bt.smem)
            b.smem.push_back({s.event, s.banks.wavefronts, s.banks.ideal, s.banks.max_way, s.lanes});
        b.lane_addrs = bt.lane_addrs;
        for (const BarrierRecord& w : bt.barriers) b.barriers.emplace_back(w).loc = loc_map_[w.loc];
        for (const RegRecord& g : bt.regs)
            for (trace::LiveTile& l : b.regs.emplace_back(g).live) l.loc = trace_loc(l.loc);
        for (const SnapshotRecord& s : bt.snapshots) b.snapshots.emplace_back(s).loc = loc_map_[s.loc];
    }
    flush_tables();
    emit(trace::block_record(uint32_t(trace_.launches.size() - 1), b));
    if (!opt_.keep_events) {
        // Swapped with empty vectors: `v = {}` keeps v's capacity, which kept
        // every timeline block's events in memory until the run ended.
        auto drop = [](auto& v) { std::remove_reference_t<decltype(v)>().swap(v); };
        drop(b.events); drop(b.smem); drop(b.lane_addrs); drop(b.barriers); drop(b.regs); drop(b.snapshots);
    }
    launch.blocks.push_back(std::move(b));
    ++blocks_done_;
    if (opt_.progress) opt_.progress(blocks_done_, blocks_total_);
}

void TraceRecorder::launch_end(const RunResult& r, const SimError* error) {
    if (!installed_) return;
    map_launch_ids(r);
    trace::Launch& launch = trace_.launches.back();
    const Stats& st = r.stats;
    Aggregates& agg = *agg_;
    trace::Summary s;
    s.blocks = st.blocks_run;
    s.warp_instructions = st.warp_instructions;
    s.warp_cycles = agg.warp_cycles;
    s.ld_shared = st.ld_shared;
    s.st_shared = st.st_shared;
    s.ldmatrix = st.ldmatrix;
    s.stmatrix = st.stmatrix;
    s.atom_shared = st.atom_shared;
    s.by_op.assign(std::begin(st.by_op), std::end(st.by_op));
    s.stall_cycles.assign(std::begin(st.stall_cycles), std::end(st.stall_cycles));
    s.barrier_wait_cycles = st.barrier_wait_cycles;
    s.max_block_cycles = st.max_block_cycles;
    s.sum_block_cycles = st.sum_block_cycles;
    s.est_kernel_cycles = st.est_kernel_cycles;
    s.wave_cycles = st.wave_cycles;
    s.store_ack_cycles = st.store_ack_cycles;
    s.blocks_together = st.blocks_together;
    s.global_bytes = st.global_bytes;
    s.global_write_bytes = st.global_write_bytes;
    s.l1_hit_bytes = st.l1_hit_bytes;
    s.overhead_instructions = st.overhead_instructions;
    s.dram_bytes = st.dram_bytes;
    s.l2_cycles = st.l2_cycles;
    s.dram_cycles = st.dram_cycles;
    s.launch_overhead_cycles = st.launch_overhead_cycles;
    s.clock_mhz = st.clock_mhz;
    s.time_limit = st.time_limit;
    s.allowed_uninit_reads = st.allowed_uninit_reads;
    s.allowed_uninit_loc = trace_loc(st.allowed_uninit_loc);
    s.blocks_per_sm = st.blocks_per_sm;
    s.occupancy_limit = st.occupancy_limit;
    s.peak_regs = st.peak_regs;
    s.compiler = r.compiler;
    s.estimated_registers = st.estimated_registers;
    s.peak_loaded_regs = st.peak_loaded_regs;
    s.loop_addresses = st.loop_addresses;
    s.run_addresses = st.run_addresses;
    s.peak_from_shared_regs = st.peak_from_shared_regs;
    s.peak_regs_loc = trace_loc(st.peak_regs_loc);
    for (const LiveRegs& l : st.peak_live) s.peak_live.emplace_back(l).loc = trace_loc(l.loc);
    for (auto& [k, v] : agg.sites) s.smem_sites.push_back(std::move(v));
    for (auto& [k, v] : agg.bars) s.barrier_sites.push_back(std::move(v));
    for (auto& [k, v] : agg.lines) s.line_stalls.push_back(std::move(v));
    launch.summary = std::move(s);
    launch.wall_seconds = r.wall_seconds;
    if (error) {
        trace::Failure f;
        f.kind = error_kind_name(error->kind);
        f.message = error->what();
        f.loc = loc_id(error->file, error->line);
        f.block = launch.blocks.empty() ? -1 : int64_t(launch.blocks.back().index);
        launch.failure = std::move(f);
    }
    flush_tables();
    const uint32_t li = uint32_t(trace_.launches.size() - 1);
    emit(trace::summary_record(li, launch));
    if (launch.failure) emit(trace::failure_record(li, *launch.failure));
}

void TraceRecorder::add_check(const trace::Check& c) {
    trace_.checks.push_back(c);
    if (installed_) emit(trace::check_record(c));
}

void TraceRecorder::add_failure(const std::string& kind, const std::string& message, const std::string& file, int line) {
    trace::Failure f;
    f.kind = kind;
    f.message = message;
    f.loc = loc_id(file, line);
    trace_.failure = f;
    if (installed_) {
        flush_tables();
        emit(trace::failure_record(-1, f));
    }
}

} // namespace tklab::sim
