// shfl.sync (idx/up/down/bfly) on 32-bit values; float helpers on top.
#pragma once
#include "tk/common/base.h"
#include <cstring>

namespace tk::arch {

#if defined(TK_SIM)
namespace detail {
inline uint32_t shfl(tklab::sim::ShflMode mode, uint32_t mask, uint32_t v, uint32_t src, const src_loc& loc) {
    tklab::sim::LaneOp op{tklab::sim::Op::shfl};
    op.shfl_mode = mode; op.mask = mask; op.shfl_lane = src; op.data[0] = v;
    op.file = loc.file; op.line = loc.line;
    tklab::sim::issue(op);
    return op.data[0];
}
} // namespace detail
#endif

TK_DEVICE uint32_t shfl_idx(uint32_t mask, uint32_t v, int src_lane, TK_LOC) {
#if defined(TK_GPU)
    return __shfl_sync(mask, v, src_lane);
#else
    return detail::shfl(tklab::sim::ShflMode::idx, mask, v, uint32_t(src_lane), loc);
#endif
}
TK_DEVICE uint32_t shfl_xor(uint32_t mask, uint32_t v, int lane_mask, TK_LOC) {
#if defined(TK_GPU)
    return __shfl_xor_sync(mask, v, lane_mask);
#else
    return detail::shfl(tklab::sim::ShflMode::bfly, mask, v, uint32_t(lane_mask), loc);
#endif
}
TK_DEVICE uint32_t shfl_up(uint32_t mask, uint32_t v, int delta, TK_LOC) {
#if defined(TK_GPU)
    return __shfl_up_sync(mask, v, delta);
#else
    return detail::shfl(tklab::sim::ShflMode::up, mask, v, uint32_t(delta), loc);
#endif
}
TK_DEVICE uint32_t shfl_down(uint32_t mask, uint32_t v, int delta, TK_LOC) {
#if defined(TK_GPU)
    return __shfl_down_sync(mask, v, delta);
#else
    return detail::shfl(tklab::sim::ShflMode::down, mask, v, uint32_t(delta), loc);
#endif
}

// Bit-preserving float <-> register moves for shuffling floats.
TK_HOST_DEVICE uint32_t f2u(float f) {
#if defined(__CUDA_ARCH__)
    return __float_as_uint(f);
#else
    uint32_t u; std::memcpy(&u, &f, 4); return u;
#endif
}
TK_HOST_DEVICE float u2f(uint32_t u) {
#if defined(__CUDA_ARCH__)
    return __uint_as_float(u);
#else
    float f; std::memcpy(&f, &u, 4); return f;
#endif
}

} // namespace tk::arch
