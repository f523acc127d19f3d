// Asynchronous copies and barriers: TMA (cp.async.bulk.tensor 2D) load
// latency and load/store throughput, bar.sync latency, mbarrier arrive +
// try_wait round trip.
#include <cuda.h>  // CUtensorMap and its enums only; the encoder comes through the runtime
#include <random>
#include "common.h"

namespace cal {
namespace {

constexpr int kBoxCols = 64, kBoxRows = 64;               // bf16: 128-byte rows, 128-byte swizzle
constexpr uint32_t kBoxBytes = kBoxCols * kBoxRows * 2;   // 8 KiB, a GEMM operand tile's size
constexpr int kStages = 8;                                 // loads in flight in the stream
constexpr int kMaxStages = 16;

__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void mbar_expect_tx(uint32_t bar, uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
    asm volatile("{\n\t.reg .pred p;\n"
                 "WAIT:\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n\t@!p bra WAIT;\n}" ::"r"(bar), "r"(parity) : "memory");
}
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap* map, int c0, int c1, uint32_t bar) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 ::"r"(dst), "l"(map), "r"(c0), "r"(c1), "r"(bar) : "memory");
}
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, uint32_t src, int c0, int c1) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%2, %3}], [%1];" ::"l"(map), "r"(src), "r"(c0), "r"(c1) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
// Box number b of a tensor `cols` wide, boxes in row-major order.
__device__ __forceinline__ void box_coords(uint64_t b, int cols, int& c0, int& c1) {
    const int per_row = cols / kBoxCols;
    c0 = int(b % per_row) * kBoxCols;
    c1 = int(b / per_row) * kBoxRows;
}
__device__ __forceinline__ uint32_t align1024(uint32_t a) { return (a + 1023u) & ~1023u; }

// Latency: one thread; clock, expect_tx + one box load, spin on the
// mbarrier's phase, clock. Rep r loads box boxes[r].
__global__ void tma_load_latency(const __grid_constant__ CUtensorMap map, int cols, const unsigned long long* boxes, int reps, long long* out) {
    extern __shared__ char dyn[];
    __shared__ __align__(8) uint64_t bar;
    if (threadIdx.x != 0) return;
    const uint32_t dst = align1024(smem_u32(dyn)), b = smem_u32(&bar);
    mbar_init(b, 1);
    for (int r = 0; r < reps; ++r) {
        int c0, c1;
        box_coords(boxes[r], cols, c0, c1);
        const long long t0 = clk();
        mbar_expect_tx(b, kBoxBytes);
        tma_load_2d(dst, &map, c0, c1, b);
        mbar_wait(b, uint32_t(r & 1));
        const long long t1 = clk();
        out[r] = t1 - t0;
    }
}

// The next box of a walk over a tensor's boxes in row-major order, wrapping
// at the end: two compares, no division (a 64-bit division per box made the
// issuing thread, not the copy engine, the bottleneck).
struct BoxWalk {
    int c0, c1, cols, rows, box_rows;
    __device__ BoxWalk(uint64_t first, int cols_, int rows_, int box_rows_) : cols(cols_), rows(rows_), box_rows(box_rows_) {
        const uint64_t per_row = uint64_t(cols / kBoxCols), total = per_row * uint64_t(rows / box_rows);
        first %= total;
        c0 = int(first % per_row) * kBoxCols;
        c1 = int(first / per_row) * box_rows;
    }
    __device__ void next() {
        c0 += kBoxCols;
        if (c0 == cols) c0 = 0, c1 += box_rows;
        if (c1 == rows) c1 = 0;
    }
};

// Throughput: in each block (one per SM), lane 0 of each warp (an issuer)
// keeps `stages` box loads of `box_bytes` in flight: wait for a stage's
// phase, issue the next load into it. Issuer w of block k starts at box
// (k * warps + w) * loads. Records (start, end) cycles per issuer. One warp
// is a GEMM's producer; several tell whether the issuing thread or the copy
// engine limits the rate.
__global__ void tma_load_stream(const __grid_constant__ CUtensorMap map, int cols, int rows, int box_rows, uint32_t box_bytes,
                                int stages, int loads, long long* out) {
    extern __shared__ char dyn[];
    __shared__ __align__(8) uint64_t bars[kMaxStages];
    if (threadIdx.x % 32 != 0) return;
    const int warp = threadIdx.x / 32, warps = blockDim.x / 32, first = warp * stages;
    const uint32_t dst = align1024(smem_u32(dyn)) + first * box_bytes;
    for (int s = 0; s < stages; ++s) mbar_init(smem_u32(&bars[first + s]), 1);
    BoxWalk w((uint64_t(blockIdx.x) * warps + warp) * loads, cols, rows, box_rows);
    auto issue = [&](int s) {
        mbar_expect_tx(smem_u32(&bars[first + s]), box_bytes);
        tma_load_2d(dst + s * box_bytes, &map, w.c0, w.c1, smem_u32(&bars[first + s]));
        w.next();
    };
    const long long t0 = clk();
    for (int i = 0; i < stages && i < loads; ++i) issue(i);
    int s = 0;
    uint32_t parity = 0;
    for (int i = 0; i < loads; ++i) {
        mbar_wait(smem_u32(&bars[first + s]), parity);
        if (i + stages < loads) issue(s);
        if (++s == stages) s = 0, parity ^= 1;
    }
    const long long t1 = clk();
    const int rec = blockIdx.x * warps + warp;
    out[2 * rec] = t0, out[2 * rec + 1] = t1;
}

// Store throughput: the block fills one box in shared memory; one thread
// stores it `stores` times to the boxes from k * stores on, one bulk group
// each, then waits for all writes (wait_group 0).
__global__ void tma_store_stream(const __grid_constant__ CUtensorMap map, int cols, int rows, int stores, long long* out) {
    extern __shared__ char dyn[];
    const uint32_t src = align1024(smem_u32(dyn));
    char* p = dyn + (src - smem_u32(dyn));
    for (uint32_t i = threadIdx.x; i < kBoxBytes / 2; i += blockDim.x) reinterpret_cast<uint16_t*>(p)[i] = small_bf16(i);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // generic writes, read by the copy engine
    __syncthreads();
    if (threadIdx.x != 0) return;
    BoxWalk w(uint64_t(blockIdx.x) * stores, cols, rows, kBoxRows);
    const long long t0 = clk();
    for (int i = 0; i < stores; ++i) {
        tma_store_2d(&map, src, w.c0, w.c1);
        w.next();
    }
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    const long long t1 = clk();
    out[2 * blockIdx.x] = t0, out[2 * blockIdx.x + 1] = t1;
}

// bar.sync with every warp of the block arriving together, `iters` times.
__global__ void bar_sync_loop(int iters, long long* out) {
    __syncthreads();
    const long long t0 = clk();
    for (int i = 0; i < iters; i += 8) {
#pragma unroll
        for (int u = 0; u < 8; ++u) asm volatile("bar.sync 0;" ::: "memory");
    }
    const long long t1 = clk();
    if (threadIdx.x == 0) out[0] = t1 - t0;
}

// One thread: arrive on an mbarrier of count 1 (completing its phase), then
// try_wait on that phase until it reports done, `iters` times.
__global__ void mbarrier_roundtrip(int iters, long long* out) {
    __shared__ __align__(8) uint64_t bar;
    const uint32_t b = smem_u32(&bar);
    mbar_init(b, 1);
    const long long t0 = clk();
    for (int i = 0; i < iters; ++i) {
        mbar_arrive(b);
        mbar_wait(b, uint32_t(i & 1));
    }
    const long long t1 = clk();
    out[0] = t1 - t0;
}

using encode_fn = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*, const cuuint64_t*,
                               const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                               CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

// A 2-D bf16 tensor map of `rows` x `cols` at `base`, boxes of 64 columns x box_rows, 128-byte swizzle.
CUtensorMap make_map(void* base, uint64_t rows, uint64_t cols, uint32_t box_rows = kBoxRows) {
    static encode_fn fn = [] {
        void* p = nullptr;
        cudaDriverEntryPointQueryResult q{};
        CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q));
        if (q != cudaDriverEntryPointSuccess || !p) { std::fprintf(stderr, "no cuTensorMapEncodeTiled\n"); std::exit(1); }
        return reinterpret_cast<encode_fn>(p);
    }();
    CUtensorMap m{};
    const cuuint64_t dims[2] = {cols, rows}, strides[1] = {cols * 2};
    const cuuint32_t box[2] = {kBoxCols, box_rows}, estr[2] = {1, 1};
    const CUresult r = fn(&m, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, base, dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                          CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) { std::fprintf(stderr, "cuTensorMapEncodeTiled failed: %d\n", int(r)); std::exit(1); }
    return m;
}

} // namespace

void run_async(Ctx& c) {
    std::printf("TMA and barriers\n");
    char m[256];
    // The L2-resident tensor: 8 MiB = 2048 x 2048 bf16; the DRAM one: 2 GiB = 262144 x 4096.
    const uint64_t s_cols = 2048, s_rows = c.small_bytes / (s_cols * 2), b_cols = 4096, b_rows = c.big_bytes / (b_cols * 2);
    const CUtensorMap small = make_map(c.d_small, s_rows, s_cols), big = make_map(c.d_big, b_rows, b_cols);
    const uint64_t big_boxes = (b_rows / kBoxRows) * (b_cols / kBoxCols);
    const int smem_one = kBoxBytes + 1024;
    // 120 KiB of dynamic shared memory: at most one block per SM
    const int smem_alone = 120 << 10;
    CK(cudaFuncSetAttribute(tma_load_stream, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_alone));
    CK(cudaFuncSetAttribute(tma_store_stream, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_alone));

    const int reps = 64;
    unsigned long long* d_boxes = nullptr;
    CK(cudaMalloc(&d_boxes, reps * sizeof(unsigned long long)));
    std::mt19937_64 rng(3);
    auto latency = [&](bool cold) {
        return median_runs(5, [&] {
            std::vector<unsigned long long> b(reps);
            for (auto& x : b) x = cold ? rng() % big_boxes : 5;  // warm: the same box each time (in L2 after the first)
            CK(cudaMemcpy(d_boxes, b.data(), reps * sizeof(unsigned long long), cudaMemcpyHostToDevice));
            tma_load_latency<<<1, 32, smem_one>>>(cold ? big : small, int(cold ? b_cols : s_cols), d_boxes, reps, c.d_out);
            CK_LAUNCH();
            auto r = c.fetch(reps);
            return median(std::vector<double>(r.begin() + 1, r.end()));
        });
    };
    std::snprintf(m, sizeof m, "one thread: clock, expect_tx + one %u-byte 64x64 bf16 box load (128B swizzle), spin on the mbarrier phase, clock; box in L2; median of %d", kBoxBytes, reps - 1);
    c.add("tma.load_latency_l2", latency(false), "cycles", m, 150, 3000);
    std::snprintf(m, sizeof m, "as tma.load_latency_l2, each box at a random place in a 2 GiB tensor (not in L2)");
    c.add("tma.load_latency_dram", latency(true), "cycles", m, 250, 5000);

    const CUtensorMap small_tall = make_map(c.d_small, s_rows, s_cols, 256);  // 32 KiB boxes
    auto load_stream = [&](int blocks, bool in_l2, int n, int stages = kStages, bool tall = false, int issuers = 1) {
        const uint32_t box_bytes = tall ? 4 * kBoxBytes : kBoxBytes;
        return median_runs(5, [&] {
            tma_load_stream<<<blocks, 32 * issuers, smem_alone>>>(in_l2 ? (tall ? small_tall : small) : big, int(in_l2 ? s_cols : b_cols),
                                                                  int(in_l2 ? s_rows : b_rows), tall ? 256 : kBoxRows, box_bytes, stages, n, c.d_out);
            CK_LAUNCH();
            auto r = c.fetch(2 * size_t(blocks) * issuers);
            std::vector<double> bpc;
            for (int k = 0; k < blocks; ++k)
                bpc.push_back(double(n) * issuers * box_bytes / span(std::vector<long long>(r.begin() + 2 * k * issuers, r.begin() + 2 * (k + 1) * issuers), issuers));
            return median(bpc);  // per SM
        });
    };
    auto store_stream = [&](int blocks, int n, bool to_big) {
        return median_runs(5, [&] {
            tma_store_stream<<<blocks, 128, smem_alone>>>(to_big ? big : small, int(to_big ? b_cols : s_cols), int(to_big ? b_rows : s_rows), n, c.d_out);
            CK_LAUNCH();
            auto r = c.fetch(2 * size_t(blocks));
            std::vector<double> bpc;
            for (int k = 0; k < blocks; ++k) bpc.push_back(double(n) * kBoxBytes / double(r[2 * k + 1] - r[2 * k]));
            return median(bpc);
        });
    };
    const char* sm = "%s, one thread per block (one block per SM) keeps %d box loads of %d KiB in flight, %d loads, %s; bytes / SM cycles (median over SMs)";
    std::snprintf(m, sizeof m, sm, "one SM", kStages, 8, 2048, "from an 8 MiB tensor in L2");
    c.add("tma.load_bytes_per_cycle_one_sm_l2", load_stream(1, true, 2048), "B/cycle/SM", m, 8, 256);
    std::snprintf(m, sizeof m, sm, "one SM", 12, 8, 2048, "from an 8 MiB tensor in L2");
    c.add("tma.load_bytes_per_cycle_one_sm_l2_12x8KiB", load_stream(1, true, 2048, 12), "B/cycle/SM", m, 8, 256);
    std::snprintf(m, sizeof m, sm, "one SM", 3, 32, 512, "64 x 256 boxes from an 8 MiB tensor in L2");
    c.add("tma.load_bytes_per_cycle_one_sm_l2_3x32KiB", load_stream(1, true, 512, 3, true), "B/cycle/SM", m, 8, 256);
    std::snprintf(m, sizeof m, "one SM, 4 issuing threads (lane 0 of 4 warps) each keep 3 box loads of 8 KiB in flight, 1024 loads each, "
                  "from an 8 MiB tensor in L2; bytes / SM cycles");
    c.add("tma.load_bytes_per_cycle_one_sm_l2_4issuers", load_stream(1, true, 1024, 3, false, 4), "B/cycle/SM", m, 8, 512);
    std::snprintf(m, sizeof m, sm, "every SM", kStages, 8, 1024, "from an 8 MiB tensor in L2");
    c.add("tma.load_bytes_per_cycle_all_sms_l2", load_stream(c.sms, true, 1024), "B/cycle/SM", m, 4, 256);
    // One issuer per SM moves no more than on one SM alone: with four, what L2 gives bulk copies from every SM.
    std::snprintf(m, sizeof m, "every SM, 4 issuing threads (lane 0 of 4 warps) each keep 3 box loads of 8 KiB in flight, 1024 loads each, "
                  "from an 8 MiB tensor in L2; bytes / SM cycles (median over SMs)");
    c.add("tma.load_bytes_per_cycle_all_sms_l2_4issuers", load_stream(c.sms, true, 1024, 3, false, 4), "B/cycle/SM", m, 4, 256);
    std::snprintf(m, sizeof m, sm, "every SM", kStages, 8, 1024, "disjoint boxes of a 2 GiB tensor (DRAM)");
    c.add("tma.load_bytes_per_cycle_all_sms_dram", load_stream(c.sms, false, 1024), "B/cycle/SM", m, 2, 64);
    c.add("tma.store_bytes_per_cycle_one_sm", store_stream(1, 2048, false), "B/cycle/SM",
          "one SM, one thread stores one 8 KiB box 2048 times over an 8 MiB tensor (L2), a bulk group each, then wait_group 0; bytes / SM cycles", 4, 256);
    c.add("tma.store_bytes_per_cycle_all_sms", store_stream(c.sms, 1024, true), "B/cycle/SM",
          "as tma.store_bytes_per_cycle_one_sm on every SM, 1024 stores each to disjoint boxes of a 2 GiB tensor (DRAM); median over SMs", 2, 256);
    CK(cudaFree(d_boxes));

    const int iters = 1024;
    for (int warps : {4, 8}) {
        const double v = median_runs(7, [&] {
            bar_sync_loop<<<1, 32 * warps>>>(iters, c.d_out);
            CK_LAUNCH();
            return double(c.fetch(1)[0]) / iters;
        });
        std::snprintf(m, sizeof m, "%d warps, %d bar.sync in a row, every warp arriving together; cycles per barrier", warps, iters);
        c.add(warps == 4 ? "barrier.bar_sync_4w" : "barrier.bar_sync_8w", v, "cycles", m, 4, 100);
    }
    const double mb = median_runs(7, [&] {
        mbarrier_roundtrip<<<1, 1>>>(iters, c.d_out);
        CK_LAUNCH();
        return double(c.fetch(1)[0]) / iters;
    });
    std::snprintf(m, sizeof m, "one thread: mbarrier.arrive (count 1, completes the phase) then try_wait.parity until done, %d times; cycles per pair", iters);
    c.add("mbarrier.arrive_wait_roundtrip", mb, "cycles", m, 4, 200);
}

} // namespace cal
