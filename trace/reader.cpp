// Loading a trace: a SAX pass over either encoding that builds one record at a
// time (never the whole document), checks it and folds it into a Trace.
// Every problem is a TraceError naming the byte offset (syntax, truncation)
// or the JSON path (a missing field, a wrong type, an id out of range).
#include "trace/codec.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

namespace tklab::trace {

namespace {

[[noreturn]] void bad(const std::string& path, const std::string& what) { throw TraceError(path + ": " + what); }

std::string type_of(const json& v) {
    if (v.is_number_integer()) return "an integer";
    if (v.is_number_float()) return "a number with a fraction";
    if (v.is_string()) return "a string";
    if (v.is_boolean()) return "a boolean";
    if (v.is_null()) return "null";
    if (v.is_array()) return "an array";
    if (v.is_object()) return "an object";
    return "binary data";
}

const json& field(const json& o, const std::string& path, const char* key) {
    if (!o.is_object()) bad(path, "expected an object, found " + type_of(o));
    auto it = o.find(key);
    if (it == o.end()) bad(path, std::string("missing field \"") + key + "\"");
    return *it;
}

int64_t as_int(const json& v, const std::string& path, int64_t lo, int64_t hi) {
    int64_t x;
    if (v.is_number_unsigned()) {
        const uint64_t u = v.get<uint64_t>();
        if (u > uint64_t(std::numeric_limits<int64_t>::max())) bad(path, "value " + std::to_string(u) + " is out of range");
        x = int64_t(u);
    } else if (v.is_number_integer()) {
        x = v.get<int64_t>();
    } else {
        bad(path, "expected an integer, found " + type_of(v));
    }
    if (x < lo || x > hi)
        bad(path, "value " + std::to_string(x) + " is out of range (" + std::to_string(lo) + ".." + std::to_string(hi) + ")");
    return x;
}

uint64_t as_uint(const json& v, const std::string& path, uint64_t hi = std::numeric_limits<uint64_t>::max()) {
    if (v.is_number_unsigned()) {
        const uint64_t u = v.get<uint64_t>();
        if (u > hi) bad(path, "value " + std::to_string(u) + " is out of range (0.." + std::to_string(hi) + ")");
        return u;
    }
    if (v.is_number_integer()) bad(path, "value " + std::to_string(v.get<int64_t>()) + " is negative");
    bad(path, "expected an integer, found " + type_of(v));
}

double as_number(const json& v, const std::string& path) {
    if (!v.is_number()) bad(path, "expected a number, found " + type_of(v));
    return v.get<double>();
}

bool as_bool(const json& v, const std::string& path) {
    if (!v.is_boolean()) bad(path, "expected true or false, found " + type_of(v));
    return v.get<bool>();
}

std::string as_string(const json& v, const std::string& path) {
    if (!v.is_string()) bad(path, "expected a string, found " + type_of(v));
    return v.get<std::string>();
}

float as_float(const json& v, const std::string& path) {
    if (v.is_number()) return float(v.get<double>());
    if (v.is_string()) {
        const std::string& s = v.get_ref<const std::string&>();
        if (s == "NaN") return std::numeric_limits<float>::quiet_NaN();
        if (s == "Infinity") return std::numeric_limits<float>::infinity();
        if (s == "-Infinity") return -std::numeric_limits<float>::infinity();
    }
    bad(path, "expected a number (or \"NaN\", \"Infinity\", \"-Infinity\"), found " + type_of(v));
}

const json::array_t& as_array(const json& v, const std::string& path) {
    if (!v.is_array()) bad(path, "expected an array, found " + type_of(v));
    return v.get_ref<const json::array_t&>();
}

// A column of integers: a field of `o` holding an array of n values in lo..hi.
std::vector<int64_t> column(const json& o, const std::string& path, const char* key, size_t n, int64_t lo, int64_t hi) {
    const std::string p = path + "." + key;
    const json::array_t& a = as_array(field(o, path, key), p);
    if (n != SIZE_MAX && a.size() != n)
        bad(p, "has " + std::to_string(a.size()) + " values, expected " + std::to_string(n) + " (one per row)");
    std::vector<int64_t> out(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
        const json& v = a[i];
        if (v.is_number_unsigned() && v.get<uint64_t>() <= uint64_t(hi)) out[i] = int64_t(v.get<uint64_t>());
        else if (v.is_number_integer() && !v.is_number_unsigned() && v.get<int64_t>() >= lo && v.get<int64_t>() <= hi) out[i] = v.get<int64_t>();
        else out[i] = as_int(v, p + "[" + std::to_string(i) + "]", lo, hi);  // reports the problem
    }
    return out;
}

constexpr int64_t kI64 = std::numeric_limits<int64_t>::max();
constexpr int64_t kU32 = std::numeric_limits<uint32_t>::max();

Dim3 as_dim3(const json& v, const std::string& path) {
    const json::array_t& a = as_array(v, path);
    if (a.size() != 3) bad(path, "expected 3 values (x, y, z), found " + std::to_string(a.size()));
    Dim3 d;
    d.x = uint32_t(as_int(a[0], path + "[0]", 1, kU32));
    d.y = uint32_t(as_int(a[1], path + "[1]", 1, kU32));
    d.z = uint32_t(as_int(a[2], path + "[2]", 1, kU32));
    return d;
}

std::vector<std::string> string_list(const json& v, const std::string& path) {
    std::vector<std::string> out;
    const json::array_t& a = as_array(v, path);
    for (size_t i = 0; i < a.size(); ++i) out.push_back(as_string(a[i], path + "[" + std::to_string(i) + "]"));
    return out;
}

template <class T>
std::vector<T> uint_list(const json& v, const std::string& path, uint64_t hi) {
    std::vector<T> out;
    const json::array_t& a = as_array(v, path);
    out.reserve(a.size());
    for (size_t i = 0; i < a.size(); ++i) out.push_back(T(as_uint(a[i], path + "[" + std::to_string(i) + "]", hi)));
    return out;
}

} // namespace

GpuKernel gpu_kernel_of(const json& r, const std::string& p) {
    GpuKernel k;
    auto u32 = [&](const char* key) { return uint32_t(as_uint(field(r, p, key), p + "." + key, kU32)); };
    k.name = as_string(field(r, p, "name"), p + ".name");
    k.mangled = as_string(field(r, p, "mangled"), p + ".mangled");
    k.start_ns = as_uint(field(r, p, "start_ns"), p + ".start_ns");
    k.end_ns = as_uint(field(r, p, "end_ns"), p + ".end_ns");
    if (k.end_ns < k.start_ns)
        bad(p + ".end_ns", std::to_string(k.end_ns) + " is before start_ns " + std::to_string(k.start_ns));
    k.registers = u32("registers");
    k.static_smem = u32("static_smem");
    k.dynamic_smem = u32("dynamic_smem");
    k.grid = as_dim3(field(r, p, "grid"), p + ".grid");
    k.block = as_dim3(field(r, p, "block"), p + ".block");
    if (uint64_t(k.block.x) * k.block.y * k.block.z > 1024) bad(p + ".block", "more than 1024 threads in a block");
    k.device = u32("device");
    k.stream = u32("stream");
    k.correlation = u32("correlation");
    return k;
}

GpuCounters gpu_counters_of(const json& r, const std::string& p) {
    GpuCounters c;
    c.kernel = as_string(field(r, p, "kernel"), p + ".kernel");
    c.launch = uint32_t(as_uint(field(r, p, "launch"), p + ".launch", kU32));
    const json& m = field(r, p, "metrics");
    if (!m.is_object()) bad(p + ".metrics", "expected an object of metric name to number, found " + type_of(m));
    for (const auto& [name, value] : m.items()) {
        if (!value.is_number()) bad(p + ".metrics." + name, "expected a number, found " + type_of(value));
        const double v = value.get<double>();
        if (!std::isfinite(v)) bad(p + ".metrics." + name, "not a finite number");
        c.metrics[name] = v;
    }
    return c;
}

GpuStalls gpu_stalls_of(const json& r, const std::string& p) {
    GpuStalls s;
    s.kernel = as_string(field(r, p, "kernel"), p + ".kernel");
    s.period_cycles = as_uint(field(r, p, "period_cycles"), p + ".period_cycles");
    s.samples = as_uint(field(r, p, "samples"), p + ".samples");
    s.dropped = as_uint(field(r, p, "dropped"), p + ".dropped");
    // Sites by kernel line, and (optional) the same samples by each instruction's own line.
    const auto read_sites = [&](const std::string& key, std::vector<GpuStallSite>& out) {
        const json::array_t& sites = as_array(field(r, p, key.c_str()), p + "." + key);
        uint64_t sum = 0;
        for (size_t i = 0; i < sites.size(); ++i) {
            const std::string q = p + "." + key + "[" + std::to_string(i) + "]";
            GpuStallSite x;
            x.file = as_string(field(sites[i], q, "file"), q + ".file");
            x.line = uint32_t(as_uint(field(sites[i], q, "line"), q + ".line", kU32));
            x.reason = as_string(field(sites[i], q, "reason"), q + ".reason");
            if (x.reason.empty()) bad(q + ".reason", "empty");
            x.samples = as_uint(field(sites[i], q, "samples"), q + ".samples");
            sum += x.samples;
            out.push_back(std::move(x));
        }
        if (sum > s.samples)
            bad(p + "." + key, "their samples add up to " + std::to_string(sum) + ", more than the kernel's " + std::to_string(s.samples));
    };
    read_sites("sites", s.sites);
    if (r.contains("inner_sites")) read_sites("inner_sites", s.inner_sites);
    return s;
}

namespace {

// ---------------------------------------------------------------- records -> Trace

class Loader {
public:
    Trace t;
    uint64_t records = 0;
    bool ended = false;
    bool keep_timelines = true;  // LoadOptions::timelines

    Loader() {
        t.files = {SourceFile{}};
        t.locations = {Location{}};
        t.op_names = {std::string{}};
    }

    void top(const json& format, const json& version, const json& header) {
        if (format.is_null() || !format.is_string() || format.get<std::string>() != kFormat)
            bad("top level", std::string("not a tklab trace (no \"format\": \"") + kFormat + "\")");
        if (version.is_null()) bad("top level", "missing field \"version\"");
        const int64_t v = as_int(version, "version", 0, kI64);
        if (v != kVersion)
            bad("version", "this trace is version " + std::to_string(v) + "; this tklab reads version " +
                               std::to_string(kVersion) + (v > kVersion ? " (update tklab)" : " (re-record the trace)"));
        t.version = int(v);
        if (header.is_null()) bad("top level", "missing field \"header\" (it must come before \"records\")");
        const std::string p = "header";
        t.producer = as_string(field(header, p, "producer"), p + ".producer");
        t.program = as_string(field(header, p, "program"), p + ".program");
        t.variant = as_string(field(header, p, "variant"), p + ".variant");
        t.problem = field(header, p, "problem");
        if (!t.problem.is_object()) bad(p + ".problem", "expected an object, found " + type_of(t.problem));
        t.seed = as_uint(field(header, p, "seed"), p + ".seed");
        t.arch = field(header, p, "arch");
        if (!t.arch.is_object()) bad(p + ".arch", "expected an object, found " + type_of(t.arch));
        const json& rec = field(header, p, "recording");
        t.recording.timeline_blocks = as_string(field(rec, p + ".recording", "timeline_blocks"), p + ".recording.timeline_blocks");
        t.recording.all_lane_addresses = as_bool(field(rec, p + ".recording", "all_lane_addresses"), p + ".recording.all_lane_addresses");
        t.recording.snapshots = as_bool(field(rec, p + ".recording", "snapshots"), p + ".recording.snapshots");
        t.ops = string_list(field(header, p, "ops"), p + ".ops");
        t.stalls = string_list(field(header, p, "stalls"), p + ".stalls");
        if (t.ops.size() > 255) bad(p + ".ops", "more than 255 instruction kinds");
        if (t.stalls.empty() || t.stalls.size() > 255) bad(p + ".stalls", "expected 1..255 stall reasons, the first being \"none\"");
    }

    void record(const json& r) {
        const std::string p = "records[" + std::to_string(records++) + "]";
        if (ended) bad(p, "a record after the end record");
        const std::string type = as_string(field(r, p, "type"), p + ".type");
        if (type == "file") file(r, p);
        else if (type == "locations") locations(r, p);
        else if (type == "op_names") op_names(r, p);
        else if (type == "launch") launch(r, p);
        else if (type == "block") block(r, p);
        else if (type == "summary") summary(r, p);
        else if (type == "failure") failure(r, p);
        else if (type == "check") check(r, p);
        else if (type == "gpu_kernel") t.gpu_kernels.push_back(gpu_kernel_of(r, p));
        else if (type == "gpu_counters") t.gpu_counters.push_back(gpu_counters_of(r, p));
        else if (type == "gpu_stalls") t.gpu_stalls.push_back(gpu_stalls_of(r, p));
        else if (type == "end") ended = true;
        else bad(p + ".type", "unknown record type \"" + type + "\" (this tklab reads version " + std::to_string(kVersion) + ")");
    }

private:
    void file(const json& r, const std::string& p) {
        const uint64_t id = as_uint(field(r, p, "id"), p + ".id");
        if (id != t.files.size()) bad(p + ".id", "file id " + std::to_string(id) + " where " + std::to_string(t.files.size()) + " comes next");
        SourceFile f;
        f.path = as_string(field(r, p, "path"), p + ".path");
        f.hash = as_string(field(r, p, "hash"), p + ".hash");
        const json& text = field(r, p, "text");
        if (!text.is_null()) f.text = as_string(text, p + ".text");
        t.files.push_back(std::move(f));
    }

    void locations(const json& r, const std::string& p) {
        const uint64_t first = as_uint(field(r, p, "first"), p + ".first");
        if (first != t.locations.size()) bad(p + ".first", std::to_string(first) + " where location " + std::to_string(t.locations.size()) + " comes next");
        auto file = column(r, p, "file", SIZE_MAX, 0, int64_t(t.files.size()) - 1);
        auto line = column(r, p, "line", file.size(), 0, std::numeric_limits<int>::max());
        for (size_t i = 0; i < file.size(); ++i) t.locations.push_back({uint32_t(file[i]), int(line[i])});
    }

    void op_names(const json& r, const std::string& p) {
        const uint64_t first = as_uint(field(r, p, "first"), p + ".first");
        if (first != t.op_names.size()) bad(p + ".first", std::to_string(first) + " where op name " + std::to_string(t.op_names.size()) + " comes next");
        for (auto& n : string_list(field(r, p, "names"), p + ".names")) t.op_names.push_back(std::move(n));
        if (t.op_names.size() > 65535) bad(p, "more than 65535 op names");
    }

    Launch& current(const json& r, const std::string& p) {
        const int64_t li = as_int(field(r, p, "launch"), p + ".launch", 0, kI64);
        if (t.launches.empty() || li != int64_t(t.launches.size()) - 1)
            bad(p + ".launch", "launch " + std::to_string(li) + " is not the launch in progress (" +
                                   (t.launches.empty() ? std::string("none has begun") : std::to_string(t.launches.size() - 1)) + ")");
        return t.launches.back();
    }

    void launch(const json& r, const std::string& p) {
        const uint64_t li = as_uint(field(r, p, "launch"), p + ".launch");
        if (li != t.launches.size()) bad(p + ".launch", "launch " + std::to_string(li) + " where " + std::to_string(t.launches.size()) + " comes next");
        Launch l;
        l.kernel = as_string(field(r, p, "kernel"), p + ".kernel");
        l.grid = as_dim3(field(r, p, "grid"), p + ".grid");
        l.block = as_dim3(field(r, p, "block"), p + ".block");
        if (uint64_t(l.block.x) * l.block.y * l.block.z > 1024) bad(p + ".block", "more than 1024 threads in a block");
        l.smem_bytes = as_uint(field(r, p, "smem_bytes"), p + ".smem_bytes");
        l.first_wave_blocks = as_uint(field(r, p, "first_wave_blocks"), p + ".first_wave_blocks");
        t.launches.push_back(std::move(l));
    }

    int64_t loc_max() const { return int64_t(t.locations.size()) - 1; }

    void block(const json& r, const std::string& p) {
        Launch& l = current(r, p);
        if (l.summary) bad(p, "a block after its launch's summary");
        const uint64_t nblocks = uint64_t(l.grid.x) * l.grid.y * l.grid.z;
        const int64_t nwarps = l.warps_per_block();
        Block b;
        b.index = uint32_t(as_int(field(r, p, "index"), p + ".index", 0, int64_t(nblocks) - 1));
        if (!l.blocks.empty() && b.index <= l.blocks.back().index)
            bad(p + ".index", "block " + std::to_string(b.index) + " after block " + std::to_string(l.blocks.back().index) + " (blocks come in order)");
        const json::array_t& c = as_array(field(r, p, "coord"), p + ".coord");
        if (c.size() != 3) bad(p + ".coord", "expected 3 values (x, y, z)");
        b.coord.x = uint32_t(as_int(c[0], p + ".coord[0]", 0, int64_t(l.grid.x) - 1));
        b.coord.y = uint32_t(as_int(c[1], p + ".coord[1]", 0, int64_t(l.grid.y) - 1));
        b.coord.z = uint32_t(as_int(c[2], p + ".coord[2]", 0, int64_t(l.grid.z) - 1));
        b.cycles = as_uint(field(r, p, "cycles"), p + ".cycles");
        b.instructions = as_uint(field(r, p, "instructions"), p + ".instructions");
        b.warp_peak_regs = uint_list<uint16_t>(field(r, p, "warp_peak_regs"), p + ".warp_peak_regs", 65535);
        b.timeline = as_bool(field(r, p, "timeline"), p + ".timeline");
        // "regions" came later within version 1: optional, checked when present.
        if (auto it = r.find("regions"); it != r.end()) regions(b, *it, p + ".regions", nwarps);
        if (b.timeline) {
            events(b, field(r, p, "events"), p + ".events", nwarps);
            smem(b, r, p);
            barriers(b, field(r, p, "barriers"), p + ".barriers", nwarps);
            regs(b, field(r, p, "regs"), p + ".regs", nwarps);
            snapshots(b, field(r, p, "snapshots"), p + ".snapshots", nwarps);
            if (!keep_timelines && !t.from_gpu()) {  // checked; not kept
                // swap with empty ones: `v = {}` would keep the memory
                auto release = [](auto& v) { std::decay_t<decltype(v)>().swap(v); };
                b.timeline = false;
                release(b.events);
                release(b.smem);
                release(b.lane_addrs);
                release(b.barriers);
                release(b.regs);
                release(b.snapshots);
            }
        }
        l.blocks.push_back(std::move(b));
    }

    void events(Block& b, const json& o, const std::string& p, int64_t nwarps) {
        auto warp = column(o, p, "warp", SIZE_MAX, 0, nwarps - 1);
        const size_t n = warp.size();
        auto op = column(o, p, "op", n, 0, int64_t(t.ops.size()) - 1);
        auto issue = column(o, p, "issue", n, 0, kI64);
        auto duration = column(o, p, "duration", n, 0, kI64);
        auto stall = column(o, p, "stall", n, 0, int64_t(t.stalls.size()) - 1);
        auto stall_cycles = column(o, p, "stall_cycles", n, 0, kU32);
        auto inactive = column(o, p, "inactive", n, 0, kU32);
        auto loc = column(o, p, "loc", n, 0, loc_max());
        auto op_seq = column(o, p, "op_seq", n, -kU32, kU32);
        auto op_name = column(o, p, "op_name", n, 0, int64_t(t.op_names.size()) - 1);
        auto aux = column(o, p, "aux", n, 0, 255);
        std::vector<uint64_t> last_issue(size_t(nwarps), 0);
        std::vector<int64_t> last_seq(size_t(nwarps), 0);
        b.events.resize(n);
        for (size_t i = 0; i < n; ++i) {
            Event& e = b.events[i];
            const size_t w = size_t(warp[i]);
            e.warp = uint16_t(w);
            e.op = uint8_t(op[i]);
            e.issue = last_issue[w] += uint64_t(issue[i]);
            e.done = e.issue + uint64_t(duration[i]);
            e.stall = uint8_t(stall[i]);
            e.stall_cycles = uint32_t(stall_cycles[i]);
            e.mask = ~uint32_t(inactive[i]);
            e.loc = uint32_t(loc[i]);
            last_seq[w] += op_seq[i];
            if (last_seq[w] < 0 || last_seq[w] > kU32) bad(p + ".op_seq[" + std::to_string(i) + "]", "tile-op number out of range");
            e.op_seq = uint32_t(last_seq[w]);
            e.op_name = uint16_t(op_name[i]);
            e.aux = uint8_t(aux[i]);
        }
    }

    void smem(Block& b, const json& r, const std::string& rp) {
        const std::string p = rp + ".smem";
        const json& o = field(r, rp, "smem");
        auto event = column(o, p, "event", SIZE_MAX, -kI64, kI64);
        const size_t n = event.size();
        auto wavefronts = column(o, p, "wavefronts", n, 0, 65535);
        auto ideal = column(o, p, "ideal", n, 0, 65535);
        auto max_way = column(o, p, "max_way", n, 0, 255);
        auto kept = column(o, p, "lanes", n, 0, 1);
        auto lanes = column(r, rp, "lane_addrs", SIZE_MAX, -kU32, kU32);
        size_t need = 0;
        for (int64_t k : kept) need += size_t(k) * 32;
        if (lanes.size() != need)
            bad(rp + ".lane_addrs", "has " + std::to_string(lanes.size()) + " values; the kept lanes need " + std::to_string(need));
        int64_t ev = 0;
        size_t li = 0;
        b.smem.resize(n);
        for (size_t i = 0; i < n; ++i) {
            ev += event[i];
            if (ev < 0 || ev >= int64_t(b.events.size()))
                bad(p + ".event[" + std::to_string(i) + "]", "event " + std::to_string(ev) + " does not exist (" + std::to_string(b.events.size()) + " events)");
            if (b.events[size_t(ev)].smem >= 0) bad(p + ".event[" + std::to_string(i) + "]", "event " + std::to_string(ev) + " has two shared-memory records");
            SmemAccess& s = b.smem[i];
            s.event = uint32_t(ev);
            s.wavefronts = uint16_t(wavefronts[i]);
            s.ideal = uint16_t(ideal[i]);
            s.max_way = uint8_t(max_way[i]);
            b.events[size_t(ev)].smem = int32_t(i);
            if (kept[i]) {
                s.lanes = int32_t(b.lane_addrs.size());
                int64_t a = 0;
                for (int l = 0; l < 32; ++l, ++li) {
                    a = l == 0 ? lanes[li] : a + lanes[li];
                    if (a < 0 || a > kU32) bad(rp + ".lane_addrs[" + std::to_string(li) + "]", "address out of range");
                    b.lane_addrs.push_back(uint32_t(a));
                }
            }
        }
    }

    void barriers(Block& b, const json& o, const std::string& p, int64_t nwarps) {
        auto warp = column(o, p, "warp", SIZE_MAX, 0, nwarps - 1);
        const size_t n = warp.size();
        auto arrive = column(o, p, "arrive", n, 0, kI64);
        auto wait = column(o, p, "wait", n, 0, kI64);
        auto loc = column(o, p, "loc", n, 0, loc_max());
        auto last = column(o, p, "last_warp", n, 0, nwarps - 1);
        auto mbar = column(o, p, "mbarrier", n, 0, 1);
        auto id = column(o, p, "id", n, 0, 255);
        auto address = column(o, p, "address", n, 0, kU32);
        auto phase = column(o, p, "phase", n, 0, kU32);
        // "open" came later within version 1: optional (waits the run stopped in).
        std::vector<int64_t> open(n, 0);
        if (o.contains("open")) open = column(o, p, "open", n, 0, 1);
        std::vector<int64_t> at_once(n, 0);  // optional too (waits on a fresh barrier that went on at once)
        if (o.contains("at_once")) at_once = column(o, p, "at_once", n, 0, 1);
        b.barriers.resize(n);
        for (size_t i = 0; i < n; ++i) {
            BarrierWait& w = b.barriers[i];
            w.warp = uint16_t(warp[i]);
            w.arrive = uint64_t(arrive[i]);
            w.release = w.arrive + uint64_t(wait[i]);
            w.loc = uint32_t(loc[i]);
            w.last_warp = uint16_t(last[i]);
            w.mbarrier = mbar[i] != 0;
            w.id = uint8_t(id[i]);
            w.address = uint32_t(address[i]);
            w.phase = uint32_t(phase[i]);
            w.open = open[i] != 0;
            w.at_once = at_once[i] != 0;
        }
    }

    void regs(Block& b, const json& o, const std::string& p, int64_t nwarps) {
        auto warp = column(o, p, "warp", SIZE_MAX, 0, nwarps - 1);
        auto cycle = column(o, p, "cycle", warp.size(), 0, kI64);
        auto regs = column(o, p, "regs", warp.size(), 0, 65535);
        b.regs.resize(warp.size());
        for (size_t i = 0; i < warp.size(); ++i) b.regs[i] = {uint64_t(cycle[i]), uint16_t(warp[i]), uint16_t(regs[i]), {}};
        // "live" was added within version 1: older files load with nothing listed.
        const auto it = o.find("live");
        if (it == o.end()) return;
        const json::array_t& live = as_array(*it, p + ".live");
        if (live.size() != warp.size())
            bad(p + ".live", "has " + std::to_string(live.size()) + " values, expected " + std::to_string(warp.size()) + " (one per row)");
        for (size_t i = 0; i < live.size(); ++i) {
            auto where = [&] { return p + ".live[" + std::to_string(i) + "]"; };  // built only for an error
            const json::array_t& flat = live[i].is_array() ? live[i].get_ref<const json::array_t&>() : as_array(live[i], where());
            if (flat.size() % 2) bad(where(), "has an odd number of values (" + std::to_string(flat.size()) + "); expected [location, registers, ...] pairs");
            auto value = [&](size_t k, int64_t hi) {
                const json& v = flat[k];
                if (v.is_number_unsigned() && v.get<uint64_t>() <= uint64_t(hi)) return int64_t(v.get<uint64_t>());
                return as_int(v, where() + "[" + std::to_string(k) + "]", 0, hi);  // reports the problem
            };
            std::vector<LiveTile>& tiles = b.regs[i].live;
            tiles.reserve(flat.size() / 2);
            for (size_t k = 0; k < flat.size(); k += 2) tiles.push_back({uint32_t(value(k, loc_max())), int(value(k + 1, 65535))});
        }
    }

    void regions(Block& b, const json& o, const std::string& p, int64_t nwarps) {
        auto warp = column(o, p, "warp", SIZE_MAX, 0, nwarps - 1);
        const size_t n = warp.size();
        auto name = column(o, p, "name", n, 0, int64_t(t.op_names.size()) - 1);
        auto begin = column(o, p, "begin", n, 0, kI64);
        auto duration = column(o, p, "duration", n, 0, kI64);
        auto loc = column(o, p, "loc", n, 0, loc_max());
        auto depth = column(o, p, "depth", n, 0, 255);
        auto open = column(o, p, "open", n, 0, 1);
        b.regions.resize(n);
        for (size_t i = 0; i < n; ++i) {
            if (begin[i] > kI64 - duration[i]) bad(p + ".duration[" + std::to_string(i) + "]", "the region ends past the largest cycle");
            Region& g = b.regions[i];
            g.warp = uint16_t(warp[i]);
            g.name = uint16_t(name[i]);
            g.begin = uint64_t(begin[i]);
            g.end = g.begin + uint64_t(duration[i]);
            g.loc = uint32_t(loc[i]);
            g.depth = uint8_t(depth[i]);
            g.open = open[i] != 0;
        }
    }

    void snapshots(Block& b, const json& v, const std::string& p, int64_t nwarps) {
        const json::array_t& a = as_array(v, p);
        for (size_t i = 0; i < a.size(); ++i) {
            const std::string q = p + "[" + std::to_string(i) + "]";
            const json& o = a[i];
            Snapshot s;
            s.cycle = as_uint(field(o, q, "cycle"), q + ".cycle");
            s.warp = uint16_t(as_int(field(o, q, "warp"), q + ".warp", 0, nwarps - 1));
            s.loc = uint32_t(as_int(field(o, q, "loc"), q + ".loc", 0, loc_max()));
            s.label = as_string(field(o, q, "label"), q + ".label");
            s.space = as_string(field(o, q, "space"), q + ".space");
            if (s.space != "register" && s.space != "shared") bad(q + ".space", "expected \"register\" or \"shared\"");
            s.rows = int(as_int(field(o, q, "rows"), q + ".rows", 0, 1 << 16));
            s.cols = int(as_int(field(o, q, "cols"), q + ".cols", 0, 1 << 16));
            const json::array_t& vals = as_array(field(o, q, "values"), q + ".values");
            if (vals.size() != size_t(s.rows) * size_t(s.cols))
                bad(q + ".values", "has " + std::to_string(vals.size()) + " values for a " + std::to_string(s.rows) + "x" + std::to_string(s.cols) + " tile");
            s.values.reserve(vals.size());
            for (size_t k = 0; k < vals.size(); ++k) s.values.push_back(as_float(vals[k], q + ".values[" + std::to_string(k) + "]"));
            b.snapshots.push_back(std::move(s));
        }
    }

    SmemTotals totals(const json& v, const std::string& p) {
        SmemTotals s;
        s.instructions = as_uint(field(v, p, "instructions"), p + ".instructions");
        s.wavefronts = as_uint(field(v, p, "wavefronts"), p + ".wavefronts");
        s.ideal = as_uint(field(v, p, "ideal"), p + ".ideal");
        s.max_way = int(as_int(field(v, p, "max_way"), p + ".max_way", 0, 255));
        return s;
    }

    void summary(const json& r, const std::string& p) {
        Launch& l = current(r, p);
        if (l.summary) bad(p, "a second summary for launch " + std::to_string(t.launches.size() - 1));
        Summary s;
        auto u = [&](const char* k) { return as_uint(field(r, p, k), p + "." + k); };
        l.wall_seconds = as_number(field(r, p, "wall_seconds"), p + ".wall_seconds");
        s.blocks = u("blocks");
        s.warp_instructions = u("warp_instructions");
        s.warp_cycles = u("warp_cycles");
        s.ld_shared = totals(field(r, p, "ld_shared"), p + ".ld_shared");
        s.st_shared = totals(field(r, p, "st_shared"), p + ".st_shared");
        s.ldmatrix = totals(field(r, p, "ldmatrix"), p + ".ldmatrix");
        s.stmatrix = totals(field(r, p, "stmatrix"), p + ".stmatrix");
        // "atom_shared" came later within version 1: written only when a run has shared atomics.
        if (r.contains("atom_shared")) s.atom_shared = totals(field(r, p, "atom_shared"), p + ".atom_shared");
        s.by_op = uint_list<uint64_t>(field(r, p, "by_op"), p + ".by_op", UINT64_MAX);
        if (s.by_op.size() != t.ops.size()) bad(p + ".by_op", "expected one count per instruction kind (" + std::to_string(t.ops.size()) + ")");
        s.stall_cycles = uint_list<uint64_t>(field(r, p, "stall_cycles"), p + ".stall_cycles", UINT64_MAX);
        if (s.stall_cycles.size() != t.stalls.size()) bad(p + ".stall_cycles", "expected one count per stall reason (" + std::to_string(t.stalls.size()) + ")");
        s.barrier_wait_cycles = u("barrier_wait_cycles");
        s.max_block_cycles = u("max_block_cycles");
        s.sum_block_cycles = u("sum_block_cycles");
        s.est_kernel_cycles = u("est_kernel_cycles");
        // The kernel time's parts came later within version 1: optional.
        for (auto [k, v] : {std::pair{"wave_cycles", &s.wave_cycles}, {"store_ack_cycles", &s.store_ack_cycles}, {"global_bytes", &s.global_bytes}, {"dram_bytes", &s.dram_bytes},
                            {"l1_hit_bytes", &s.l1_hit_bytes}, {"global_write_bytes", &s.global_write_bytes},
                            {"l2_cycles", &s.l2_cycles}, {"dram_cycles", &s.dram_cycles},
                            {"launch_overhead_cycles", &s.launch_overhead_cycles}, {"overhead_instructions", &s.overhead_instructions}})
            if (r.contains(k)) *v = u(k);
        if (r.contains("blocks_together"))
            s.blocks_together = int(as_int(field(r, p, "blocks_together"), p + ".blocks_together", 0, 1 << 20));
        if (r.contains("clock_mhz")) {
            s.clock_mhz = as_number(field(r, p, "clock_mhz"), p + ".clock_mhz");
            if (!(s.clock_mhz >= 0)) bad(p + ".clock_mhz", "expected a clock in MHz, 0 or more");
        }
        if (r.contains("time_limit")) s.time_limit = as_string(field(r, p, "time_limit"), p + ".time_limit");
        if (r.contains("allowed_uninit_reads")) s.allowed_uninit_reads = u("allowed_uninit_reads");
        if (r.contains("allowed_uninit_loc"))
            s.allowed_uninit_loc = uint32_t(as_int(field(r, p, "allowed_uninit_loc"), p + ".allowed_uninit_loc", 0, loc_max()));
        s.blocks_per_sm = int(as_int(field(r, p, "blocks_per_sm"), p + ".blocks_per_sm", 0, 1 << 20));
        s.occupancy_limit = as_string(field(r, p, "occupancy_limit"), p + ".occupancy_limit");
        s.peak_regs = int(as_int(field(r, p, "peak_regs"), p + ".peak_regs", 0, 1 << 20));
        s.peak_regs_loc = uint32_t(as_int(field(r, p, "peak_regs_loc"), p + ".peak_regs_loc", 0, loc_max()));
        if (r.contains("estimated_registers"))
            s.estimated_registers = int(as_int(field(r, p, "estimated_registers"), p + ".estimated_registers", 0, 1 << 20));
        if (r.contains("peak_loaded_regs"))
            s.peak_loaded_regs = int(as_int(field(r, p, "peak_loaded_regs"), p + ".peak_loaded_regs", 0, 1 << 20));
        if (r.contains("loop_addresses"))
            s.loop_addresses = int(as_int(field(r, p, "loop_addresses"), p + ".loop_addresses", 0, 1 << 20));
        if (r.contains("run_addresses"))
            s.run_addresses = int(as_int(field(r, p, "run_addresses"), p + ".run_addresses", 0, 1 << 20));
        if (r.contains("peak_from_shared_regs"))
            s.peak_from_shared_regs = int(as_int(field(r, p, "peak_from_shared_regs"), p + ".peak_from_shared_regs", 0, 1 << 20));
        if (r.contains("compiler")) {
            const std::string q = p + ".compiler";
            const json& c = field(r, p, "compiler");
            CompilerFigures f;
            f.tool = as_string(field(c, q, "tool"), q + ".tool");
            f.arch = as_string(field(c, q, "arch"), q + ".arch");
            if (c.contains("entry")) f.entry = as_string(field(c, q, "entry"), q + ".entry");
            f.registers = int(as_int(field(c, q, "registers"), q + ".registers", 0, 1 << 16));
            f.stack_bytes = as_uint(field(c, q, "stack_bytes"), q + ".stack_bytes");
            f.spill_store_bytes = as_uint(field(c, q, "spill_store_bytes"), q + ".spill_store_bytes");
            f.spill_load_bytes = as_uint(field(c, q, "spill_load_bytes"), q + ".spill_load_bytes");
            f.static_shared_bytes = as_uint(field(c, q, "static_shared_bytes"), q + ".static_shared_bytes");
            s.compiler = f;
        }
        const json::array_t& live = as_array(field(r, p, "peak_live"), p + ".peak_live");
        for (size_t i = 0; i < live.size(); ++i) {
            const std::string q = p + ".peak_live[" + std::to_string(i) + "]";
            const json::array_t& pair = as_array(live[i], q);
            if (pair.size() != 2) bad(q, "expected [location, registers]");
            s.peak_live.push_back({uint32_t(as_int(pair[0], q + "[0]", 0, loc_max())), int(as_int(pair[1], q + "[1]", 0, 1 << 20))});
        }
        const json::array_t& sites = as_array(field(r, p, "smem_sites"), p + ".smem_sites");
        for (size_t i = 0; i < sites.size(); ++i) {
            const std::string q = p + ".smem_sites[" + std::to_string(i) + "]";
            const json& o = sites[i];
            SmemSite x;
            x.loc = uint32_t(as_int(field(o, q, "loc"), q + ".loc", 0, loc_max()));
            x.op = uint8_t(as_int(field(o, q, "op"), q + ".op", 0, int64_t(t.ops.size()) - 1));
            x.count = as_uint(field(o, q, "count"), q + ".count");
            x.wavefronts = as_uint(field(o, q, "wavefronts"), q + ".wavefronts");
            x.ideal = as_uint(field(o, q, "ideal"), q + ".ideal");
            if (x.ideal > x.wavefronts) bad(q, "ideal wavefronts exceed the wavefronts");
            x.max_way = uint8_t(as_int(field(o, q, "max_way"), q + ".max_way", 0, 255));
            auto words = uint_list<uint64_t>(field(o, q, "bank_words"), q + ".bank_words", UINT64_MAX);
            if (words.size() != 32) bad(q + ".bank_words", "expected 32 banks, found " + std::to_string(words.size()));
            std::copy(words.begin(), words.end(), x.bank_words.begin());
            x.worst_aux = uint8_t(as_int(field(o, q, "worst_aux"), q + ".worst_aux", 0, 255));
            x.worst_mask = uint32_t(as_int(field(o, q, "worst_mask"), q + ".worst_mask", 0, kU32));
            x.worst_lanes = uint_list<uint32_t>(field(o, q, "worst_lanes"), q + ".worst_lanes", kU32);
            if (!x.worst_lanes.empty() && x.worst_lanes.size() != 32) bad(q + ".worst_lanes", "expected 32 addresses or none");
            s.smem_sites.push_back(std::move(x));
        }
        const json::array_t& bars = as_array(field(r, p, "barrier_sites"), p + ".barrier_sites");
        for (size_t i = 0; i < bars.size(); ++i) {
            const std::string q = p + ".barrier_sites[" + std::to_string(i) + "]";
            const json& o = bars[i];
            BarrierSite x;
            x.loc = uint32_t(as_int(field(o, q, "loc"), q + ".loc", 0, loc_max()));
            x.mbarrier = as_bool(field(o, q, "mbarrier"), q + ".mbarrier");
            x.id = uint8_t(as_int(field(o, q, "id"), q + ".id", 0, 255));
            const json::array_t& ws = as_array(field(o, q, "warps"), q + ".warps");
            for (size_t w = 0; w < ws.size(); ++w) {
                auto v = uint_list<uint64_t>(ws[w], q + ".warps[" + std::to_string(w) + "]", UINT64_MAX);
                if (v.size() != 4) bad(q + ".warps[" + std::to_string(w) + "]", "expected [waits, total, longest, arrived_last]");
                x.warps.push_back({v[0], v[1], v[2], v[3]});
            }
            s.barrier_sites.push_back(std::move(x));
        }
        const json::array_t& ls = as_array(field(r, p, "line_stalls"), p + ".line_stalls");
        for (size_t i = 0; i < ls.size(); ++i) {
            const std::string q = p + ".line_stalls[" + std::to_string(i) + "]";
            LineStalls x;
            x.loc = uint32_t(as_int(field(ls[i], q, "loc"), q + ".loc", 0, loc_max()));
            x.instructions = as_uint(field(ls[i], q, "instructions"), q + ".instructions");
            x.cycles = uint_list<uint64_t>(field(ls[i], q, "cycles"), q + ".cycles", UINT64_MAX);
            if (x.cycles.size() != t.stalls.size()) bad(q + ".cycles", "expected one count per stall reason (" + std::to_string(t.stalls.size()) + ")");
            s.line_stalls.push_back(std::move(x));
        }
        l.summary = std::move(s);
    }

    Failure failure_of(const json& r, const std::string& p) {
        Failure f;
        f.kind = as_string(field(r, p, "kind"), p + ".kind");
        f.message = as_string(field(r, p, "message"), p + ".message");
        f.loc = uint32_t(as_int(field(r, p, "loc"), p + ".loc", 0, loc_max()));
        f.block = as_int(field(r, p, "block"), p + ".block", -1, kI64);
        return f;
    }

    void failure(const json& r, const std::string& p) {
        const int64_t li = as_int(field(r, p, "launch"), p + ".launch", -1, int64_t(t.launches.size()) - 1);
        Failure f = failure_of(r, p);
        if (li < 0) t.failure = std::move(f);
        else t.launches[size_t(li)].failure = std::move(f);
    }

    void check(const json& r, const std::string& p) {
        Check c;
        c.output = as_string(field(r, p, "output"), p + ".output");
        c.variant = as_string(field(r, p, "variant"), p + ".variant");
        c.max_error = as_number(field(r, p, "max_error"), p + ".max_error");
        c.tolerance = as_number(field(r, p, "tolerance"), p + ".tolerance");
        c.passed = as_bool(field(r, p, "passed"), p + ".passed");
        t.checks.push_back(std::move(c));
    }
};

// ---------------------------------------------------------------- SAX: one record at a time

// Builds one JSON value from SAX events.
class Builder {
public:
    json root;
    bool done() const { return stack_.empty(); }
    void reset() { root = json(); stack_.clear(); slot_ = nullptr; }
    json* add(json&& v) {
        if (stack_.empty()) { root = std::move(v); return &root; }
        json* top = stack_.back();
        if (top->is_array()) {
            auto& a = top->get_ref<json::array_t&>();
            a.emplace_back(std::move(v));
            return &a.back();
        }
        *slot_ = std::move(v);
        return slot_;
    }
    void open(json&& container) { stack_.push_back(add(std::move(container))); }
    void key(const std::string& k) { slot_ = &(*stack_.back())[k]; }
    void close() { stack_.pop_back(); }
    size_t depth() const { return stack_.size(); }

private:
    std::vector<json*> stack_;
    json* slot_ = nullptr;
};

// The document is {"format", "version", "header", "records": [...]}: the top
// keys are built whole; each element of "records" is built, handed to the
// Loader and dropped, so memory stays at one record.
class Sax : public nlohmann::json_sax<json> {
public:
    explicit Sax(Loader& l) : loader_(l) {}
    static constexpr size_t kMaxDepth = 64;

    json format, version, header, deferred;
    bool in_records = false, records_closed = false;
    uint64_t error_pos = 0;
    std::string error_msg;
    bool saw_top = false;

    bool null() override { return scalar(nullptr); }
    bool boolean(bool v) override { return scalar(v); }
    bool number_integer(number_integer_t v) override { return scalar(v); }
    bool number_unsigned(number_unsigned_t v) override { return scalar(v); }
    bool number_float(number_float_t v, const string_t&) override { return scalar(v); }
    bool string(string_t& v) override { return scalar(std::move(v)); }
    bool binary(binary_t&) override { throw TraceError("unexpected binary data (byte strings are not part of a tklab trace)"); }

    bool start_object(std::size_t) override { return open(json::object()); }
    bool start_array(std::size_t) override {
        // Records stream when the header came first (as tklab writes it); a
        // document whose keys were re-sorted by another tool is read whole.
        if (depth_ == 1 && key_ == "records" && build_.done() && !format.is_null() && !version.is_null() && !header.is_null()) {
            if (in_records || records_closed) throw TraceError("top level: two \"records\" arrays");
            loader_.top(format, version, header);
            in_records = true;
            ++depth_;
            return true;
        }
        return open(json::array());
    }
    bool key(string_t& k) override {
        if (depth_ == 1 && build_.done()) key_ = k;
        else build_.key(k);
        return true;
    }
    bool end_object() override { return close(); }
    bool end_array() override {
        if (in_records && depth_ == 2 && build_.done()) {
            in_records = false;
            records_closed = true;
            --depth_;
            return true;
        }
        return close();
    }
    bool parse_error(std::size_t pos, const std::string&, const nlohmann::detail::exception& ex) override {
        error_pos = pos;
        error_msg = ex.what();
        return false;
    }

private:
    bool open(json&& c) {
        if (depth_ == 0) {
            if (!c.is_object()) throw TraceError("byte 0: not a tklab trace (the document is not an object)");
            saw_top = true;
            ++depth_;
            return true;
        }
        if (depth_ >= kMaxDepth) throw TraceError("nesting deeper than " + std::to_string(kMaxDepth) + " levels: not a tklab trace");
        build_.open(std::move(c));
        ++depth_;
        return true;
    }
    bool close() {
        --depth_;
        if (depth_ == 0) return true;  // the top object
        build_.close();
        if (build_.done()) finished();
        return true;
    }
    bool scalar(json&& v) {
        if (depth_ == 0) throw TraceError("byte 0: not a tklab trace (the document is a single " + std::string(v.type_name()) + ")");
        build_.add(std::move(v));
        if (build_.done()) finished();
        return true;
    }
    // A whole value at depth 1 (a top key) or 2 (a record).
    void finished() {
        if (in_records) loader_.record(build_.root);
        else if (key_ == "format") format = std::move(build_.root);
        else if (key_ == "version") version = std::move(build_.root);
        else if (key_ == "header") header = std::move(build_.root);
        else if (key_ == "records") deferred = std::move(build_.root);
        build_.reset();
    }

    Loader& loader_;
    Builder build_;
    size_t depth_ = 0;
    std::string key_;
};

} // namespace

namespace {

// Parses `input` (a string's bytes or a file's stream) of `size` bytes.
template <typename Parse>
Loaded load_input(Parse&& parse, uint64_t size, Encoding enc, const std::string& name, const LoadOptions& opt) {
    if (size == 0) throw TraceError(name + ": empty file (0 bytes): not a trace");
    Loader loader;
    loader.keep_timelines = opt.timelines;
    Sax sax(loader);
    bool ok = false;
    try {
        ok = parse(sax);
    } catch (const TraceError& e) {
        throw TraceError(name + ": " + e.what());
    } catch (const std::exception& e) {  // nlohmann's own, e.g. an invalid UTF-8 string
        throw TraceError(name + ": unreadable: " + e.what());
    }
    Loaded out;
    if (!ok) {
        const bool at_end = sax.error_pos + 1 >= size;
        std::ostringstream m;
        // nlohmann counts the end of input as one more byte read.
        m << name << ": " << (at_end ? "ends early" : "damaged") << " at byte " << std::min<uint64_t>(sax.error_pos, size);
        if (size != UINT64_MAX) m << " of " << size;  // unknown for a stream that is not a regular file
        if (sax.records_closed) {
            // Every record arrived; only the document's closing is missing or damaged.
            m << ", after all " << loader.records << " records (what should close the document after them is missing or damaged)";
            if (!opt.salvage) {
                m << ". `tklab report --salvage` reads the records.\n  (" << sax.error_msg << ")";
                throw TraceError(m.str());
            }
            out.warning = m.str() + "; kept them";
        } else if (!sax.in_records) {
            m << " (before any record; " << (enc == Encoding::json ? "not JSON or" : "not CBOR or") << " not a tklab trace): " << sax.error_msg;
            throw TraceError(m.str());
        } else {
            m << ", after " << loader.records << " complete records";
            if (!opt.salvage) {
                m << " -- the run that wrote it probably stopped early. `tklab report --salvage` reads the complete records.\n  ("
                  << sax.error_msg << ")";
                throw TraceError(m.str());
            }
            out.warning = m.str() + "; kept them";
        }
    } else {
        if (!sax.saw_top) throw TraceError(name + ": not a tklab trace");
        if (!sax.records_closed && sax.deferred.is_array()) {
            try {
                loader.top(sax.format, sax.version, sax.header);
                for (const json& r : sax.deferred) loader.record(r);
            } catch (const TraceError& e) {
                throw TraceError(name + ": " + e.what());
            }
        } else if (!sax.records_closed) {
            try { loader.top(sax.format, sax.version, sax.header); } catch (const TraceError& e) { throw TraceError(name + ": " + e.what()); }
            throw TraceError(name + ": top level: missing field \"records\"");
        }
        if (!loader.ended) {
            if (!opt.salvage) throw TraceError(name + ": records[" + std::to_string(loader.records) + "]: the end record is missing (the writer did not finish)");
            out.warning = name + ": the end record is missing; kept " + std::to_string(loader.records) + " records";
        }
    }
    out.trace = std::move(loader.t);
    out.trace.complete = loader.ended && ok;
    return out;
}

} // namespace

Loaded load_trace_bytes(const std::string& bytes, Encoding enc, const std::string& name, const LoadOptions& opt) {
    return load_input(
        [&](auto& sax) {
            return enc == Encoding::json ? json::sax_parse(bytes, &sax, json::input_format_t::json, true)
                                         : json::sax_parse(bytes.begin(), bytes.end(), &sax, json::input_format_t::cbor, true);
        },
        bytes.size(), enc, name, opt);
}

Loaded load_trace(const std::string& path, const LoadOptions& opt) {
    const Encoding enc = encoding_of(path);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw TraceError(path + ": cannot open (" + std::strerror(errno) + ")");
    // Its size, for messages; a stream that is not a regular file (a pipe, a
    // device) is read to its end or to the first byte that is not a trace.
    std::error_code ec;
    const uint64_t file_size = std::filesystem::is_regular_file(path, ec) ? std::filesystem::file_size(path, ec) : UINT64_MAX;
    return load_input(
        [&](auto& sax) {
            return json::sax_parse(in, &sax, enc == Encoding::json ? json::input_format_t::json : json::input_format_t::cbor, true);
        },
        ec ? UINT64_MAX : file_size, enc, path, opt);
}

} // namespace tklab::trace
