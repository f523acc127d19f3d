// Where the demo GEMM's extra shared-memory wavefronts at large sizes come
// from (issue 23): Nsight Compute counts 13-14% of the swizzled GEMM's
// ldmatrix wavefronts as bank conflicts at 2048^3 and 4096^3, none at 1024^3
// or below, and the simulator none at any size. This program separates the
// kernel's own access pattern from what else the SM does at the same time.
//
// Every block's even warps read shared memory in a conflict-free pattern
// (16 bytes per lane, 8 lanes per 128 bytes: 4 wavefronts per instruction,
// ideally); in modes 1 and 2 its odd warps stream global memory meanwhile,
// through L1 (ld.global.ca) or around it (ld.global.cg, L2 only). L1 and
// shared memory are one SRAM on Hopper: if the extra wavefronts are L1 fills
// taking the banks' cycles, they appear in mode 1 and not in mode 2.
//
//   smem_l1_contention MODE [SMEM_KB [OFFSET_KB]]
//     MODE 0: shared reads only, 1: with cached global loads, 2: with L2-only global loads,
//          3: ldmatrix.x4 only, 4: shared stores only;
//     SMEM_KB: dynamic shared memory per block (4: 8 blocks fit an SM; 33: 6, as the demo GEMM's 64x64 tiles);
//     OFFSET_KB: where in it the reads go.
// Run it under Nsight Compute: scripts/gpu/smem_contention.sh.
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

constexpr int kThreads = 256;

__global__ void smem_with_global(const uint4* __restrict__ g, size_t g_words, uint32_t* out, int iters, int mode, int offset_words) {
    extern __shared__ uint4 smem[];
    uint4* s = smem + offset_words;  // one 16-byte word per thread, `offset_words` into the block's shared memory
    const int t = int(threadIdx.x), warp = t / 32, lane = t % 32;
    s[t] = make_uint4(uint32_t(t), uint32_t(t) + 1u, uint32_t(t) + 2u, uint32_t(t) + 3u);
    __syncthreads();
    uint32_t acc = 0;
    if (mode == 3) {
        // ldmatrix.x4: lane l names row l (16 bytes) of its warp's 32; each
        // 8-row phase covers 128 contiguous bytes: 4 wavefronts, ideally.
        const uint32_t base = uint32_t(__cvta_generic_to_shared(s + warp * 32));
        for (int i = 0; i < iters; ++i) {
            uint32_t r0, r1, r2, r3;
            const uint32_t row = base + 16u * uint32_t((lane + 8 * i) & 31);
            asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                         : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(row));
            acc += r0 ^ r1 ^ r2 ^ r3;
        }
    } else if (mode == 4) {
        // st.shared of 16 bytes per lane, contiguous: 4 wavefronts, ideally.
        for (int i = 0; i < iters; ++i) s[warp * 32 + ((lane + i) & 31)] = make_uint4(acc, uint32_t(i), uint32_t(t), 0u);
        acc = s[t].x;
    } else if (mode == 0 || warp % 2 == 0) {
        // Lane l reads word (l + i) % 32 of its warp's 32: each group of 8
        // lanes covers 8 consecutive words, 128 bytes on 32 distinct banks.
        for (int i = 0; i < iters; ++i) {
            const uint4 v = s[warp * 32 + ((lane + i) & 31)];
            acc += v.x ^ v.y ^ v.z ^ v.w;
        }
    } else {
        size_t at = size_t(blockIdx.x) * kThreads + size_t(t);
        const size_t stride = size_t(gridDim.x) * kThreads;
        for (int i = 0; i < iters; ++i) {
            const uint4 v = mode == 1 ? __ldca(g + at) : __ldcg(g + at);
            acc += v.x;
            at += stride;
            if (at >= g_words) at -= g_words;
        }
    }
    out[size_t(blockIdx.x) * kThreads + size_t(t)] = acc;
}

int main(int argc, char** argv) {
    const int mode = argc > 1 ? std::atoi(argv[1]) : 0;
    const int smem_kb = argc > 2 ? std::atoi(argv[2]) : 4, offset_kb = argc > 3 ? std::atoi(argv[3]) : 0;
    if (mode < 0 || mode > 4 || smem_kb < 4 || smem_kb > 200 || offset_kb < 0 || offset_kb + 4 > smem_kb) {
        std::fprintf(stderr, "usage: smem_l1_contention MODE [SMEM_KB [OFFSET_KB]] (MODE 0: shared reads, 1: with ld.global.ca, "
                             "2: with ld.global.cg, 3: ldmatrix.x4, 4: shared stores; 4 <= SMEM_KB <= 200; OFFSET_KB + 4 <= SMEM_KB)\n");
        return 2;
    }
    const size_t smem_bytes = size_t(smem_kb) * 1024;
    if (smem_bytes > 48 * 1024 &&
        cudaFuncSetAttribute(smem_with_global, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem_bytes)) != cudaSuccess) {
        std::fprintf(stderr, "smem_l1_contention: cannot allow %d KB of shared memory per block\n", smem_kb);
        return 1;
    }
    int sms = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0) != cudaSuccess) {
        std::printf("no CUDA device: nothing to measure\n");
        return 77;
    }
    const size_t g_words = size_t(1) << 26;  // 1 GiB of 16-byte words: streams from DRAM
    const int blocks = 8 * sms, iters = 4096;
    uint4* g = nullptr;
    uint32_t* out = nullptr;
    if (cudaMalloc(&g, g_words * sizeof(uint4)) != cudaSuccess || cudaMalloc(&out, size_t(blocks) * kThreads * 4) != cudaSuccess ||
        cudaMemset(g, 1, g_words * sizeof(uint4)) != cudaSuccess) {
        std::fprintf(stderr, "smem_l1_contention: cannot allocate 1 GiB on the GPU\n");
        return 1;
    }
    smem_with_global<<<blocks, kThreads, smem_bytes>>>(g, g_words, out, iters, mode, offset_kb * 1024 / int(sizeof(uint4)));
    const cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        std::fprintf(stderr, "smem_l1_contention: %s\n", cudaGetErrorString(e));
        return 1;
    }
    std::printf("mode %d: %d blocks x %d threads, %d KB shared each (reads at %d KB), %d shared reads per reading warp\n", mode,
                blocks, kThreads, smem_kb, offset_kb, iters);
    cudaFree(g);
    cudaFree(out);
    return 0;
}
