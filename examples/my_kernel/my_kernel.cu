// A kernel of one's own, built outside tklab's tree (README.md, "Your own
// kernel"): the scaled row sum
//   out[r] = scale * (x[r][0] + x[r][1] + ... + x[r][C-1])     x: R x C bf16, out: R floats
// checked against a float64 CPU reference. `my_kernel run my_kernel` runs it
// in the simulator; `my_kernel_gpu run my_kernel` on the GPU.
//
// One warp per strip of 16 rows, 4 warps per block: the warp walks its strip
// 64 columns at a time, loads each 16x64 piece into a register tile (bf16 in
// memory, float in registers) and adds its row sums to a running vector of
// 16 sums, which it scales and stores at the end.
#include <memory>
#include <vector>
#include "tk/tk.h"
#include "tk/host/registry.h"

namespace my_kernel {

constexpr int WARPS = 4;

__global__ void __launch_bounds__(WARPS * 32) scaled_row_sum(tk::gl<tk::bf16> x, tk::gl<float> out, float scale) {
    using namespace tk;
    const int strip = int(blockIdx.x) * WARPS + warpid();
    if (strip >= x.rows / 16) return;  // the last block's spare warps

    rt_fl<16, 64> piece;
    rt_fl<16, 64>::col_vec sums;  // one per row of the strip
    zero(sums);
    for (int c = 0; c < x.cols / 64; ++c) {
        load(piece, x, {0, 0, strip, c});
        row_sum(sums, piece, sums);  // sums += the piece's row sums
    }
    mul(sums, sums, scale);
    store(out, sums, {0, 0, 0, strip});  // out is 1 x R: entries 16*strip .. 16*strip+15
}

// The problem's data: x on the host (for the reference) and on the device, and the output.
struct Data {
    int rows = 0, cols = 0;
    float scale = 0.125f;
    std::vector<tk::bf16> x;
    std::shared_ptr<tk::device_buffer<tk::bf16>> dx;
    std::shared_ptr<tk::device_buffer<float>> dout;
    tk::gl<tk::bf16> X() const { return {dx->data(), 1, 1, rows, cols}; }
    tk::gl<float> OUT() const { return {dout->data(), 1, 1, 1, rows}; }
};

inline Data make_inputs(const tk::host::dims_t& d, unsigned seed) {
    Data g;
    g.rows = d.at("R");
    g.cols = d.at("C");
    g.x = tk::host::random_values<tk::bf16>(size_t(g.rows) * g.cols, seed);
    g.dx = std::make_shared<tk::device_buffer<tk::bf16>>(g.x.size(), g.x, "x");
    g.dout = std::make_shared<tk::device_buffer<float>>(size_t(g.rows), "out");
    return g;
}

// One strip of 16 rows per warp, as many blocks of 4 warps as the strips need.
inline dim3 grid(const Data& g) { return dim3((g.rows / 16 + WARPS - 1) / WARPS); }

inline void run(Data& g) { tk::launch("my_kernel", scaled_row_sum, grid(g), dim3(WARPS * 32), 0, g.X(), g.OUT(), g.scale); }

inline std::vector<double> reference(const Data& g) {
    std::vector<double> want(size_t(g.rows));
    for (int r = 0; r < g.rows; ++r) {
        double s = 0;
        for (int c = 0; c < g.cols; ++c) s += double(tk::to_float(g.x[size_t(r) * g.cols + c]));
        want[r] = double(g.scale) * s;
    }
    return want;
}

} // namespace my_kernel

namespace {

TKLAB_PROGRAM(my_kernel, tk::host::program_def<my_kernel::Data>{
    .name = "my_kernel",
    .summary = "scaled row sum: out[r] = 0.125 * sum over c of x[r][c], x bf16 R x C, one warp per 16 rows",
    .dims = {{"R", 256, 16, 1 << 16}, {"C", 256, 64, 1 << 14}},
    .inputs = my_kernel::make_inputs,
    .run = [](my_kernel::Data& g, const std::string&) { my_kernel::run(g); },
    .output = [](my_kernel::Data& g) { return g.dout->download(); },
    .reference = my_kernel::reference,
    // float sums of up to 16384 values in [-1, 1): rounding ~1e-7 per term, far below this.
    .tolerance = 1e-4,
    .time_ms = [](my_kernel::Data& g, const std::string&) -> double {
#if defined(TK_GPU)
        using namespace my_kernel;
        return tk::mean_launch_ms([&] { scaled_row_sum<<<grid(g), WARPS * 32>>>(g.X(), g.OUT(), g.scale); }, "my_kernel timing");
#else
        (void)g;
        return -1;  // the simulator's time is in its report
#endif
    },
});

} // namespace
