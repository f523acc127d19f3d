// CUPTI's callback API, shared. CUPTI allows one callback subscriber per
// process (a second cuptiSubscribe fails with
// CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED), and more than one part of
// tklab needs callbacks: kernel names for hardware counters (launches), stall
// sampling (module loads). Each adds its handler here; the hub holds the one
// subscriber while any handler is registered and calls every handler that
// asked for a callback's (domain, id).
#pragma once
#include <cupti.h>
#include <functional>
#include <utility>
#include <vector>

namespace tklab::profiler {

using CallbackId = std::pair<CUpti_CallbackDomain, CUpti_CallbackId>;
// Called on the thread that made the CUDA call. Must be quick, must not throw,
// and must not call CUDA or add/remove handlers (the hub's lock is held).
using CallbackHandler = std::function<void(CUpti_CallbackDomain, CUpti_CallbackId, const void* data)>;

class CuptiCallbacks {
public:
    static CuptiCallbacks& get();

    // Subscribes on first use, enables `ids`, and calls `handler` for them
    // until remove(). Returns a token for remove(). Throws CuptiError when
    // CUPTI refuses (another tool, e.g. Nsight, holds the subscriber: the
    // message names it when CUPTI says).
    int add(const std::vector<CallbackId>& ids, CallbackHandler handler);
    // Removes a handler. The last one out unsubscribes, leaving the slot free
    // for code that subscribes on its own.
    void remove(int token);

private:
    CuptiCallbacks() = default;
};

} // namespace tklab::profiler
