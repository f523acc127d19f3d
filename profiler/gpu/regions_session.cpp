// Recording tk::region markers on the GPU (see regions_session.h).
#include "profiler/gpu/regions_session.h"

#include <algorithm>
#include <stdexcept>
#include <cuda_runtime.h>

namespace tklab::profiler {

namespace {

void check(cudaError_t e, const std::string& what) {
    if (e != cudaSuccess) throw std::runtime_error("region recording: " + what + ": " + cudaGetErrorString(e));
}

} // namespace

GpuDevice current_gpu_device() {
    GpuDevice d;
    check(cudaGetDevice(&d.ordinal), "no CUDA device to record on (cudaGetDevice)");
    cudaDeviceProp p{};
    check(cudaGetDeviceProperties(&p, d.ordinal), "cudaGetDeviceProperties");
    d.name = p.name;
    d.cc_major = p.major, d.cc_minor = p.minor;
    d.sms = p.multiProcessorCount;
    int khz = 0;
    check(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, d.ordinal), "the SM clock rate (cudaDevAttrClockRate)");
    d.sm_clock_mhz = khz / 1000.0;
    return d;
}

RegionSession::RegionSession(RegionSessionOptions opt) : opt_(opt) {
    if (opt_.records_per_warp == 0) throw std::invalid_argument("region recording: records per warp must be at least 1");
}

RegionSession::~RegionSession() {
    try {
        stop();
    } catch (...) {  // a destructor must not throw; what was captured stays captured
    }
    if (device_) cudaFree(device_);
}

void RegionSession::start() {
    regions::Target*& cur = regions::current_target();
    if (cur && cur != this) throw std::logic_error("region recording: another session is already current; stop it first");
    cur = this;
    current_ = true;
}

void RegionSession::stop() {
    if (current_ && regions::current_target() == this) regions::current_target() = nullptr;
    current_ = false;
    copy_back();
    if (skipped_ > 0)
        note(std::to_string(skipped_) + " launches after the first " + std::to_string(opt_.max_launches) + " ran unrecorded");
    skipped_ = 0;
}

void RegionSession::note(const std::string& s) { notes_ += (notes_.empty() ? "" : "; ") + s; }

void RegionSession::copy_back() {
    if (pending_ == 0) return;
    RegionCapture c;
    c.kernel = pending_kernel_;
    c.bytes.resize(pending_);
    pending_ = 0;
    // cudaMemcpy waits for the launch (tk::launch has synchronized already).
    check(cudaMemcpy(c.bytes.data(), device_, c.bytes.size(), cudaMemcpyDeviceToHost), "copying the buffer of " + c.kernel + " back");
    captures_.push_back(std::move(c));
}

regions::DeviceView RegionSession::prepare(const char* kernel, const uint32_t grid[3], const uint32_t block[3]) {
    copy_back();  // the previous launch's buffer, before its memory is reused
    if (captures_.size() >= opt_.max_launches) {
        ++skipped_;
        return {};
    }
    const uint64_t threads = uint64_t(block[0]) * block[1] * block[2];
    const uint32_t wpb = uint32_t((threads + 31) / 32);
    const uint64_t launch_warps = uint64_t(grid[0]) * grid[1] * grid[2] * wpb;
    const uint32_t warps = opt_.warps ? uint32_t(std::min<uint64_t>(opt_.warps, launch_warps))
                                      : uint32_t(std::min<uint64_t>(launch_warps, UINT32_MAX));
    uint32_t rpw = opt_.records_per_warp;
    if (regions::buffer_bytes(warps, rpw) > opt_.max_bytes) {
        const uint64_t room = opt_.max_bytes > regions::records_offset(warps) ? opt_.max_bytes - regions::records_offset(warps) : 0;
        const uint64_t fit = room / (uint64_t(warps) * sizeof(regions::Record));
        if (fit == 0) {
            note(std::string(kernel) + " ran unrecorded: its " + std::to_string(warps) + " warps need more than " +
                 std::to_string(opt_.max_bytes) + " bytes even at one record each");
            return {};
        }
        note(std::string(kernel) + ": records per warp lowered from " + std::to_string(rpw) + " to " + std::to_string(fit) +
             " to stay within " + std::to_string(opt_.max_bytes >> 20) + " MiB");
        rpw = uint32_t(fit);
    }
    const size_t bytes = regions::buffer_bytes(warps, rpw);
    if (bytes > capacity_) {
        if (device_) check(cudaFree(device_), "freeing the previous buffer");
        device_ = nullptr, capacity_ = 0;
        check(cudaMalloc(&device_, bytes), "allocating " + std::to_string(bytes) + " bytes for " + kernel +
                                               " (fewer records per warp need less)");
        capacity_ = bytes;
    }
    regions::Header h;
    h.warps = warps;
    h.records_per_warp = rpw;
    h.warps_per_block = wpb;
    for (int i = 0; i < 3; ++i) h.grid[i] = grid[i], h.block[i] = block[i];
    auto* base = static_cast<unsigned char*>(device_);
    check(cudaMemcpy(base, &h, sizeof h, cudaMemcpyHostToDevice), "writing the buffer's header");
    // Counts and records zeroed: a region that began but never ended reads as unfinished.
    check(cudaMemset(base + regions::kCountsOffset, 0, bytes - regions::kCountsOffset), "zeroing the buffer");
    pending_ = bytes;
    pending_kernel_ = kernel;
    regions::DeviceView v;
    v.records = reinterpret_cast<regions::Record*>(base + regions::records_offset(warps));
    v.counts = reinterpret_cast<uint32_t*>(base + regions::kCountsOffset);
    v.lost = reinterpret_cast<uint32_t*>(base + offsetof(regions::Header, lost));
    v.warps = warps;
    v.records_per_warp = rpw;
    return v;
}

std::vector<RegionStats> RegionSession::decode_into(trace::Trace& t, const RegionNames& names, double sm_clock_mhz,
                                                    uint32_t source_file) const {
    std::vector<RegionStats> out;
    for (const RegionCapture& c : captures_) {
        RegionDecodeOptions opt;
        opt.kernel = c.kernel;
        opt.sm_clock_mhz = sm_clock_mhz;
        opt.source_file = source_file;
        out.push_back(add_region_launch(t, c.bytes.data(), c.bytes.size(), names, opt));
    }
    return out;
}

RegionRun record_regions(trace::Trace& t, const std::function<void()>& run, const RegionNames& names,
                         const RegionSessionOptions& opt, double sm_clock_mhz, uint32_t source_file) {
    if (sm_clock_mhz <= 0 && t.arch.is_object()) {
        const char* key = t.arch.contains("peak_clock_mhz") ? "peak_clock_mhz" : "clock_mhz";
        if (t.arch.contains(key) && t.arch[key].is_number()) sm_clock_mhz = t.arch[key].get<double>();
    }
    RegionSession s(opt);
    s.start();
    try {
        run();
    } catch (...) {
        s.stop();
        throw;
    }
    s.stop();
    RegionRun r;
    r.launches = s.decode_into(t, names, sm_clock_mhz, source_file);
    std::string w = s.notes();
    auto add = [&](const std::string& x) { if (!x.empty()) w += (w.empty() ? "" : "; ") + x; };
    uint64_t total = 0;
    for (size_t i = 0; i < r.launches.size(); ++i) {
        total += r.launches[i].regions;
        const std::string lw = r.launches[i].warning();
        if (!lw.empty()) add(s.captures()[i].kernel + ": " + lw);
    }
    if (s.captures().empty())
        add("no launch was recorded: kernels record regions only when launched through tk::launch (TK_LAUNCH)");
    else if (total == 0)
        add("no regions were recorded: the kernels have no tk::region markers, or a kernel template is also instantiated "
            "in another translation unit whose copy ran (launch it from one file)");
    r.warning = w;
    return r;
}

} // namespace tklab::profiler
