// The intra-kernel region buffer: what tk::region (tk/ops/warp/debug/region.h)
// writes on the GPU and profiler/decode/regions.h reads back. Plain C++, no
// CUDA and no other tklab header: the tile library owns this layout, and the
// device code, the launch (tk/host/launch.h) and the profiler's CPU decoder
// all include it from here.
//
//   [Header, 64 bytes][counts: uint32 per warp][pad to 16][records: warps x records_per_warp]
//
// Slice w belongs to the launch's warp w = block linear index x warps per
// block + warp in block, and holds records [w * records_per_warp, (w + 1) *
// records_per_warp). counts[w] is how many regions warp w began; those beyond
// records_per_warp were dropped, never written (so dropped = count - capacity).
#pragma once
#include <cstddef>
#include <cstdint>

namespace tklab::regions {

constexpr uint32_t kMagic = 0x47524b54u;  // "TKRG" in little-endian bytes
constexpr uint32_t kVersion = 1;

// A region's id: 32-bit FNV-1a of its name, computed at compile time in the
// kernel, so the device needs no string table; the decoder hashes the names it
// is given to map ids back.
constexpr uint32_t fnv1a32(const char* s) {
    uint32_t h = 2166136261u;
    for (; *s; ++s) { h ^= uint8_t(*s); h *= 16777619u; }
    return h;
}

// One region of one warp: 48 bytes, three 16-byte stores. The warp's first
// active lane reserves the slot and writes the first and last 16 bytes when
// the region begins, and the middle 16 when it ends, so an open region holds
// one register (the slot) and the marker's cost falls mostly at its begin.
struct Record {
    uint64_t t0, c0;   // at begin: %globaltimer (ns, one clock for every SM) and clock64 (this SM's cycles)
    uint64_t t1, c1;   // at end, the same
    uint32_t id;       // fnv1a32 of the region's name
    uint32_t block;    // linear block index (x fastest)
    uint16_t warp;     // warp within the block
    uint16_t smid;     // %smid
    uint32_t line;     // source line of the tk::region
};
static_assert(sizeof(Record) == 48, "the device writes a record as three 16-byte stores");

struct Header {
    uint32_t magic = kMagic;
    uint32_t version = kVersion;
    uint32_t record_bytes = sizeof(Record);
    uint32_t warps = 0;              // slices
    uint32_t records_per_warp = 0;   // capacity of a slice
    uint32_t warps_per_block = 0;    // of the launch (0 when unknown)
    uint32_t grid[3] = {1, 1, 1};    // the launch's shape (written by the host before the launch)
    uint32_t block[3] = {1, 1, 1};
    uint32_t lost = 0;               // regions ended by warps beyond `warps` (no slice): counted, not written
    uint32_t reserved[3] = {0, 0, 0};
};
static_assert(sizeof(Header) == 64, "the header is 64 bytes");

constexpr size_t kCountsOffset = sizeof(Header);
constexpr size_t records_offset(uint32_t warps) { return (kCountsOffset + 4 * size_t(warps) + 15) / 16 * 16; }
constexpr size_t buffer_bytes(uint32_t warps, uint32_t records_per_warp) {
    return records_offset(warps) + size_t(warps) * records_per_warp * sizeof(Record);
}

// What a kernel needs to record: copied to the kernel's translation unit's
// constant symbol before each launch (tk/host/launch.h). records == nullptr
// means recording is off, and a marker branches past its work.
struct DeviceView {
    Record* records = nullptr;
    uint32_t* counts = nullptr;
    uint32_t* lost = nullptr;
    uint32_t warps = 0;
    uint32_t records_per_warp = 0;
};

// How a launch finds the buffer without changing kernel signatures: the
// profiler (profiler/gpu/regions_session.h) sets a target; tk::launch asks it,
// before each launch, where that launch records (it may allocate a buffer
// sized for the launch's warps).
class Target {
public:
    virtual ~Target() = default;
    // grid and block as x, y, z. A view with records == nullptr: do not record this launch.
    virtual DeviceView prepare(const char* kernel, const uint32_t grid[3], const uint32_t block[3]) = 0;
};

// The current target (host side, one per program); nullptr: no recording.
inline Target*& current_target() {
    static Target* t = nullptr;
    return t;
}

} // namespace tklab::regions
