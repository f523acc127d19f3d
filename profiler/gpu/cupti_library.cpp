// Opening libcupti at run time, and CUPTI's errors as messages (see cupti_library.h).
#include "profiler/gpu/cupti_library.h"

#include <algorithm>
#include <cstdlib>
#include <dlfcn.h>
#include <mutex>
#include <vector>

namespace tklab::profiler {

namespace {

// CUPTI_API_VERSION is CUDA major * 10000 + ...: CUDA 13 ships libcupti.so.13.
constexpr int kCudaMajor = CUPTI_API_VERSION / 10000;

std::vector<std::string> candidates() {
    const std::string so = "libcupti.so." + std::to_string(kCudaMajor);
    std::vector<std::string> c;
    if (const char* env = std::getenv("TKLAB_CUPTI"); env && *env) c.push_back(env);
    c.push_back(so);
    c.push_back("libcupti.so");
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
        if (const char* home = std::getenv(var); home && *home) {
            c.push_back(std::string(home) + "/lib64/" + so);
            c.push_back(std::string(home) + "/extras/CUPTI/lib64/" + so);
        }
    c.push_back("/usr/local/cuda/lib64/" + so);
    c.push_back("/usr/local/cuda/extras/CUPTI/lib64/" + so);
    c.push_back("/usr/local/cuda-" + std::to_string(kCudaMajor) + ".0/lib64/" + so);
    std::vector<std::string> unique;  // CUDA_HOME is often /usr/local/cuda itself
    for (const std::string& x : c)
        if (std::find(unique.begin(), unique.end(), x) == unique.end()) unique.push_back(x);
    return unique;
}

template <class F>
void resolve(void* lib, const std::string& path, F& fn, const char* name, bool required = true) {
    fn = reinterpret_cast<F>(dlsym(lib, name));
    if (!fn && required) {
        CuptiError e("CUPTI: " + path + " has no " + name + ": it is not a CUPTI library of CUDA " +
                     std::to_string(kCudaMajor) + " or newer. Fix: point TKLAB_CUPTI at the libcupti.so." +
                     std::to_string(kCudaMajor) + " of the CUDA toolkit tklab was built with.");
        throw e;
    }
}

CuptiLibrary load() {
    std::string tried;
    void* lib = nullptr;
    std::string found;
    for (const std::string& c : candidates()) {
        lib = dlopen(c.c_str(), RTLD_NOW | RTLD_GLOBAL);
        if (lib) { found = c; break; }
        const char* why = dlerror();
        tried += "\n  " + (why ? std::string(why) : c);  // dlerror names the file
    }
    if (!lib)
        throw CuptiError(
            "CUPTI: libcupti, NVIDIA's profiling library, was not found, so GPU kernel timing cannot run. Tried:" + tried +
            "\nFix: install CUPTI of CUDA " + std::to_string(kCudaMajor) + " (it comes with the CUDA toolkit in "
            "<cuda>/lib64; on Debian/Ubuntu with NVIDIA's repository: apt install cuda-cupti-" + std::to_string(kCudaMajor) +
            "-0), then add its folder to LD_LIBRARY_PATH or set TKLAB_CUPTI=/path/to/libcupti.so." +
            std::to_string(kCudaMajor) + ". The kernel still runs and is timed with CUDA events without it.");
    CuptiLibrary l;
    l.path = found;
    l.handle = lib;
    char real[4096];
    if (dlinfo(lib, RTLD_DI_ORIGIN, real) == 0) l.path = std::string(real) + "/" + found.substr(found.rfind('/') + 1);
    resolve(lib, l.path, l.getVersion, "cuptiGetVersion");
    resolve(lib, l.path, l.getResultString, "cuptiGetResultString");
    resolve(lib, l.path, l.getErrorMessage, "cuptiGetErrorMessage", false);
    resolve(lib, l.path, l.activityRegisterCallbacks, "cuptiActivityRegisterCallbacks");
    resolve(lib, l.path, l.activityEnable, "cuptiActivityEnable");
    resolve(lib, l.path, l.activityDisable, "cuptiActivityDisable");
    resolve(lib, l.path, l.activityFlushAll, "cuptiActivityFlushAll");
    resolve(lib, l.path, l.activityGetNextRecord, "cuptiActivityGetNextRecord");
    resolve(lib, l.path, l.activityGetNumDroppedRecords, "cuptiActivityGetNumDroppedRecords");
    l.check(l.getVersion(&l.version), "cuptiGetVersion");
    // Activity records are read through the struct of the headers tklab was
    // built with (CUpti_ActivityKernel10 for CUDA 13): an older library lays
    // them out differently.
    if (l.version < CUPTI_API_VERSION)
        throw CuptiError("CUPTI: " + l.path + " is CUPTI API version " + std::to_string(l.version) +
                         ", older than the headers tklab was built with (" + std::to_string(CUPTI_API_VERSION) +
                         "); its activity records would be misread. Fix: use the libcupti of the CUDA toolkit tklab "
                         "was built with (TKLAB_CUPTI=/path/to/libcupti.so." + std::to_string(kCudaMajor) +
                         "), or rebuild tklab with this one's toolkit.");
    return l;
}

} // namespace

const CuptiLibrary& CuptiLibrary::get() {
    // Loaded once; a failure is kept and thrown again, with the same message, to every caller.
    static std::once_flag once;
    static CuptiLibrary lib;
    static std::string failure;
    std::call_once(once, [] {
        try { lib = load(); } catch (const CuptiError& e) { failure = e.what(); }
    });
    if (!failure.empty()) throw CuptiError(failure);
    return lib;
}

std::string cupti_fix(CUptiResult r) {
    switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
        return "Kernel timing (CUPTI's Activity API) does not need the performance-counter permission that "
               "NVreg_RestrictProfilingToAdminUsers controls: only hardware counters and stall sampling "
               "(--profile counters,stalls) do. Getting this error here means the driver or the hypervisor "
               "refuses profiling to this process altogether (a vGPU or container without profiling access). "
               "Ask for profiling to be enabled on this GPU, or run without --profile timing; "
               "https://developer.nvidia.com/CUPTI_ERROR_INSUFFICIENT_PRIVILEGES explains the settings.";
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
        return "Another tool already uses CUPTI in this process (Nsight Systems, Nsight Compute, cuda-gdb, or a "
               "second profiler): run tklab outside it, or drop --profile timing and let that tool time the kernels.";
    case CUPTI_ERROR_NOT_INITIALIZED:
        return "CUPTI could not reach the CUDA driver: check that nvidia-smi works and that the driver supports "
               "CUDA " + std::to_string(kCudaMajor) + " (nvidia-smi shows the CUDA version it supports).";
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
        return "This GPU or system does not allow CUPTI tracing (the error names which limit): run on a whole, "
               "non-virtualized GPU, or without --profile timing.";
    case CUPTI_ERROR_DISABLED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_HARDWARE_BUSY:
        return "Another profiler is active on this GPU or in this process: stop it (or run tklab outside it) and "
               "try again.";
    case CUPTI_ERROR_INVALID_OPERATION:
        return "CUPTI was called out of order (a tklab bug): report it with the command line that did this.";
    case CUPTI_ERROR_OUT_OF_MEMORY:
        return "The host ran out of memory for CUPTI's buffers: free memory or profile fewer kernels.";
    default:
        return "Not an error tklab expects: report it with the command line, `nvidia-smi` and the CUDA version.";
    }
}

std::string CuptiLibrary::message(CUptiResult r, const char* call) const {
    const char* name = nullptr;
    const char* text = nullptr;
    if (!getResultString || getResultString(r, &name) != CUPTI_SUCCESS || !name) name = nullptr;
    if (!getErrorMessage || getErrorMessage(r, &text) != CUPTI_SUCCESS || !text) text = nullptr;
    std::string m = std::string("CUPTI: ") + call + " failed: " +
                    (name ? std::string(name) : "error " + std::to_string(int(r)));
    if (text) {
        std::string t = text;  // CUPTI's descriptions may end in spaces or a newline
        while (!t.empty() && (t.back() == ' ' || t.back() == '\n' || t.back() == '\r' || t.back() == '.')) t.pop_back();
        if (!t.empty() && (!name || t != name)) m += " (" + t + ")";
    }
    return m + ". " + cupti_fix(r);
}

void* CuptiLibrary::symbol(const char* name) const {
    void* f = handle ? dlsym(handle, name) : nullptr;
    if (!f)
        throw CuptiError("CUPTI: " + path + " has no " + name + ": this libcupti is older than the CUDA " +
                         std::to_string(kCudaMajor) + " one tklab was built with. Fix: point TKLAB_CUPTI at the "
                         "libcupti.so." + std::to_string(kCudaMajor) + " of that toolkit.");
    return f;
}

void CuptiLibrary::check(CUptiResult r, const char* call) const {
    if (r == CUPTI_SUCCESS) return;
    CuptiError e(message(r, call));
    e.result = r;
    throw e;
}

} // namespace tklab::profiler
