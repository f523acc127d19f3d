// expect: 80 registers per thread live at the peak
// Known wrong, though its output is right: it builds a whole tile of lane
// numbers and adds it with tk::add into a new tile, keeping a bf16 tile, a
// float copy and the sum alive at once: 16 + 32 + 32 = 80 registers per
// thread where one float tile (32) is enough. It misses the lesson's goal.
// (The lane tile holds one value per lane: the compiler keeps that in one
// register, and the simulator counts none for it.)
#pragma once
#include "tk/tk.h"

namespace lesson01::wrong_register_hungry {

using namespace tk;

__global__ void kernel(gl<bf16> x, gl<float> out) {
    const int strip = blockIdx.x * 4 + warpid();
    if (strip >= x.rows / 16) return;
    rt_bf<16, 64> b;
    load(b, x, {0, 0, strip, 0});
    rt_fl<16, 64> f;
    copy(f, b);
    rt_fl<16, 64> lanes;  // every element: the lane that holds it
    fill(lanes, float(laneid()));
    rt_fl<16, 64> sum;
    add(sum, f, lanes);
    store(out, sum, {0, 0, strip, 0});
}

} // namespace lesson01::wrong_register_hungry
