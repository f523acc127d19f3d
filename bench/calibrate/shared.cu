// Shared memory: ld/st.shared latency per width, the pipe's cycles per
// wavefront with and without bank conflicts, ldmatrix latency, ldmatrix and
// stmatrix throughput, shfl.sync latency, and the queue a warp issues
// shared-memory instructions into (its depth; whether it is the warp's own).
#include "common.h"

namespace cal {
namespace {

// ld.shared latency, load to use. One warp; each lane follows its own chain
// of pointers (the loaded word is the next address, so each load waits for
// the one before and nothing else is on the path). The lanes' addresses at
// each step are consecutive BYTES-wide slots: conflict-free, the ideal
// 1/2/4 wavefronts, as tile code issues them.
template <int BYTES>
__global__ void ld_shared_chase(int steps, long long* out, uint32_t* sink) {
    constexpr int W = BYTES / 4, NODES = 32;
    __shared__ __align__(16) uint32_t sm[NODES * 32 * 4];
    const int lane = threadIdx.x;
    const uint32_t base = smem_u32(sm);
    for (int k = 0; k < NODES; ++k)
        for (int w = 0; w < W; ++w)
            sm[(k * 32 + lane) * W + w] = w ? 0u : base + uint32_t(((k + 1) % NODES * 32 + lane) * W * 4);
    __syncwarp();
    uint32_t p = base + uint32_t(lane * W * 4);
    const long long t0 = clk();
    for (int i = 0; i < steps; i += 16) {
#pragma unroll
        for (int u = 0; u < 16; ++u) {
            if constexpr (BYTES == 4) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p));
            else if constexpr (BYTES == 8) { uint32_t d; asm volatile("ld.shared.v2.u32 {%0, %1}, [%0];" : "+r"(p), "=r"(d)); }
            else { uint32_t d0, d1, d2; asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%0];" : "+r"(p), "=r"(d0), "=r"(d1), "=r"(d2)); }
        }
    }
    const long long t1 = clk();
    if (lane == 0) out[0] = t1 - t0;
    sink[lane] = p;
}

// st.shared then ld.shared of the same slot, chained: the load must see the
// store, and the next store's data is the loaded word. The round trip minus
// the load's latency is what a store adds before its data can be read back.
// The load is volatile: otherwise ptxas forwards the stored value and drops it.
template <int BYTES>
__global__ void st_ld_shared_chase(int steps, long long* out, uint32_t* sink) {
    __shared__ __align__(16) uint32_t sm[32 * 4];
    const int lane = threadIdx.x;
    uint32_t p = smem_u32(sm) + uint32_t(lane * BYTES);
    const long long t0 = clk();
    for (int i = 0; i < steps; i += 16) {
#pragma unroll
        for (int u = 0; u < 16; ++u) {
            if constexpr (BYTES == 4) asm volatile("st.shared.u32 [%0], %0;\n\tld.volatile.shared.u32 %0, [%0];" : "+r"(p)::"memory");
            else if constexpr (BYTES == 8) {
                uint32_t d;
                asm volatile("st.shared.v2.u32 [%0], {%0, %0};\n\tld.volatile.shared.v2.u32 {%0, %1}, [%0];" : "+r"(p), "=r"(d)::"memory");
            } else {
                uint32_t d0, d1, d2;
                asm volatile("st.shared.v4.u32 [%0], {%0, %0, %0, %0};\n\tld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%0];"
                             : "+r"(p), "=r"(d0), "=r"(d1), "=r"(d2)::"memory");
            }
        }
    }
    const long long t1 = clk();
    if (lane == 0) out[0] = t1 - t0;
    sink[lane] = p;
}

// The shared-memory pipe's throughput: 32 warps (8 per sub-partition) each
// issue 8 independent accesses per iteration, more than the pipe can take,
// so the pipe is the bottleneck. Lanes are STRIDE words apart: with VEC = 1,
// a stride of s words puts gcd(s, 32) lanes in one bank (s-way conflicts).
// volatile keeps the unused loads (and repeated stores) in the SASS.
template <int VEC, int STRIDE, bool STORE>
__global__ void __launch_bounds__(1024, 1) shared_pipe(int iters, long long* out) {
    __shared__ __align__(16) uint32_t sm[2048];
    for (int i = threadIdx.x; i < 2048; i += blockDim.x) sm[i] = uint32_t(i);
    __syncthreads();
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const uint32_t a = smem_u32(sm) + uint32_t(lane * STRIDE * 4);
    const long long t0 = clk();
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            if constexpr (STORE) {
                if constexpr (VEC == 1) asm volatile("st.volatile.shared.u32 [%0], %1;" ::"r"(a + j * 128), "r"(i) : "memory");
                else if constexpr (VEC == 2) asm volatile("st.volatile.shared.v2.u32 [%0], {%1, %1};" ::"r"(a + j * 128), "r"(i) : "memory");
                else asm volatile("st.volatile.shared.v4.u32 [%0], {%1, %1, %1, %1};" ::"r"(a + j * 128), "r"(i) : "memory");
            } else {
                uint32_t d0, d1, d2, d3;
                if constexpr (VEC == 1) asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(d0) : "r"(a + j * 128) : "memory");
                else if constexpr (VEC == 2) asm volatile("ld.volatile.shared.v2.u32 {%0, %1}, [%2];" : "=r"(d0), "=r"(d1) : "r"(a + j * 128) : "memory");
                else asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3) : "r"(a + j * 128) : "memory");
            }
        }
    }
    const long long t1 = clk();
    if (lane == 0) out[2 * warp] = t0, out[2 * warp + 1] = t1;
}

// A 512-byte region of 32 rows of 16 bytes; word c of row r holds the
// address of row 4r + c. ldmatrix gives lane l word l % 4 of row l / 4 of
// the first matrix, i.e. the address of row l: fed back as lane l's row
// address, it makes a chain of dependent ldmatrix with no other instruction.
__device__ void fill_ldmatrix_rows(uint32_t* sm) {
    const uint32_t base = smem_u32(sm);
    for (int i = threadIdx.x % 32; i < 128; i += 32) sm[i] = base + uint32_t(i % 32) * 16;
    __syncwarp();
}

template <int X>
__global__ void ldmatrix_chase(int steps, long long* out, uint32_t* sink) {
    __shared__ __align__(128) uint32_t sm[128];
    fill_ldmatrix_rows(sm);
    const int lane = threadIdx.x;
    uint32_t p = smem_u32(sm) + uint32_t(lane * 16);
    const long long t0 = clk();
    for (int i = 0; i < steps; i += 16) {
#pragma unroll
        for (int u = 0; u < 16; ++u) {
            if constexpr (X == 1) asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%0];" : "+r"(p));
            else if constexpr (X == 2) { uint32_t d; asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%0];" : "+r"(p), "=r"(d)); }
            else { uint32_t d0, d1, d2; asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%0];" : "+r"(p), "=r"(d0), "=r"(d1), "=r"(d2)); }
        }
    }
    const long long t1 = clk();
    if (lane == 0) out[0] = t1 - t0;
    sink[lane] = p;
}

// ldmatrix.x4 / stmatrix.x4 throughput: 32 warps, 8 independent
// instructions each per iteration, rows 16 bytes apart (conflict-free: 4
// wavefronts each). ldmatrix's results are folded (xor) so none is dead, and
// each iteration's addresses depend on the last one's results (through
// `zero`, 0 at run time): else ptxas loads once and reuses the registers.
template <bool STORE>
__global__ void __launch_bounds__(1024, 1) matrix_pipe(int iters, uint32_t zero, long long* out, uint32_t* sink) {
    __shared__ __align__(128) uint32_t sm[1024];
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) sm[i] = uint32_t(i) * 2654435761u;
    __syncthreads();
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const uint32_t a = smem_u32(sm) + uint32_t(lane * 16);
    uint32_t x = uint32_t(threadIdx.x);
    const long long t0 = clk();
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            if constexpr (STORE) {
                asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %1, %1, %1};" ::"r"(a + j * 512), "r"(x + uint32_t(i)) : "memory");
            } else {
                uint32_t d0, d1, d2, d3;
                asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                             : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3) : "r"(a + (x & zero) + j * 512) : "memory");
                x ^= d0 ^ d1 ^ d2 ^ d3;
            }
        }
    }
    const long long t1 = clk();
    if (lane == 0) out[2 * warp] = t0, out[2 * warp + 1] = t1;
    sink[threadIdx.x] = x;
}

// shfl.sync latency: lane l holds l and reads lane l's value (itself) with
// its own value as the source lane, so each shuffle waits for the last.
__global__ void shfl_chase(int steps, long long* out, uint32_t* sink) {
    uint32_t v = threadIdx.x;
    const long long t0 = clk();
    for (int i = 0; i < steps; i += 16) {
#pragma unroll
        for (int u = 0; u < 16; ++u) asm volatile("shfl.sync.idx.b32 %0, %0, %0, 0x1f, 0xffffffff;" : "+r"(v));
    }
    const long long t1 = clk();
    if (threadIdx.x == 0) out[0] = t1 - t0;
    sink[threadIdx.x] = v;
}

template <class K>
double chase_cycles(Ctx& c, K kernel, int steps) {
    return median_runs(7, [&] {
        kernel<<<1, 32>>>(steps, c.d_out, c.d_sink);
        CK_LAUNCH();
        return double(c.fetch(1)[0]) / steps;
    });
}

template <int VEC, int STRIDE, bool STORE>
double pipe_cycles_per_wavefront(Ctx& c, int iters, int wavefronts) {
    return median_runs(5, [&] {
        shared_pipe<VEC, STRIDE, STORE><<<1, 1024>>>(iters, c.d_out);
        CK_LAUNCH();
        return span(c.fetch(64), 32) / (32.0 * iters * 8 * wavefronts);
    });
}

// How many shared-memory instructions a warp can issue before the pipe holds
// it back (Nsight's mio_throttle): WARPS warps on each sub-partition issue N
// independent ld.shared.u32 with lanes 32 words apart (32 wavefronts each),
// timed from before the first to right after the N-th issues; only then are
// the results used. While the queue takes them, each issues in a cycle or
// two; once it is full, each waits for the pipe.
template <int N>
__global__ void mio_issue(long long* out, uint32_t* sink) {
    __shared__ __align__(16) uint32_t sm[1024];
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) sm[i] = uint32_t(i);
    __syncthreads();
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const uint32_t a = smem_u32(sm) + uint32_t(lane * 32 * 4);
    uint32_t d[N];
    const long long t0 = clk();
#pragma unroll
    for (int j = 0; j < N; ++j) asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(d[j]) : "r"(a + 4 * (j % 32)) : "memory");
    const long long t1 = clk();
    uint32_t s = 0;
#pragma unroll
    for (int j = 0; j < N; ++j) s += d[j];
    if (lane == 0) out[warp] = t1 - t0;
    sink[threadIdx.x] = s;
}

// The slowest warp's issue time; `warps` per sub-partition (4 x warps in the block).
template <int N>
double mio_issue_cycles(Ctx& c, int warps) {
    return median_runs(5, [&] {
        mio_issue<N><<<1, 32 * 4 * warps>>>(c.d_out, c.d_sink);
        CK_LAUNCH();
        auto v = c.fetch(size_t(4 * warps));
        double worst = 0;
        for (long long x : v) worst = std::max(worst, double(x));
        return worst;
    });
}

// The same for ldmatrix (mio_depth): one warp per sub-partition issues N
// independent ldmatrix.x4 whose 8 rows a matrix are 128 bytes apart (8-way
// conflicts: 32 wavefronts each, as an unswizzled 64-column bf16 tile's), N
// around the depth mio_issue's ld.shared stop at. The demo GEMM's
// unswizzled loop issues 16 such ldmatrix back to back.
template <int N>
__global__ void ldmatrix_issue(long long* out, uint32_t* sink) {
    __shared__ __align__(128) uint32_t sm[32 * 32];  // 32 rows of 128 bytes
    for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x) sm[i] = uint32_t(i);
    __syncthreads();
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    // Lane l gives row l % 8 of matrix l / 8: rows 128 bytes apart, the 4 matrices 16 bytes apart.
    const uint32_t a = smem_u32(sm) + uint32_t((lane % 8) * 128 + (lane / 8) * 16);
    uint32_t d[N][4];
    const long long t0 = clk();
#pragma unroll
    for (int j = 0; j < N; ++j)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                     : "=r"(d[j][0]), "=r"(d[j][1]), "=r"(d[j][2]), "=r"(d[j][3]) : "r"(a + 1024 * uint32_t(j % 4)) : "memory");
    const long long t1 = clk();
    uint32_t s = 0;
#pragma unroll
    for (int j = 0; j < N; ++j) s += d[j][0] + d[j][1] + d[j][2] + d[j][3];
    if (lane == 0) out[warp] = t1 - t0;
    sink[threadIdx.x] = s;
}

// The slowest warp's issue time, one warp per sub-partition.
template <int N>
double ldmatrix_issue_cycles(Ctx& c) {
    return median_runs(5, [&] {
        ldmatrix_issue<N><<<1, 128>>>(c.d_out, c.d_sink);
        CK_LAUNCH();
        auto v = c.fetch(4);
        double worst = 0;
        for (long long x : v) worst = std::max(worst, double(x));
        return worst;
    });
}

// Whose queue is it: a warp's own, or its sub-partition's? Warps 0-3 (one
// per sub-partition) each issue N 32-way-conflicted loads at once; warps 4-7,
// on the same sub-partitions, wait kDelay cycles (by then the first warps'
// loads fill their queue) and issue one conflict-free load each, timing its
// issue alone. A queue of each warp's own lets that load in at once; one the
// sub-partition's warps share holds it back until the first warp's loads
// drain (mio_throttle). The late warps' worst issue time.
template <int N>
__global__ void mio_share(long long* out, uint32_t* sink) {
    constexpr long long kDelay = 400;
    __shared__ __align__(16) uint32_t sm[1024];
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) sm[i] = uint32_t(i);
    __syncthreads();
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const long long start = clk();
    uint32_t s = 0;
    if (warp < 4) {
        const uint32_t a = smem_u32(sm) + uint32_t(lane * 32 * 4);
        uint32_t d[N > 0 ? N : 1];
#pragma unroll
        for (int j = 0; j < N; ++j) asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(d[j]) : "r"(a + 4 * (j % 32)) : "memory");
#pragma unroll
        for (int j = 0; j < N; ++j) s += d[j];
    } else {
        while (clk() - start < kDelay) {}
        uint32_t d;
        const long long t0 = clk();
        asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(d) : "r"(smem_u32(sm) + uint32_t(lane * 4)) : "memory");
        const long long t1 = clk();
        s = d;
        if (lane == 0) out[warp - 4] = t1 - t0;
    }
    sink[threadIdx.x] = s;
}

template <int N>
double mio_share_cycles(Ctx& c) {
    return median_runs(5, [&] {
        mio_share<N><<<1, 32 * 8>>>(c.d_out, c.d_sink);
        CK_LAUNCH();
        auto v = c.fetch(4);
        double worst = 0;
        for (long long x : v) worst = std::max(worst, double(x));
        return worst;
    });
}

template <bool STORE>
double matrix_cycles_per_wavefront(Ctx& c, int iters) {
    return median_runs(5, [&] {
        matrix_pipe<STORE><<<1, 1024>>>(iters, 0u, c.d_out, c.d_sink);
        CK_LAUNCH();
        return span(c.fetch(64), 32) / (32.0 * iters * 8 * 4);
    });
}

} // namespace

void run_shared(Ctx& c) {
    std::printf("shared memory\n");
    const int steps = 2048;
    const double ld4 = chase_cycles(c, ld_shared_chase<4>, steps);
    const double ld8 = chase_cycles(c, ld_shared_chase<8>, steps);
    const double ld16 = chase_cycles(c, ld_shared_chase<16>, steps);
    const char* chase = "dependent chain of %d loads, one warp, each lane its own pointer chain, conflict-free (%d wavefront%s); cycles per load";
    char m[256];
    std::snprintf(m, sizeof m, chase, steps, 1, ""); c.add("shared.ld_latency_4B", ld4, "cycles", m, 15, 60);
    std::snprintf(m, sizeof m, chase, steps, 2, "s"); c.add("shared.ld_latency_8B", ld8, "cycles", m, 15, 60);
    std::snprintf(m, sizeof m, chase, steps, 4, "s"); c.add("shared.ld_latency_16B", ld16, "cycles", m, 15, 70);
    const char* rt = "st.shared then a dependent ld.shared of the same slot, chained %d times, one warp; cycles per pair (minus the ld latency: the store's cost)";
    std::snprintf(m, sizeof m, rt, steps);
    c.add("shared.st_ld_roundtrip_4B", chase_cycles(c, st_ld_shared_chase<4>, steps), "cycles", m, 15, 120);
    c.add("shared.st_ld_roundtrip_8B", chase_cycles(c, st_ld_shared_chase<8>, steps), "cycles", m, 15, 120);
    c.add("shared.st_ld_roundtrip_16B", chase_cycles(c, st_ld_shared_chase<16>, steps), "cycles", m, 15, 140);

    const char* pm = "32 warps x 8 independent %s per iteration, lanes %d words apart (%d wavefront%s each); SM cycles / wavefronts";
    auto add_pipe = [&](const char* name, double v, const char* what, int stride, int wf) {
        std::snprintf(m, sizeof m, pm, what, stride, wf, wf > 1 ? "s" : "");
        c.add(name, v, "cycles/wavefront", m, 0.95, 4);  // published: 128 B/cycle/SM, 1 wavefront
    };
    add_pipe("shared.ld_cycles_per_wavefront_4B", pipe_cycles_per_wavefront<1, 1, false>(c, 256, 1), "ld.shared.u32", 1, 1);
    add_pipe("shared.ld_cycles_per_wavefront_4B_2way", pipe_cycles_per_wavefront<1, 2, false>(c, 128, 2), "ld.shared.u32", 2, 2);
    add_pipe("shared.ld_cycles_per_wavefront_4B_8way", pipe_cycles_per_wavefront<1, 8, false>(c, 32, 8), "ld.shared.u32", 8, 8);
    add_pipe("shared.ld_cycles_per_wavefront_4B_32way", pipe_cycles_per_wavefront<1, 32, false>(c, 16, 32), "ld.shared.u32", 32, 32);
    add_pipe("shared.ld_cycles_per_wavefront_8B", pipe_cycles_per_wavefront<2, 2, false>(c, 128, 2), "ld.shared.v2.u32", 2, 2);
    add_pipe("shared.ld_cycles_per_wavefront_16B", pipe_cycles_per_wavefront<4, 4, false>(c, 64, 4), "ld.shared.v4.u32", 4, 4);
    add_pipe("shared.st_cycles_per_wavefront_4B", pipe_cycles_per_wavefront<1, 1, true>(c, 256, 1), "st.shared.u32", 1, 1);
    add_pipe("shared.st_cycles_per_wavefront_4B_32way", pipe_cycles_per_wavefront<1, 32, true>(c, 16, 32), "st.shared.u32", 32, 32);
    add_pipe("shared.st_cycles_per_wavefront_16B", pipe_cycles_per_wavefront<4, 4, true>(c, 64, 4), "st.shared.v4.u32", 4, 4);

    const char* lm = "dependent chain of %d ldmatrix.x%d (the loaded word is the lane's next row address), one warp, conflict-free; cycles per ldmatrix";
    std::snprintf(m, sizeof m, lm, steps, 1); c.add("ldmatrix.latency_x1", chase_cycles(c, ldmatrix_chase<1>, steps), "cycles", m, 15, 70);
    std::snprintf(m, sizeof m, lm, steps, 2); c.add("ldmatrix.latency_x2", chase_cycles(c, ldmatrix_chase<2>, steps), "cycles", m, 15, 70);
    std::snprintf(m, sizeof m, lm, steps, 4); c.add("ldmatrix.latency_x4", chase_cycles(c, ldmatrix_chase<4>, steps), "cycles", m, 15, 80);
    c.add("ldmatrix.x4_cycles_per_wavefront", matrix_cycles_per_wavefront<false>(c, 64), "cycles/wavefront",
          "32 warps x 8 independent ldmatrix.x4 per iteration, conflict-free (4 wavefronts each); SM cycles / wavefronts", 0.95, 4);
    const double stm = matrix_cycles_per_wavefront<true>(c, 64);
    c.add("stmatrix.x4_cycles_per_wavefront", stm, "cycles/wavefront",
          "32 warps x 8 independent stmatrix.x4 per iteration, conflict-free (4 wavefronts each); SM cycles / wavefronts", 0.95, 4);
    c.add("stmatrix.x4_cycles_per_instruction", stm * 4, "cycles",
          "as stmatrix.x4_cycles_per_wavefront, per instruction: SM cycles per stmatrix.x4 at steady state", 3.8, 16);
    for (int warps : {1, 2}) {
        const double n[] = {1, 4, 8, 16, 32, 48, 64};
        const double t[] = {mio_issue_cycles<1>(c, warps), mio_issue_cycles<4>(c, warps), mio_issue_cycles<8>(c, warps),
                            mio_issue_cycles<16>(c, warps), mio_issue_cycles<32>(c, warps), mio_issue_cycles<48>(c, warps),
                            mio_issue_cycles<64>(c, warps)};
        for (int k = 0; k < 7; ++k) {
            char name[96];
            std::snprintf(name, sizeof name, "shared.issue_cycles_%dx32way_%dw_per_smsp", int(n[k]), warps);
            std::snprintf(m, sizeof m, "%d warp(s) on one sub-partition each issue %d independent ld.shared.u32, lanes 32 words apart "
                                       "(32 wavefronts each); cycles from before the first to after the last issues (slowest warp)", warps, int(n[k]));
            c.add(name, t[k], "cycles", m, 0, 1e5);
        }
    }
    for (const auto& [n, t] : {std::pair{0, mio_share_cycles<0>(c)}, std::pair{8, mio_share_cycles<8>(c)}, std::pair{16, mio_share_cycles<16>(c)},
                               std::pair{32, mio_share_cycles<32>(c)}}) {
        char name[96];
        std::snprintf(name, sizeof name, "shared.issue_cycles_1_behind_%dx32way", n);
        std::snprintf(m, sizeof m, "one conflict-free ld.shared.u32's issue time, 400 cycles after another warp of its sub-partition issued %d "
                                   "32-way-conflicted ones (one such pair per sub-partition); the slowest of the 4", n);
        c.add(name, t, "cycles", m, 0, 1e5);
    }
    std::snprintf(m, sizeof m, "dependent chain of %d shfl.sync.idx (the value is its own source lane), one warp; cycles per shuffle", steps);
    c.add("shfl.latency", chase_cycles(c, shfl_chase, steps), "cycles", m, 10, 60);
}

// How many conflicted ldmatrix and ld.shared a warp issues before the queue
// holds it back (calibrate --only mio_depth).
void run_mio_depth(Ctx& c) {
    std::printf("shared-memory queue depth: ldmatrix.x4 (8-way) and ld.shared.u32 (32-way), one warp per sub-partition\n");
    char name[96], m[256];
    auto add = [&](int n, bool ldsm, double t) {
        std::snprintf(name, sizeof name, "shared.issue_cycles_%d%s_1w_per_smsp", n, ldsm ? "x8way_ldmatrix_x4" : "x32way");
        std::snprintf(m, sizeof m, "one warp on each sub-partition issues %d independent %s (32 wavefronts each); cycles from before the first "
                                   "to after the last issues (slowest warp)", n, ldsm ? "ldmatrix.x4, rows 128 bytes apart" : "ld.shared.u32, lanes 32 words apart");
        c.add(name, t, "cycles", m, 0, 1e5);
    };
    add(8, true, ldmatrix_issue_cycles<8>(c));
    add(12, true, ldmatrix_issue_cycles<12>(c));
    add(14, true, ldmatrix_issue_cycles<14>(c));
    add(15, true, ldmatrix_issue_cycles<15>(c));
    add(16, true, ldmatrix_issue_cycles<16>(c));
    add(17, true, ldmatrix_issue_cycles<17>(c));
    add(20, true, ldmatrix_issue_cycles<20>(c));
    add(24, true, ldmatrix_issue_cycles<24>(c));
    // mio_issue's ld.shared at the same depths, one warp per sub-partition.
    add(12, false, mio_issue_cycles<12>(c, 1));
    add(14, false, mio_issue_cycles<14>(c, 1));
    add(15, false, mio_issue_cycles<15>(c, 1));
    add(16, false, mio_issue_cycles<16>(c, 1));
    add(17, false, mio_issue_cycles<17>(c, 1));
    add(20, false, mio_issue_cycles<20>(c, 1));
}

} // namespace cal
