// Hardware counters through CUPTI's Range Profiler (see range_profiler.h).
//
// The order of CUPTI calls, and why:
//   start()
//     1. Launch callbacks (cupti_callbacks.h: the process's one subscriber):
//        the kernel symbol of each launch, in order (auto-range ranges are
//        named by number, not by kernel); subscribing is also how CUPTI tells
//        that another tool already profiles this process.
//     2. cuptiProfilerInitialize: loads the profiler into the process.
//     3. cuptiProfilerDeviceSupported: says *why* a GPU cannot be profiled.
//     4. cuptiDeviceGetChipName, cuptiProfilerGetCounterAvailability: which
//        chip, and which of its counters this context may use (before the
//        session: the call fails while one is active).
//     5. cuptiProfilerHostInitialize, then cuptiProfilerHostGetMetricProperties
//        per metric (to name one the chip does not know), then
//        ...ConfigAddMetrics, ...GetConfigImageSize/GetConfigImage,
//        ...GetNumOfPasses: the config image scheduling the counters.
//     6. cuptiRangeProfilerEnable: the session on the context.
//     7. cuptiRangeProfilerGetCounterDataSize, ...CounterDataImageInitialize:
//        room for max_launches ranges.
//     8. cuptiRangeProfilerSetConfig (auto range, kernel replay, one nesting
//        level), cuptiRangeProfilerStart.
//   stop()
//     9. cudaDeviceSynchronize, cuptiRangeProfilerStop (kernel replay submits
//        every pass inside each launch), cuptiRangeProfilerDecodeData.
//    10. cuptiRangeProfilerGetCounterDataInfo (how many ranges), then per
//        range cuptiRangeProfilerCounterDataGetRangeInfo (its name) and
//        cuptiProfilerHostEvaluateToGpuValues (its metric values).
//    11. Teardown, in reverse: cuptiRangeProfilerDisable,
//        cuptiProfilerHostDeinitialize, cuptiProfilerDeInitialize,
//        and the launch handler removed. Also after any failure, so start()
//        works again.
#include "profiler/gpu/range_profiler.h"

#include "profiler/gpu/cupti_callbacks.h"

#include <atomic>
#include <cuda_runtime.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <mutex>
#include <stdexcept>

namespace tklab::profiler {

namespace {

// The CUPTI functions this file calls, resolved from the loaded libcupti.
struct Api {
    decltype(&cuptiProfilerInitialize) profilerInitialize;
    decltype(&cuptiProfilerDeInitialize) profilerDeInitialize;
    decltype(&cuptiProfilerDeviceSupported) deviceSupported;
    decltype(&cuptiDeviceGetChipName) getChipName;
    decltype(&cuptiProfilerGetCounterAvailability) getCounterAvailability;
    decltype(&cuptiProfilerHostInitialize) hostInitialize;
    decltype(&cuptiProfilerHostDeinitialize) hostDeinitialize;
    decltype(&cuptiProfilerHostGetMetricProperties) hostGetMetricProperties;
    decltype(&cuptiProfilerHostConfigAddMetrics) hostConfigAddMetrics;
    decltype(&cuptiProfilerHostGetConfigImageSize) hostGetConfigImageSize;
    decltype(&cuptiProfilerHostGetConfigImage) hostGetConfigImage;
    decltype(&cuptiProfilerHostGetNumOfPasses) hostGetNumOfPasses;
    decltype(&cuptiProfilerHostEvaluateToGpuValues) hostEvaluateToGpuValues;
    decltype(&cuptiRangeProfilerEnable) enable;
    decltype(&cuptiRangeProfilerDisable) disable;
    decltype(&cuptiRangeProfilerGetCounterDataSize) getCounterDataSize;
    decltype(&cuptiRangeProfilerCounterDataImageInitialize) counterDataImageInitialize;
    decltype(&cuptiRangeProfilerSetConfig) setConfig;
    decltype(&cuptiRangeProfilerStart) start;
    decltype(&cuptiRangeProfilerStop) stop;
    decltype(&cuptiRangeProfilerDecodeData) decodeData;
    decltype(&cuptiRangeProfilerGetCounterDataInfo) getCounterDataInfo;
    decltype(&cuptiRangeProfilerCounterDataGetRangeInfo) getRangeInfo;
};

#define TKLAB_RESOLVE(field, fn) a.field = lib.function<decltype(&fn)>(#fn)
Api resolve(const CuptiLibrary& lib) {
    Api a{};
    TKLAB_RESOLVE(profilerInitialize, cuptiProfilerInitialize);
    TKLAB_RESOLVE(profilerDeInitialize, cuptiProfilerDeInitialize);
    TKLAB_RESOLVE(deviceSupported, cuptiProfilerDeviceSupported);
    TKLAB_RESOLVE(getChipName, cuptiDeviceGetChipName);
    TKLAB_RESOLVE(getCounterAvailability, cuptiProfilerGetCounterAvailability);
    TKLAB_RESOLVE(hostInitialize, cuptiProfilerHostInitialize);
    TKLAB_RESOLVE(hostDeinitialize, cuptiProfilerHostDeinitialize);
    TKLAB_RESOLVE(hostGetMetricProperties, cuptiProfilerHostGetMetricProperties);
    TKLAB_RESOLVE(hostConfigAddMetrics, cuptiProfilerHostConfigAddMetrics);
    TKLAB_RESOLVE(hostGetConfigImageSize, cuptiProfilerHostGetConfigImageSize);
    TKLAB_RESOLVE(hostGetConfigImage, cuptiProfilerHostGetConfigImage);
    TKLAB_RESOLVE(hostGetNumOfPasses, cuptiProfilerHostGetNumOfPasses);
    TKLAB_RESOLVE(hostEvaluateToGpuValues, cuptiProfilerHostEvaluateToGpuValues);
    TKLAB_RESOLVE(enable, cuptiRangeProfilerEnable);
    TKLAB_RESOLVE(disable, cuptiRangeProfilerDisable);
    TKLAB_RESOLVE(getCounterDataSize, cuptiRangeProfilerGetCounterDataSize);
    TKLAB_RESOLVE(counterDataImageInitialize, cuptiRangeProfilerCounterDataImageInitialize);
    TKLAB_RESOLVE(setConfig, cuptiRangeProfilerSetConfig);
    TKLAB_RESOLVE(start, cuptiRangeProfilerStart);
    TKLAB_RESOLVE(stop, cuptiRangeProfilerStop);
    TKLAB_RESOLVE(decodeData, cuptiRangeProfilerDecodeData);
    TKLAB_RESOLVE(getCounterDataInfo, cuptiRangeProfilerGetCounterDataInfo);
    TKLAB_RESOLVE(getRangeInfo, cuptiRangeProfilerCounterDataGetRangeInfo);
    return a;
}
#undef TKLAB_RESOLVE

constexpr const char* kStillWorks = " Kernel timing and regions (--profile timing,regions) do not need this and still work.";

// CuptiLibrary::message gives CUPTI's name and description followed by the
// Activity API's advice (cupti_fix); counters get their own advice instead.
std::string reworded(std::string m, CUptiResult r) {
    const std::string activity_fix = cupti_fix(r);
    const size_t at = m.find(activity_fix);
    if (at != std::string::npos) m.erase(at, activity_fix.size());
    else m += " ";
    return m + counters_fix(r);
}
std::string message(const CuptiLibrary& lib, CUptiResult r, const std::string& call) {
    return reworded(lib.message(r, call.c_str()), r);
}

std::string result_name(const CuptiLibrary& lib, CUptiResult r) {
    const char* name = nullptr;
    if (lib.getResultString && lib.getResultString(r, &name) == CUPTI_SUCCESS && name) return name;
    return "error " + std::to_string(int(r));
}

[[noreturn]] void fail(CUptiResult r, const std::string& text) {
    CuptiError e(text);
    e.result = r;
    throw e;
}

void check(const CuptiLibrary& lib, CUptiResult r, const std::string& call) {
    if (r != CUPTI_SUCCESS) fail(r, message(lib, r, call));
}

void check_cuda(cudaError_t e, const char* call) {
    if (e != cudaSuccess)
        throw CuptiError(std::string("hardware counters: ") + call + " failed: " + cudaGetErrorName(e) + " (" +
                         cudaGetErrorString(e) + "). Fix: check that the GPU works (nvidia-smi) and that the kernels "
                         "before profiling did not fail.");
}

std::string support_level(CUpti_Profiler_Support_Level l) {
    switch (l) {
    case CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED: return "unsupported";
    case CUPTI_PROFILER_CONFIGURATION_DISABLED: return "disabled";
    case CUPTI_PROFILER_CONFIGURATION_SUPPORTED: return "supported";
    default: return "unknown";
    }
}

// Why cuptiProfilerDeviceSupported refused the device, each reason with its fix.
std::string unsupported_reasons(const CUpti_Profiler_DeviceSupported_Params& p) {
    std::string r;
    auto add = [&](CUpti_Profiler_Support_Level l, const std::string& why) {
        if (l != CUPTI_PROFILER_CONFIGURATION_SUPPORTED && l != CUPTI_PROFILER_CONFIGURATION_UNKNOWN)
            r += "\n  - " + why + " (" + support_level(l) + ")";
    };
    add(p.architecture, "the GPU's architecture: counters need compute capability 7.0 or newer");
    add(p.sli, "SLI is enabled: disable SLI");
    add(p.vGpu, p.vGpu == CUPTI_PROFILER_CONFIGURATION_DISABLED
                    ? "a vGPU without profiling: the hypervisor's administrator must enable profiling for this vGPU"
                    : "a vGPU that cannot be profiled: run on a whole GPU (passthrough or bare metal)");
    add(p.confidentialCompute, "confidential computing is on: counters need it off");
    add(p.cmp, "a crypto-mining (CMP) GPU: these cannot be profiled");
    add(p.wsl, "WSL: this Windows driver does not allow profiling under WSL; update it, or run on Linux");
    if (r.empty()) r = "\n  - CUPTI gave no reason (overall: " + support_level(p.isSupported) + ")";
    return r;
}

// The launch calls whose symbol names the kernel. The runtime's launches call
// the driver's: a driver launch inside a runtime launch on the same thread is
// the same kernel and is not counted twice.
bool runtime_launch(CUpti_CallbackId id) {
    switch (id) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunch_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunch_ptsz_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060:
    case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000:
    case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000: return true;
    default: return false;
    }
}
bool driver_launch(CUpti_CallbackId id) {
    switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunch:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: return true;
    default: return false;
    }
}
constexpr CUpti_CallbackId kRuntimeLaunches[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunch_v3020, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunch_ptsz_v7000, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000};
constexpr CUpti_CallbackId kDriverLaunches[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunch, CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid, CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz};

// Per thread: inside a runtime launch (its driver launch is the same kernel),
// and the symbol that driver launch named, for a runtime callback without one.
thread_local int runtime_launch_depth = 0;
thread_local std::string inner_driver_symbol;

// Kernel symbols in launch order, appended by the launching threads.
struct LaunchLog {
    std::mutex m;
    std::vector<std::string> symbols;
};

void on_launch(LaunchLog* log, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
    const auto* d = static_cast<const CUpti_CallbackData*>(data);
    const bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API && runtime_launch(id);
    const bool driver = domain == CUPTI_CB_DOMAIN_DRIVER_API && driver_launch(id);
    if (!runtime && !driver) return;
    const std::string symbol = d->symbolName ? d->symbolName : "";
    if (runtime && d->callbackSite == CUPTI_API_ENTER) {
        if (runtime_launch_depth++ == 0) inner_driver_symbol.clear();
        return;
    }
    if (d->callbackSite != CUPTI_API_EXIT) return;
    if (driver && runtime_launch_depth > 0) {  // inside a runtime launch: that one records it
        inner_driver_symbol = symbol;
        return;
    }
    if (runtime && runtime_launch_depth > 0) --runtime_launch_depth;
    // Both return types are enums whose success is 0 (cudaSuccess, CUDA_SUCCESS).
    const bool ok = d->functionReturnValue && *static_cast<const int*>(d->functionReturnValue) == 0;
    if (!ok) return;  // a launch that failed runs nothing and makes no range
    std::lock_guard<std::mutex> lock(log->m);
    log->symbols.push_back(runtime && symbol.empty() ? inner_driver_symbol : symbol);
}

// One RangeProfiler runs at a time: CUPTI's session and callbacks are per process.
std::atomic<bool> g_running{false};

// The current device's primary context, made current. Through the runtime's
// driver entry point: tklab links only cudart.
CUcontext current_context(int& device) {
    check_cuda(cudaGetDevice(&device), "cudaGetDevice");
    check_cuda(cudaSetDevice(device), "cudaSetDevice");
    check_cuda(cudaFree(nullptr), "cudaFree(0) (creating the context)");
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    check_cuda(cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 4000, cudaEnableDefault, &found),
               "cudaGetDriverEntryPointByVersion(cuCtxGetCurrent)");
    if (!fn || found != cudaDriverEntryPointSuccess)
        throw CuptiError("hardware counters: the CUDA driver has no cuCtxGetCurrent. Fix: update the NVIDIA driver.");
    CUcontext ctx = nullptr;
    const int r = reinterpret_cast<int (*)(CUcontext*)>(fn)(&ctx);
    if (r != 0 || !ctx)
        throw CuptiError("hardware counters: no current CUDA context on device " + std::to_string(device) +
                         " (cuCtxGetCurrent gave " + std::to_string(r) + "). Fix: check the GPU with nvidia-smi.");
    return ctx;
}

} // namespace

// Everything one start()..stop() holds; teardown() undoes whatever was done.
struct RangeProfiler::Session {
    const CuptiLibrary* lib = nullptr;
    Api api{};
    std::vector<std::string> metrics;
    std::vector<const char*> metric_names;  // into `metrics`, for CUPTI
    uint32_t max_ranges = 0;
    int device = 0;
    CUcontext ctx = nullptr;
    std::string chip;
    uint64_t passes = 0;
    int callbacks = 0;  // CuptiCallbacks token; 0: none
    std::vector<std::string> notes;  // for CounterResult::problems
    bool profiler_initialized = false;
    CUpti_Profiler_Host_Object* host = nullptr;
    CUpti_RangeProfiler_Object* range = nullptr;
    bool started = false;
    std::vector<uint8_t> availability, config, counter_data;
    LaunchLog launched;

    void begin();
    CounterResult collect();
    void teardown() noexcept;
};

void RangeProfiler::Session::begin() {
    const CuptiLibrary& l = *lib;
    // 1. Launch callbacks, for kernel names (through the process's one subscriber).
    std::vector<CallbackId> ids;
    for (CUpti_CallbackId id : kRuntimeLaunches) ids.emplace_back(CUPTI_CB_DOMAIN_RUNTIME_API, id);
    for (CUpti_CallbackId id : kDriverLaunches) ids.emplace_back(CUPTI_CB_DOMAIN_DRIVER_API, id);
    try {
        callbacks = CuptiCallbacks::get().add(ids, [log = &launched](CUpti_CallbackDomain d, CUpti_CallbackId id,
                                                                       const void* data) { on_launch(log, d, id, data); });
    } catch (const CuptiError& e) {
        if (e.result != CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) fail(e.result, reworded(e.what(), e.result));
        // Counters do not need the names: measure, and say why kernels are "?".
        // (If a profiling tool holds the subscriber, step 6 fails with its own message.)
        notes.push_back("kernel names are \"?\": another CUPTI subscriber in this process holds the launch callbacks "
                        "(code of tklab's not yet on profiler/gpu/cupti_callbacks.h, or a tool)");
    }

    // 2. The profiler in this process.
    CUpti_Profiler_Initialize_Params init{CUpti_Profiler_Initialize_Params_STRUCT_SIZE, nullptr};
    check(l, api.profilerInitialize(&init), "cuptiProfilerInitialize");
    profiler_initialized = true;

    // 3. Whether this device can be profiled, and if not why.
    CUpti_Profiler_DeviceSupported_Params ds{};
    ds.structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE;
    ds.cuDevice = device;
    ds.api = CUPTI_PROFILER_RANGE_PROFILING;
    check(l, api.deviceSupported(&ds), "cuptiProfilerDeviceSupported");
    if (ds.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
        fail(CUPTI_ERROR_NOT_SUPPORTED,
             "CUPTI: GPU " + std::to_string(device) + " cannot collect hardware counters here:" + unsupported_reasons(ds) +
                 "\n" + std::string(kStillWorks + 1));

    // 4. The chip, and the counters this context may use.
    CUpti_Device_GetChipName_Params cn{};
    cn.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
    cn.deviceIndex = size_t(device);
    check(l, api.getChipName(&cn), "cuptiDeviceGetChipName");
    chip = cn.pChipName ? cn.pChipName : "";
    CUpti_Profiler_GetCounterAvailability_Params ca{};
    ca.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE;
    ca.ctx = ctx;
    check(l, api.getCounterAvailability(&ca), "cuptiProfilerGetCounterAvailability(size)");
    availability.resize(ca.counterAvailabilityImageSize);
    ca.pCounterAvailabilityImage = availability.data();
    check(l, api.getCounterAvailability(&ca), "cuptiProfilerGetCounterAvailability");

    // 5. The config image: which counters, in how many passes.
    CUpti_Profiler_Host_Initialize_Params hi{};
    hi.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
    hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hi.pChipName = chip.c_str();
    hi.pCounterAvailabilityImage = availability.data();
    check(l, api.hostInitialize(&hi), "cuptiProfilerHostInitialize(chip " + chip + ")");
    host = hi.pHostObject;
    for (const std::string& name : metrics) {
        CUpti_Profiler_Host_GetMetricProperties_Params mp{};
        mp.structSize = CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE;
        mp.pHostObject = host;
        mp.pMetricName = name.c_str();
        const CUptiResult r = api.hostGetMetricProperties(&mp);
        if (r != CUPTI_SUCCESS)
            fail(r == CUPTI_ERROR_INVALID_PARAMETER ? CUPTI_ERROR_INVALID_METRIC_NAME : r,
                 "CUPTI: chip " + chip + " has no metric \"" + name + "\" (cuptiProfilerHostGetMetricProperties: " +
                     result_name(l, r) + "). Fix: correct or drop it; `ncu --query-metrics --chip " + chip +
                     "` lists the metrics.");
    }
    CUpti_Profiler_Host_ConfigAddMetrics_Params am{};
    am.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
    am.pHostObject = host;
    am.ppMetricNames = metric_names.data();
    am.numMetrics = metric_names.size();
    check(l, api.hostConfigAddMetrics(&am), "cuptiProfilerHostConfigAddMetrics");
    CUpti_Profiler_Host_GetConfigImageSize_Params cs{};
    cs.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE;
    cs.pHostObject = host;
    check(l, api.hostGetConfigImageSize(&cs), "cuptiProfilerHostGetConfigImageSize");
    config.resize(cs.configImageSize);
    CUpti_Profiler_Host_GetConfigImage_Params ci{};
    ci.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE;
    ci.pHostObject = host;
    ci.configImageSize = config.size();
    ci.pConfigImage = config.data();
    check(l, api.hostGetConfigImage(&ci), "cuptiProfilerHostGetConfigImage");
    CUpti_Profiler_Host_GetNumOfPasses_Params np{};
    np.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE;
    np.configImageSize = config.size();
    np.pConfigImage = config.data();
    check(l, api.hostGetNumOfPasses(&np), "cuptiProfilerHostGetNumOfPasses");
    passes = np.numOfPasses;

    // 6. The session on the context.
    CUpti_RangeProfiler_Enable_Params en{};
    en.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE;
    en.ctx = ctx;
    check(l, api.enable(&en), "cuptiRangeProfilerEnable");
    range = en.pRangeProfilerObject;

    // 7. Room for the ranges' counters.
    CUpti_RangeProfiler_GetCounterDataSize_Params gs{};
    gs.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE;
    gs.pRangeProfilerObject = range;
    gs.pMetricNames = metric_names.data();
    gs.numMetrics = metric_names.size();
    gs.maxNumOfRanges = max_ranges;
    gs.maxNumRangeTreeNodes = max_ranges;
    check(l, api.getCounterDataSize(&gs), "cuptiRangeProfilerGetCounterDataSize");
    counter_data.resize(gs.counterDataSize);
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params di{};
    di.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
    di.pRangeProfilerObject = range;
    di.counterDataSize = counter_data.size();
    di.pCounterData = counter_data.data();
    check(l, api.counterDataImageInitialize(&di), "cuptiRangeProfilerCounterDataImageInitialize");

    // 8. One range per kernel, each replayed for as many passes as it needs.
    CUpti_RangeProfiler_SetConfig_Params sc{};
    sc.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
    sc.pRangeProfilerObject = range;
    sc.configSize = config.size();
    sc.pConfig = config.data();
    sc.counterDataImageSize = counter_data.size();
    sc.pCounterDataImage = counter_data.data();
    sc.range = CUPTI_AutoRange;
    sc.replayMode = CUPTI_KernelReplay;
    sc.maxRangesPerPass = max_ranges;
    sc.numNestingLevels = 1;
    sc.minNestingLevel = 1;
    sc.passIndex = 0;
    sc.targetNestingLevel = 1;
    check(l, api.setConfig(&sc), "cuptiRangeProfilerSetConfig");
    CUpti_RangeProfiler_Start_Params st{};
    st.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE;
    st.pRangeProfilerObject = range;
    check(l, api.start(&st), "cuptiRangeProfilerStart");
    started = true;
}

CounterResult RangeProfiler::Session::collect() {
    const CuptiLibrary& l = *lib;
    CounterResult out;
    out.chip = chip;
    out.passes = passes;
    out.problems = notes;
    // 9. Every launch done, the session stopped, its passes decoded.
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize (before reading the counters)");
    CUpti_RangeProfiler_Stop_Params sp{};
    sp.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
    sp.pRangeProfilerObject = range;
    check(l, api.stop(&sp), "cuptiRangeProfilerStop");
    started = false;
    if (!sp.isAllPassSubmitted)
        out.problems.push_back("CUPTI reports that not every replay pass was submitted: some counters may be partial");
    CUpti_RangeProfiler_DecodeData_Params dd{};
    dd.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE;
    dd.pRangeProfilerObject = range;
    check(l, api.decodeData(&dd), "cuptiRangeProfilerDecodeData");
    out.dropped = dd.numOfRangeDropped;

    // 10. Each range: its name, then its metrics' values.
    CUpti_RangeProfiler_GetCounterDataInfo_Params info{};
    info.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE;
    info.pCounterDataImage = counter_data.data();
    info.counterDataImageSize = counter_data.size();
    check(l, api.getCounterDataInfo(&info), "cuptiRangeProfilerGetCounterDataInfo");
    std::vector<std::string> names;
    {
        std::lock_guard<std::mutex> lock(launched.m);
        names = launched.symbols;
    }
    std::vector<double> values(metric_names.size());
    for (size_t i = 0; i < info.numTotalRanges; ++i) {
        CUpti_RangeProfiler_CounterData_GetRangeInfo_Params ri{};
        ri.structSize = CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE;
        ri.pCounterDataImage = counter_data.data();
        ri.counterDataImageSize = counter_data.size();
        ri.rangeIndex = i;
        ri.rangeDelimiter = "/";
        check(l, api.getRangeInfo(&ri), "cuptiRangeProfilerCounterDataGetRangeInfo");
        // CUPTI allocates the name and documents no way to free it: a few bytes per range, kept.
        const std::string range_name = ri.rangeName ? ri.rangeName : "";
        CUpti_Profiler_Host_EvaluateToGpuValues_Params ev{};
        ev.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE;
        ev.pHostObject = host;
        ev.pCounterDataImage = counter_data.data();
        ev.counterDataImageSize = counter_data.size();
        ev.rangeIndex = i;
        ev.ppMetricNames = metric_names.data();
        ev.numMetrics = metric_names.size();
        ev.pMetricValues = values.data();
        check(l, api.hostEvaluateToGpuValues(&ev), "cuptiProfilerHostEvaluateToGpuValues(range " + std::to_string(i) + ")");
        out.counters.push_back(counters_of_range(uint32_t(i), range_name, names, metrics, values, &out.problems));
    }
    const uint64_t ranges = info.numTotalRanges + out.dropped;
    if (callbacks && names.size() != ranges)
        out.problems.push_back(std::to_string(names.size()) + " kernel launches were seen but CUPTI measured " +
                               std::to_string(ranges) + " (graph launches or another thread's kernels?): kernel "
                               "names may be misplaced or \"?\"");
    return out;
}

void RangeProfiler::Session::teardown() noexcept {
    // 11. Undo in reverse order; errors here have nothing left to protect.
    if (started && range) {
        CUpti_RangeProfiler_Stop_Params sp{};
        sp.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
        sp.pRangeProfilerObject = range;
        api.stop(&sp);
        started = false;
    }
    if (range) {
        CUpti_RangeProfiler_Disable_Params dp{};
        dp.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE;
        dp.pRangeProfilerObject = range;
        api.disable(&dp);
        range = nullptr;
    }
    if (host) {
        CUpti_Profiler_Host_Deinitialize_Params hd{};
        hd.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
        hd.pHostObject = host;
        api.hostDeinitialize(&hd);
        host = nullptr;
    }
    if (profiler_initialized) {
        CUpti_Profiler_DeInitialize_Params de{CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE, nullptr};
        api.profilerDeInitialize(&de);
        profiler_initialized = false;
    }
    if (callbacks) {
        CuptiCallbacks::get().remove(callbacks);
        callbacks = 0;
    }
}

RangeProfiler::RangeProfiler(RangeProfilerOptions options) : options_(std::move(options)) {}

RangeProfiler::~RangeProfiler() {
    if (session_) {
        session_->teardown();
        session_.reset();
        g_running = false;
    }
}

bool RangeProfiler::running() const { return session_ != nullptr; }

void RangeProfiler::start() {
    if (session_) throw CuptiError("hardware counters: start() called twice without stop() (a tklab bug)");
    if (options_.metrics.empty())
        throw CuptiError("hardware counters: no metrics asked for. Fix: name at least one, or use the default list.");
    if (options_.max_launches == 0)
        throw CuptiError("hardware counters: max_launches is 0: no launch could be measured. Fix: 1 or more.");
    const CuptiLibrary& lib = CuptiLibrary::get();  // throws, saying how to install libcupti
    if (g_running.exchange(true))
        throw CuptiError("hardware counters are already being collected by another RangeProfiler in this process: "
                         "stop() it first (CUPTI allows one profiling session at a time).");
    auto s = std::make_unique<Session>();
    try {
        s->lib = &lib;
        s->api = resolve(lib);
        s->metrics = options_.metrics;
        for (const std::string& m : s->metrics) s->metric_names.push_back(m.c_str());
        s->max_ranges = options_.max_launches;
        s->ctx = current_context(s->device);
        s->begin();
    } catch (...) {
        s->teardown();
        g_running = false;
        throw;
    }
    session_ = std::move(s);
}

CounterResult RangeProfiler::stop() {
    if (!session_) throw CuptiError("hardware counters: stop() without start() (a tklab bug)");
    std::unique_ptr<Session> s = std::move(session_);
    CounterResult out;
    try {
        out = s->collect();
    } catch (...) {
        s->teardown();
        g_running = false;
        throw;
    }
    s->teardown();
    g_running = false;
    return out;
}

std::string CounterResult::warning() const {
    std::string w;
    if (dropped)
        w += std::to_string(dropped) + " launches were not measured: more than the " +
             "counter data holds (RangeProfilerOptions::max_launches); raise it or profile fewer launches. ";
    for (const std::string& p : problems) w += p + ". ";
    if (!w.empty()) w.pop_back();
    return w;
}

CounterResult record_counters(const std::function<void()>& work, const RangeProfilerOptions& options) {
    RangeProfiler p(options);
    p.start();
    work();  // if it throws, ~RangeProfiler tears the session down
    return p.stop();
}

std::string counters_fix(CUptiResult r) {
    switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
        return std::string(
                   "Hardware counters need permission to profile the GPU, which the NVIDIA driver gives only to "
                   "administrators by default. Fix: run as root (or with CAP_SYS_ADMIN), or allow every user: "
                   "`options nvidia NVreg_RestrictProfilingToAdminUsers=0` in a file under /etc/modprobe.d/, then "
                   "reload the driver or reboot (https://developer.nvidia.com/ERR_NVGPUCTRPERM).") +
               kStillWorks;
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
        return std::string("This is a virtual GPU whose profiling is not enabled: the hypervisor's administrator must "
                           "enable profiling for this vGPU.") +
               kStillWorks;
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
        return std::string("This GPU is split into MIG instances, and counters cannot be collected on this one. Fix: "
                           "run on a GPU without MIG (an administrator: `nvidia-smi -i <gpu> -mig 0`), or on a "
                           "MIG configuration your driver can profile.") +
               kStillWorks;
    case CUPTI_ERROR_INVALID_CHIP_NAME:
        return std::string("This libcupti does not know this GPU's chip. Fix: use a CUDA toolkit at least as new as "
                           "the GPU (TKLAB_CUPTI=/path/to/a newer libcupti.so), and a matching driver.") +
               kStillWorks;
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
        return std::string("This GPU or system does not allow hardware counters (the error names which limit): run "
                           "on a whole, non-virtualized GPU of compute capability 7.0 or newer.") +
               kStillWorks;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    case CUPTI_ERROR_HARDWARE_BUSY:
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_DISABLED:
    case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
        return "Another profiler holds the GPU's counters or this process's CUPTI: Nsight Compute or Systems, "
               "cuda-gdb, compute-sanitizer, DCGM's profiling module (an administrator can pause it: `dcgmi profile "
               "--pause`), or tklab's own stall sampling (--profile stalls: collect it in another run). Fix: stop it "
               "or run tklab outside it.";
    case CUPTI_ERROR_INVALID_METRIC_NAME:
        return "A metric name the chip does not know: `ncu --query-metrics` lists those it does.";
    case CUPTI_ERROR_NOT_INITIALIZED:
        return "CUPTI could not reach the CUDA driver: check that nvidia-smi works and that the driver supports "
               "this CUDA version (nvidia-smi shows it).";
    case CUPTI_ERROR_OUT_OF_MEMORY:
        return "Out of memory for the counter data: profile fewer launches (max_launches) or fewer metrics.";
    case CUPTI_ERROR_INVALID_OPERATION:
    case CUPTI_ERROR_INVALID_PARAMETER:
        return "CUPTI was called wrongly (a tklab bug): report it with the command line, `nvidia-smi` and the "
               "CUDA version.";
    default:
        return "Not an error tklab expects: report it with the command line, `nvidia-smi` and the CUDA version.";
    }
}

} // namespace tklab::profiler
