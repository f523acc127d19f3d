// tk::snapshot(tile, "label"): records the tile's values at this point of the
// kernel into the trace, so the visualizer can step through them. A no-op on
// the GPU, and in the simulator unless the run asks for snapshots
// (`tklab run --snapshots`). Every lane of the warp must call it; the label
// must outlive the run (a string literal).
#pragma once
#include "tk/common/base.h"
#include "tk/common/dtypes.h"
#include "tk/types/register/rt.h"
#include "tk/types/shared/st.h"

namespace tk {

namespace detail {
template <typename RT>
void snapshot_fill_rt(const void* p, int lane, float* out) {
    const RT& t = *static_cast<const RT*>(p);
    using base = typename RT::base;
    TK_UNROLL
    for (int i = 0; i < RT::height; ++i)
        TK_UNROLL
        for (int j = 0; j < RT::width; ++j)
            TK_UNROLL
            for (int k = 0; k < base::packed_per_thread; ++k) {
                const auto& pair = t.tiles[i][j].data[k];
                const float v[2] = {to_float(pair.x), to_float(pair.y)};
                TK_UNROLL
                for (int h = 0; h < 2; ++h) {
                    const int r = i * 16 + base::row_of(lane, k, h), c = j * 16 + base::col_of(lane, k, h);
                    out[r * RT::cols + c] = v[h];
                }
            }
}
template <typename ST>
void snapshot_fill_st(const void* p, int, float* out) {
    const ST& t = *static_cast<const ST*>(p);
    const char* bytes = reinterpret_cast<const char*>(t.data);
    TK_UNROLL
    for (int r = 0; r < ST::rows; ++r)
        TK_UNROLL
        for (int c = 0; c < ST::cols; ++c)
            out[r * ST::cols + c] = to_float(*reinterpret_cast<const typename ST::dtype*>(bytes + ST::offset(r, c)));
}
} // namespace detail

template <typename T, int R, int C, typename L>
TK_DEVICE void snapshot(const rt<T, R, C, L>& tile, const char* label, TK_LOC) {
#if defined(TK_SIM)
    if (!tklab::sim::snapshots_wanted()) return;
    tklab::sim::snapshot({label, false, R, C, &tile, &detail::snapshot_fill_rt<rt<T, R, C, L>>, loc.file, loc.line});
#else
    (void)tile; (void)label;
#endif
}

template <typename T, int R, int C, int S>
TK_DEVICE void snapshot(const st<T, R, C, S>& tile, const char* label, TK_LOC) {
#if defined(TK_SIM)
    if (!tklab::sim::snapshots_wanted()) return;
    tklab::sim::snapshot({label, true, R, C, &tile, &detail::snapshot_fill_st<st<T, R, C, S>>, loc.file, loc.line});
#else
    (void)tile; (void)label;
#endif
}

} // namespace tk
