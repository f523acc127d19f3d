// tk::store(global layout, register tile): every element lands where the
// tile's layout says, whether it leaves in 16-byte stores (2-byte elements,
// row layout, an even number of 16-column tiles, 16-byte aligned rows: each
// quad of lanes transposes its words first) or in narrow ones (anything else).
// The destination starts filled with a sentinel, so a store that writes the
// wrong place, or too much, shows up too.
#include <catch2/catch.hpp>
#include <string>
#include "tk/tk.h"
#include "support/test_data.h"

namespace {

constexpr float kSentinel = -1024.0f;  // exact in bf16 and half; far outside random_values

template <typename T, typename O, int R, int C, typename L>
__global__ void store_kernel(tk::gl<T> in, tk::gl<O> out, int row_tile, int col_tile) {
    tk::rt<T, R, C, L> x;
    tk::load(x, in, {0, 0, 0, 0});
    tk::store(out, x, {0, 0, row_tile, col_tile});
}

// Stores an R x C tile of random T at tile (row_tile, col_tile) of a rows x cols
// tensor of O and checks every element of the tensor.
template <typename T, typename O, int R, int C, typename L = tk::row_l>
void check_store(int rows, int cols, int row_tile, int col_tile, uint32_t seed) {
    const size_t n = size_t(R) * C, total = size_t(rows) * cols;
    auto a = tktest::random_values<T>(n, seed);
    std::vector<O> init(total, tk::from_float<O>(kSentinel));
    tk::device_buffer<T> din(n, a, "in");
    tk::device_buffer<O> dout(total, init, "out");
    tk::launch("store_kernel", store_kernel<T, O, R, C, L>, dim3(1), dim3(32), 0, tk::gl<T>(din.data(), 1, 1, R, C),
               tk::gl<O>(dout.data(), 1, 1, rows, cols), row_tile, col_tile);
    const auto got = tktest::to_floats(dout.download());
    const auto fa = tktest::to_floats(a);
    size_t bad = 0, first = 0;
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            const int tr = r - row_tile * R, tc = c - col_tile * C;
            const bool inside = tr >= 0 && tr < R && tc >= 0 && tc < C;
            const float want = inside ? tk::to_float(tk::from_float<O>(fa[size_t(tr) * C + tc])) : kSentinel;
            const size_t i = size_t(r) * cols + c;
            if (got[i] != want && bad++ == 0) first = i;
        }
    INFO(tk::dtype_name<T>() << " " << R << "x" << C << (L::is_row ? " row" : " col") << " tile -> " << tk::dtype_name<O>()
                             << " " << rows << "x" << cols << " at tile (" << row_tile << ", " << col_tile << "): " << bad
                             << " of " << total << " elements wrong; first at row " << first / cols << ", column "
                             << first % cols << ": got " << (bad ? got[first] : 0.f));
    CHECK(bad == 0);
}

} // namespace

TEST_CASE("tk::store puts every element of a register tile in place, in wide and in narrow stores", "[tk][store]") {
    // Wide: bf16/half destinations, row layout, 2, 4 and 8 tiles across, the attention epilogue's shape included.
    check_store<float, tk::bf16, 16, 32>(48, 96, 1, 2, 601);
    check_store<float, tk::bf16, 16, 128>(32, 256, 1, 1, 602);
    check_store<float, tk::half, 32, 64>(64, 64, 1, 0, 603);
    check_store<tk::bf16, tk::bf16, 16, 64>(16, 128, 0, 1, 604);
    // Narrow: rows not 16-byte aligned (cols % 8 != 0), an odd number of tiles, a col-layout tile, 4-byte elements.
    check_store<float, tk::bf16, 16, 32>(32, 36, 1, 0, 605);
    check_store<float, tk::bf16, 16, 48>(16, 96, 0, 1, 606);
    check_store<float, tk::bf16, 16, 32, tk::col_l>(32, 64, 1, 1, 607);
    check_store<float, float, 16, 32>(32, 64, 1, 1, 608);
}
