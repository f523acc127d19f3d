// libcupti, opened at run time. Linking it directly would make the dynamic
// loader refuse to start tklab_gpu on a machine without it; opened with
// dlopen, a missing libcupti is one clear message and the run goes on
// without what needs it. Also: CUPTI errors as messages with a fix.
#pragma once
#include <cupti.h>
#include <stdexcept>
#include <string>

namespace tklab::profiler {

// A CUPTI problem, said in full: the call, CUPTI's error and what to do.
struct CuptiError : std::runtime_error {
    using std::runtime_error::runtime_error;
    CUptiResult result = CUPTI_SUCCESS;  // CUPTI_SUCCESS when libcupti itself could not be loaded
};

// The CUPTI functions tklab calls, resolved from the loaded library.
struct CuptiLibrary {
    std::string path;     // the file dlopen found
    void* handle = nullptr; // dlopen's handle: other parts resolve what they call with symbol()
    uint32_t version = 0; // cuptiGetVersion: CUPTI's API version at run time
    CUptiResult (*getVersion)(uint32_t*) = nullptr;
    CUptiResult (*getResultString)(CUptiResult, const char**) = nullptr;
    CUptiResult (*getErrorMessage)(CUptiResult, const char**) = nullptr;  // may be absent in old libraries
    CUptiResult (*activityRegisterCallbacks)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc) = nullptr;
    CUptiResult (*activityEnable)(CUpti_ActivityKind) = nullptr;
    CUptiResult (*activityDisable)(CUpti_ActivityKind) = nullptr;
    CUptiResult (*activityFlushAll)(uint32_t) = nullptr;
    CUptiResult (*activityGetNextRecord)(uint8_t*, size_t, CUpti_Activity**) = nullptr;
    CUptiResult (*activityGetNumDroppedRecords)(CUcontext, uint32_t, size_t*) = nullptr;

    // Loaded once per process: $TKLAB_CUPTI when set, else libcupti.so.<CUDA
    // major> and libcupti.so through the usual library path, then the CUDA
    // toolkit's folders. Throws CuptiError saying where it looked and how to
    // fix it, or that the library is older than the headers tklab was built with.
    static const CuptiLibrary& get();

    // Throws CuptiError when r is not CUPTI_SUCCESS: "CUPTI: <call> failed:
    // <CUPTI's name> (<CUPTI's description>). <fix>".
    void check(CUptiResult r, const char* call) const;
    std::string message(CUptiResult r, const char* call) const;

    // A further CUPTI function by name, for the parts that use more of CUPTI
    // (counters, stall sampling) and keep their own tables. Throws CuptiError
    // naming the function and the library when it is absent.
    void* symbol(const char* name) const;
    template <class F>
    F function(const char* name) const { return reinterpret_cast<F>(symbol(name)); }
};

// What to do about a CUPTI error, for kernel timing (the Activity API).
// Exposed so the CPU tests can read it; "" never: every code gets advice.
std::string cupti_fix(CUptiResult r);

} // namespace tklab::profiler
