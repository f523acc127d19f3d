// The simulator's bug finders set for one test's scope and restored after:
// test_support::checks_as picks any set; TK_TEST_WITHOUT_MEMORY_CHECKS is for
// tests whose kernels test something else (bank-conflict patterns, faults
// further on in the kernel, timing) and read memory nothing wrote, or that
// another lane wrote with no sync between, on purpose: it switches the race
// and uninitialised-read finders off.
#pragma once
#if !defined(__CUDACC__)
#include "sim/simulator.h"

namespace test_support {
struct checks_as {
    tklab::sim::Options::Checks saved = tklab::sim::options().checks;
    explicit checks_as(tklab::sim::Options::Checks c) { tklab::sim::options().checks = c; }
    ~checks_as() { tklab::sim::options().checks = saved; }
    checks_as(const checks_as&) = delete;
    checks_as& operator=(const checks_as&) = delete;
};
inline tklab::sim::Options::Checks without_memory_checks() {
    tklab::sim::Options::Checks c = tklab::sim::options().checks;
    c.races = c.uninit = false;
    return c;
}
} // namespace test_support
#define TK_TEST_WITHOUT_MEMORY_CHECKS const test_support::checks_as tk_test_checks_guard_{test_support::without_memory_checks()}
#else
#define TK_TEST_WITHOUT_MEMORY_CHECKS ((void)0)
#endif
