// Deadlocks: warps waiting on each other in a cycle. The report draws the
// wait-for picture: who waits on what, and who could end each wait.
#pragma once
#include "planted_bugs/planted_bugs.h"
#include "planted_bugs/support.h"

namespace planted::deadlock {

// A one-stage producer/consumer ring whose 'empty' barrier was never primed:
// the producer waits for the consumer to free a stage it never filled.
__global__ void empty_never_primed(const float* x, float* out, int chunks) {
    char* smem = tk::dynamic_shared_memory();
    tk::semaphore& full = *reinterpret_cast<tk::semaphore*>(smem);
    tk::semaphore& empty = *reinterpret_cast<tk::semaphore*>(smem + 8);
    const uint32_t stage = smem_base() + 64;
    const int w = tk::warpid(), lane = tk::laneid();
    if (threadIdx.x == 0) {
        tk::init_semaphore(full, 32);
        tk::init_semaphore(empty, 32);
    }
    tk::arch::syncthreads();
    float acc = 0;
    for (int c = 0; c < chunks; ++c) {
        if (w == 1) {  // producer
            tk::wait(empty, c % 2);  // BUG empty_never_primed (should wait for parity (c + 1) % 2: the first wait passes)
            uint32_t v[1];
            tk::arch::ld_global<1>(v, x + 32 * c + lane);
            tk::arch::st_shared<1>(stage + 4 * uint32_t(lane), v);
            tk::arrive(full);
        } else {  // consumer
            tk::wait(full, c % 2);  // BUG empty_never_primed
            uint32_t r[1];
            tk::arch::ld_shared<1>(r, stage + 4 * uint32_t(lane));
            acc += value(r[0]);
            tk::arrive(empty);
        }
    }
    const uint32_t o[1] = {bits(acc)};
    tk::arch::st_global<1>(out + 32 * w + lane, o);
}
inline void run_empty_never_primed() {
    tk::device_buffer<float> x(128, random_values<float>(128, 41), "x");
    tk::device_buffer<float> out(64, "out");
    tk::launch("empty_never_primed", empty_never_primed, dim3(1), dim3(64), 256, (const float*)x.data(), out.data(), 4);
}

// Warp 0 waits at a named barrier for warp 1; warp 1 first waits for a
// signal that warp 0 sends only after that barrier.
__global__ void barrier_behind_signal(float* out) {
    tk::semaphore& ready = *reinterpret_cast<tk::semaphore*>(tk::dynamic_shared_memory());
    const int w = tk::warpid(), lane = tk::laneid();
    if (threadIdx.x == 0) tk::init_semaphore(ready, 32);
    tk::arch::syncthreads();
    if (w == 0) {
        tk::arch::bar_sync(1, 64);  // BUG barrier_behind_signal
        tk::arrive(ready);
    } else {
        tk::wait(ready, 0);  // BUG barrier_behind_signal
        tk::arch::bar_sync(1, 64);
    }
    const uint32_t o[1] = {bits(float(w))};
    tk::arch::st_global<1>(out + 32 * w + lane, o);
}
inline void run_barrier_behind_signal() {
    tk::device_buffer<float> out(64, "out");
    tk::launch("barrier_behind_signal", barrier_behind_signal, dim3(1), dim3(64), 64, out.data());
}

// Two warps hand results to each other through two mbarriers, each waiting
// for the other's signal before sending its own.
__global__ void crossed_signals(float* out) {
    char* smem = tk::dynamic_shared_memory();
    tk::semaphore& a_done = *reinterpret_cast<tk::semaphore*>(smem);
    tk::semaphore& b_done = *reinterpret_cast<tk::semaphore*>(smem + 8);
    const int w = tk::warpid(), lane = tk::laneid();
    if (threadIdx.x == 0) {
        tk::init_semaphore(a_done, 32);
        tk::init_semaphore(b_done, 32);
    }
    tk::arch::syncthreads();
    if (w == 0) {
        tk::wait(b_done, 0);  // BUG crossed_signals
        tk::arrive(a_done);
    } else {
        tk::wait(a_done, 0);  // BUG crossed_signals
        tk::arrive(b_done);
    }
    const uint32_t o[1] = {bits(float(w))};
    tk::arch::st_global<1>(out + 32 * w + lane, o);
}
inline void run_crossed_signals() {
    tk::device_buffer<float> out(64, "out");
    tk::launch("crossed_signals", crossed_signals, dim3(1), dim3(64), 64, out.data());
}

inline const add_bug bugs[] = {
    add_bug({"empty_never_primed", Kind::deadlock, "producer and consumer each wait for the other first (the 'empty' phase parity starts wrong)", __FILE__, false, true, run_empty_never_primed}),
    add_bug({"barrier_behind_signal", Kind::deadlock, "a named barrier that one warp reaches only after a signal the other sends after the barrier", __FILE__, false, true, run_barrier_behind_signal}),
    add_bug({"crossed_signals", Kind::deadlock, "two warps each wait for the other's mbarrier signal before sending their own", __FILE__, false, true, run_crossed_signals}),
};

} // namespace planted::deadlock
