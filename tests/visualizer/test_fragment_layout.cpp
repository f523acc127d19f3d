// The tile inspector's "which lane holds this element" (visualizer/model/
// fragment_layout.h) must invert the tile library's own register layout.
#include <catch2/catch.hpp>

#include "tk/types/register/rt.h"
#include "visualizer/model/fragment_layout.h"

#include <set>

template <typename L>
void check_inverts(bool col_layout) {
    using base = tk::rt_base<float, L>;
    std::set<int> seen;
    for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < base::packed_per_thread; ++i)
            for (int h = 0; h < 2; ++h) {
                // A 32x48 tile: sub-tile (1, 2) shifts rows by 16 and columns by 32.
                const int row = 16 + base::row_of(lane, i, h), col = 32 + base::col_of(lane, i, h);
                const tklab::view::FragmentSlot s = tklab::view::fragment_slot(row, col, col_layout);
                INFO("lane " << lane << " pair " << i << " half " << h);
                CHECK(s.lane == lane);
                CHECK(s.pair == i);
                CHECK(s.half == h);
                CHECK(s.sub_row == 1);
                CHECK(s.sub_col == 2);
                seen.insert(row * 64 + col);
            }
    CHECK(seen.size() == 256);  // every element of the 16x16 sub-tile, once
}

TEST_CASE("fragment layout: row tiles invert tk::rt_base", "[visualizer]") { check_inverts<tk::row_l>(false); }
TEST_CASE("fragment layout: col tiles invert tk::rt_base", "[visualizer]") { check_inverts<tk::col_l>(true); }
