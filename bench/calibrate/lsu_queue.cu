// How many global loads (and stores) a warp can issue before the load/store
// unit's queue is full and the warp waits to issue (Nsight's `lg_throttle`).
//
// Each active warp issues a burst of N independent ld.global.ca.u32 (or
// st.global.u32) whose 32 lanes are 128 bytes apart: 32 lines an instruction.
// %clock64 before and after the burst gives the cycles the warp took to
// *issue* it: a few a load while the queue takes them, then the unit's time
// per instruction once it is full. The knee is the queue's depth in
// instructions. Run with one warp, two on one sub-partition (warps w, w+4),
// and one and two on each of the 4: whether the depth is a sub-partition's or
// the SM's. scripts/dev/lsu_queue_fit.py fits a depth to the issue times.
// The same bursts of cp.async: whether the copies wait in a queue too. Then
// stores of 1 to 32 lines an instruction, past the knee: the unit's time per
// store by the lines it writes.
#include "common.h"

namespace cal {
namespace {

__device__ __forceinline__ uint32_t ld_ca_u32(const uint32_t* p) {
    uint32_t v;
    asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void st_u32(uint32_t* p, uint32_t v) { asm volatile("st.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory"); }
__device__ __forceinline__ void st_v2(uint32_t* p, uint32_t v) { asm volatile("st.global.v2.u32 [%0], {%1, %1};" ::"l"(p), "r"(v) : "memory"); }
__device__ __forceinline__ void st_v4(uint32_t* p, uint32_t v) {
    asm volatile("st.global.v4.u32 [%0], {%1, %1, %1, %1};" ::"l"(p), "r"(v) : "memory");
}

constexpr int kStrideWords = 32;  // 128 bytes between lanes: 32 lines an instruction

template <int N, bool Store>
__global__ void __launch_bounds__(512, 1) lsu_burst(uint32_t* buf, unsigned warp_mask, int zero, long long* out, uint32_t* sink) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const bool active = (warp_mask >> warp) & 1u;
    uint32_t* p = buf + size_t(warp) * 4 * 32 * kStrideWords + lane * kStrideWords;  // 16 KiB a warp, 4 instructions' worth
    uint32_t x = 0;
    if (active)  // into L1: the burst's loads hit
        for (int j = 0; j < 4; ++j) x ^= __ldca(p + j * 32 * kStrideWords) ^ __ldca(p + j * 32 * kStrideWords + 8);
    if (x == 0x9e3779b9u) sink[1] = x;  // the warm-up loads are back before the burst
    __syncthreads();                     // and the bursts start together
    if (!active) return;
    uint32_t v[N];
    const long long t0 = clk();
    // The addresses depend on t0 (zero is 0 at run time): ptxas cannot hoist
    // the loads above the first clock read, as it would independent ones.
    p += size_t(t0) * size_t(zero);
#pragma unroll
    for (int j = 0; j < N; ++j) {
        // A word of its own in the lane's line (ptxas merges loads of one
        // address), the lines of 4 instructions over and over (L1 hits).
        uint32_t* a = p + (j & 3) * 32 * kStrideWords + (j >> 2);
        if constexpr (Store) st_u32(a, x + uint32_t(j));
        else v[j] = ld_ca_u32(a);
    }
    const long long t1 = clk();
    if constexpr (!Store) {
#pragma unroll
        for (int j = 0; j < N; ++j) x += v[j];
    }
    if (lane == 0) out[warp] = t1 - t0;
    if (x == 0x9e3779b9u) sink[0] = x;
}

// As lsu_burst, for cp.async (16 bytes a lane, .cg: past L1, lanes 128 bytes
// apart: 32 lines an instruction, from L2) into the warp's own 512 bytes of
// shared memory: whether the copies wait for the same queue.
template <int N>
__global__ void __launch_bounds__(512, 1) cp_async_burst(const uint32_t* buf, unsigned warp_mask, int zero, long long* out) {
    __shared__ __align__(16) uint32_t dst[16][32][4];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const bool active = (warp_mask >> warp) & 1u;
    const uint32_t* p = buf + size_t(warp) * 4 * 32 * kStrideWords + lane * kStrideWords;
    const uint32_t to = smem_u32(&dst[warp][lane][0]);
    __syncthreads();
    if (!active) return;
    const long long t0 = clk();
    p += size_t(t0) * size_t(zero);
#pragma unroll
    for (int j = 0; j < N; ++j)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(to), "l"(p + (j & 3) * 32 * kStrideWords) : "memory");
    const long long t1 = clk();
    asm volatile("cp.async.wait_all;" ::: "memory");
    if (lane == 0) out[warp] = t1 - t0;
}

// Stores of `LINES` lines an instruction, WORDS 32-bit words a lane (lanes
// side by side within a line, 32 / LINES to a line: 4 * WORDS * 32 / LINES
// bytes of each line), each instruction to lines of its own: the unit's time
// per store by the lines it writes (and the bytes it writes of each), once
// the queue is full.
template <int N, int LINES, int WORDS = 1>
__global__ void __launch_bounds__(512, 1) store_lines_burst(uint32_t* buf, int zero, long long* out) {
    static_assert(WORDS * 32 / LINES <= 32, "a line holds 32 words");
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    constexpr int per_line = 32 / LINES;
    uint32_t* p = buf + size_t(warp) * N * LINES * 32 + (lane / per_line) * 32 + (lane % per_line) * WORDS;
    __syncthreads();
    const long long t0 = clk();
    p += size_t(t0) * size_t(zero);
#pragma unroll
    for (int j = 0; j < N; ++j) {
        if constexpr (WORDS == 1) st_u32(p + j * LINES * 32, uint32_t(j));
        else if constexpr (WORDS == 2) st_v2(p + j * LINES * 32, uint32_t(j));
        else st_v4(p + j * LINES * 32, uint32_t(j));
    }
    const long long t1 = clk();
    if (lane == 0) out[warp] = t1 - t0;
}

// The slowest of 8 warps' issue times (two per sub-partition, their records
// in c.d_out) once `launch` has run a block of 256 threads; median of 5.
template <class Launch>
double slowest_of_8(Ctx& c, Launch launch) {
    return median_runs(5, [&] {
        launch();
        CK_LAUNCH();
        const std::vector<long long> r = c.fetch(8);
        return double(*std::max_element(r.begin(), r.end()));
    });
}

// The steady time per store, SM-wide, 8 warps (two per sub-partition)
// issuing past the knee: the slope from 48 to 64 stores each.
template <int LINES, int WORDS = 1>
double store_cycles_per_instruction(Ctx& c) {
    auto slowest = [&](auto kernel) { return slowest_of_8(c, [&] { kernel<<<1, 256>>>(reinterpret_cast<uint32_t*>(c.d_small), 0, c.d_out); }); };
    return (slowest(store_lines_burst<64, LINES, WORDS>) - slowest(store_lines_burst<48, LINES, WORDS>)) / 16 / 8;
}

// 8 warps (two per sub-partition) each issue N independent ld.global.ca.v4
// whose lanes read 16 bytes side by side: 4 lines an instruction, L1 hits (as
// the tile library's loads of a row), to compare with the 32-line bursts.
template <int N>
__global__ void __launch_bounds__(256, 1) load_4lines_burst(const uint32_t* buf, int zero, long long* out, uint32_t* sink) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    // 64 rows of 512 bytes (32 KiB), read by every warp: an address of its own each load (ptxas merges
    // loads of one address), all in L1 once the 8 warps have each read 8 rows.
    const uint32_t* p = buf + lane * 4;
    uint32_t x = 0;
    for (int j = 0; j < 8; ++j) x ^= __ldca(p + (warp * 8 + j) * 128);
    if (x == 0x9e3779b9u) sink[1] = x;
    __syncthreads();
    uint4 v[N];
    const long long t0 = clk();
    p += size_t(t0) * size_t(zero);
#pragma unroll
    for (int j = 0; j < N; ++j)
        asm volatile("ld.global.ca.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v[j].x), "=r"(v[j].y), "=r"(v[j].z), "=r"(v[j].w) : "l"(p + j * 128) : "memory");
    const long long t1 = clk();
#pragma unroll
    for (int j = 0; j < N; ++j) x += v[j].x ^ v[j].w;
    if (lane == 0) out[warp] = t1 - t0;
    if (x == 0x9e3779b9u) sink[0] = x;
}

// What a burst is made of.
enum Kind { kLoad, kStore, kCpAsync };

// The slowest active warp's issue time of one burst (the warps' records in c.d_out).
double slowest_active(const Ctx& c, unsigned mask) {
    const std::vector<long long> r = c.fetch(16);
    long long worst = 0;
    for (int w = 0; w < 16; ++w)
        if ((mask >> w) & 1u) worst = std::max(worst, r[size_t(w)]);
    return double(worst);
}

template <int K, int N>
double burst_issue_cycles(Ctx& c, unsigned mask) {
    return median_runs(5, [&] {
        if constexpr (K == kCpAsync) cp_async_burst<N><<<1, 512>>>(reinterpret_cast<const uint32_t*>(c.d_small), mask, 0, c.d_out);
        else lsu_burst<N, K == kStore><<<1, 512>>>(reinterpret_cast<uint32_t*>(c.d_small), mask, 0, c.d_out, c.d_sink);
        CK_LAUNCH();
        return slowest_active(c, mask);
    });
}

// Warps w, w+4, ... share a sub-partition.
struct Row { const char* what; const char* tag; unsigned mask; };
constexpr Row kRows[] = {
    {"1 warp", "1w", 0x1u},
    {"2 warps, one sub-partition", "2w_1smsp", 0x11u},
    {"4 warps, one per sub-partition", "1w_per_smsp", 0xFu},
    {"8 warps, two per sub-partition", "2w_per_smsp", 0xFFu},
};
constexpr int kBursts[] = {1, 4, 8, 12, 16, 24, 32, 48, 64};

template <int K, int... Ns>
std::vector<double> sweep(Ctx& c, unsigned mask, std::integer_sequence<int, Ns...>) {
    return {burst_issue_cycles<K, kBursts[Ns]>(c, mask)...};
}

// The slowest of 8 warps' issue times for each burst size: `burst(n)`
// launches a block of 256 threads issuing bursts of n (a std::integral_constant).
template <class Burst, int... Ns>
std::vector<double> sweep_8_warps(Ctx& c, Burst burst, std::integer_sequence<int, Ns...>) {
    return {slowest_of_8(c, [&] { burst(std::integral_constant<int, kBursts[Ns]>{}); })...};
}

// An 8-warp sweep's row, printed, and its figures: `name` and `method` are
// formats with a %d for the burst size.
void add_sweep(Ctx& c, const char* title, const std::vector<double>& t, const char* name, const char* method) {
    std::printf("  %s, N =", title);
    for (int n : kBursts) std::printf(" %6d", n);
    std::printf("\n  %-34s", "");
    for (size_t k = 0; k < t.size(); ++k) {
        std::printf(" %6.0f", t[k]);
        char nm[96], m[320];
        std::snprintf(nm, sizeof nm, name, kBursts[k]);
        std::snprintf(m, sizeof m, method, kBursts[k]);
        c.add(nm, t[k], "cycles", m, 0, 1e5);
    }
    std::printf("\n");
}

} // namespace

void run_lsu_queue(Ctx& c) {
    std::printf("the load/store unit's queue: cycles to issue a burst of N independent global instructions, 32 lines each\n");
    constexpr auto idx = std::make_integer_sequence<int, int(sizeof kBursts / sizeof kBursts[0])>{};
    for (Kind kind : {kLoad, kStore, kCpAsync}) {
        const char* what = kind == kLoad ? "ld.global.ca.u32 (L1 hits)" : kind == kStore ? "st.global.u32" : "cp.async.cg 16 B (from L2)";
        std::printf("  %-34s", (std::string(what) + ", N =").c_str());
        for (int n : kBursts) std::printf(" %6d", n);
        std::printf("\n");
        for (const Row& row : kRows) {
            const std::vector<double> t = kind == kLoad    ? sweep<kLoad>(c, row.mask, idx)
                                          : kind == kStore ? sweep<kStore>(c, row.mask, idx)
                                                           : sweep<kCpAsync>(c, row.mask, idx);
            std::printf("  %-34s", row.what);
            for (double v : t) std::printf(" %6.0f", v);
            std::printf("\n");
            // The raw issue times are the figures (as shared.issue_cycles_*
            // are the shared-memory queue's): a model of the queue is fitted to them.
            for (size_t k = 0; k < t.size(); ++k) {
                char name[96], m[320];
                std::snprintf(name, sizeof name, "lsu.%s_issue_cycles_%dx32lines_%s", kind == kLoad ? "ld" : kind == kStore ? "st" : "cp_async",
                              kBursts[k], row.tag);
                std::snprintf(m, sizeof m, "%s, after a block-wide barrier, each issue %d independent %s, lanes 128 bytes apart (32 lines "
                                           "an instruction); cycles from before the first to after the last issues (slowest warp); median of 5",
                              row.what, kBursts[k], what);
                c.add(name, t[k], "cycles", m, 0, 1e5);
            }
        }
    }
    std::printf("  st.global.u32 by the lines an instruction writes: steady cycles per instruction, SM-wide\n");
    const int lines[] = {1, 2, 4, 8, 16, 32};
    const double per[] = {store_cycles_per_instruction<1>(c), store_cycles_per_instruction<2>(c), store_cycles_per_instruction<4>(c),
                          store_cycles_per_instruction<8>(c), store_cycles_per_instruction<16>(c), store_cycles_per_instruction<32>(c)};
    for (int k = 0; k < 6; ++k) {
        char name[96], m[320];
        std::snprintf(name, sizeof name, "lsu.st_cycles_per_instruction_%dlines", lines[k]);
        std::snprintf(m, sizeof m, "8 warps (two per sub-partition) each issue 48 and 64 independent st.global.u32 of %d line(s) an "
                                   "instruction (%d lanes to a line, lines of its own each); the difference of the slowest warps' issue "
                                   "times over 16 x 8 stores; median of 5", lines[k], 32 / lines[k]);
        c.add(name, per[k], "cycles", m, 0.5, 256);
    }
    // Bursts of 8-line stores (st.global.v2, 32 bytes of each line, as a
    // float register tile's store writes), 8 warps: where the knee falls says
    // whether the queue holds instructions (at a fourth of the 32-line
    // stores' burst, in lines) or lines (four times as many instructions).
    auto* small = reinterpret_cast<uint32_t*>(c.d_small);
    add_sweep(c, "st.global.v2.u32, 8 lines of 32 bytes, 8 warps (two per sub-partition)",
              sweep_8_warps(c, [&](auto n) { store_lines_burst<decltype(n)::value, 8, 2><<<1, 256>>>(small, 0, c.d_out); }, idx),
              "lsu.st_issue_cycles_%dx8lines_32B_2w_per_smsp",
              "8 warps (two per sub-partition), after a block-wide barrier, each issue %d independent st.global.v2.u32 "
              "of 8 lines an instruction (32 bytes of each, lines of its own each); cycles from before the first to "
              "after the last issues (slowest warp); median of 5");
    add_sweep(c, "ld.global.ca.v4.u32, 4 lines (L1 hits), 8 warps (two per sub-partition)",
              sweep_8_warps(c, [&](auto n) { load_4lines_burst<decltype(n)::value><<<1, 256>>>(small, 0, c.d_out, c.d_sink); }, idx),
              "lsu.ld_issue_cycles_%dx4lines_2w_per_smsp",
              "8 warps (two per sub-partition), after a block-wide barrier, each issue %d independent ld.global.ca.v4.u32 "
              "of 4 lines an instruction (16 bytes a lane side by side, L1 hits); cycles from before the first to after "
              "the last issues (slowest warp); median of 5");
    // The same with wider lanes (st.global.v2/.v4): whether the unit's time
    // goes by the lines a store writes or by its bytes. The tile library's
    // stores from registers are 8 lines of 16 to 64 bytes an instruction.
    std::printf("  st.global.v2/.v4 by lines and bytes a line: steady cycles per instruction, SM-wide\n");
    struct Wide { int lines, words; double cycles; };
    const Wide wide[] = {{8, 2, store_cycles_per_instruction<8, 2>(c)}, {8, 4, store_cycles_per_instruction<8, 4>(c)},
                         {16, 4, store_cycles_per_instruction<16, 4>(c)}, {32, 2, store_cycles_per_instruction<32, 2>(c)},
                         {32, 4, store_cycles_per_instruction<32, 4>(c)}};
    for (const Wide& w : wide) {
        const int bytes = 4 * w.words * 32 / w.lines;
        char name[96], m[320];
        std::snprintf(name, sizeof name, "lsu.st_cycles_per_instruction_%dlines_%dB", w.lines, bytes);
        std::snprintf(m, sizeof m, "as lsu.st_cycles_per_instruction_%dlines, st.global.v%d.u32: %d bytes of each line", w.lines, w.words, bytes);
        std::printf("    %2d lines of %3d bytes: %6.1f\n", w.lines, bytes, w.cycles);
        c.add(name, w.cycles, "cycles", m, 0.5, 512);
    }
}

} // namespace cal
