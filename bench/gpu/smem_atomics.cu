// How many shared-memory wavefronts a warp's atomic takes on the GPU, for
// the lane patterns of smem_atomic_patterns.h and the ops tklab's instruction
// layer has (tk/arch/atomic.h: atom/red on shared memory). One launch per
// (op, pattern), in that order, op major; each warp runs `kIters` atomics on
// its own 1024 words, the pattern's words, so warps never share a word.
// Run it under Nsight Compute: scripts/gpu/smem_atomics.sh.
#include <cuda_runtime.h>
#include <cstdio>
#include "tk/arch/atomic.h"
#include "bench/gpu/smem_atomic_patterns.h"

constexpr int kThreads = 128, kIters = 256, kWordsPerWarp = 1024;

__global__ void shared_atomics(int op, int pattern, uint32_t* out) {
    extern __shared__ uint32_t words[];
    const int t = int(threadIdx.x), warp = t / 32, lane = t % 32;
    for (int i = t; i < kThreads / 32 * kWordsPerWarp; i += kThreads) words[i] = 0;
    __syncthreads();
    const uint32_t addr = uint32_t(__cvta_generic_to_shared(words + warp * kWordsPerWarp + smem_atomics::word_of(pattern, lane)));
    uint32_t acc = 0;
    using tk::arch::atomic_op;
    for (int i = 0; i < kIters; ++i) {
        switch (op) {
        case 0: acc += tk::arch::atom_shared<atomic_op::add>(addr, 1u); break;
        case 1: tk::arch::red_shared<atomic_op::add>(addr, 1u); break;
        case 2: acc += uint32_t(tk::arch::atom_shared<atomic_op::add>(addr, 1.0f)); break;
        case 3: acc += tk::arch::atom_cas_shared(addr, uint32_t(i), uint32_t(i + 1)); break;
        case 4: acc += tk::arch::atom_shared<atomic_op::exch>(addr, uint32_t(i)); break;
        case 5: acc += uint32_t(tk::arch::atom_shared<atomic_op::max>(addr, int32_t(i))); break;
        case 6: tk::arch::red_shared<atomic_op::add>(addr, uint32_t(lane + i)); break;
        case 7: acc += tk::arch::atom_shared<atomic_op::add>(addr, uint32_t(lane + i)); break;
        case 8: tk::arch::red_shared<atomic_op::add>(addr, float(lane)); break;
        case 9: acc += tk::arch::atom_shared<atomic_op::min>(addr, uint32_t(lane + i)); break;
        case 10: acc += tk::arch::atom_shared<atomic_op::or_>(addr, uint32_t(1) << (lane % 32)); break;
        case 11: acc += tk::arch::atom_shared<atomic_op::xor_>(addr, uint32_t(lane + i)); break;
        }
    }
    __syncthreads();
    if (acc == 0xdeadbeef) out[t] = acc;  // keeps the atoms' results alive
    if (t == 0) out[blockIdx.x] = words[0];
}

int main() {
    uint32_t* out = nullptr;
    cudaMalloc(&out, 1 << 20);
    const size_t smem = size_t(kThreads / 32) * kWordsPerWarp * sizeof(uint32_t);
    for (int op = 0; op < smem_atomics::kOps; ++op)
        for (int p = 0; p < smem_atomics::kPatterns; ++p) shared_atomics<<<132, kThreads, smem>>>(op, p, out);
    const cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        std::fprintf(stderr, "smem_atomics: %s\n", cudaGetErrorString(e));
        return 1;
    }
    std::printf("%d launches\n", smem_atomics::kOps * smem_atomics::kPatterns);
    return 0;
}
