// For tests whose kernels test something else (bank-conflict patterns,
// faults further on in the kernel, timing) and read memory nothing wrote, or
// that another lane wrote with no sync between, on purpose: the race and
// uninitialised-read finders are off for the test's scope, restored after.
#pragma once
#if !defined(__CUDACC__)
#include "sim/simulator.h"

namespace test_support {
struct without_memory_checks {
    tklab::sim::Options::Checks saved = tklab::sim::options().checks;
    without_memory_checks() { tklab::sim::options().checks.uninit = false;
        tklab::sim::options().checks.races = false; }
    ~without_memory_checks() { tklab::sim::options().checks = saved; }
    without_memory_checks(const without_memory_checks&) = delete;
    without_memory_checks& operator=(const without_memory_checks&) = delete;
};
} // namespace test_support
#define TK_TEST_WITHOUT_MEMORY_CHECKS const test_support::without_memory_checks tk_test_checks_guard_
#else
#define TK_TEST_WITHOUT_MEMORY_CHECKS ((void)0)
#endif
