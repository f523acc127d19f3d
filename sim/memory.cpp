// Global allocations and the bounds checks of every memory access (memory.h).
#include "sim/memory.h"

#include "sim/diagnostics.h"
#include "sim/state.h"

#include <algorithm>
#include <atomic>
#include <iterator>
#include <map>
#include <mutex>
#include <sstream>

namespace tklab::sim {

namespace {
std::mutex g_alloc_mu;
std::map<uintptr_t, Allocation> g_allocs;  // read-only while a kernel runs (but for the written bits)
} // namespace

void register_global(const void* p, size_t bytes, const std::string& name, size_t element_bytes) {
    std::lock_guard lk(g_alloc_mu);
    std::shared_ptr<uint8_t[]> written(new uint8_t[(bytes + 7) / 8]());
    g_allocs[uintptr_t(p)] = {uintptr_t(p), bytes, name, std::max<size_t>(element_bytes, 1), std::move(written)};
}
void unregister_global(const void* p) {
    std::lock_guard lk(g_alloc_mu);
    g_allocs.erase(uintptr_t(p));
}

GlobalFootprint registered_footprint() {
    std::lock_guard lk(g_alloc_mu);
    GlobalFootprint f;
    for (const auto& [base, a] : g_allocs) {
        const uint8_t* bits = a.written.get();
        const bool data = bits && std::any_of(bits, bits + (a.bytes + 7) / 8, [](uint8_t b) { return b != 0; });
        (data ? f.data_bytes : f.fresh_bytes) += a.bytes;
        (data ? f.data_elements : f.fresh_elements) += a.bytes / a.element_bytes;
    }
    return f;
}

const Allocation* find_allocation(uintptr_t p, size_t bytes) {
    auto it = g_allocs.upper_bound(p);
    if (it == g_allocs.begin()) return nullptr;
    --it;
    const Allocation& a = it->second;
    if (p >= a.base && p + bytes <= a.base + a.bytes) return &a;
    return nullptr;
}

std::string describe_nearest_allocation(uintptr_t p) {
    auto it = g_allocs.upper_bound(p);
    std::ostringstream s;
    if (it != g_allocs.begin()) {
        auto prev = std::prev(it);
        const Allocation& a = prev->second;
        if (p >= a.base) s << "; it is " << (p - a.base) << " bytes past the start of '" << a.name << "' (" << a.bytes << " bytes)";
    } else if (it != g_allocs.end()) {
        s << "; it is " << (it->first - p) << " bytes before '" << it->second.name << "'";
    }
    if (g_allocs.empty()) s << "; no global memory is registered (allocate with tk::device_buffer)";
    return s.str();
}

void mark_global_written(const void* p, size_t bytes) {
    std::lock_guard lk(g_alloc_mu);
    if (!bytes) return;
    const Allocation* a = find_allocation(uintptr_t(p), bytes);
    if (!a) throw SimError(ErrorKind::usage, "mark_global_written: " + std::to_string(bytes) + " bytes at an address no registered allocation holds");
    a->mark(uintptr_t(p), bytes);
}

void check_shared(const Block& b, const Thread& t, uint32_t addr, uint32_t bytes, const char* what) {
    if (uint64_t(addr) + bytes > b.smem_bytes) {
        std::ostringstream s;
        s << "out-of-bounds shared-memory " << what << " of " << bytes << " bytes at shared address " << hex(addr)
          << "; the block has " << b.smem_bytes << " bytes of dynamic shared memory";
        fault(t, s.str(), "keep shared tiles inside the shared memory requested at launch, or request more");
    }
    if (addr % bytes != 0) {
        std::ostringstream s;
        s << "misaligned shared-memory " << what << " of " << bytes << " bytes at shared address " << hex(addr);
        fault(t, s.str(), "align the address to the access width (" + std::to_string(bytes) + " bytes)");
    }
}

// The allocation the access falls in (a fault if none, or if misaligned).
const Allocation& check_global(const Thread& t, const void* p, uint32_t bytes, const char* what) {
    uintptr_t a = uintptr_t(p);
    const Allocation* al = find_allocation(a, bytes);
    if (!al) {
        std::ostringstream s;
        s << "out-of-bounds global-memory " << what << " of " << bytes << " bytes at address " << hex(a)
          << describe_nearest_allocation(a);
        fault(t, s.str(), "check the index math against the tensor's dimensions");
    }
    if (a % bytes != 0) {
        std::ostringstream s;
        s << "misaligned global-memory " << what << " of " << bytes << " bytes at address " << hex(a);
        fault(t, s.str(), "align the address to the access width (" + std::to_string(bytes) + " bytes)");
    }
    return *al;
}


} // namespace tklab::sim
