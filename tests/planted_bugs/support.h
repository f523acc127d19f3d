// What the planted-bug kernels share: seeded inputs, float bits and the shared-memory base.
#pragma once
#include <bit>
#include <cstdint>
#include <vector>

#include "tk/tk.h"
#include "tk/host/reference.h"

namespace planted {

// Seeded inputs: tk::host::random_values<T>(n, seed).
using tk::host::random_values;

TK_HOST_DEVICE uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }
TK_HOST_DEVICE float value(uint32_t u) { return std::bit_cast<float>(u); }

TK_DEVICE uint32_t smem_base() { return tk::arch::smem_addr(tk::dynamic_shared_memory()); }

} // namespace planted
