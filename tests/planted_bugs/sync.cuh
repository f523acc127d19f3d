// Synchronisation misuse: barriers and mbarriers used in a way no schedule
// can make work. The simulator says which rule was broken, not just "stuck".
#pragma once
#include "planted_bugs/planted_bugs.h"
#include "planted_bugs/support.h"

namespace planted::sync {

// Warps with no rows left return early; the others then wait at a block
// barrier the returned warps never reach.
__global__ void syncthreads_after_early_return(const float* x, float* out, int rows) {
    const uint32_t base = smem_base();
    const int w = tk::warpid(), lane = tk::laneid();
    if (w >= rows) return;  // the mistake: these warps never reach the barrier below
    uint32_t v[1];
    tk::arch::ld_global<1>(v, x + 32 * w + lane);
    tk::arch::st_shared<1>(base + 4 * uint32_t(32 * w + lane), v);
    tk::arch::syncthreads();  // BUG syncthreads_after_early_return
    uint32_t r[1];
    tk::arch::ld_shared<1>(r, base + 4 * uint32_t(32 * ((w + 1) % rows) + lane));
    tk::arch::st_global<1>(out + 32 * w + lane, r);
}
inline void run_syncthreads_after_early_return() {
    tk::device_buffer<float> x(128, random_values<float>(128, 31), "x");
    tk::device_buffer<float> out(128, "out");
    tk::launch("syncthreads_after_early_return", syncthreads_after_early_return, dim3(1), dim3(128), 512, (const float*)x.data(),
               out.data(), 2);
}

// The first warpgroup (128 threads) synchronises on a named barrier that
// counts 256 threads; the second warpgroup never uses it.
__global__ void named_barrier_count_too_large(const float* x, float* out) {
    const uint32_t base = smem_base();
    const int t = int(threadIdx.x);
    uint32_t v[1];
    tk::arch::ld_global<1>(v, x + t);
    if (t < 128) {
        tk::arch::st_shared<1>(base + 4 * uint32_t(t), v);
        tk::arch::bar_sync(1, 256);  // BUG named_barrier_count_too_large
        tk::arch::ld_shared<1>(v, base + 4 * uint32_t(127 - t));
    }
    tk::arch::st_global<1>(out + t, v);
}
inline void run_named_barrier_count_too_large() {
    tk::device_buffer<float> x(256, random_values<float>(256, 32), "x");
    tk::device_buffer<float> out(256, "out");
    tk::launch("named_barrier_count_too_large", named_barrier_count_too_large, dim3(1), dim3(256), 512, (const float*)x.data(), out.data());
}

// Warps 0 and 1 stage their values behind a __syncthreads() inside their
// branch; every warp then meets at a second one. The hardware counts the
// branch's barrier and the second as one round, and warps 0-1 then wait at
// the second for warps that have gone past it.
__global__ void syncthreads_in_branch(const float* x, float* out) {
    const uint32_t base = smem_base();
    const int w = tk::warpid(), lane = tk::laneid();
    uint32_t v[1];
    tk::arch::ld_global<1>(v, x + 32 * w + lane);
    if (w < 2) {
        tk::arch::st_shared<1>(base + 4 * uint32_t(32 * w + lane), v);
        tk::arch::syncthreads();  // BUG syncthreads_in_branch
    }
    tk::arch::syncthreads();
    tk::arch::ld_shared<1>(v, base + 4 * uint32_t(lane));
    tk::arch::st_global<1>(out + 32 * w + lane, v);
}
inline void run_syncthreads_in_branch() {
    tk::device_buffer<float> x(128, random_values<float>(128, 33), "x");
    tk::device_buffer<float> out(128, "out");
    tk::launch("syncthreads_in_branch", syncthreads_in_branch, dim3(1), dim3(128), 512, (const float*)x.data(), out.data());
}

// All 256 threads synchronise on a named barrier that counts 128: the first
// four warps to arrive release it without the other four, whose values
// they then read.
__global__ void named_barrier_count_too_small(const float* x, float* out) {
    const uint32_t base = smem_base();
    const int t = int(threadIdx.x);
    uint32_t v[1];
    tk::arch::ld_global<1>(v, x + t);
    tk::arch::st_shared<1>(base + 4 * uint32_t(t), v);
    tk::arch::bar_sync(1, 128);  // BUG named_barrier_count_too_small
    tk::arch::ld_shared<1>(v, base + 4 * uint32_t(255 - t));
    tk::arch::st_global<1>(out + t, v);
}
inline void run_named_barrier_count_too_small() {
    tk::device_buffer<float> x(256, random_values<float>(256, 34), "x");
    tk::device_buffer<float> out(256, "out");
    tk::launch("named_barrier_count_too_small", named_barrier_count_too_small, dim3(1), dim3(256), 1024, (const float*)x.data(), out.data());
}

// An mbarrier counting one arrival per phase, which every lane of the warp
// arrives on (it should be one elected lane, or a count of 32).
__global__ void mbarrier_extra_arrivals(float* out) {
    tk::semaphore& bar = *reinterpret_cast<tk::semaphore*>(tk::dynamic_shared_memory());
    const int lane = tk::laneid();
    if (lane == 0) tk::init_semaphore(bar, 1);
    tk::arch::syncwarp();
    tk::arrive(bar);  // BUG mbarrier_extra_arrivals
    tk::wait(bar, 0);
    const uint32_t o[1] = {bits(float(lane))};
    tk::arch::st_global<1>(out + lane, o);
}
inline void run_mbarrier_extra_arrivals() {
    tk::device_buffer<float> out(32, "out");
    tk::launch("mbarrier_extra_arrivals", mbarrier_extra_arrivals, dim3(1), dim3(32), 64, out.data());
}

// The first wait on an mbarrier must wait for phase 0 (parity 0); this one
// waits for parity 1, a phase nothing will complete.
__global__ void mbarrier_wrong_parity(float* out) {
    tk::semaphore& bar = *reinterpret_cast<tk::semaphore*>(tk::dynamic_shared_memory());
    const int lane = tk::laneid();
    if (lane == 0) tk::init_semaphore(bar, 32);
    tk::arch::syncwarp();
    tk::arrive(bar);
    tk::wait(bar, 1);  // BUG mbarrier_wrong_parity
    const uint32_t o[1] = {bits(float(lane))};
    tk::arch::st_global<1>(out + lane, o);
}
inline void run_mbarrier_wrong_parity() {
    tk::device_buffer<float> out(32, "out");
    tk::launch("mbarrier_wrong_parity", mbarrier_wrong_parity, dim3(1), dim3(32), 64, out.data());
}

// Warp 0 fills a shared stage twice, warp 1 reads it twice, a full and an
// empty mbarrier between them. Each lane of warp 1 keeps its own copy of the
// phase bit, and only lane 0 flips its copy: at the second wait lanes 1-31 ask
// for the phase that completed first, and on the GPU go on at once.
__global__ void mbarrier_diverged_phase(const float* x, float* out) {
    char* smem = tk::dynamic_shared_memory();
    tk::semaphore& full = *reinterpret_cast<tk::semaphore*>(smem);
    tk::semaphore& empty = *reinterpret_cast<tk::semaphore*>(smem + 8);
    const uint32_t data = smem_base() + 64;
    const int lane = tk::laneid(), w = tk::warpid();
    if (threadIdx.x == 0) {
        tk::init_semaphore(full, 32);
        tk::init_semaphore(empty, 32);
    }
    tk::arch::syncthreads();
    int phase = 0;  // this lane's copy of the phase bit
    for (int k = 0; k < 2; ++k) {
        uint32_t v[1];
        if (w == 0) {
            if (k > 0) tk::wait(empty, 0);
            tk::arch::ld_global<1>(v, x + 32 * k + lane);
            tk::arch::st_shared<1>(data + 4 * uint32_t(lane), v);
            tk::arrive(full);
        } else {
            tk::wait(full, phase);  // BUG mbarrier_diverged_phase
            if (lane == 0) phase ^= 1;  // the mistake: the other lanes keep phase 0
            tk::arch::ld_shared<1>(v, data + 4 * uint32_t(31 - lane));
            tk::arch::st_global<1>(out + 32 * k + lane, v);
            tk::arrive(empty);
        }
    }
}
inline void run_mbarrier_diverged_phase() {
    tk::device_buffer<float> x(64, random_values<float>(64, 34), "x");
    tk::device_buffer<float> out(64, "out");
    tk::launch("mbarrier_diverged_phase", mbarrier_diverged_phase, dim3(1), dim3(64), 256, (const float*)x.data(), out.data());
}

inline const add_bug bugs[] = {
    add_bug({"syncthreads_after_early_return", Kind::sync, "__syncthreads() after some warps returned early (part of the block)", __FILE__, false, true, run_syncthreads_after_early_return}),
    add_bug({"named_barrier_count_too_large", Kind::sync, "a named barrier counting 256 threads used by 128", __FILE__, false, true, run_named_barrier_count_too_large}),
    add_bug({"syncthreads_in_branch", Kind::sync, "a __syncthreads() inside a branch only warps 0-1 take, then one all warps reach", __FILE__, false, true, run_syncthreads_in_branch}),
    add_bug({"named_barrier_count_too_small", Kind::sync, "a named barrier counting 128 threads used by 256", __FILE__, false, false, run_named_barrier_count_too_small}),
    add_bug({"mbarrier_extra_arrivals", Kind::sync, "32 arrivals on an mbarrier initialised for 1", __FILE__, false, false, run_mbarrier_extra_arrivals}),
    add_bug({"mbarrier_diverged_phase", Kind::sync, "lanes of a warp keep their own copies of an mbarrier's phase bit, and only lane 0 flips its copy", __FILE__, false, false, run_mbarrier_diverged_phase}),
    add_bug({"mbarrier_wrong_parity", Kind::sync, "a wait for an mbarrier phase that can never complete (wrong parity)", __FILE__, false, true, run_mbarrier_wrong_parity}),
};

} // namespace planted::sync
