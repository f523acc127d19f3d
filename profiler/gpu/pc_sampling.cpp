// Stall sampling through CUPTI's PC Sampling API (see pc_sampling.h): the
// CUPTI calls, the cubins kept for source lines, and CUPTI's records copied
// into RawPcSamples for profiler/decode/stall_samples.h to sum.
#include "profiler/gpu/pc_sampling.h"
#include "profiler/gpu/cupti_callbacks.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <cupti_pcsampling.h>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include "profiler/decode/inline_lines.h"
#include "profiler/decode/kernel_record.h"
#include <cstdio>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace tklab::profiler {

namespace {

// The CUPTI functions stall sampling calls, resolved once from the loaded library.
struct Api {
    decltype(&cuptiPCSamplingEnable) enable;
    decltype(&cuptiPCSamplingDisable) disable;
    decltype(&cuptiPCSamplingStart) start;
    decltype(&cuptiPCSamplingStop) stop;
    decltype(&cuptiPCSamplingGetData) get_data;
    decltype(&cuptiPCSamplingGetNumStallReasons) num_stall_reasons;
    decltype(&cuptiPCSamplingGetStallReasons) stall_reasons;
    decltype(&cuptiPCSamplingSetConfigurationAttribute) configure;
    decltype(&cuptiGetSassToSourceCorrelation) sass_to_source;
    decltype(&cuptiGetCubinCrc) cubin_crc;
};

const Api& api() {
    // A failure (no libcupti) throws out of the initialiser, so the next call tries again and says it again.
    static const Api a = [] {
        const CuptiLibrary& l = CuptiLibrary::get();
        Api x;
        x.enable = l.function<decltype(x.enable)>("cuptiPCSamplingEnable");
        x.disable = l.function<decltype(x.disable)>("cuptiPCSamplingDisable");
        x.start = l.function<decltype(x.start)>("cuptiPCSamplingStart");
        x.stop = l.function<decltype(x.stop)>("cuptiPCSamplingStop");
        x.get_data = l.function<decltype(x.get_data)>("cuptiPCSamplingGetData");
        x.num_stall_reasons = l.function<decltype(x.num_stall_reasons)>("cuptiPCSamplingGetNumStallReasons");
        x.stall_reasons = l.function<decltype(x.stall_reasons)>("cuptiPCSamplingGetStallReasons");
        x.configure = l.function<decltype(x.configure)>("cuptiPCSamplingSetConfigurationAttribute");
        x.sass_to_source = l.function<decltype(x.sass_to_source)>("cuptiGetSassToSourceCorrelation");
        x.cubin_crc = l.function<decltype(x.cubin_crc)>("cuptiGetCubinCrc");
        return x;
    }();
    return a;
}

CuptiError fail(CUptiResult r, const std::string& call, const std::string& detail = "") {
    const char* name = nullptr;
    try {
        const CuptiLibrary& l = CuptiLibrary::get();
        if (l.getResultString(r, &name) != CUPTI_SUCCESS) name = nullptr;
    } catch (const CuptiError&) {}
    CuptiError e("CUPTI: stall sampling: " + call + " failed: " + (name ? name : "error " + std::to_string(int(r))) +
                 (detail.empty() ? "" : " (" + detail + ")") + ". " + pc_sampling_fix(r));
    e.result = r;
    return e;
}

// ---- the cubins of loaded modules, for the whole process ----

struct Modules {
    std::mutex m;
    bool subscribed = false;
    std::map<uint64_t, std::string> cubins;  // CUPTI's CRC -> the cubin's bytes
    std::vector<std::string> problems;       // cubins that could not be kept
};
Modules& modules() {
    static Modules* x = new Modules;  // never destroyed: CUPTI may call back while the process exits
    return *x;
}

// CUPTI's callback: nothing may throw out of it.
void CUPTIAPI on_cupti_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
    if (domain != CUPTI_CB_DOMAIN_RESOURCE || cbid != CUPTI_CBID_RESOURCE_MODULE_LOADED || !data) return;
    const auto* module = static_cast<const CUpti_ModuleResourceData*>(static_cast<const CUpti_ResourceData*>(data)->resourceDescriptor);
    if (!module || !module->pCubin || module->cubinSize == 0) return;
    Modules& m = modules();
    try {
        std::string bytes(module->pCubin, module->cubinSize);  // valid only during the callback
        CUpti_GetCubinCrcParams p{};
        p.size = CUpti_GetCubinCrcParamsSize;
        p.cubin = bytes.data();
        p.cubinSize = bytes.size();
        const CUptiResult r = api().cubin_crc(&p);
        std::lock_guard<std::mutex> lock(m.m);
        if (r == CUPTI_SUCCESS) m.cubins[p.cubinCrc] = std::move(bytes);
        else m.problems.push_back("cuptiGetCubinCrc failed (" + std::to_string(int(r)) + ") for module " + std::to_string(module->moduleId));
    } catch (...) {
        try {
            std::lock_guard<std::mutex> lock(m.m);
            m.problems.push_back("a module's cubin could not be kept (out of memory)");
        } catch (...) {}
    }
}

// ---- the context and CUPTI's buffers ----

// The calling thread's context; cudaFree(0) makes the device's primary
// context current when none is. Through the runtime's driver entry point, so
// tklab_gpu needs no link to libcuda.
CUcontext current_context() {
    if (const cudaError_t e = cudaFree(nullptr); e != cudaSuccess)
        throw CuptiError(std::string("CUPTI: stall sampling: CUDA could not start on this GPU (cudaFree(0): ") +
                         cudaGetErrorString(e) + "). Check nvidia-smi and the driver.");
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    const cudaError_t e = cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &found);
    CUcontext ctx = nullptr;
    if (e != cudaSuccess || found != cudaDriverEntryPointSuccess || !fn ||
        reinterpret_cast<CUresult (*)(CUcontext*)>(fn)(&ctx) != CUDA_SUCCESS || !ctx)
        throw CuptiError("CUPTI: stall sampling: no current CUDA context to sample (cuCtxGetCurrent through "
                         "cudaGetDriverEntryPointByVersion). Fix: run a CUDA call on this thread first, or report it (a tklab bug).");
    return ctx;
}

// A CUpti_PCSamplingData with room for `n` instructions of `reasons` reasons each.
struct PcBuffer {
    CUpti_PCSamplingData data{};
    std::vector<CUpti_PCSamplingPCData> pcs;
    std::vector<CUpti_PCSamplingStallReason> reasons;
    PcBuffer(size_t n, size_t per_pc) : pcs(n), reasons(n * per_pc) {
        for (size_t i = 0; i < n; ++i) {
            pcs[i] = {};
            pcs[i].size = sizeof(CUpti_PCSamplingPCData);
            pcs[i].stallReason = reasons.data() + i * per_pc;
        }
        data.size = sizeof(CUpti_PCSamplingData);
        data.collectNumPcs = n;
        data.pPcData = pcs.data();
    }
    PcBuffer(const PcBuffer&) = delete;  // CUPTI holds pointers into it
};

struct Totals {
    // Per range (one per session: start/stop control), the largest counts seen:
    // a range read in several GetData calls reports its totals with each.
    std::map<uint64_t, uint64_t> total, dropped, non_user;
    bool hardware_buffer_full = false;
    static uint64_t sum(const std::map<uint64_t, uint64_t>& m) {
        uint64_t s = 0;
        for (const auto& [range, n] : m) s += n;
        return s;
    }
};

// Copies a buffer's records out (CUPTI owns the function names; they are
// copied, never freed: CUPTI may share them with other records).
void take(const CUpti_PCSamplingData& d, const std::map<uint32_t, std::string>& reason_names,
          std::vector<RawPcSample>& out, Totals& t) {
    const size_t n = std::min(d.totalNumPcs, d.collectNumPcs);
    for (size_t i = 0; i < n; ++i) {
        const CUpti_PCSamplingPCData& pc = d.pPcData[i];
        RawPcSample s;
        s.cubin_crc = pc.cubinCrc;
        s.pc_offset = pc.pcOffset;
        s.function = pc.functionName ? pc.functionName : "";
        for (size_t j = 0; j < pc.stallReasonCount; ++j) {
            const CUpti_PCSamplingStallReason& r = pc.stallReason[j];
            const auto name = reason_names.find(r.pcSamplingStallReasonIndex);
            s.reasons.push_back({name != reason_names.end() ? name->second
                                                             : "unknown_reason_" + std::to_string(r.pcSamplingStallReasonIndex),
                                 r.samples});
        }
        out.push_back(std::move(s));
    }
    auto keep_max = [&](std::map<uint64_t, uint64_t>& m, uint64_t v) { m[d.rangeId] = std::max(m[d.rangeId], v); };
    keep_max(t.total, d.totalSamples);
    keep_max(t.dropped, d.droppedSamples);
    keep_max(t.non_user, d.nonUsrKernelsTotalSamples);
    t.hardware_buffer_full = t.hardware_buffer_full || d.hardwareBufferFull;
}

// What kept each kernel from having lines, for the notes.
struct LineCoverage {
    std::set<std::string> without_cubin;  // functions sampled in a module loaded before watch_modules()
    std::set<std::string> with_lines;     // functions with at least one line
};

std::string join_path(const char* dir, const char* file) {
    const std::string f = file ? file : "";
    if (f.empty() || f[0] == '/' || !dir || !*dir) return f;
    std::string d = dir;
    if (d.back() != '/') d += '/';
    return d + f;
}

// The project root, to which stall lines are made relative (empty: keep them absolute).
#if defined(TKLAB_SOURCE_DIR)
const std::string kProjectRoot = TKLAB_SOURCE_DIR;
#else
const std::string kProjectRoot;
#endif

// nvdisasm from the CUDA toolkit: $CUDA_HOME/bin, /usr/local/cuda/bin, then PATH; "" when none.
std::string find_nvdisasm() {
    std::vector<std::string> candidates;
    if (const char* home = std::getenv("CUDA_HOME")) candidates.push_back(std::string(home) + "/bin/nvdisasm");
    candidates.push_back("/usr/local/cuda/bin/nvdisasm");
    if (const char* path = std::getenv("PATH")) {
        std::stringstream dirs(path);
        for (std::string d; std::getline(dirs, d, ':');)
            if (!d.empty()) candidates.push_back(d + "/nvdisasm");
    }
    for (const std::string& c : candidates)
        if (::access(c.c_str(), X_OK) == 0) return c;
    return "";
}

// A cubin's inlining chains from `nvdisasm -gi`, and its CTA barriers (empty
// when nvdisasm is missing or fails; `problem` then says why).
struct CubinLines {
    InlineTable chains;
    std::map<std::string, std::set<uint64_t>> barriers;
};
CubinLines inline_table(const std::string& cubin, std::string& problem) {
    static const std::string nvdisasm = find_nvdisasm();
    if (nvdisasm.empty()) {
        problem = "nvdisasm (CUDA toolkit) not found, so stall lines are each instruction's own line (often inside tk/), "
                  "not the kernel line that called it. Fix: put the toolkit's bin folder on PATH or set CUDA_HOME.";
        return {};
    }
    char path[] = "/tmp/tklab-cubin-XXXXXX";
    const int fd = ::mkstemp(path);
    if (fd < 0) { problem = "could not write a cubin for nvdisasm"; return {}; }
    const bool written = ::write(fd, cubin.data(), cubin.size()) == ssize_t(cubin.size());
    ::close(fd);
    CubinLines table;
    if (written) {
        const std::string cmd = "'" + nvdisasm + "' -gi -c '" + path + "' 2>/dev/null";
        if (std::FILE* p = ::popen(cmd.c_str(), "r")) {
            std::string text;
            char buf[65536];
            for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) text.append(buf, n);
            const int rc = ::pclose(p);
            std::istringstream in(text), again(text);
            table.chains = parse_nvdisasm_lines(in);
            table.barriers = parse_nvdisasm_barriers(again);
            if (rc != 0 || table.chains.empty()) problem = "nvdisasm could not read a cubin's line table (exit " + std::to_string(rc) + ")";
        }
    }
    ::unlink(path);
    return table;
}

LineTable map_lines(const std::vector<RawPcSample>& samples, LineCoverage& coverage) {
    const Api& a = api();
    Modules& m = modules();
    std::lock_guard<std::mutex> lock(m.m);  // cubins are only added, but not while being read
    LineTable lines;
    std::map<uint64_t, CubinLines> chains;  // per cubin, read once
    // Each sampled PC, and the BAR before a PC with barrier samples
    // (aggregate_stall_samples counts those on the BAR's line).
    std::vector<RawPcSample> pcs;
    for (const RawPcSample& s : samples) {
        pcs.push_back({s.cubin_crc, s.pc_offset, s.function, {}});
        if (has_barrier_samples(s) && s.pc_offset >= kSassInstructionBytes)
            pcs.push_back({s.cubin_crc, s.pc_offset - kSassInstructionBytes, s.function, {}});
    }
    for (const RawPcSample& s : pcs) {
        PcKey key{s.cubin_crc, s.function, s.pc_offset};
        if (lines.count(key)) continue;
        const auto cubin = m.cubins.find(s.cubin_crc);
        if (cubin == m.cubins.end() || s.function.empty()) {
            coverage.without_cubin.insert(s.function);
            continue;
        }
        // The kernel line through the inlining chain, as the simulator names it.
        auto table = chains.find(s.cubin_crc);
        if (table == chains.end()) {
            std::string problem;
            table = chains.emplace(s.cubin_crc, inline_table(cubin->second, problem)).first;
            if (!problem.empty() && std::find(m.problems.begin(), m.problems.end(), problem) == m.problems.end())
                m.problems.push_back(problem);
        }
        if (const auto f = table->second.chains.find(s.function); f != table->second.chains.end())
            if (const auto at = f->second.find(s.pc_offset); at != f->second.end() && !at->second.empty()) {
                SourceLine where = kernel_line_of(at->second, kProjectRoot);
                const auto bars = table->second.barriers.find(s.function);
                where.cta_barrier = bars != table->second.barriers.end() && bars->second.count(s.pc_offset) > 0;
                lines.emplace(std::move(key), std::move(where));
                coverage.with_lines.insert(s.function);
                continue;
            }
        CUpti_GetSassToSourceCorrelationParams p{};
        p.size = CUpti_GetSassToSourceCorrelationParamsSize;
        p.cubin = cubin->second.data();
        p.cubinSize = cubin->second.size();
        p.functionName = s.function.c_str();
        p.pcOffset = s.pc_offset;
        // Fails (CUPTI_ERROR_UNKNOWN) for instructions with no line: no -lineinfo, or compiler-made code.
        SourceLine where;
        if (a.sass_to_source(&p) == CUPTI_SUCCESS && p.lineNumber > 0 && p.fileName) {
            where = kernel_line_of({SourceLine{join_path(p.dirName, p.fileName), p.lineNumber}}, kProjectRoot);
            coverage.with_lines.insert(s.function);
        }
        std::free(p.fileName);  // CUPTI allocates both for the caller
        std::free(p.dirName);
        lines.emplace(std::move(key), std::move(where));
    }
    return lines;
}

std::atomic<bool> g_active{false};  // one session at a time: PC sampling is per context

} // namespace

// ---- the session ----

struct PcSampling::Session {
    CUcontext ctx = nullptr;
    std::map<uint32_t, std::string> reason_names;  // CUPTI's index -> its name
    std::vector<uint32_t> reason_indices;
    std::unique_ptr<PcBuffer> config;  // CUPTI decodes into it from Enable to Disable
    std::vector<std::string> notes;
};

std::string pc_sampling_fix(CUptiResult r) {
    switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
        return "Stall sampling (CUPTI's PC sampling) needs permission to use the GPU's profiling hardware, which this "
               "driver keeps for administrators. Fix: run as root, or allow every user: put `options nvidia "
               "NVreg_RestrictProfilingToAdminUsers=0` in a file under /etc/modprobe.d/ and reload the nvidia module "
               "(or reboot); https://developer.nvidia.com/ERR_NVGPUCTRPERM explains it. Kernel timing and regions "
               "(--profile timing,regions) need no such permission and still work.";
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
        return "Another tool already holds CUPTI's callbacks in this process (Nsight Systems, Nsight Compute, cuda-gdb, "
               "compute-sanitizer): run tklab outside it. Without the callbacks stall samples have no source lines.";
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
        return "This GPU or system does not allow PC sampling (it needs compute capability 7.0 or newer on a whole, "
               "non-virtualized GPU; the error names the limit): drop `stalls` from --profile. Timing and regions still work.";
    case CUPTI_ERROR_HARDWARE_BUSY:
    case CUPTI_ERROR_DISABLED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
        return "The GPU's profiling hardware is in use: by hardware counters in the same pass (--profile counters), by "
               "Nsight Compute, or by another process. Sample stalls in a run of their own.";
    case CUPTI_ERROR_OUT_OF_MEMORY:
        return "The buffer for samples is full: sample less often (`tklab_gpu run --stall-period N`, PcSamplingOptions::period_log2: "
               "one higher halves the samples) or profile a shorter run.";
    case CUPTI_ERROR_NOT_INITIALIZED:
        return "CUPTI could not reach the CUDA driver: check that nvidia-smi works and that the driver supports CUDA " +
               std::to_string(CUPTI_API_VERSION / 10000) + ".";
    case CUPTI_ERROR_INVALID_OPERATION:
    case CUPTI_ERROR_INVALID_PARAMETER:
        return "CUPTI was called out of order or with a bad value (a tklab bug): report it with the command line.";
    default:
        return "Not an error tklab expects: report it with the command line, `nvidia-smi` and the CUDA version.";
    }
}

std::string PcSamplingResult::warning() const {
    std::string w;
    for (const std::string& n : notes) w += (w.empty() ? "" : "; ") + n;
    return w;
}

void PcSampling::watch_modules() {
    (void)api();  // libcupti and its PC sampling functions, or a CuptiError saying what is missing
    Modules& m = modules();
    {
        std::lock_guard<std::mutex> lock(m.m);
        if (m.subscribed) return;
    }
    // Through the process's one CUPTI subscriber, shared with the counters'
    // launch callbacks (profiler/gpu/cupti_callbacks.h); never removed. Added
    // without holding m.m: the callback takes m.m under the hub's lock.
    static std::mutex adding;
    std::lock_guard<std::mutex> once(adding);
    {
        std::lock_guard<std::mutex> lock(m.m);
        if (m.subscribed) return;
    }
    CuptiCallbacks::get().add({{CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED}},
                              [](CUpti_CallbackDomain d, CUpti_CallbackId id, const void* data) {
                                  on_cupti_callback(nullptr, d, id, data);
                              });
    std::lock_guard<std::mutex> lock(m.m);
    m.subscribed = true;  // for the life of the process: modules keep loading between sessions
}

PcSampling::PcSampling(PcSamplingOptions opt) : opt_(opt) {}

PcSampling::~PcSampling() {
    if (!running_) return;
    try { stop(); } catch (...) {}
}

void PcSampling::start() {
    if (running_) throw CuptiError("CUPTI: PcSampling::start() called twice without stop() (a tklab bug)");
    if (opt_.period_log2 < 5 || opt_.period_log2 > 31)
        throw CuptiError("CUPTI: stall sampling: period_log2 " + std::to_string(opt_.period_log2) +
                         " is outside CUPTI's 5..31 (2^5 to 2^31 cycles between samples)");
    int devices = 0;
    if (const cudaError_t e = cudaGetDeviceCount(&devices); e != cudaSuccess || devices == 0)
        throw CuptiError(std::string("CUPTI: stall sampling needs a CUDA GPU, and there is none usable (cudaGetDeviceCount: ") +
                         (e != cudaSuccess ? std::string(cudaGetErrorString(e)) : std::string("0 devices")) +
                         "). Run on a machine with an NVIDIA GPU, or without --profile stalls.");
    const Api& a = api();  // throws when libcupti is missing or too old
    auto s = std::make_unique<Session>();
    try {
        watch_modules();
    } catch (const CuptiError& e) {
        s->notes.push_back(std::string(e.what()) + " Stalls are sampled without source lines.");
    }
    s->ctx = current_context();
    if (g_active.exchange(true))
        throw CuptiError("CUPTI: stall sampling is already running in this process; stop the other PcSampling first (a tklab bug)");

    CUpti_PCSamplingEnableParams enable{};
    enable.size = CUpti_PCSamplingEnableParamsSize;
    enable.ctx = s->ctx;
    if (const CUptiResult r = a.enable(&enable); r != CUPTI_SUCCESS) {
        g_active = false;
        throw fail(r, "cuptiPCSamplingEnable");
    }
    try {
        // The reasons this GPU samples: their count and names exist only after Enable.
        size_t count = 0;
        CUpti_PCSamplingGetNumStallReasonsParams num{};
        num.size = CUpti_PCSamplingGetNumStallReasonsParamsSize;
        num.ctx = s->ctx;
        num.numStallReasons = &count;
        if (const CUptiResult r = a.num_stall_reasons(&num); r != CUPTI_SUCCESS) throw fail(r, "cuptiPCSamplingGetNumStallReasons");
        if (count == 0) throw fail(CUPTI_ERROR_NOT_SUPPORTED, "cuptiPCSamplingGetNumStallReasons", "this GPU reports no stall reasons");
        std::vector<std::vector<char>> text(count, std::vector<char>(CUPTI_STALL_REASON_STRING_SIZE, '\0'));
        std::vector<char*> names(count);
        for (size_t i = 0; i < count; ++i) names[i] = text[i].data();
        s->reason_indices.assign(count, 0);
        CUpti_PCSamplingGetStallReasonsParams get{};
        get.size = CUpti_PCSamplingGetStallReasonsParamsSize;
        get.ctx = s->ctx;
        get.numStallReasons = count;
        get.stallReasonIndex = s->reason_indices.data();
        get.stallReasons = names.data();
        if (const CUptiResult r = a.stall_reasons(&get); r != CUPTI_SUCCESS) throw fail(r, "cuptiPCSamplingGetStallReasons");
        for (size_t i = 0; i < count; ++i)
            s->reason_names[s->reason_indices[i]] = std::string(text[i].data(), strnlen(text[i].data(), text[i].size()));

        s->config = std::make_unique<PcBuffer>(opt_.pcs_per_read, count);
        std::vector<CUpti_PCSamplingConfigurationInfo> attrs(7);  // value-initialised: zeroes
        attrs[0].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD;
        attrs[0].attributeData.samplingPeriodData.samplingPeriod = opt_.period_log2;
        attrs[1].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON;  // all of them
        attrs[1].attributeData.stallReasonData.stallReasonCount = count;
        attrs[1].attributeData.stallReasonData.pStallReasonIndex = s->reason_indices.data();
        attrs[2].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE;
        attrs[2].attributeData.collectionModeData.collectionMode = CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS;
        attrs[3].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_ENABLE_START_STOP_CONTROL;
        attrs[3].attributeData.enableStartStopControlData.enableStartStopControl = 1;
        attrs[4].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT;
        attrs[4].attributeData.outputDataFormatData.outputDataFormat = CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED;
        attrs[5].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER;
        attrs[5].attributeData.samplingDataBufferData.samplingDataBuffer = &s->config->data;
        attrs[6].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SCRATCH_BUFFER_SIZE;
        attrs[6].attributeData.scratchBufferSizeData.scratchBufferSize = size_t(4) << 20;  // ~20,000 instructions
        CUpti_PCSamplingConfigurationInfoParams config{};
        config.size = CUpti_PCSamplingConfigurationInfoParamsSize;
        config.ctx = s->ctx;
        config.numAttributes = attrs.size();
        config.pPCSamplingConfigurationInfo = attrs.data();
        if (const CUptiResult r = a.configure(&config); r != CUPTI_SUCCESS) {
            static const char* what[] = {"sampling period", "stall reasons", "collection mode", "start/stop control",
                                         "output format", "data buffer", "scratch buffer size"};
            std::string bad;
            for (size_t i = 0; i < attrs.size(); ++i)
                if (attrs[i].attributeStatus != CUPTI_SUCCESS) bad += (bad.empty() ? "refused: " : ", ") + std::string(what[i]);
            throw fail(r, "cuptiPCSamplingSetConfigurationAttribute", bad);
        }
        CUpti_PCSamplingStartParams start{};
        start.size = CUpti_PCSamplingStartParamsSize;
        start.ctx = s->ctx;
        if (const CUptiResult r = a.start(&start); r != CUPTI_SUCCESS) throw fail(r, "cuptiPCSamplingStart");
    } catch (...) {
        CUpti_PCSamplingDisableParams disable{};
        disable.size = CUpti_PCSamplingDisableParamsSize;
        disable.ctx = s->ctx;
        a.disable(&disable);
        g_active = false;
        throw;
    }
    session_ = s.release();
    running_ = true;
}

PcSamplingResult PcSampling::stop() {
    if (!running_) throw CuptiError("CUPTI: PcSampling::stop() without start() (a tklab bug)");
    running_ = false;
    std::unique_ptr<Session> s(session_);
    session_ = nullptr;
    struct Release { ~Release() { g_active = false; } } release;
    const Api& a = api();

    // Samples of kernels still running are not in yet: wait for them, then end
    // the range (which flushes it) and read until CUPTI has no PC left.
    const cudaError_t sync = cudaDeviceSynchronize();
    CUpti_PCSamplingStopParams stop{};
    stop.size = CUpti_PCSamplingStopParamsSize;
    stop.ctx = s->ctx;
    const CUptiResult stopped = a.stop(&stop);
    std::vector<RawPcSample> raw;
    Totals totals;
    CUptiResult read = CUPTI_SUCCESS;
    if (stopped == CUPTI_SUCCESS) {
        PcBuffer buffer(opt_.pcs_per_read, s->reason_indices.size());  // not the configured one: CUPTI owns that
        CUpti_PCSamplingGetDataParams get{};
        get.size = CUpti_PCSamplingGetDataParamsSize;
        get.ctx = s->ctx;
        get.pcSamplingData = &buffer.data;
        // CUPTI's threads may still be decoding: an empty read that promises
        // more is retried for up to two seconds.
        for (int empty = 0; empty < 2000;) {
            buffer.data.totalNumPcs = buffer.data.remainingNumPcs = 0;
            read = a.get_data(&get);
            if (read == CUPTI_ERROR_OUT_OF_MEMORY) {  // the hardware buffer overflowed: what it held is lost
                totals.hardware_buffer_full = true;
                read = CUPTI_SUCCESS;
                break;
            }
            if (read != CUPTI_SUCCESS) break;
            take(buffer.data, s->reason_names, raw, totals);
            if (buffer.data.remainingNumPcs == 0) break;
            if (buffer.data.totalNumPcs == 0) {
                ++empty;
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
        }
        if (buffer.data.remainingNumPcs != 0)
            s->notes.push_back(std::to_string(buffer.data.remainingNumPcs) + " sampled instructions were still pending "
                               "in CUPTI after two seconds and are left out");
    }
    CUpti_PCSamplingDisableParams disable{};
    disable.size = CUpti_PCSamplingDisableParamsSize;
    disable.ctx = s->ctx;
    const CUptiResult disabled = a.disable(&disable);
    if (disabled == CUPTI_SUCCESS) take(s->config->data, s->reason_names, raw, totals);  // what Disable handed over

    if (sync != cudaSuccess)
        throw CuptiError(std::string("CUPTI: stall sampling: waiting for the GPU failed: ") + cudaGetErrorName(sync) + " (" +
                         cudaGetErrorString(sync) + "). A kernel failed; its own error comes first, fix that.");
    if (stopped != CUPTI_SUCCESS) throw fail(stopped, "cuptiPCSamplingStop");
    if (read != CUPTI_SUCCESS) throw fail(read, "cuptiPCSamplingGetData");
    if (disabled != CUPTI_SUCCESS) throw fail(disabled, "cuptiPCSamplingDisable");

    PcSamplingResult out;
    out.period_cycles = uint64_t(1) << opt_.period_log2;
    out.cupti_total_samples = Totals::sum(totals.total);
    out.dropped = Totals::sum(totals.dropped);
    out.non_user_samples = Totals::sum(totals.non_user);
    out.hardware_buffer_full = totals.hardware_buffer_full;
    out.notes = std::move(s->notes);

    LineCoverage coverage;
    const LineTable lines = map_lines(raw, coverage);
    out.kernels = aggregate_stall_samples(raw, lines, {out.period_cycles, out.dropped});
    out.stalls = to_gpu_stalls(out.kernels);

    for (const KernelStallSamples& k : out.kernels) {
        if (k.samples_without_line == 0) continue;
        if (coverage.without_cubin.count(k.mangled))
            out.notes.push_back(k.stalls.kernel + ": " + std::to_string(k.samples_without_line) + " of " +
                                std::to_string(k.stalls.samples) + " samples have no source line, because its module "
                                "was loaded before tklab could keep its cubin. Fix: call PcSampling::watch_modules() "
                                "before the kernel's first launch (and leave CUDA_MODULE_LOADING unset or LAZY).");
        else if (!coverage.with_lines.count(k.mangled))
            out.notes.push_back(k.stalls.kernel + ": no source lines (" + std::to_string(k.stalls.samples) +
                                " samples kept per reason only): it was built without line information. Fix: compile "
                                "it with nvcc -lineinfo (CMake: target_compile_options(<target> PRIVATE "
                                "$<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>)).");
    }
    if (out.dropped)
        out.notes.push_back(std::to_string(out.dropped) + " samples were dropped by the GPU (its buffer could not keep "
                            "up); sample less often: --stall-period " + std::to_string(opt_.period_log2 + 1) + " (PcSamplingOptions::period_log2)");
    if (out.hardware_buffer_full)
        out.notes.push_back("CUPTI's hardware buffer filled and its samples were lost: " + pc_sampling_fix(CUPTI_ERROR_OUT_OF_MEMORY));
    {
        Modules& m = modules();
        std::lock_guard<std::mutex> lock(m.m);
        for (const std::string& p : m.problems) out.notes.push_back("source lines: " + p);
        m.problems.clear();
    }
    return out;
}

PcSamplingResult record_stalls(const std::function<void()>& work, PcSamplingOptions opt) {
    PcSampling sampling(opt);
    sampling.start();
    work();  // if it throws, ~PcSampling stops sampling and drops the samples
    return sampling.stop();
}

} // namespace tklab::profiler
