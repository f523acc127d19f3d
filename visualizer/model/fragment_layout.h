// Which lane of a warp holds element (row, col) of a register tile, and where
// in that lane: the tile inspector's hover text. A register tile is a grid of
// 16x16 sub-tiles (tk::rt's tiles[i][j]); each lane holds 4 pairs (data[0..3])
// of 2 adjacent elements per sub-tile.
#pragma once

namespace tklab::view {

struct FragmentSlot {
    int lane = 0;
    int sub_row = 0, sub_col = 0;  // the 16x16 sub-tile: tiles[sub_row][sub_col]
    int pair = 0;                  // data[pair]: 0 top-left, 1 bottom-left, 2 top-right, 3 bottom-right 8x8 quadrant
    int half = 0;                  // .x (0) or .y (1) of the pair
};

// The row layout (tk::row_l), which is the mma.sync m16n8k16 A / C fragment of
// the PTX ISA ("Matrix Fragments for mma.m16n8k16", figures for A and C/D):
// in each 8x8 quadrant, lane = (row % 8) * 4 + (col % 8) / 2, half = col % 2.
// With `col_layout` (tk::col_l, the B operand) rows and columns swap roles.
constexpr FragmentSlot fragment_slot(int row, int col, bool col_layout = false) {
    const int r = row % 16, c = col % 16;
    FragmentSlot s;
    s.sub_row = row / 16;
    s.sub_col = col / 16;
    s.pair = (r / 8) + 2 * (c / 8);
    if (!col_layout) {
        s.lane = (r % 8) * 4 + (c % 8) / 2;
        s.half = c % 2;
    } else {
        s.lane = (c % 8) * 4 + (r % 8) / 2;
        s.half = r % 2;
    }
    return s;
}

} // namespace tklab::view
