// The one CUPTI callback subscriber of the process (see cupti_callbacks.h).
#include "profiler/gpu/cupti_callbacks.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include "profiler/gpu/cupti_library.h"

namespace tklab::profiler {

namespace {

struct Hub {
    std::mutex m;
    CUpti_SubscriberHandle subscriber = nullptr;
    std::set<CallbackId> enabled;
    struct Entry {
        std::vector<CallbackId> ids;
        CallbackHandler handler;
    };
    std::map<int, Entry> handlers;
    int next = 1;
};

Hub& hub() {
    static Hub h;
    return h;
}

void CUPTIAPI dispatch(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
    Hub& h = hub();
    std::lock_guard<std::mutex> lock(h.m);
    const CallbackId key{domain, id};
    for (auto& [token, e] : h.handlers)
        if (std::find(e.ids.begin(), e.ids.end(), key) != e.ids.end()) e.handler(domain, id, data);
}

} // namespace

CuptiCallbacks& CuptiCallbacks::get() {
    static CuptiCallbacks c;
    return c;
}

int CuptiCallbacks::add(const std::vector<CallbackId>& ids, CallbackHandler handler) {
    const CuptiLibrary& lib = CuptiLibrary::get();
    Hub& h = hub();
    std::lock_guard<std::mutex> lock(h.m);
    if (!h.subscriber) {
        auto subscribe = lib.function<decltype(&cuptiSubscribe_v2)>("cuptiSubscribe_v2");
        char other[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = {};
        CUpti_SubscriberParams p{};
        p.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
        p.subscriberName = "tklab";
        p.oldSubscriberName = other;
        p.oldSubscriberSize = sizeof other - 1;
        const CUptiResult r = subscribe(&h.subscriber, dispatch, nullptr, &p);
        if (r != CUPTI_SUCCESS) {
            h.subscriber = nullptr;
            CuptiError e(lib.message(r, "cuptiSubscribe_v2") +
                         (other[0] ? std::string(" (CUPTI names the subscriber already there: ") + other + ")" : ""));
            e.result = r;
            throw e;
        }
    }
    auto enable = lib.function<decltype(&cuptiEnableCallback)>("cuptiEnableCallback");
    for (const CallbackId& id : ids) {
        if (h.enabled.count(id)) continue;
        lib.check(enable(1, h.subscriber, id.first, id.second), "cuptiEnableCallback");
        h.enabled.insert(id);
    }
    const int token = h.next++;
    h.handlers[token] = {ids, std::move(handler)};
    return token;
}

void CuptiCallbacks::remove(int token) {
    Hub& h = hub();
    std::lock_guard<std::mutex> lock(h.m);
    h.handlers.erase(token);
    if (!h.handlers.empty() || !h.subscriber) return;
    // Nobody left: give the subscriber back, so a part of tklab not yet on the
    // hub (or another tool) can subscribe later in the process.
    const CuptiLibrary& lib = CuptiLibrary::get();  // loaded: add() succeeded
    lib.function<decltype(&cuptiUnsubscribe)>("cuptiUnsubscribe")(h.subscriber);
    h.subscriber = nullptr;
    h.enabled.clear();
}

} // namespace tklab::profiler
