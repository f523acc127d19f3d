// Races: shared-memory accesses by different threads, at least one a write,
// that nothing orders. The report names both accesses and what is missing.
#pragma once
#include "planted_bugs/planted_bugs.h"
#include "planted_bugs/support.h"

namespace planted::races {

// Each thread stages its value in shared memory and the last warp adds up
// the whole block's, but no barrier makes it wait for the other warps.
__global__ void missing_syncthreads(const float* x, float* out) {
    const uint32_t base = smem_base();
    const int t = int(threadIdx.x), lane = tk::laneid();
    uint32_t v[1];
    tk::arch::ld_global<1>(v, x + t);
    tk::arch::st_shared<1>(base + 4 * uint32_t(t), v);  // BUG missing_syncthreads
    // missing: tk::arch::syncthreads();
    if (tk::warpid() == 3) {
        float s = 0;
        for (int w = 0; w < 4; ++w) {
            uint32_t r[1];
            tk::arch::ld_shared<1>(r, base + 4 * uint32_t(32 * w + lane));  // BUG missing_syncthreads
            s += value(r[0]);
        }
        const uint32_t o[1] = {bits(s)};
        tk::arch::st_global<1>(out + lane, o);
    }
}
inline void run_missing_syncthreads() {
    tk::device_buffer<float> x(128, random_values<float>(128, 11), "x");
    tk::device_buffer<float> out(32, "out");
    tk::launch("missing_syncthreads", missing_syncthreads, dim3(1), dim3(128), 512, (const float*)x.data(), out.data());
}

// Lane 0 computes a scale and shares it through shared memory; the other
// lanes read it with no __syncwarp() between the write and their reads.
__global__ void missing_syncwarp(const float* x, float* out) {
    const uint32_t base = smem_base();
    const int lane = tk::laneid();
    uint32_t v[1];
    tk::arch::ld_global<1>(v, x + lane);
    if (lane == 0) {
        const uint32_t scale[1] = {bits(2.0f * value(v[0]))};
        tk::arch::st_shared<1>(base, scale);  // BUG missing_syncwarp
    }
    // missing: tk::arch::syncwarp();
    uint32_t s[1];
    tk::arch::ld_shared<1>(s, base);  // BUG missing_syncwarp
    const uint32_t o[1] = {bits(value(v[0]) * value(s[0]))};
    tk::arch::st_global<1>(out + lane, o);
}
inline void run_missing_syncwarp() {
    tk::device_buffer<float> x(32, random_values<float>(32, 12), "x");
    tk::device_buffer<float> out(32, "out");
    tk::launch("missing_syncwarp", missing_syncwarp, dim3(1), dim3(32), 64, (const float*)x.data(), out.data());
}

// Warp 0 streams chunks through one shared buffer that every warp reads.
// The barrier after the write is there; the one after the reads is not, so
// the next chunk's write can land while other warps still read this one.
__global__ void buffer_reused_too_soon(const float* x, float* out, int chunks) {
    const uint32_t base = smem_base();
    const int lane = tk::laneid(), w = tk::warpid();
    float acc = 0;
    for (int c = 0; c < chunks; ++c) {
        if (w == 0) {
            uint32_t v[1];
            tk::arch::ld_global<1>(v, x + 32 * c + lane);
            tk::arch::st_shared<1>(base + 4 * uint32_t(lane), v);  // BUG buffer_reused_too_soon
        }
        tk::arch::syncthreads();
        uint32_t r[1];
        tk::arch::ld_shared<1>(r, base + 4 * uint32_t((lane + w) % 32));  // BUG buffer_reused_too_soon
        acc += value(r[0]);
        // missing: tk::arch::syncthreads();
    }
    const uint32_t o[1] = {bits(acc)};
    tk::arch::st_global<1>(out + 32 * w + lane, o);
}
inline void run_buffer_reused_too_soon() {
    tk::device_buffer<float> x(128, random_values<float>(128, 13), "x");
    tk::device_buffer<float> out(128, "out");
    tk::launch("buffer_reused_too_soon", buffer_reused_too_soon, dim3(1), dim3(128), 128, (const float*)x.data(), out.data(), 4);
}

// Five warps read a shared value; four of them hand it on to warp 0 through
// a named barrier, which orders their reads before warp 0 overwrites it, but
// not warp 1's, whose read races with the write. (A finder that keeps only a
// few readers per word loses warp 1's, the oldest.)
__global__ void write_after_many_readers(const float* x, float* out) {
    const uint32_t base = smem_base();
    const int lane = tk::laneid(), w = tk::warpid();
    if (w == 0 && lane == 0) {
        uint32_t v[1];
        tk::arch::ld_global<1>(v, x);
        tk::arch::st_shared<1>(base, v);
    }
    tk::arch::syncthreads();
    uint32_t r[1] = {0};
    if (w >= 1) tk::arch::ld_shared<1>(r, base);  // BUG write_after_many_readers
    if (w >= 2) tk::arch::bar_arrive(1, 5 * 32);  // warps 2-5: done reading
    if (w == 0) {
        tk::arch::bar_sync(1, 5 * 32);  // warp 0 and warps 2-5; missing: warp 1
        const uint32_t one[1] = {bits(1.0f)};
        if (lane == 0) tk::arch::st_shared<1>(base, one);  // BUG write_after_many_readers
    }
    const uint32_t o[1] = {r[0]};
    tk::arch::st_global<1>(out + 32 * w + lane, o);
}
inline void run_write_after_many_readers() {
    tk::device_buffer<float> x(1, random_values<float>(1, 14), "x");
    tk::device_buffer<float> out(192, "out");
    tk::launch("write_after_many_readers", write_after_many_readers, dim3(1), dim3(192), 64, (const float*)x.data(), out.data());
}

// Every lane of warp 0 stages a value; lane 0 alone then arrives on the
// mbarrier warp 1 waits for, with no __syncwarp() first, so the other lanes'
// writes are not ordered before the arrival (PTX's memory model: a lane's
// release publishes that lane's writes).
__global__ void elected_arrive_without_syncwarp(const float* x, float* out) {
    char* smem = tk::dynamic_shared_memory();
    tk::semaphore& ready = *reinterpret_cast<tk::semaphore*>(smem);
    const uint32_t data = smem_base() + 64;
    const int lane = tk::laneid(), w = tk::warpid();
    if (threadIdx.x == 0) tk::init_semaphore(ready, 1);
    tk::arch::syncthreads();
    uint32_t v[1];
    if (w == 0) {
        tk::arch::ld_global<1>(v, x + lane);
        tk::arch::st_shared<1>(data + 4 * uint32_t(lane), v);  // BUG elected_arrive_without_syncwarp
        // missing: tk::arch::syncwarp();
        if (lane == 0) tk::arrive(ready);
    } else {
        tk::wait(ready, 0);
        tk::arch::ld_shared<1>(v, data + 4 * uint32_t(31 - lane));  // BUG elected_arrive_without_syncwarp
        tk::arch::st_global<1>(out + lane, v);
    }
}
inline void run_elected_arrive_without_syncwarp() {
    tk::device_buffer<float> x(32, random_values<float>(32, 15), "x");
    tk::device_buffer<float> out(32, "out");
    tk::launch("elected_arrive_without_syncwarp", elected_arrive_without_syncwarp, dim3(1), dim3(64), 256, (const float*)x.data(), out.data());
}

// Warp 0 stages values and every lane arrives; in warp 1 only lane 0 waits
// for the phase, and then every lane reads, with no __syncwarp() after the
// wait: lanes 1-31 may read before warp 0's writes (here they read after
// them, the phase long complete, and nothing orders the two).
__global__ void elected_wait_without_syncwarp(const float* x, float* out) {
    char* smem = tk::dynamic_shared_memory();
    tk::semaphore& ready = *reinterpret_cast<tk::semaphore*>(smem);
    const uint32_t data = smem_base() + 64;
    const int lane = tk::laneid(), w = tk::warpid();
    if (threadIdx.x == 0) tk::init_semaphore(ready, 32);
    tk::arch::syncthreads();
    uint32_t v[1];
    if (w == 0) {
        v[0] = bits(float(lane));  // no load first: the writes come before warp 1 reads
        tk::arch::st_shared<1>(data + 4 * uint32_t(lane), v);  // BUG elected_wait_without_syncwarp
        tk::arrive(ready);
    } else {
        tk::arch::ld_global<1>(v, x + lane);  // a while later: warp 0 has arrived by now
        tk::arch::st_global<1>(out + 32 + lane, v);
        if (lane == 0) tk::wait(ready, 0);
        // missing: tk::arch::syncwarp();
        tk::arch::ld_shared<1>(v, data + 4 * uint32_t(31 - lane));  // BUG elected_wait_without_syncwarp
        tk::arch::st_global<1>(out + lane, v);
    }
}
inline void run_elected_wait_without_syncwarp() {
    tk::device_buffer<float> x(32, random_values<float>(32, 16), "x");
    tk::device_buffer<float> out(64, "out");
    tk::launch("elected_wait_without_syncwarp", elected_wait_without_syncwarp, dim3(1), dim3(64), 256, (const float*)x.data(), out.data());
}

// Warp 0 counts its positive inputs in a shared counter with atomics, while
// warp 1 resets the counter with a plain store and no barrier between: two
// atomics never race, but an atomic and a plain store of the word do.
__global__ void atomic_and_plain_store(const float* x, float* out) {
    const uint32_t counter = smem_base();
    const int lane = tk::laneid();
    if (threadIdx.x == 0) tk::arch::st_shared_b32(counter, 0);
    tk::arch::syncthreads();
    uint32_t v[1];
    tk::arch::ld_global<1>(v, x + threadIdx.x);
    if (tk::warpid() == 0) {
        tk::arch::red_shared<tk::arch::atomic_op::add>(counter, value(v[0]) > 0 ? 1u : 0u);  // BUG atomic_and_plain_store
    } else if (lane == 0) {
        // missing: tk::arch::syncthreads() before the reset
        tk::arch::st_shared_b32(counter, 0);  // BUG atomic_and_plain_store
    }
    tk::arch::syncthreads();
    const uint32_t o[1] = {tk::arch::ld_shared_b32(counter)};
    tk::arch::st_global<1>(out + threadIdx.x, o);
}
inline void run_atomic_and_plain_store() {
    tk::device_buffer<float> x(64, random_values<float>(64, 17), "x");
    tk::device_buffer<float> out(64, "out");
    tk::launch("atomic_and_plain_store", atomic_and_plain_store, dim3(1), dim3(64), 64, (const float*)x.data(), out.data());
}

inline const add_bug bugs[] = {
    add_bug({"missing_syncthreads", Kind::race, "warps read each other's shared values with no __syncthreads() after the writes", __FILE__, false, false, run_missing_syncthreads}),
    add_bug({"missing_syncwarp", Kind::race, "lane 0 writes a shared value the warp reads with no __syncwarp() between", __FILE__, false, false, run_missing_syncwarp}),
    add_bug({"buffer_reused_too_soon", Kind::race, "a shared buffer refilled before every warp finished reading it (no barrier after the reads)", __FILE__, false, false, run_buffer_reused_too_soon}),
    add_bug({"elected_arrive_without_syncwarp", Kind::race, "lane 0 alone arrives on an mbarrier after every lane's shared writes, with no __syncwarp() first", __FILE__, false, false, run_elected_arrive_without_syncwarp}),
    add_bug({"elected_wait_without_syncwarp", Kind::race, "lane 0 alone waits on an mbarrier, then every lane reads, with no __syncwarp() after the wait", __FILE__, false, false, run_elected_wait_without_syncwarp}),
    add_bug({"write_after_many_readers", Kind::race, "a shared value overwritten after five warps read it, one of them not ordered by the barrier", __FILE__, false, false, run_write_after_many_readers}),
    add_bug({"atomic_and_plain_store", Kind::race, "a plain store to a shared counter that another warp updates with atomics, no barrier between", __FILE__, false, false, run_atomic_and_plain_store}),
};

} // namespace planted::races
