// mbarrier-based semaphores (as on sm_80) and named barriers.
//
//   semaphore& full = al.allocate<semaphore>();
//   if (threadIdx.x == 0) init_semaphore(full, 32);   // arrivals per phase
//   __syncthreads();
//   arrive(full);              // producers: one arrival per thread
//   wait(full, phase);         // consumers: until phase `phase` (0, 1, 0, ...) completes
#pragma once
#include "tk/arch/mbarrier.h"
#include "tk/arch/barrier.h"
#include "tk/arch/shared_memory.h"

namespace tk {

struct semaphore {
    static constexpr int alignment = 8;
    uint64_t state;  // lives in shared memory; the hardware owns its bits
};

TK_DEVICE void init_semaphore(semaphore& s, int arrivals, TK_LOC) {
    TK_OP("init_semaphore");
    arch::mbarrier_init(arch::smem_addr(&s, loc), uint32_t(arrivals), loc);
}
TK_DEVICE void arrive(semaphore& s, TK_LOC) {
    TK_OP("arrive");
    arch::mbarrier_arrive(arch::smem_addr(&s, loc), loc);
}
// Blocks until the phase with this parity (phase % 2) has completed.
TK_DEVICE void wait(semaphore& s, int phase, TK_LOC) {
    TK_OP("wait");
    arch::mbarrier_wait(arch::smem_addr(&s, loc), uint32_t(phase) & 1u, loc);
}
// True when that phase has completed; never blocks.
TK_DEVICE bool test_wait(semaphore& s, int phase, TK_LOC) {
    TK_OP("test_wait");
    return arch::mbarrier_test_wait(arch::smem_addr(&s, loc), uint32_t(phase) & 1u, loc);
}

// A named barrier (ids 1..15; 0 is __syncthreads) counting `threads` threads.
struct named_barrier {
    int id;
    int threads;
    TK_DEVICE void sync(TK_LOC) const { TK_OP("barrier_sync"); arch::bar_sync(id, threads, loc); }
    TK_DEVICE void arrive(TK_LOC) const { TK_OP("barrier_arrive"); arch::bar_arrive(id, threads, loc); }
};

} // namespace tk
