// Register tiles: a warp's tile spread over its 32 lanes' registers, in the
// fragment layout the tensor cores use (PTX ISA, mma.m16n8k16).
//
// rt_base is one 16x16 tile. Each lane holds 8 elements as 4 packed pairs.
// With g = lane/4 and t = lane%4, pair i (0..3), element h (0..1) is at
//   row layout: row = g + 8*(i%2),       col = 2t + h + 8*(i/2)
//   col layout: row = 2t + h + 8*(i%2),  col = g + 8*(i/2)
// so a row-layout tile is an mma A operand (or a B operand given as B^T) and
// a col-layout tile is a B operand; fp32 row tiles are accumulators.
#pragma once
#include <cstring>
#include "tk/common/base.h"
#include "tk/common/dtypes.h"
#include "tk/types/register/rv.h"

namespace tk {

struct row_l { static constexpr bool is_row = true; };
struct col_l { static constexpr bool is_row = false; };
template <typename L> inline constexpr bool is_layout_v = std::is_same_v<L, row_l> || std::is_same_v<L, col_l>;
template <typename L> using transpose_layout_t = std::conditional_t<L::is_row, col_l, row_l>;

template <typename T> inline constexpr bool is_element_v = std::is_same_v<T, float> || std::is_same_v<T, bf16> || std::is_same_v<T, half>;

template <typename T, typename L = row_l>
struct rt_base {
    static_assert(is_element_v<T>, "tk register tiles hold float, tk::bf16 or tk::half");
    static_assert(is_layout_v<L>, "tk register tile layout must be tk::row_l or tk::col_l");
    using dtype = T;
    using layout = L;
    // A wrong T is reported by the static_assert above alone (float stands in here).
    using T2 = typename packed<std::conditional_t<is_element_v<T>, T, float>>::type;
    static constexpr int rows = 16, cols = 16, packed_per_thread = 4, elements_per_thread = 8;
    static constexpr int registers = packed_per_thread * int(sizeof(T2)) / 4;
    T2 data[4];

    // Coordinates within the 16x16 tile of this lane's pair i, element h.
    TK_HOST_DEVICE static constexpr int row_of(int lane, int i, int h) {
        return L::is_row ? lane / 4 + 8 * (i % 2) : 2 * (lane % 4) + h + 8 * (i % 2);
    }
    TK_HOST_DEVICE static constexpr int col_of(int lane, int i, int h) {
        return L::is_row ? 2 * (lane % 4) + h + 8 * (i / 2) : lane / 4 + 8 * (i / 2);
    }
};

template <typename T, int R, int C, typename L = row_l>
struct rt {
    static_assert(is_element_v<T>, "tk::rt<T, ...>: T must be float, tk::bf16 or tk::half");
    static_assert(is_layout_v<L>, "tk::rt<T, R, C, L>: L must be tk::row_l or tk::col_l");
    static_assert(R > 0 && R % 16 == 0, "tk::rt<T, R, C>: R (rows) must be a positive multiple of 16 -- register tiles are built from 16x16 hardware tiles");
    static_assert(C > 0 && C % 16 == 0, "tk::rt<T, R, C>: C (columns) must be a positive multiple of 16 -- register tiles are built from 16x16 hardware tiles");
    using dtype = T;
    using layout = L;
    using base = rt_base<T, L>;
    using T2 = typename base::T2;
    static constexpr int rows = R, cols = C, height = R / 16, width = C / 16;
    static constexpr int registers = height * width * base::registers;  // per thread
    // One value per row / per column, laid out to match this tile's fragments.
    using col_vec = rv<T, R, std::conditional_t<L::is_row, vec_ortho, vec_align>>;
    using row_vec = rv<T, C, std::conditional_t<L::is_row, vec_align, vec_ortho>>;

    base tiles[height][width];

#if defined(TK_SIM)
    // The simulator counts live register tiles per thread, with where they were declared.
    // Fresh registers hold NaN, one value: a tile counts from when it holds
    // others, as ptxas allocates from the first write (sim/README.md, "Registers").
    rt(TK_LOC) {
        fresh();
        tklab::sim::reg_alloc(registers, loc.file, loc.line, this);
    }
    rt(const rt& o, TK_LOC) {
        fresh();
        tklab::sim::reg_alloc(registers, loc.file, loc.line, this);
        copy_tiles(o);
    }
    rt& operator=(const rt& o) { copy_tiles(o); return *this; }
    ~rt() { tklab::sim::reg_free(registers, this); }
private:
    void fresh() { std::memset(static_cast<void*>(tiles), 0xFF, sizeof tiles); }
    void copy_tiles(const rt& o) {
        TK_UNROLL
        for (int i = 0; i < height; ++i)
            TK_UNROLL
            for (int j = 0; j < width; ++j) tiles[i][j] = o.tiles[i][j];
    }
public:
#endif
};

template <int R, int C, typename L = row_l> using rt_fl = rt<float, R, C, L>;
template <int R, int C, typename L = row_l> using rt_bf = rt<bf16, R, C, L>;
template <int R, int C, typename L = row_l> using rt_hf = rt<half, R, C, L>;

template <typename X> struct is_rt : std::false_type {};
template <typename T, int R, int C, typename L> struct is_rt<rt<T, R, C, L>> : std::true_type {};
template <typename X> inline constexpr bool is_rt_v = is_rt<std::remove_cvref_t<X>>::value;

} // namespace tk
