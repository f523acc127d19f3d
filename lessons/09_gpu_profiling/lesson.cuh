// Lesson 9, "Profiling on a real GPU": the problem is lesson 5's (C = A * B,
// bf16 in, fp32 out, 64x64 tiles of C, K double-buffered through shared
// memory), so the kernel is one the student already knows; what is new is
// timing its phases, in the simulator and on an H100, and comparing the two.
#pragma once
#include <string>
#include <utility>
#include <vector>
#include "lessons/05_async_copies/lesson.cuh"

namespace lesson09 {

using lesson05::kBlock;
using lesson05::kWarps;
using lesson05::tile;
using kernel_fn = lesson05::kernel_fn;
using Data = lesson05::Data;

// The three phases every warp marks, in the order it runs them.
inline const std::vector<std::string>& phases() {
    static const std::vector<std::string> p{"prologue", "main loop", "store"};
    return p;
}

// Launched from this lesson's own translation unit, not through lesson 5's
// launch: a marker records into the buffer its own file's launch set up
// (tk/host/launch.h), and an inline function shared with lesson 5 would be
// lesson 5's copy. `static`: one copy per file that includes this.
static inline void launch(kernel_fn kernel, Data& g) {
    tk::launch("lesson09", kernel, dim3(unsigned(g.n / kBlock), unsigned(g.m / kBlock)), dim3(lesson05::kThreads),
               lesson05::kSharedBytes, g.A(), g.B(), g.C());
}

static inline tk::host::program_def<Data> program_def(std::vector<std::pair<std::string, kernel_fn>> kernels) {
    return tklab::lessons::gemm_problem::program_def(
        "lesson09", "Lesson 9, profiling on a real GPU: lesson 5's double-buffered GEMM with its phases marked by tk::region",
        {{"M", 128, 64, 4096}, {"N", 128, 64, 4096}, {"K", 512, 64, 4096}}, std::move(kernels),
        [](Data& g, kernel_fn k) { launch(k, g); });
}

// The lesson's check (simulator only) is in checks.h.

} // namespace lesson09
