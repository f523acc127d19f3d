// What the tile library's register arithmetic costs: each op on a 16x64
// float register tile (32 elements a lane), repeated, timed per warp with
// %clock64. Per element: cycles with one warp per sub-partition (the op's
// instructions and their dependent latencies) and with four (what they cost
// the sub-partition's issue slot when other warps can fill the gaps).
#include "common.h"
#include "tk/tk.h"

namespace cal {
namespace {

enum Kind { k_add, k_mul_scalar, k_max, k_exp, k_exp2, k_log, k_div, k_sub_row, k_row_max, k_row_sum, k_convert, k_kinds };
const char* kNames[k_kinds] = {"add", "mul_scalar", "max", "exp", "exp2", "log", "div", "sub_row", "row_max", "row_sum", "convert_bf16"};

template <int KIND>
__global__ void __launch_bounds__(512) alu_bench(int iters, long long* out, uint32_t* sink) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    tk::rt_fl<16, 64> a, b;
    tk::rv_fl<16, tk::vec_ortho> v;
    tk::rt_bf<16, 64> h;
    tk::fill(a, 0.5f + 1e-3f * float(lane));
    tk::fill(b, 1.5f + 1e-3f * float(warp));
    tk::fill(v, 0.25f);
    __syncthreads();
    const long long t0 = clk();
    for (int i = 0; i < iters; ++i) {
        if constexpr (KIND == k_add) tk::add(a, a, b);
        else if constexpr (KIND == k_mul_scalar) tk::mul(a, a, 0.999f);
        else if constexpr (KIND == k_max) tk::max(a, a, b);
        else if constexpr (KIND == k_exp) { tk::exp(a, a); tk::mul(a, a, -1e-3f); }
        else if constexpr (KIND == k_exp2) { tk::exp2(a, a); tk::mul(a, a, -1e-3f); }
        else if constexpr (KIND == k_log) { tk::log(a, a); tk::add(a, a, 2.0f); }
        else if constexpr (KIND == k_div) tk::div(a, b, a);
        else if constexpr (KIND == k_sub_row) tk::sub_row(a, a, v);
        else if constexpr (KIND == k_row_max) { tk::row_max(v, a); tk::add(a, a, 1e-3f); }
        else if constexpr (KIND == k_row_sum) { tk::row_sum(v, a); tk::add(a, a, 1e-3f); }
        else if constexpr (KIND == k_convert) { tk::copy(h, a); tk::copy(a, h); }
    }
    const long long t1 = clk();
    if (lane == 0) out[2 * warp] = t0, out[2 * warp + 1] = t1;
    // Every element is read, so the compiler keeps every op on every element.
    float s = v.data[0][0] + v.data[0][1];
    for (int i = 0; i < 4; ++i)
        for (int k = 0; k < 4; ++k) s += a.tiles[0][i].data[k].x + a.tiles[0][i].data[k].y;
    sink[threadIdx.x] = __float_as_uint(s);
}

template <int KIND>
double cycles_per_element(Ctx& c, int warps) {
    const int iters = 64;
    return median_runs(5, [&] {
        alu_bench<KIND><<<1, 32 * warps>>>(iters, c.d_out, c.d_sink);
        CK_LAUNCH();
        // Per warp: the span over all warps, shared by the warps of a sub-partition.
        return span(c.fetch(2 * warps), warps) / double(iters) / 32.0 / double(warps / 4);
    });
}

template <int KIND>
void measure(Ctx& c) {
    char name[96], m[256];
    for (int per : {1, 4}) {
        const double v = cycles_per_element<KIND>(c, 4 * per);
        std::snprintf(name, sizeof name, "alu.%s_cycles_per_element_%dw_per_smsp", kNames[KIND], per);
        std::snprintf(m, sizeof m, "tk op on a 16x64 float register tile (32 elements a lane), 64 times, %d warp(s) per sub-partition; "
                                   "SM cycles per element per warp%s", per, per > 1 ? ", divided by the warps sharing a sub-partition" : "");
        c.add(name, v, "cycles/element", m, 0.2, 200);
    }
}

template <int... K>
void measure_all(Ctx& c, std::integer_sequence<int, K...>) { (measure<K>(c), ...); }

} // namespace

void run_alu(Ctx& c) {
    std::printf("tile register arithmetic\n");
    measure_all(c, std::make_integer_sequence<int, k_kinds>{});
}

} // namespace cal
