// Rotary position embedding, GPT-NeoX's "rotate half" form, on x of shape
// (B, H, N, D) in bf16 with fp32 tables cos, sin of shape (N, D/2):
//   out[..., n, i]       = x[..., n, i] * cos[n][i] - x[..., n, i + D/2] * sin[n][i]
//   out[..., n, i + D/2] = x[..., n, i + D/2] * cos[n][i] + x[..., n, i] * sin[n][i]
// for i < D/2: out = x * cos + rotate_half(x) * sin with the table repeated
// over both halves. fp32 arithmetic, rounded once to bf16. D = 64 or 128.
//
// Memory-bound: 2 bytes in and 2 out per element, 3 flops. So:
//   * each lane takes one 8-element piece of a row's first half and the
//     matching piece of its second half (16-byte ld/st.global.v4 each), so it
//     holds both partners of every rotation: no shuffles, no shared memory.
//     D/16 lanes cover a row; a warp covers 512/D positions;
//   * the fp32 table entries for a position are loaded once per warp and
//     reused for the HEADS_PER_BLOCK heads its block covers;
//   * the heads' pieces are loaded all at once, before any math, and kept as
//     packed bf16 pairs (4 registers a piece, not a float piece's 8): 72
//     registers a thread, so 7 blocks fit on an SM and each SM keeps about
//     100 KiB of loads in flight, what the DRAM's latency asks for;
//   * loads and stores are streaming (kept out of L1: every byte is touched once).
// Measured on an H200 (1 GiB moved): float pieces (114 registers, 4 blocks an
// SM) reached 81% of the copy bandwidth; these, 96% at D = 128 and 92% at
// D = 64 (results/bench_h200.txt).
#pragma once
#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>
#include "tk/tk.h"

namespace rotary {

constexpr int WARPS = 4;
constexpr int THREADS = WARPS * 32;
// Heads per block, all loaded at once: each table load serves this many heads
// (the tables stay in L2, so this saves L2 traffic, not DRAM's); fewer makes
// shorter blocks, so the last of them, finishing while the rest of the GPU
// idles, cost less.
constexpr int HEADS_PER_BLOCK = 4;

// Positions one block covers (N must be a multiple of it).
template <int D> constexpr int positions_per_block() { return WARPS * (32 / (D / 16)); }

template <int D>
__global__ void __launch_bounds__(THREADS)
rotary_kernel(tk::gl<tk::bf16> x, tk::gl<float> cos_table, tk::gl<float> sin_table, tk::gl<tk::bf16> out) {
    using namespace tk;
    static_assert(D == 64 || D == 128, "rotary_kernel: D must be 64 or 128");
    constexpr int HALF = D / 2;
    constexpr int LANES_PER_ROW = HALF / 8;  // one 8-element piece of each half per lane
    constexpr int ROWS_PER_WARP = 32 / LANES_PER_ROW;
    constexpr auto streaming = arch::cache_hint::streaming;

    const int n = (int(blockIdx.x) * WARPS + warpid()) * ROWS_PER_WARP + laneid() / LANES_PER_ROW;  // this lane's position
    const int col = 8 * (laneid() % LANES_PER_ROW);  // its piece of the first half; col + HALF in the second

    // The angles of position n: the same for every head.
    float c[8], s[8];
    load_piece(c, cos_table.ptr(0, 0, n, col));
    load_piece(s, sin_table.ptr(0, 0, n, col));

    const int heads = x.batch * x.depth;
    const int first = int(blockIdx.y) * HEADS_PER_BLOCK, count = heads - first < HEADS_PER_BLOCK ? heads - first : HEADS_PER_BLOCK;
    // (batch, head) pairs are N x D blocks one after another: head `first + u` of
    // this lane's piece is u strides on.
    const size_t head_stride = size_t(x.rows) * x.cols;
    const bf16* in = x.ptr(first / x.depth, first % x.depth, n, col);
    bf16* to = out.ptr(first / out.depth, first % out.depth, n, col);
    bf16_2 lo[HEADS_PER_BLOCK][4], hi[HEADS_PER_BLOCK][4];  // 8 elements of each half per head
    for (int u = 0; u < HEADS_PER_BLOCK; ++u) {  // every load, then the math
        if (u == count) break;  // (constant bounds keep the arrays in registers)
        load_piece<streaming>(lo[u], in + u * head_stride);
        load_piece<streaming>(hi[u], in + u * head_stride + HALF);
    }
    for (int u = 0; u < HEADS_PER_BLOCK; ++u) {
        if (u == count) break;
        bf16_2 out_lo[4], out_hi[4];
        for (int k = 0; k < 4; ++k) {  // elements 2k and 2k + 1
            const float lo0 = to_float(lo[u][k].x), lo1 = to_float(lo[u][k].y);
            const float hi0 = to_float(hi[u][k].x), hi1 = to_float(hi[u][k].y);
            out_lo[k] = bf16_2(from_float<bf16>(lo0 * c[2 * k] - hi0 * s[2 * k]), from_float<bf16>(lo1 * c[2 * k + 1] - hi1 * s[2 * k + 1]));
            out_hi[k] = bf16_2(from_float<bf16>(hi0 * c[2 * k] + lo0 * s[2 * k]), from_float<bf16>(hi1 * c[2 * k + 1] + lo1 * s[2 * k + 1]));
        }
        store_piece<streaming>(to + u * head_stride, out_lo);
        store_piece<streaming>(to + u * head_stride + HALF, out_hi);
    }
}

struct tensors {
    tk::gl<tk::bf16> x;                   // (B, H, N, D): batch B, depth H
    tk::gl<float> cos_table, sin_table;   // (N, D/2)
    tk::gl<tk::bf16> out;                 // like x
};

template <int D>
dim3 grid_of(const tensors& t) {
    const int heads = t.x.batch * t.x.depth;
    return dim3(unsigned(t.x.rows / positions_per_block<D>()), unsigned((heads + HEADS_PER_BLOCK - 1) / HEADS_PER_BLOCK));
}

template <typename F>
void with_width(int d, F&& f) {
    if (d == 64) return f(std::integral_constant<int, 64>{});
    if (d == 128) return f(std::integral_constant<int, 128>{});
    throw std::invalid_argument("rotary: D = " + std::to_string(d) + " is not supported; D must be 64 or 128");
}

// Launches the kernel and waits for it. N must be a multiple of the positions
// a block covers (16 at D = 128, 32 at D = 64).
inline void run(const tensors& t) {
    with_width(t.x.cols, [&](auto d) {
        constexpr int D = decltype(d)::value;
        if (t.x.rows % positions_per_block<D>() != 0)
            throw std::invalid_argument("rotary: N = " + std::to_string(t.x.rows) + " must be a multiple of " +
                                        std::to_string(positions_per_block<D>()) + " (the positions one block covers)");
        const dim3 grid = grid_of<D>(t);
        if (grid.y > 65535)
            throw std::invalid_argument("rotary: B x H = " + std::to_string(t.x.batch * t.x.depth) + " heads need " +
                                        std::to_string(grid.y) + " blocks along y, over the GPU's 65535; use at most " +
                                        std::to_string(65535 * HEADS_PER_BLOCK) + " heads");
        tk::launch("rotary", rotary_kernel<D>, grid, dim3(THREADS), 0, t.x, t.cos_table, t.sin_table, t.out);
    });
}

#if defined(TK_GPU)
// Mean kernel time (tk::mean_launch_ms; GPU only).
inline float time_ms(const tensors& t) {
    float result = 0;
    with_width(t.x.cols, [&](auto d) {
        constexpr int D = decltype(d)::value;
        const dim3 grid = grid_of<D>(t);
        auto launch = [&] { rotary_kernel<D><<<grid, THREADS>>>(t.x, t.cos_table, t.sin_table, t.out); };
        result = float(tk::mean_launch_ms(launch, "rotary timing"));
    });
    return result;
}
#endif

} // namespace rotary
