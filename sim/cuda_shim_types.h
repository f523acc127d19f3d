// A plain 3-D extent usable in simulator headers whether or not CUDA's dim3 exists.
#pragma once
namespace tklab::sim {
struct Dim3 { unsigned x = 1, y = 1, z = 1; };
}
