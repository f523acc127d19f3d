// expect: 1024 of 1024 elements differ from the CPU reference (largest error inf
// Known wrong: an empty kernel. OUT keeps what fresh memory holds (NaN in the
// simulator), so every element differs.
#pragma once
#include "tk/tk.h"

namespace lesson04::wrong_empty {

using namespace tk;

__global__ void kernel(gl<float> x, gl<float> out) {
    (void)x;
    (void)out;
}

} // namespace lesson04::wrong_empty
