// Seeded random test data and plain CPU references for the kernel tests (tk/host/reference.h).
#pragma once
#include "tk/host/reference.h"

namespace tktest {
using tk::host::matmul_reference;
using tk::host::max_relative_error;
using tk::host::random_values;
using tk::host::to_floats;
} // namespace tktest
