// TK_CHECK: a run-time precondition of a tile op. In the simulator a failed
// check stops the kernel with the caller's line and a fix; on the GPU it
// compiles to nothing (the hardware would fault or silently misbehave).
#pragma once
#include "tk/common/base.h"

#if defined(TK_SIM)
namespace tklab::sim {
[[noreturn]] void check_failed(const char* file, int line, const char* what, const char* fix);
}
#define TK_CHECK(cond, what, fix) \
    do { if (!(cond)) ::tklab::sim::check_failed(loc.file, loc.line, what, fix); } while (0)
#else
#define TK_CHECK(cond, what, fix) ((void)0)
#endif
