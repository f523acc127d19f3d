// The issue rate (independent instructions per cycle per sub-partition) and
// the SM clock (%clock64 over a %globaltimer interval).
#include "common.h"

namespace cal {
namespace {

// KIND 0: FFMA only (the FP32 pipe); 1: integer adds only; 2: the two
// alternating. Each thread runs 8 independent chains, 64 instructions per
// iteration. The integer chains are a ring (u[j] += u[j + 1], the next one
// already updated), so every new value is live and ptxas cannot merge two
// steps into one instruction (as it does with xor: x ^ y ^ y). W warps per
// block: W/4 per sub-partition. ptxas may issue an add as IADD3 (ALU) or
// IMAD.IADD (FMA pipe); the count is the same. The loop's own 3-5
// instructions per iteration are not counted (SASS checked on the H100): the
// figure is the rate of useful instructions, about 6% under the raw issue rate.
template <int KIND>
__global__ void __launch_bounds__(512) issue_bench(int iters, long long* out, uint32_t* sink) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    float f[8];
    uint32_t u[8];
    for (int j = 0; j < 8; ++j) f[j] = 1.0f + 1e-3f * float(threadIdx.x + j), u[j] = threadIdx.x * 2654435761u + uint32_t(j);
    const float m = 0.999f, a = 1e-4f;
    __syncthreads();
    const long long t0 = clk();
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int r = 0; r < 8; ++r) {
#pragma unroll
            for (int j = 0; j < 8; ++j) {
                if (KIND == 0 || (KIND == 2 && j % 2 == 0)) asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(f[j]) : "f"(m), "f"(a));
                else if (KIND == 1) asm volatile("add.u32 %0, %0, %1;" : "+r"(u[j]) : "r"(u[(j + 1) % 8]));
                else asm volatile("add.u32 %0, %0, %1;" : "+r"(u[j]) : "r"(u[(j + 2) % 8]));  // the odd ring 1, 3, 5, 7
            }
        }
    }
    const long long t1 = clk();
    if (lane == 0) out[2 * warp] = t0, out[2 * warp + 1] = t1;
    float s = 0;
    uint32_t x = 0;
    for (int j = 0; j < 8; ++j) s += f[j], x ^= u[j];
    sink[threadIdx.x] = __float_as_uint(s) ^ x;
}

// One thread spins for `ns` nanoseconds of %globaltimer; records clock64 and ns.
__global__ void clock_rate(unsigned long long ns, long long* out) {
    const unsigned long long g0 = gtime_ns();
    const long long c0 = clk();
    unsigned long long g;
    do g = gtime_ns(); while (g - g0 < ns);
    const long long c1 = clk();
    out[0] = c1 - c0, out[1] = (long long)(g - g0);
}

template <int KIND>
double ipc(Ctx& c, int warps) {
    const int iters = 128;
    return median_runs(5, [&] {
        issue_bench<KIND><<<1, 32 * warps>>>(iters, c.d_out, c.d_sink);
        CK_LAUNCH();
        return double(warps) * iters * 64 / span(c.fetch(2 * warps), warps) / 4;
    });
}

} // namespace

double measure_clock_mhz(Ctx& c, int ms) {
    clock_rate<<<1, 1>>>((unsigned long long)ms * 1000000ull, c.d_out);
    CK_LAUNCH();
    auto r = c.fetch(2);
    return double(r[0]) / double(r[1]) * 1e3;
}

void run_issue(Ctx& c) {
    std::printf("issue rate\n");
    char m[256], name[96];
    const char* kinds[3] = {"ffma", "iadd", "ffma_iadd"};
    const char* what[3] = {"FFMA", "integer add", "FFMA and integer add alternating"};
    for (int k = 0; k < 3; ++k)
        for (int per : {1, 2, 4}) {
            const double v = k == 0 ? ipc<0>(c, 4 * per) : k == 1 ? ipc<1>(c, 4 * per) : ipc<2>(c, 4 * per);
            std::snprintf(name, sizeof name, "issue.%s_ipc_%dw_per_smsp", kinds[k], per);
            std::snprintf(m, sizeof m, "%d warps per sub-partition, 8 independent chains each, %s; instructions per cycle per sub-partition",
                          per, what[k]);
            c.add(name, v, "instr/cycle/SMSP", m, 0.2, 1.05);
        }
}

} // namespace cal
