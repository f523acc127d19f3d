// The simulator's L1 model on or off for one test's scope, restored after
// (the shipped cost models have it on; `tklab run --no-l1` turns it off).
#pragma once
#include "sim/simulator.h"

namespace test_support {
struct l1_model_as {
    int saved = tklab::sim::options().l1;
    explicit l1_model_as(bool on) { tklab::sim::options().l1 = on ? 1 : 0; }
    ~l1_model_as() { tklab::sim::options().l1 = saved; }
    l1_model_as(const l1_model_as&) = delete;
    l1_model_as& operator=(const l1_model_as&) = delete;
};
} // namespace test_support
