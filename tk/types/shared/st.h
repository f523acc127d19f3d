// Shared tiles: R x C elements in shared memory, row-major, with the
// hardware's swizzle modes (the 32B/64B/128B patterns the bulk tensor copy
// engine writes). Swizzle XORs the 16-byte chunk index within a row with bits
// of the row, so the 8 rows an ldmatrix reads land in different banks:
//   128B: byte bits [4:6] ^= bits [7:9];  64B: [4:5] ^= [7:8];  32B: [4] ^= [7].
// A tile wider than its swizzle span is stored as column blocks of that span
// (R x span each), as the copy engine requires. Tiles are 1024-byte aligned.
#pragma once
#include "tk/common/base.h"
#include "tk/common/dtypes.h"

namespace tk {

namespace swizzle {
inline constexpr int automatic = -1, none = 0, b32 = 32, b64 = 64, b128 = 128;
// The widest swizzle that divides a row: what the hardware's modes allow.
constexpr int for_row_bytes(int row_bytes) {
    return row_bytes % 128 == 0 ? 128 : row_bytes % 64 == 0 ? 64 : row_bytes % 32 == 0 ? 32 : 0;
}
} // namespace swizzle

template <typename T, int R, int C, int Swizzle = swizzle::automatic>
struct st {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, bf16> || std::is_same_v<T, half>,
                  "tk::st<T, R, C>: T must be float, tk::bf16 or tk::half");
    static_assert(R > 0 && R % 16 == 0, "tk::st<T, R, C>: R (rows) must be a positive multiple of 16");
    static_assert(C > 0 && C % 16 == 0, "tk::st<T, R, C>: C (columns) must be a positive multiple of 16");
    static_assert(Swizzle == swizzle::automatic || Swizzle == 0 || Swizzle == 32 || Swizzle == 64 || Swizzle == 128,
                  "tk::st swizzle must be tk::swizzle::none, b32, b64, b128 or automatic");
    using dtype = T;
    static constexpr int rows = R, cols = C, height = R / 16, width = C / 16;
    static constexpr int row_bytes = C * int(sizeof(T));
    static constexpr int swizzle_bytes = Swizzle == swizzle::automatic ? swizzle::for_row_bytes(row_bytes) : Swizzle;
    static_assert(swizzle_bytes == 0 || row_bytes % (swizzle_bytes ? swizzle_bytes : 1) == 0,
                  "tk::st: the chosen swizzle is wider than (or does not divide) a row; pick a narrower swizzle or swizzle::automatic");
    static constexpr int bytes = R * C * int(sizeof(T));
    static constexpr int alignment = 1024;

    T data[R * C];

    // Byte offset of element (r, c) from the start of the tile, swizzle applied.
    TK_HOST_DEVICE static constexpr uint32_t offset(int r, int c) {
        if constexpr (swizzle_bytes == 0) {
            return uint32_t((r * C + c) * int(sizeof(T)));
        } else {
            constexpr int per_block = swizzle_bytes / int(sizeof(T));
            constexpr uint32_t mask = swizzle_bytes == 128 ? 7 : swizzle_bytes == 64 ? 3 : 1;
            const uint32_t lin = uint32_t((c / per_block) * R * swizzle_bytes + r * swizzle_bytes + (c % per_block) * int(sizeof(T)));
            return lin ^ (((lin >> 7) & mask) << 4);
        }
    }
    TK_HOST_DEVICE T* base() { return data; }
    TK_HOST_DEVICE const T* base() const { return data; }
    TK_HOST_DEVICE T& at(int r, int c) { return *reinterpret_cast<T*>(reinterpret_cast<char*>(data) + offset(r, c)); }
    TK_HOST_DEVICE const T& at(int r, int c) const { return *reinterpret_cast<const T*>(reinterpret_cast<const char*>(data) + offset(r, c)); }
};

// An R x C window of a shared tile, starting at row row0 and column col0 of
// the parent; it keeps the parent's swizzle (offsets go through the parent).
template <typename ST, int R, int C>
struct st_subtile {
    static_assert(R > 0 && R % 16 == 0 && C > 0 && C % 16 == 0, "tk::subtile: the window must be a multiple of 16 in both dimensions");
    static_assert(R <= ST::rows && C <= ST::cols, "tk::subtile: the window is larger than the tile");
    using dtype = typename ST::dtype;
    static constexpr int rows = R, cols = C, height = R / 16, width = C / 16;
    ST* parent;
    int row0, col0;
    TK_HOST_DEVICE uint32_t offset(int r, int c) const { return ST::offset(row0 + r, col0 + c); }
    TK_HOST_DEVICE dtype* base() const { return parent->data; }
};

// The (row_tile, col_tile)-th R x C window of a shared tile.
template <int R, int C, typename ST>
TK_HOST_DEVICE st_subtile<ST, R, C> subtile(ST& tile, int row_tile, int col_tile) {
    return {&tile, row_tile * R, col_tile * C};
}

template <int R, int C, int S = swizzle::automatic> using st_fl = st<float, R, C, S>;
template <int R, int C, int S = swizzle::automatic> using st_bf = st<bf16, R, C, S>;
template <int R, int C, int S = swizzle::automatic> using st_hf = st<half, R, C, S>;

template <typename X> struct is_st : std::false_type {};
template <typename T, int R, int C, int S> struct is_st<st<T, R, C, S>> : std::true_type {};
template <typename X> inline constexpr bool is_st_v = is_st<std::remove_cvref_t<X>>::value;
template <typename X> struct is_st_subtile : std::false_type {};
template <typename ST, int R, int C> struct is_st_subtile<st_subtile<ST, R, C>> : std::true_type {};
// Shared tiles and windows of them: what register loads and stores accept.
template <typename X> inline constexpr bool is_shared_tile_v = is_st_v<X> || is_st_subtile<std::remove_cvref_t<X>>::value;

// Shared vectors: N contiguous elements.
template <typename T, int N>
struct sv {
    static_assert(N > 0 && N % 16 == 0, "tk::sv<T, N>: N must be a positive multiple of 16");
    using dtype = T;
    static constexpr int length = N, bytes = N * int(sizeof(T)), alignment = 16;
    T data[N];
};
template <int N> using sv_fl = sv<float, N>;
template <int N> using sv_bf = sv<bf16, N>;
template <int N> using sv_hf = sv<half, N>;

} // namespace tk
