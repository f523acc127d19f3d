// Fused residual add + layernorm, bf16 in and out, statistics in fp32:
//   residual_out = x + residual                       (rounded once to bf16)
//   out          = (residual_out - mean) / sqrt(var + 1e-5) * weight + bias
// with mean and var over each row of D values. Readable top to bottom; the
// same source runs on the GPU and in the simulator.
//
// A memory-bound kernel: per row it reads 2 and writes 2 rows of D bf16, and
// does a few flops per byte. What makes it fast is moving bytes, so:
//   * one warp per row, the row held in registers as a tk::warp_row: every
//     global access is a 16-byte ld/st.global.v4, a warp instruction moves 512
//     contiguous bytes, and a lane issues all its loads of a row (2 x D/256
//     pieces) before it needs any of them: 4 KiB in flight per warp at D = 1024;
//   * no shared memory: the row's sums are shfl.xor butterflies in the warp;
//   * a persistent grid (as many blocks as fit on the GPU at once), each warp
//     striding over rows, so weight and bias are read once per warp and no
//     partial last wave of blocks idles the memory system.
#pragma once
#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>
#include "tk/tk.h"

namespace layernorm {

constexpr int WARPS = 4;
constexpr int THREADS = WARPS * 32;
constexpr float EPS = 1e-5f;
constexpr int MAX_D = 2048;  // D is a multiple of 256 up to this (a template argument)

template <int D>
__global__ void __launch_bounds__(THREADS)
layernorm_kernel(tk::gl<tk::bf16> x, tk::gl<tk::bf16> residual, tk::gl<tk::bf16> weight, tk::gl<tk::bf16> bias,
                 tk::gl<tk::bf16> residual_out, tk::gl<tk::bf16> out) {
    using namespace tk;
    using row_bf = warp_row<bf16, D>;
    using row_fl = warp_row<float, D>;

    // The affine parameters are the same for every row: once per warp.
    row_bf w, b;
    load(w, weight, {0, 0, 0, 0});
    load(b, bias, {0, 0, 0, 0});

    const int warps_in_grid = int(gridDim.x) * WARPS;
    for (int r = int(blockIdx.x) * WARPS + warpid(); r < x.rows; r += warps_in_grid) {
        row_bf s;  // the new residual stream, rounded to bf16: what the next layer adds to
        {
            row_bf xr, rr;  // all 2 x D/256 loads issued before the first is used
            load(xr, x, {0, 0, r, 0});
            load(rr, residual, {0, 0, r, 0});
            map(s, [](float a, float c) { return a + c; }, xr, rr);
        }  // (x and residual are dead here; the simulator's register count follows scopes)
        store(residual_out, s, {0, 0, r, 0});

        // Two passes over the registers (mean, then the centred squares): no
        // cancellation when a row's mean is large against its spread.
        const float mean = sum(s) / float(D);
        row_fl centred;
        map(centred, [mean](float v) { return v - mean; }, s);
        const float var = sum(centred, [](float v) { return v * v; }) / float(D);
        const float rstd = 1.0f / ::sqrtf(var + EPS);

        row_bf o;
        map(o, [rstd](float c, float g, float beta) { return c * rstd * g + beta; }, centred, w, b);
        store(out, o, {0, 0, r, 0});
    }
}

// Calls f(std::integral_constant<int, D>{}) for a supported D (a multiple of 256 up to MAX_D).
template <typename F>
void with_width(int d, F&& f) {
    switch (d) {
    case 256: return f(std::integral_constant<int, 256>{});
    case 512: return f(std::integral_constant<int, 512>{});
    case 768: return f(std::integral_constant<int, 768>{});
    case 1024: return f(std::integral_constant<int, 1024>{});
    case 1280: return f(std::integral_constant<int, 1280>{});
    case 1536: return f(std::integral_constant<int, 1536>{});
    case 1792: return f(std::integral_constant<int, 1792>{});
    case 2048: return f(std::integral_constant<int, 2048>{});
    default:
        throw std::invalid_argument("layernorm: D = " + std::to_string(d) + " is not supported; D must be a multiple of 256 up to " +
                                    std::to_string(MAX_D));
    }
}

// Blocks of the persistent grid: as many as are resident on the GPU at once
// (in the simulator too), fewer when the rows run out first.
template <int D>
unsigned grid_blocks(int rows) {
    const int wanted = (rows + WARPS - 1) / WARPS;
#if defined(TK_GPU)
    int device = 0, sms = 0, per_sm = 0;
    tk::cuda_check(cudaGetDevice(&device), "layernorm: cudaGetDevice");
    tk::cuda_check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "layernorm: SM count");
    tk::cuda_check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, layernorm_kernel<D>, THREADS, 0), "layernorm: occupancy");
    const int resident = std::max(1, sms * per_sm);
#else
    // The GPU's figure when registers do not limit it (a warp per row needs
    // few): threads per SM over the block's, so the simulator's grid and
    // its timing model see the launch the GPU runs.
    const int resident = tk::multiprocessors() * (2048 / THREADS);
#endif
    return unsigned(std::max(1, std::min(wanted, resident)));
}

struct tensors {
    tk::gl<tk::bf16> x, residual, weight, bias, residual_out, out;
};

// Launches the kernel for rows x D (weight and bias: 1 x D) and waits for it.
inline void run(const tensors& t) {
    with_width(t.x.cols, [&](auto d) {
        constexpr int D = decltype(d)::value;
        tk::launch("layernorm", layernorm_kernel<D>, dim3(grid_blocks<D>(t.x.rows)), dim3(THREADS), 0, t.x, t.residual, t.weight,
                   t.bias, t.residual_out, t.out);
    });
}

#if defined(TK_GPU)
// Mean kernel time (tk::mean_launch_ms; GPU only).
inline float time_ms(const tensors& t) {
    float result = 0;
    with_width(t.x.cols, [&](auto d) {
        constexpr int D = decltype(d)::value;
        const dim3 grid(grid_blocks<D>(t.x.rows));
        auto launch = [&] { layernorm_kernel<D><<<grid, THREADS>>>(t.x, t.residual, t.weight, t.bias, t.residual_out, t.out); };
        result = float(tk::mean_launch_ms(launch, "layernorm timing"));
    });
    return result;
}
#endif

} // namespace layernorm
