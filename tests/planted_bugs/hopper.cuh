// Hopper: bulk tensor copies and wgmma are asynchronous agents of their own.
// The race finder follows them: a copy writes when it lands, and wgmma reads
// its shared operands until a wait retires its group.
#pragma once
#include "planted_bugs/planted_bugs.h"
#include "planted_bugs/support.h"
#include "lessons/10_hopper/lesson.cuh"

namespace planted::hopper {

using namespace tk;
using lesson10::kStages;

// Lesson 10's GEMM with the consumer's two last steps swapped: each warp
// frees its stage (arrives on "empty") before waiting for the wgmma that
// reads it, so the producer's next copy can overwrite the tiles mid-multiply.
__global__ void __launch_bounds__(lesson10::kThreads) stage_released_before_wgmma_wait(const __grid_constant__ lesson10::globals g) {
    shared_allocator al;
    lesson10::Stage* ring[kStages];
    for (int s = 0; s < kStages; ++s) ring[s] = &al.allocate<lesson10::Stage>();
    if (threadIdx.x == 0)
        for (int s = 0; s < kStages; ++s) {
            init_semaphore(ring[s]->full, 1);
            init_semaphore(ring[s]->empty, lesson10::kConsumerWarps);
        }
    __syncthreads();
    const int k_steps = g.A.cols / lesson10::kBK;
    if (warpgroup::groupid() == lesson10::kProducer) {
        if (warpgroup::laneid() == 0)
            for (int k = 0; k < k_steps; ++k) {
                lesson10::Stage& st = *ring[k % kStages];
                wait(st.empty, ((k / kStages) % 2) ^ 1);
                tma::expect<lesson10::a_tile, lesson10::b_tile>(st.full);
                tma::load_async(st.a, g.A, {0, 0, 0, k}, st.full);  // BUG stage_released_before_wgmma_wait
                tma::load_async(st.b, g.B, {0, 0, k, 0}, st.full);
            }
        return;
    }
    rt_fl<16, lesson10::kBN> acc;
    zero(acc);
    for (int k = 0; k < k_steps; ++k) {
        lesson10::Stage& st = *ring[k % kStages];
        wait(st.full, (k / kStages) % 2);
        warpgroup::mma_AB(acc, st.a, st.b);  // BUG stage_released_before_wgmma_wait
        if (laneid() == 0) arrive(st.empty);  // the mistake: before the wait below
        warpgroup::mma_async_wait<0>();
    }
    store(g.C, acc, {0, 0, warpgroup::warpid(), 0});
}
inline void run_stage_released_before_wgmma_wait() {
    const int m = lesson10::kBM, n = lesson10::kBN, k = 4 * lesson10::kBK;  // four k-steps through two stages
    const std::vector<bf16> a = random_values<bf16>(size_t(m) * k, 51), b = random_values<bf16>(size_t(k) * n, 52);
    device_buffer<bf16> da(a.size(), a, "A"), db(b.size(), b, "B");
    device_buffer<float> dc(size_t(m) * n, "C");
    const lesson10::globals args{{da.data(), 1, 1, m, k}, {db.data(), 1, 1, k, n}, {dc.data(), 1, 1, m, n}};
    tk::launch("stage_released_before_wgmma_wait", stage_released_before_wgmma_wait, dim3(1), dim3(lesson10::kThreads),
               lesson10::kSharedBytes, args);
}

inline const add_bug bugs[] = {
    add_bug({"stage_released_before_wgmma_wait", Kind::race,
             "a consumer frees its stage before waiting for the wgmma reading it; the next bulk copy overwrites the tiles", __FILE__, true,
             false, run_stage_released_before_wgmma_wait}),
};

} // namespace planted::hopper
