// Reads of bytes nothing wrote, on purpose: the rows past the end of a
// ragged tile, loaded with the tile, computed on and masked off at the store;
// the padding a 16-byte load brings along with a 12-byte struct. Legal on a
// GPU, they would be reported as errors (the uninitialised-read finder cannot
// see that their values are never used). Inside
//
//     {
//         tk::allow_uninitialized_reads ok;   // the tail rows are masked at the store
//         tk::load(tile, shared_tile);
//     }
//
// such reads by this thread are counted, with the first line that made one,
// in the report's Summary ("allowed uninit") instead of stopping the
// run. Keep the scope to the loads that need it: a real bug inside it is
// counted too, not reported. A no-op on the GPU.
#pragma once
#include "tk/common/base.h"

namespace tk {

struct allow_uninitialized_reads {
#if defined(TK_SIM)
    allow_uninitialized_reads() { ::tklab::sim::allow_uninitialized_reads(true); }
    ~allow_uninitialized_reads() { ::tklab::sim::allow_uninitialized_reads(false); }
#else
    TK_DEVICE allow_uninitialized_reads() {}
#endif
    allow_uninitialized_reads(const allow_uninitialized_reads&) = delete;
    allow_uninitialized_reads& operator=(const allow_uninitialized_reads&) = delete;
};

} // namespace tk
