// Decoding the region buffer into the trace (see regions.h).
#include "profiler/decode/regions.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <regex>

namespace tklab::profiler {

using regions::Header;
using regions::Record;

RegionNames::RegionNames(const std::vector<std::string>& names) {
    for (const std::string& n : names) add(n);
}

namespace {

// Regions must span this much globaltimer time on one SM before the clock's
// rate is taken from them: with the timer's 1 us ticks (older GPUs) that
// keeps the fitted rate within a few percent.
constexpr uint64_t kMinFitSpanNs = 50'000;

std::string hex32(uint32_t v) {
    char s[16];
    std::snprintf(s, sizeof s, "0x%08x", v);
    return s;
}

[[noreturn]] void fail(const std::string& what) { throw RegionDecodeError("region buffer: " + what); }

// Index of v in a table whose entry 0 is reserved ("none"), added when missing.
template <class T>
uint32_t intern(std::vector<T>& table, const T& v) {
    for (size_t i = 1; i < table.size(); ++i)
        if (table[i] == v) return uint32_t(i);
    table.push_back(v);
    return uint32_t(table.size() - 1);
}

double median(std::vector<double>& v) {
    const size_t mid = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(mid), v.end());
    const double hi = v[mid];
    if (v.size() % 2) return hi;
    return (*std::max_element(v.begin(), v.begin() + std::ptrdiff_t(mid)) + hi) / 2;
}

struct Decoded {  // one record with where it came from and where it lands
    Record r;
    uint32_t slice = 0;
    double begin = 0;  // cycles on the common axis
};

} // namespace

void RegionNames::add(const std::string& name) {
    const uint32_t id = regions::fnv1a32(name.c_str());
    auto [it, inserted] = by_id_.emplace(id, name);
    if (!inserted && it->second != name)
        throw std::invalid_argument("region names \"" + it->second + "\" and \"" + name + "\" have the same id " + hex32(id) +
                                    "; rename one of them");
}

std::string RegionNames::name_of(uint32_t id) const {
    auto it = by_id_.find(id);
    return it != by_id_.end() ? it->second : "region " + hex32(id);
}

std::vector<std::string> region_names_in(const std::string& source) {
    static const std::regex marker(R"(\bregion\s+\w+\s*[({]\s*"((?:[^"\\]|\\.)*)\")");
    std::vector<std::string> names;
    for (auto it = std::sregex_iterator(source.begin(), source.end(), marker); it != std::sregex_iterator(); ++it) {
        const std::string n = (*it)[1].str();
        if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    }
    return names;
}

trace::Trace gpu_trace(const GpuDevice& d) {
    trace::Trace t;
    t.producer = "tklab profiler";
    t.arch = {{"name", d.name},
              {"gpu", true},
              {"device", d.ordinal},
              {"sm", "sm_" + std::to_string(d.cc_major) + std::to_string(d.cc_minor)},
              {"sms", d.sms},
              {"clock_mhz", d.sm_clock_mhz}};
    t.recording.timeline_blocks = "all";
    t.ops = {"region"};
    t.stalls = {"none"};
    t.files = {trace::SourceFile{}};
    t.locations = {trace::Location{}};
    t.op_names = {std::string{}};
    return t;
}

std::string RegionStats::warning() const {
    std::string w;
    auto add = [&](const std::string& s) { w += (w.empty() ? "" : "; ") + s; };
    if (dropped > 0) {
        uint32_t full = 0, worst = 0;
        for (uint32_t d : dropped_per_warp) { full += d > 0; worst = std::max(worst, d); }
        add(std::to_string(dropped) + " regions were dropped: " + std::to_string(full) + " warps filled their " +
            std::to_string(records_per_warp) + " records (the worst dropped " + std::to_string(worst) +
            "); give the buffer more records per warp or mark fewer regions");
    }
    if (lost > 0)
        add(std::to_string(lost) + " regions came from warps beyond the buffer's " + std::to_string(warps) +
            " slices and were not kept; size the buffer for the launch's warps");
    if (unfinished > 0)
        add(std::to_string(unfinished) + " regions began but never ended (did the kernel stop early?) and were left out");
    if (unknown > 0)
        add(std::to_string(unknown) + " regions have ids that match no given name (shown as \"region 0x...\"); pass their names");
    return w;
}

RegionStats add_region_launch(trace::Trace& t, const void* data, size_t size, const RegionNames& names,
                              const RegionDecodeOptions& opt) {
    if (!(opt.sm_clock_mhz > 0) || !std::isfinite(opt.sm_clock_mhz))
        throw RegionDecodeError("region decode: the SM clock rate must be a positive number of MHz (cudaDevAttrClockRate / 1000), got " +
                                std::to_string(opt.sm_clock_mhz));
    if (opt.source_file >= t.files.size())
        throw RegionDecodeError("region decode: source file " + std::to_string(opt.source_file) + " is not in the trace's " +
                                std::to_string(t.files.size()) + " files");
    if (size > 0 && !data) fail("no data for " + std::to_string(size) + " bytes");
    const auto* bytes = static_cast<const unsigned char*>(data);

    // ---- the header: what kind of buffer, of which launch, how big
    if (size < sizeof(Header))
        fail(std::to_string(size) + " bytes, shorter than its " + std::to_string(sizeof(Header)) +
             "-byte header; copy the whole buffer back (regions::buffer_bytes(warps, records_per_warp))");
    Header h;
    std::memcpy(&h, bytes, sizeof h);
    if (h.magic != regions::kMagic)
        fail("it starts with " + hex32(h.magic) + ", not the region buffer's magic " + hex32(regions::kMagic) +
             " (\"TKRG\"): not a tk::region buffer, or not copied from its start");
    if (h.version != regions::kVersion)
        fail("version " + std::to_string(h.version) + "; this tklab reads version " + std::to_string(regions::kVersion) +
             " (build the kernel and tklab from the same sources)");
    if (h.record_bytes != sizeof(Record))
        fail("records of " + std::to_string(h.record_bytes) + " bytes where this tklab's are " + std::to_string(sizeof(Record)) +
             " (build the kernel and tklab from the same sources)");
    for (int i = 0; i < 3; ++i)
        if (h.grid[i] == 0 || h.block[i] == 0) fail("the launch shape in its header has a zero dimension: the header is corrupt");
    const uint64_t threads = uint64_t(h.block[0]) * h.block[1] * h.block[2];
    const uint32_t wpb = uint32_t((threads + 31) / 32);
    if (threads > 1024 || h.warps_per_block != wpb)
        fail("its header says " + std::to_string(h.warps_per_block) + " warps per block for blocks of " + std::to_string(threads) +
             " threads: the header is corrupt");
    const uint64_t nblocks = uint64_t(h.grid[0]) * h.grid[1] * h.grid[2];
    if (h.warps > nblocks * wpb)
        fail(std::to_string(h.warps) + " slices for a launch of " + std::to_string(nblocks * wpb) + " warps: the header is corrupt");
    const uint64_t nrecords = uint64_t(h.warps) * h.records_per_warp;
    const uint64_t roff = regions::records_offset(h.warps);
    if (nrecords > (std::numeric_limits<uint64_t>::max() - roff) / sizeof(Record)) fail("its header's sizes overflow: the header is corrupt");
    const uint64_t expected = roff + nrecords * sizeof(Record);
    if (size != expected)
        fail(std::to_string(size) + " bytes where its header (" + std::to_string(h.warps) + " warps x " +
             std::to_string(h.records_per_warp) + " records) says " + std::to_string(expected) +
             (size < expected ? ": cut short; copy the whole buffer back" : ": bytes beyond its end; pass the buffer's own size"));

    // ---- the records each warp kept, checked against the slice they sit in
    RegionStats st;
    st.records_per_warp = h.records_per_warp;
    st.warps = h.warps;
    st.lost = h.lost;
    st.dropped_per_warp.assign(h.warps, 0);
    std::vector<Decoded> recs;
    for (uint32_t w = 0; w < h.warps; ++w) {
        uint32_t count = 0;
        std::memcpy(&count, bytes + regions::kCountsOffset + 4 * size_t(w), 4);
        const uint32_t kept = std::min(count, h.records_per_warp);
        st.dropped_per_warp[w] = count - kept;
        st.dropped += count - kept;
        for (uint32_t i = 0; i < kept; ++i) {
            Decoded d;
            d.slice = w;
            std::memcpy(&d.r, bytes + roff + (uint64_t(w) * h.records_per_warp + i) * sizeof(Record), sizeof(Record));
            const std::string where = "record " + std::to_string(i) + " of warp " + std::to_string(w % wpb) + " of block " +
                                      std::to_string(w / wpb);
            // Begun, never ended (the session zeroes the buffer): the kernel
            // stopped inside it. Checked first: a marker that wrote nothing of
            // its record before the end leaves it all zero, block and warp too.
            if (d.r.t1 == 0 && d.r.c1 == 0) {
                ++st.unfinished;
                continue;
            }
            if (d.r.block != w / wpb || d.r.warp != w % wpb)
                fail(where + " says block " + std::to_string(d.r.block) + ", warp " + std::to_string(d.r.warp) +
                     ": the buffer is corrupt (or its counts were not zeroed before the launch)");
            if (d.r.c1 < d.r.c0 || d.r.t1 < d.r.t0)
                fail(where + " (" + names.name_of(d.r.id) + ") ends before it begins: the buffer is corrupt");
            recs.push_back(d);
        }
    }

    // ---- alignment: per SM, the offset between globaltimer (as cycles) and clock64
    uint64_t t_base = std::numeric_limits<uint64_t>::max(), t_end = 0;
    std::map<uint32_t, uint64_t> c_base;  // per SM: its earliest clock64, so the fit works on small numbers
    for (const Decoded& d : recs) {
        t_base = std::min(t_base, d.r.t0);
        t_end = std::max(t_end, d.r.t1);
        auto [it, fresh] = c_base.emplace(d.r.smid, d.r.c0);
        if (!fresh) it->second = std::min(it->second, d.r.c0);
    }
    // The clock clock64 actually ran at: the slope of clock64 against the
    // globaltimer, pooled over SMs (each SM centred on its own means). Used
    // when the regions span long enough for the timer's ticks not to matter,
    // since the SM clock under load is seldom the peak the device reports.
    double cycles_per_ns = opt.sm_clock_mhz / 1000.0;
    if (opt.fit_clock) {
        struct Acc { double n = 0, st = 0, sc = 0, stt = 0, stc = 0; uint64_t lo = UINT64_MAX, hi = 0; };
        std::map<uint32_t, Acc> acc;
        for (const Decoded& d : recs) {
            Acc& a = acc[d.r.smid];
            const uint64_t cb = c_base[d.r.smid];
            for (auto [tt, cc] : {std::pair{d.r.t0, d.r.c0}, std::pair{d.r.t1, d.r.c1}}) {
                const double x = double(tt - t_base), y = double(cc - cb);
                a.n += 1, a.st += x, a.sc += y, a.stt += x * x, a.stc += x * y;
                a.lo = std::min(a.lo, tt), a.hi = std::max(a.hi, tt);
            }
        }
        double sxx = 0, sxy = 0;
        uint64_t span = 0;
        for (const auto& [sm, a] : acc) {
            sxx += a.stt - a.st * a.st / a.n;
            sxy += a.stc - a.st * a.sc / a.n;
            span = std::max(span, a.hi - a.lo);
        }
        const double fitted = sxx > 0 ? sxy / sxx : 0;
        if (span >= kMinFitSpanNs && fitted > 0.3 * cycles_per_ns && fitted < 3 * cycles_per_ns) {
            cycles_per_ns = fitted;
            st.clock_fitted = true;
        }
    }
    st.clock_mhz = cycles_per_ns * 1000.0;
    std::map<uint32_t, std::vector<double>> samples;
    for (const Decoded& d : recs) {
        const uint64_t cb = c_base[d.r.smid];
        auto& s = samples[d.r.smid];
        s.push_back(double(d.r.t0 - t_base) * cycles_per_ns - double(d.r.c0 - cb));
        s.push_back(double(d.r.t1 - t_base) * cycles_per_ns - double(d.r.c1 - cb));
    }
    std::map<uint32_t, double> offset;
    for (auto& [sm, s] : samples) offset[sm] = median(s);
    st.sms = uint32_t(offset.size());
    double origin = std::numeric_limits<double>::infinity();
    for (Decoded& d : recs) {
        d.begin = double(d.r.c0 - c_base[d.r.smid]) + offset[d.r.smid];
        origin = std::min(origin, d.begin);
    }

    // ---- into the trace's tables and blocks (built aside, so a failure above leaves t as it was)
    std::vector<std::string> ops = t.ops, op_names = t.op_names;
    std::vector<trace::Location> locations = t.locations;
    std::vector<std::string> stalls = t.stalls.empty() ? std::vector<std::string>{"none"} : t.stalls;
    uint32_t region_op = uint32_t(std::find(ops.begin(), ops.end(), "region") - ops.begin());  // ops has no reserved 0
    if (region_op == ops.size()) ops.push_back("region");
    if (ops.size() > 255) throw RegionDecodeError("region decode: the trace has 255 instruction kinds already");
    std::map<uint32_t, uint32_t> name_index, loc_index;

    const uint32_t nkept_blocks = uint32_t((uint64_t(h.warps) + wpb - 1) / wpb);
    trace::Launch launch;
    launch.kernel = opt.kernel;
    launch.grid = {h.grid[0], h.grid[1], h.grid[2]};
    launch.block = {h.block[0], h.block[1], h.block[2]};
    launch.wall_seconds = recs.empty() ? 0 : double(t_end - t_base) * 1e-9;
    launch.blocks.resize(nkept_blocks);
    for (uint32_t b = 0; b < nkept_blocks; ++b) {
        trace::Block& blk = launch.blocks[b];
        blk.index = b;
        blk.coord = {b % h.grid[0], (b / h.grid[0]) % h.grid[1], b / (h.grid[0] * h.grid[1])};
        blk.timeline = true;
        blk.warp_peak_regs.assign(wpb, 0);
    }
    for (const Decoded& d : recs) {
        trace::Event e;
        e.issue = uint64_t(std::llround(std::max(0.0, d.begin - origin)));
        e.done = e.issue + (d.r.c1 - d.r.c0);
        e.warp = d.r.warp;
        e.op = uint8_t(region_op);
        e.mask = 0xffffffffu;
        auto [nit, nfresh] = name_index.emplace(d.r.id, 0);
        if (nfresh) {
            nit->second = intern(op_names, names.name_of(d.r.id));
            if (op_names.size() > 65535) throw RegionDecodeError("region decode: more than 65535 op names in the trace");
        }
        if (!names.known(d.r.id)) ++st.unknown;
        e.op_name = uint16_t(nit->second);
        auto [lit, lfresh] = loc_index.emplace(d.r.line, 0);
        if (lfresh) lit->second = intern(locations, trace::Location{opt.source_file, int(d.r.line)});
        e.loc = lit->second;
        launch.blocks[d.slice / wpb].events.push_back(e);
    }

    // Per block: execution order (an enclosing region before the ones it holds),
    // each warp's regions numbered in order, aux = nesting depth.
    trace::Summary sum;
    uint64_t kernel_end = 0;
    for (trace::Block& blk : launch.blocks) {
        auto& ev = blk.events;
        std::stable_sort(ev.begin(), ev.end(), [](const trace::Event& a, const trace::Event& b) {
            if (a.issue != b.issue) return a.issue < b.issue;
            if (a.warp != b.warp) return a.warp < b.warp;
            return a.done > b.done;
        });
        std::vector<uint32_t> seq(wpb, 0);
        std::vector<std::vector<uint64_t>> open(wpb);  // per warp: ends of the regions still open
        uint64_t first = std::numeric_limits<uint64_t>::max(), last = 0;
        for (trace::Event& e : ev) {
            auto& stack = open[e.warp];
            while (!stack.empty() && stack.back() <= e.issue) stack.pop_back();
            e.aux = uint8_t(std::min<size_t>(stack.size(), 255));
            stack.push_back(e.done);
            e.op_seq = ++seq[e.warp];
            first = std::min(first, e.issue);
            last = std::max(last, e.done);
        }
        blk.cycles = last;
        blk.instructions = ev.size();
        const uint64_t span = ev.empty() ? 0 : last - first;
        sum.max_block_cycles = std::max(sum.max_block_cycles, span);
        sum.sum_block_cycles += span;
        sum.warp_cycles += span * wpb;
        kernel_end = std::max(kernel_end, last);
        st.regions += ev.size();
    }
    sum.blocks = launch.blocks.size();
    sum.warp_instructions = st.regions;
    sum.est_kernel_cycles = kernel_end;
    sum.by_op.assign(ops.size(), 0);
    sum.by_op[region_op] = st.regions;
    sum.stall_cycles.assign(stalls.size(), 0);
    launch.summary = std::move(sum);

    // Commit: a new instruction kind widens the earlier launches' by_op.
    for (trace::Launch& l : t.launches)
        if (l.summary) l.summary->by_op.resize(ops.size(), 0);
    t.ops = std::move(ops);
    t.stalls = std::move(stalls);
    t.op_names = std::move(op_names);
    t.locations = std::move(locations);
    t.launches.push_back(std::move(launch));
    // Cycles convert to time at the clock the regions ran at.
    if (st.clock_fitted && t.from_gpu()) {
        if (!t.arch.contains("peak_clock_mhz") && t.arch.contains("clock_mhz")) t.arch["peak_clock_mhz"] = t.arch["clock_mhz"];
        t.arch["clock_mhz"] = std::round(st.clock_mhz);
    }
    return st;
}

} // namespace tklab::profiler
