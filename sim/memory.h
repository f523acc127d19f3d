// Memory as the simulated kernel sees it: the registry of global allocations
// (what tk::device_buffer registers, with a written bit per byte for the
// uninitialised-read finder) and the bounds and alignment checks every global
// and shared access goes through. A bad access is a fault naming the kernel
// line, never a host crash.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace tklab::sim {

struct Block;
struct Thread;

struct Allocation {
    uintptr_t base;
    size_t bytes;
    std::string name;
    size_t element_bytes = 1;
    // One bit per byte: written by the host (an upload) or by a kernel. Blocks
    // on several host threads may set bits of one byte at once: atomic.
    std::shared_ptr<uint8_t[]> written;
    void mark(uintptr_t a, size_t n) const {
        for (size_t i = a - base, end = i + n; i < end; ++i)
            std::atomic_ref<uint8_t>(written[i / 8]).fetch_or(uint8_t(1u << (i % 8)), std::memory_order_relaxed);
    }
    // The first byte of [a, a + n) nothing wrote, or none.
    std::optional<uintptr_t> first_unwritten(uintptr_t a, size_t n) const {
        for (size_t i = a - base, end = i + n; i < end; ++i)
            if (!(std::atomic_ref<uint8_t>(written[i / 8]).load(std::memory_order_relaxed) >> (i % 8) & 1)) return base + i;
        return std::nullopt;
    }
};

// The registered allocation holding [p, p + bytes), or nullptr. Read-only
// while a kernel runs (but for the written bits).
const Allocation* find_allocation(uintptr_t p, size_t bytes);
// Where p lies relative to the nearest allocation, for fault messages ("; it is ...").
std::string describe_nearest_allocation(uintptr_t p);

// A shared-memory access of `bytes` at `addr`: inside the block's dynamic
// shared memory and aligned to its width, else a fault at the thread's line.
void check_shared(const Block& b, const Thread& t, uint32_t addr, uint32_t bytes, const char* what);
// A global access: the allocation it falls in (a fault if none, or if misaligned).
const Allocation& check_global(const Thread& t, const void* p, uint32_t bytes, const char* what);

} // namespace tklab::sim
