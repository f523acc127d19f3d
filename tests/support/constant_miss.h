// The constant cache's miss at a launch's first blocks (sim/README.md, "The
// constant cache") on or off for one test's scope, restored after. Tests of
// other mechanics turn it off: they count from a first instruction at cycle 0.
#pragma once
#include "sim/simulator.h"

namespace test_support {
struct constant_miss_as {
    bool saved = tklab::sim::options().constant_miss;
    explicit constant_miss_as(bool on) { tklab::sim::options().constant_miss = on; }
    ~constant_miss_as() { tklab::sim::options().constant_miss = saved; }
    constant_miss_as(const constant_miss_as&) = delete;
    constant_miss_as& operator=(const constant_miss_as&) = delete;
};
} // namespace test_support
