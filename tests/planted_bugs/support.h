// What the planted-bug kernels share: seeded inputs and the shared-memory base.
#pragma once
#include <bit>
#include <cstdint>
#include <random>
#include <vector>

#include "tk/tk.h"

namespace planted {

inline std::vector<float> seeded(size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> d(-1.f, 1.f);
    std::vector<float> v(n);
    for (float& x : v) x = d(rng);
    return v;
}

TK_HOST_DEVICE uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }
TK_HOST_DEVICE float value(uint32_t u) { return std::bit_cast<float>(u); }

TK_DEVICE uint32_t smem_base() { return tk::arch::smem_addr(tk::dynamic_shared_memory()); }

} // namespace planted
