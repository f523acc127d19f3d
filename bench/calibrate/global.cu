// Global memory: load latency that hits L1, L2 and DRAM (pointer chases over
// a random single cycle of 128-byte lines), DRAM and L2 read bandwidth for
// one SM and for the whole GPU, and cp.async (16 B) latency.
#include <numeric>
#include <random>
#include "common.h"
#include <utility>

namespace cal {
namespace {

constexpr size_t kLine = 128;  // one node of a chase per 128-byte line

// Node i (at byte i * 128) holds the address of node next[i].
__global__ void scatter_chain(uint64_t* base, const uint32_t* next, size_t nodes) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < nodes; i += size_t(gridDim.x) * blockDim.x)
        base[i * (kLine / 8)] = reinterpret_cast<uint64_t>(base + size_t(next[i]) * (kLine / 8));
}

// One thread follows the chain: `warm` untimed steps, then `steps` timed.
// CG: ld.global.cg (L2, not L1); else ld.global.ca (L1 allocating).
template <bool CG>
__global__ void global_chase(uint64_t start, int warm, int steps, long long* out, uint32_t* sink) {
    uint64_t p = start;
    for (int i = 0; i < warm; ++i) {
        if constexpr (CG) asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p)::"memory");
        else asm volatile("ld.global.ca.u64 %0, [%0];" : "+l"(p)::"memory");
    }
    const long long t0 = clk();
    for (int i = 0; i < steps; i += 8) {
#pragma unroll
        for (int u = 0; u < 8; ++u) {
            if constexpr (CG) asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p)::"memory");
            else asm volatile("ld.global.ca.u64 %0, [%0];" : "+l"(p)::"memory");
        }
    }
    const long long t1 = clk();
    out[0] = t1 - t0;
    sink[0] = uint32_t(p);
}

// A single random cycle (Sattolo's algorithm) over the lines of `bytes` at
// `base`; returns the address of node 0.
uint64_t build_chain(Ctx& c, char* base, size_t bytes, uint32_t seed) {
    const size_t nodes = bytes / kLine;
    std::vector<uint32_t> perm(nodes);
    std::iota(perm.begin(), perm.end(), 0u);
    std::mt19937_64 rng(seed);
    for (size_t i = nodes - 1; i > 0; --i) std::swap(perm[i], perm[std::uniform_int_distribution<size_t>(0, i - 1)(rng)]);
    // perm as a cycle: node perm[k] -> perm[k+1]
    std::vector<uint32_t> next(nodes);
    for (size_t k = 0; k < nodes; ++k) next[perm[k]] = perm[(k + 1) % nodes];
    uint32_t* d_next = nullptr;
    CK(cudaMalloc(&d_next, nodes * 4));
    CK(cudaMemcpy(d_next, next.data(), nodes * 4, cudaMemcpyHostToDevice));
    scatter_chain<<<c.sms * 4, 256>>>(reinterpret_cast<uint64_t*>(base), d_next, nodes);
    CK_LAUNCH();
    CK(cudaFree(d_next));
    (void)c;
    return reinterpret_cast<uint64_t>(base);
}

__global__ void __launch_bounds__(1024, 1) stream_read(const uint4* src, size_t n16, int warm, int passes, long long* out, uint32_t* sink);

// Reads a 256 MiB buffer of its own, so the L2 (50 MB) holds none of the chain.
void flush_l2(Ctx& c) {
    static char* buf = nullptr;
    const size_t bytes = size_t(256) << 20;
    if (!buf) {
        CK(cudaMalloc(&buf, bytes));
        CK(cudaMemset(buf, 1, bytes));
    }
    stream_read<<<c.sms * 2, 1024>>>(reinterpret_cast<const uint4*>(buf), bytes / 16, 0, 1, c.d_out + 16, c.d_sink);
    CK_LAUNCH();
}

// Mean latency per load of a chase. A cold run flushes the L2 first and
// starts at a random node of the cycle (lines no earlier run visited, most
// likely).
template <bool CG>
double chase(Ctx& c, char* base, size_t bytes, int warm, int steps, bool cold) {
    const uint64_t start = build_chain(c, base, bytes, 12345u + uint32_t(bytes >> 20));
    std::mt19937 rng(7);
    const size_t nodes = bytes / kLine;
    return median_runs(5, [&] {
        if (cold) flush_l2(c);
        const uint64_t s = cold ? start + (rng() % nodes) * kLine : start;
        global_chase<CG><<<1, 1>>>(s, warm, steps, c.d_out, c.d_sink);
        CK_LAUNCH();
        return double(c.fetch(1)[0]) / steps;
    });
}

// Streaming read, 16 bytes per lane, 4 independent loads in flight per
// thread (ld.global.cg: from L2, not L1): `warm` then `passes` sweeps over
// n16 16-byte words (a power of two), flattened so that every thread always
// has 4 loads in flight. Block 0's thread 0 records the cycles and ns of the
// timed sweeps (the one-SM figures); a whole-GPU run is timed with events.
__global__ void __launch_bounds__(1024, 1) stream_read(const uint4* src, size_t n16, int warm, int passes, long long* out, uint32_t* sink) {
    const size_t tid = blockIdx.x * size_t(blockDim.x) + threadIdx.x, stride = size_t(gridDim.x) * blockDim.x, mask = n16 - 1;
    uint32_t x = 0;
    auto sweep = [&](size_t total) {
        size_t k = tid;
        for (; k + 3 * stride < total; k += 4 * stride) {
            const uint4 a = __ldcg(src + (k & mask)), b = __ldcg(src + ((k + stride) & mask));
            const uint4 c = __ldcg(src + ((k + 2 * stride) & mask)), d = __ldcg(src + ((k + 3 * stride) & mask));
            x ^= a.x ^ a.y ^ a.z ^ a.w ^ b.x ^ b.y ^ b.z ^ b.w ^ c.x ^ c.y ^ c.z ^ c.w ^ d.x ^ d.y ^ d.z ^ d.w;
        }
        for (; k < total; k += stride) { const uint4 a = __ldcg(src + (k & mask)); x ^= a.x ^ a.y ^ a.z ^ a.w; }
    };
    sweep(size_t(warm) * n16);
    __syncthreads();
    const long long t0 = clk();
    const unsigned long long g0 = gtime_ns();
    sweep(size_t(passes) * n16);
    __syncthreads();
    if (blockIdx.x == 0 && threadIdx.x == 0) out[0] = clk() - t0, out[1] = (long long)(gtime_ns() - g0);
    if (x == 0x9e3779b9u) sink[0] = x;  // practically never: keeps the loads alive, writes nothing
}

// cp.async.cg 16 B per lane, a whole warp (512 contiguous bytes): clock,
// issue, commit, wait_group 0, clock. Each rep reads src + offsets[rep].
__global__ void cp_async_latency(const char* src, const unsigned long long* offsets, int reps, bool prewarm, long long* out) {
    __shared__ __align__(16) char buf[512];
    const int lane = threadIdx.x;
    if (prewarm)  // bring the lines into L2 (ld.global.cg), so the copies hit there
        for (int r = 0; r < reps; ++r) {
            uint4 v = __ldcg(reinterpret_cast<const uint4*>(src + offsets[r]) + lane);
            if (v.x == 0x9e3779b9u) buf[lane] = 1;
        }
    __syncwarp();
    for (int r = 0; r < reps; ++r) {
        const char* g = src + offsets[r] + lane * 16;
        const uint32_t s = smem_u32(buf + lane * 16);
        const long long t0 = clk();
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n\tcp.async.commit_group;\n\tcp.async.wait_group 0;" ::"r"(s), "l"(g) : "memory");
        const long long t1 = clk();
        if (lane == 0) out[r] = t1 - t0;
        __syncwarp();
    }
}

double cp_async_cycles(Ctx& c, bool warm) {
    const int reps = 64;
    std::vector<unsigned long long> off(reps);
    std::mt19937_64 rng(warm ? 1 : 2);
    unsigned long long* d_off = nullptr;
    CK(cudaMalloc(&d_off, reps * sizeof(unsigned long long)));
    double v = median_runs(5, [&] {
        for (auto& o : off) o = warm ? 0 : (rng() % (c.big_bytes / 512)) * 512;  // warm: one line pair, again and again
        CK(cudaMemcpy(d_off, off.data(), reps * sizeof(unsigned long long), cudaMemcpyHostToDevice));
        cp_async_latency<<<1, 32>>>(c.d_big, d_off, reps, warm, c.d_out);
        CK_LAUNCH();
        auto r = c.fetch(reps);
        return median(std::vector<double>(r.begin() + (warm ? 1 : 0), r.end()));
    });
    CK(cudaFree(d_off));
    return v;
}

} // namespace

void run_global(Ctx& c) {
    std::printf("global memory\n");
    char m[256];
    const int steps = 2048;
    // L1: 16 KiB, warmed in the kernel (one pass), ld.global.ca
    c.add("global.latency_l1_hit", chase<false>(c, c.d_small, 16 << 10, 256, steps, false), "cycles",
          "pointer chase, one thread, ld.global.ca over a random cycle of 128 lines (16 KiB), warmed in the kernel; cycles per load", 15, 120);
    // L2: 4 MiB, ld.global.cg, warmed in the kernel
    c.add("global.latency_l2_hit", chase<true>(c, c.d_small, 4 << 20, 4 << 20 >> 7, steps, false), "cycles",
          "pointer chase, one thread, ld.global.cg over a random cycle of 32768 lines (4 MiB, in L2), warmed in the kernel; cycles per load", 100, 1000);
    std::snprintf(m, sizeof m, "pointer chase, one thread, ld.global.cg over a random cycle of lines in %s (L2 is %d MB), cold, %d loads; cycles per load",
                  "256 MiB", c.prop.l2CacheSize >> 20, steps);
    c.add("global.latency_dram", chase<true>(c, c.d_big, size_t(256) << 20, 0, steps, true), "cycles", m, 250, 2500);
    std::snprintf(m, sizeof m, "as global.latency_dram over 2 GiB: adds the misses of the address translation caches (TLB)");
    c.add("global.latency_dram_2GiB", chase<true>(c, c.d_big, c.big_bytes, 0, steps, true), "cycles", m, 250, 4000);

    c.add("cp_async.latency_l2", cp_async_cycles(c, true), "cycles",
          "one warp, cp.async.cg 16 B per lane (512 contiguous bytes, in L2): clock, issue, commit, wait_group 0, clock; median of 63", 100, 1200);
    c.add("cp_async.latency_dram", cp_async_cycles(c, false), "cycles",
          "as cp_async.latency_l2, each rep 512 bytes at a random place in 2 GiB (not in L2); median of 64", 250, 3000);

    // Bandwidth. Whole GPU: 2 blocks of 1024 threads per SM, events around the launch.
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    auto whole_gpu = [&](const char* src, size_t bytes, int passes, double& mhz) {
        double gbs = median_runs(5, [&] {
            CK(cudaEventRecord(e0));
            stream_read<<<c.sms * 2, 1024>>>(reinterpret_cast<const uint4*>(src), bytes / 16, 0, passes, c.d_out, c.d_sink);
            CK(cudaEventRecord(e1));
            CK_LAUNCH();
            float ms = 0;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            auto r = c.fetch(2);
            mhz = double(r[0]) / double(r[1]) * 1e3;
            return double(bytes) * passes / (ms * 1e-3) / 1e9;
        });
        return gbs;
    };
    double mhz = c.mhz;
    const double dram = whole_gpu(c.d_big, c.big_bytes, 1, mhz);
    c.add("global.dram_read_GBps", dram, "GB/s",
          "whole GPU, 2 x 1024 threads per SM stream 2 GiB once (16 B ld.global.cg, 4 in flight per thread); bytes / event time; median of 5", 0.3 * c.dram_peak_gbps, 1.02 * c.dram_peak_gbps);
    std::snprintf(m, sizeof m, "global.dram_read_GBps / SMs / SM clock in that kernel (%.0f MHz)", mhz);
    c.add("global.dram_bytes_per_cycle_per_sm", dram * 1e9 / (mhz * 1e6) / c.sms, "B/cycle/SM", m, 4, 32);
    const double l2 = whole_gpu(c.d_small, c.small_bytes, 200, mhz);
    c.add("global.l2_read_GBps", l2, "GB/s",
          "whole GPU, 2 x 1024 threads per SM read an 8 MiB buffer (in L2) 200 times (16 B ld.global.cg); bytes / event time; median of 5", 2000, 20000);
    std::snprintf(m, sizeof m, "global.l2_read_GBps / SMs / SM clock in that kernel (%.0f MHz)", mhz);
    c.add("global.l2_bytes_per_cycle_per_sm", l2 * 1e9 / (mhz * 1e6) / c.sms, "B/cycle/SM", m, 8, 128);

    // One SM alone: one block of 1024 threads, cycles counted in the kernel.
    auto one_sm = [&](const char* src, size_t bytes, int warm, int passes) {
        return median_runs(5, [&] {
            stream_read<<<1, 1024>>>(reinterpret_cast<const uint4*>(src), bytes / 16, warm, passes, c.d_out, c.d_sink);
            CK_LAUNCH();
            return double(bytes) * passes / double(c.fetch(1)[0]);
        });
    };
    c.add("global.dram_bytes_per_cycle_one_sm", one_sm(c.d_big, size_t(64) << 20, 0, 1), "B/cycle",
          "one block of 1024 threads on one SM streams 64 MiB (not in L2) once, 16 B ld.global.cg, 4 in flight per thread; bytes / SM cycles", 4, 256);
    c.add("global.l2_bytes_per_cycle_one_sm", one_sm(c.d_small, c.small_bytes, 1, 4), "B/cycle",
          "one block of 1024 threads on one SM reads 8 MiB (in L2: one warm pass) 4 times, 16 B ld.global.cg; bytes / SM cycles", 8, 256);
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
}

} // namespace cal

namespace cal {
namespace {

// Streaming write, 16 bytes per lane (st.global.cg), 4 independent stores
// per thread per step: `passes` sweeps over n16 16-byte words (a power of two).
__global__ void __launch_bounds__(1024, 1) stream_write(uint4* dst, size_t n16, int passes) {
    const size_t tid = blockIdx.x * size_t(blockDim.x) + threadIdx.x, stride = size_t(gridDim.x) * blockDim.x, mask = n16 - 1;
    const size_t total = size_t(passes) * n16;
    const uint4 v = make_uint4(uint32_t(tid), 1u, 2u, 3u);
    size_t k = tid;
    for (; k + 3 * stride < total; k += 4 * stride) {
        __stcg(dst + (k & mask), v);
        __stcg(dst + ((k + stride) & mask), v);
        __stcg(dst + ((k + 2 * stride) & mask), v);
        __stcg(dst + ((k + 3 * stride) & mask), v);
    }
    for (; k < total; k += stride) __stcg(dst + (k & mask), v);
}

// Streaming write in a register tile's pattern (tk::store of an rt_fl): each
// st.global.v2.b32 puts 8 bytes per lane in 8 rows, 4 lanes (32 bytes) a row,
// so an instruction touches 8 lines, one sector each, instead of 4 whole
// lines. A 16x16 fragment takes 4 such stores. Rows are `row_words` 32-bit
// words long; fragment f of a pass starts at row 16 * (f / fragments_per_row).
__global__ void __launch_bounds__(1024, 1) stream_write_fragments(uint32_t* dst, size_t n_words, size_t row_words, int passes) {
    const int lane = threadIdx.x % 32;
    const size_t warp = (blockIdx.x * size_t(blockDim.x) + threadIdx.x) / 32, warps = size_t(gridDim.x) * blockDim.x / 32;
    const size_t per_row = row_words / 16, fragments = n_words / 256, total = size_t(passes) * fragments;
    const uint32_t a = uint32_t(warp), b = 1u;
    for (size_t f = warp; f < total; f += warps) {
        const size_t g = f % fragments, row = 16 * (g / per_row) + lane / 4, col = 16 * (g % per_row) + 2 * (lane % 4);
        uint32_t* p = dst + row * row_words + col;
        asm volatile("st.global.v2.b32 [%0], {%1, %2};" ::"l"(p), "r"(a), "r"(b) : "memory");
        asm volatile("st.global.v2.b32 [%0], {%1, %2};" ::"l"(p + 8 * row_words), "r"(a), "r"(b) : "memory");
        asm volatile("st.global.v2.b32 [%0], {%1, %2};" ::"l"(p + 8), "r"(a), "r"(b) : "memory");
        asm volatile("st.global.v2.b32 [%0], {%1, %2};" ::"l"(p + 8 * row_words + 8), "r"(a), "r"(b) : "memory");
    }
}

// Streaming copy: each thread reads 4 independent 16-byte words of src
// (ld.global.cg) and writes them to dst (st.global.cg), `passes` sweeps over
// n16 words: reads and writes in flight together, as a memory-bound kernel's
// (layernorm, rotary) are.
__global__ void __launch_bounds__(1024, 1) stream_copy(const uint4* src, uint4* dst, size_t n16, int passes) {
    const size_t tid = blockIdx.x * size_t(blockDim.x) + threadIdx.x, stride = size_t(gridDim.x) * blockDim.x, mask = n16 - 1;
    const size_t total = size_t(passes) * n16;
    size_t k = tid;
    for (; k + 3 * stride < total; k += 4 * stride) {
        const size_t i0 = k & mask, i1 = (k + stride) & mask, i2 = (k + 2 * stride) & mask, i3 = (k + 3 * stride) & mask;
        const uint4 a = __ldcg(src + i0), b = __ldcg(src + i1), c = __ldcg(src + i2), d = __ldcg(src + i3);
        __stcg(dst + i0, a);
        __stcg(dst + i1, b);
        __stcg(dst + i2, c);
        __stcg(dst + i3, d);
    }
    for (; k < total; k += stride) __stcg(dst + (k & mask), __ldcg(src + (k & mask)));
}

// One ld.global.ca.u32 the compiler must issue (asm volatile: __ldca's loads
// of one address in consecutive iterations could be merged). The SASS has
// the 8 LDGs an iteration; Nsight Compute still counts half of them
// (sim/arch/README.md, "Store bandwidth and the load/store unit").
__device__ __forceinline__ uint32_t ld_ca(const uint32_t* p) {
    uint32_t v;
    asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}

// The load/store unit's rate for global instructions: 32 warps (8 per
// sub-partition) each issue 8 independent ld.global.ca.u32 per iteration to
// a 16 KiB buffer (L1 hits: no memory behind it), lanes 4 (or 8, 16) bytes
// apart, so each instruction is one (two, four) 128-byte line(s).
template <int STRIDE_WORDS>
__global__ void __launch_bounds__(1024, 1) lsu_loads(const uint32_t* src, int iters, long long* out, uint32_t* sink) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const uint32_t* p = src + lane * STRIDE_WORDS;
    uint32_t x = 0;
    for (int j = 0; j < 8; ++j) x ^= __ldca(p + j * 32 * STRIDE_WORDS);  // warm L1
    __syncthreads();
    const long long t0 = clk();
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int j = 0; j < 8; ++j) x += ld_ca(p + ((i + j) & 7) * 32 * STRIDE_WORDS);
    }
    const long long t1 = clk();
    if (lane == 0) out[2 * warp] = t0, out[2 * warp + 1] = t1;
    if (x == 0x9e3779b9u) sink[0] = x;
}

// As lsu_loads, but a register tile's fragment pattern: lane l reads word
// l % 4 of row l / 4, rows ROW_WORDS apart, so an instruction reads 16 bytes
// from each of 8 lines (ROW_WORDS >= 32) -- what a tile load from global
// memory does.
template <int ROW_WORDS>
__global__ void __launch_bounds__(1024, 1) lsu_rows(const uint32_t* src, int iters, long long* out, uint32_t* sink) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const uint32_t* p = src + (lane / 4) * ROW_WORDS + lane % 4;
    uint32_t x = 0;
    for (int j = 0; j < 8; ++j) x ^= __ldca(p + j * 4);  // warm L1
    __syncthreads();
    const long long t0 = clk();
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int j = 0; j < 8; ++j) x += ld_ca(p + ((i + j) & 7) * 4);
    }
    const long long t1 = clk();
    if (lane == 0) out[2 * warp] = t0, out[2 * warp + 1] = t1;
    if (x == 0x9e3779b9u) sink[0] = x;
}

template <int STRIDE_WORDS>
double lsu_cycles_per_instruction(Ctx& c, int iters) {
    return median_runs(5, [&] {
        lsu_loads<STRIDE_WORDS><<<1, 1024>>>(reinterpret_cast<const uint32_t*>(c.d_small), iters, c.d_out, c.d_sink);
        CK_LAUNCH();
        return span(c.fetch(64), 32) / (32.0 * iters * 8);
    });
}

} // namespace

void run_stores(Ctx& c) {
    std::printf("global store bandwidth and the load/store unit\n");
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    // GB/s of `bytes` moved by what `launch` starts, timed by events; median of 5.
    auto gb_per_s = [&](double bytes, auto&& launch) {
        return median_runs(5, [&] {
            CK(cudaEventRecord(e0));
            launch();
            CK(cudaEventRecord(e1));
            CK_LAUNCH();
            float ms = 0;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            return bytes / (ms * 1e-3) / 1e9;
        });
    };
    auto whole_gpu = [&](char* dst, size_t bytes, int passes, int blocks = 0, int threads = 1024) {
        return gb_per_s(double(bytes) * passes, [&] {
            stream_write<<<blocks ? blocks : c.sms * 2, threads>>>(reinterpret_cast<uint4*>(dst), bytes / 16, passes);
        });
    };
    char m[256];
    const double per_sm = 1e9 / (c.mhz * 1e6) / c.sms;  // GB/s -> bytes per SM cycle
    const double l2 = whole_gpu(c.d_small, c.small_bytes, 200);
    std::snprintf(m, sizeof m, "whole GPU, 2 x 1024 threads per SM write an 8 MiB buffer (in L2) 200 times, 16 B st.global.cg; "
                               "bytes / event time / SMs / SM clock (%.0f MHz); median of 5", c.mhz);
    c.add("global.l2_write_bytes_per_cycle_per_sm", l2 * per_sm, "B/cycle/SM", m, 4, 128);
    // A 32 MiB output (fits the 50 MB L2) written 20 times, and 2 GiB once (DRAM).
    for (auto [mib, passes] : {std::pair{32, 20}, std::pair{2048, 1}}) {
        const double gbs = whole_gpu(c.d_big, size_t(mib) << 20, passes);
        char name[96];
        std::snprintf(name, sizeof name, "global.write_bytes_per_cycle_per_sm_%dMiB", mib);
        std::snprintf(m, sizeof m, "whole GPU, 2 x 1024 threads per SM write %d MiB %d time(s), 16 B st.global.cg; "
                                   "bytes / event time / SMs / SM clock; median of 5", mib, passes);
        c.add(name, gbs * per_sm, "B/cycle/SM", m, 2, 128);
    }
    // The same bytes in a register tile's store pattern (8 lines of one sector
    // each an instruction): whether L2 and DRAM take sector-sized writes at the
    // rate of whole lines. Rows of 4096 words (16 KiB), as a wide fp32 output.
    auto fragments = [&](char* dst, size_t bytes, int passes) {
        return gb_per_s(double(bytes) * passes, [&] {
            stream_write_fragments<<<c.sms * 2, 1024>>>(reinterpret_cast<uint32_t*>(dst), bytes / 4, 4096, passes);
        });
    };
    std::snprintf(m, sizeof m, "whole GPU, 2 x 1024 threads per SM write an 8 MiB buffer (in L2) 200 times as 16x16 fp32 fragments "
                               "(st.global.v2.b32: 8 rows x 32 B an instruction); bytes / event time / SMs / SM clock; median of 5");
    c.add("global.l2_write_bytes_per_cycle_per_sm_fragments", fragments(c.d_small, c.small_bytes, 200) * per_sm, "B/cycle/SM", m, 2, 128);
    std::snprintf(m, sizeof m, "whole GPU, 2 x 1024 threads per SM write 2048 MiB once as 16x16 fp32 fragments "
                               "(st.global.v2.b32: 8 rows x 32 B an instruction); bytes / event time / SMs / SM clock; median of 5");
    c.add("global.write_bytes_per_cycle_per_sm_2048MiB_fragments", fragments(c.d_big, c.big_bytes, 1) * per_sm, "B/cycle/SM", m, 2, 128);
    // One SM alone writing L2 (a block on one SM; the whole GPU's bytes per cycle, here one SM's).
    for (int threads : {1024, 128}) {
        const double gbs = whole_gpu(c.d_small, c.small_bytes, 2, 1, threads);
        char name[96];
        std::snprintf(name, sizeof name, threads == 1024 ? "global.l2_write_bytes_per_cycle_one_sm" : "global.l2_write_bytes_per_cycle_one_sm_%dwarps", threads / 32);
        std::snprintf(m, sizeof m, "one block of %d threads on one SM writes an 8 MiB buffer (in L2) twice, 16 B st.global.cg; "
                                   "bytes / event time / SM clock; median of 5", threads);
        c.add(name, gbs * per_sm * c.sms, "B/cycle", m, 4, 256);
    }
    // Reads and writes at once: 4 MiB copied to 4 MiB beside it (both in L2),
    // by the whole GPU and by one SM alone; bytes read per cycle (as many are
    // written). With reads and writes taking turns at L2 this would be
    // 1 / (1/read + 1/write); with separate paths, the slower of the two.
    auto copy = [&](int blocks, int threads, int passes) {
        const size_t half = c.small_bytes / 2;
        return gb_per_s(double(half) * passes, [&] {
            stream_copy<<<blocks, threads>>>(reinterpret_cast<const uint4*>(c.d_small), reinterpret_cast<uint4*>(c.d_small + half), half / 16, passes);
        });
    };
    std::snprintf(m, sizeof m, "whole GPU, 2 x 1024 threads per SM copy 4 MiB to 4 MiB (in L2) 200 times, 16 B ld/st.global.cg; "
                               "bytes read (= written) / event time / SMs / SM clock; median of 5");
    c.add("global.l2_copy_bytes_per_cycle_per_sm", copy(c.sms * 2, 1024, 200) * per_sm, "B/cycle/SM", m, 2, 128);
    std::snprintf(m, sizeof m, "one block of 1024 threads on one SM copies 4 MiB to 4 MiB (in L2) twice, 16 B ld/st.global.cg; "
                               "bytes read (= written) / event time / SM clock; median of 5");
    c.add("global.l2_copy_bytes_per_cycle_one_sm", copy(1, 1024, 2) * per_sm * c.sms, "B/cycle", m, 2, 256);
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    const char* lm = "32 warps x 8 independent ld.global.ca.u32 per iteration, L1 hits, lanes %d bytes apart (%d line(s) an instruction); "
                     "SM cycles per instruction";
    std::snprintf(m, sizeof m, lm, 4, 1);
    c.add("lsu.ld_ca_cycles_per_instruction_1line", lsu_cycles_per_instruction<1>(c, 256), "cycles", m, 0.2, 16);
    std::snprintf(m, sizeof m, lm, 8, 2);
    c.add("lsu.ld_ca_cycles_per_instruction_2lines", lsu_cycles_per_instruction<2>(c, 128), "cycles", m, 0.2, 32);
    std::snprintf(m, sizeof m, lm, 16, 4);
    c.add("lsu.ld_ca_cycles_per_instruction_4lines", lsu_cycles_per_instruction<4>(c, 64), "cycles", m, 0.2, 64);
    c.add("lsu.ld_ca_cycles_per_instruction_32lines", lsu_cycles_per_instruction<32>(c, 16), "cycles",
          "32 warps x 8 independent ld.global.ca.u32 per iteration, L1 hits, lanes 128 bytes apart (32 lines an instruction); SM cycles per instruction", 0.2, 256);
    c.add("lsu.ld_ca_cycles_per_instruction_8rows", median_runs(5, [&] {
              lsu_rows<64><<<1, 1024>>>(reinterpret_cast<const uint32_t*>(c.d_small), 64, c.d_out, c.d_sink);
              CK_LAUNCH();
              return span(c.fetch(64), 32) / (32.0 * 64 * 8);
          }), "cycles",
          "32 warps x 8 independent ld.global.ca.u32 per iteration, L1 hits, a register tile fragment's pattern: 16 bytes from each of 8 "
          "lines 256 bytes apart; SM cycles per instruction", 0.2, 128);
}

} // namespace cal
