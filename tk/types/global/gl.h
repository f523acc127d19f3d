// Global layouts: a 4-D view (batch, depth, rows, cols) of a tensor in global
// memory with run-time dimensions; coord addresses it in units of a tile.
#pragma once
#include "tk/common/base.h"

namespace tk {

template <typename T>
struct gl {
    using dtype = T;
    T* raw = nullptr;
    int batch = 1, depth = 1, rows = 1, cols = 1;
    gl() = default;
    TK_HOST_DEVICE gl(T* p, int b, int d, int r, int c) : raw(p), batch(b), depth(d), rows(r), cols(c) {}
    TK_HOST_DEVICE size_t index(int b, int d, int r, int c) const {
        return ((size_t(b) * depth + d) * rows + r) * size_t(cols) + c;
    }
    TK_HOST_DEVICE T* ptr(int b, int d, int r, int c) const { return raw + index(b, d, r, c); }
    TK_HOST_DEVICE size_t numel() const { return size_t(batch) * depth * rows * cols; }
};

// A position in a tensor: batch, depth, and row/column in units of the tile
// being moved (so {0, 0, 2, 1} with a 64x64 tile starts at row 128, col 64).
struct coord {
    int b = 0, d = 0, r = 0, c = 0;
};

} // namespace tk
