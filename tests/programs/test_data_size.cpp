// Each kernel declares what making its data takes (tk::host::data_size), so
// `tklab run` can refuse a size before spending minutes making data that
// cannot fit. Here each declaration meets the resident memory that making the
// data really takes, at a size where the data is large enough to measure.
#include <catch2/catch.hpp>
#include "tk/host/memory_check.h"
#include "tk/host/registry.h"

namespace {

// From the defaults, each dimension doubled in turn (within its limits)
// until the declared data reaches `target` bytes.
tk::host::dims_t grown(const tk::host::program& p, double target) {
    tk::host::dims_t dims = p.resolve({});
    for (bool grew = true; grew && p.data(dims).in_host_memory() < target;) {
        grew = false;
        for (const tk::host::problem_dim& d : p.dims) {
            if (p.data(dims).in_host_memory() >= target) break;
            if (2 * dims[d.name] > d.max) continue;
            tk::host::dims_t bigger = dims;
            bigger[d.name] *= 2;
            if (p.data(bigger).in_host_memory() <= p.data(dims).in_host_memory()) continue;  // a size the data does not hang on
            dims = bigger;
            grew = true;
        }
    }
    return dims;
}

} // namespace

TEST_CASE("every kernel declares the memory its data takes") {
    int kernels = 0;
    for (const tk::host::program& p : tk::host::registry()) {
        if (p.kind != "kernel") continue;
        ++kernels;
        INFO(p.name << ": set .data in its TKLAB_PROGRAM (tk/host/registry.h, data_size)");
        CHECK(bool(p.data));
    }
    CHECK(kernels >= 5);
}

TEST_CASE("a declared data size is what making the data takes") {
    for (const tk::host::program& p : tk::host::registry()) {
        if (!p.data) continue;
        const tk::host::dims_t dims = grown(p, 160e6);
        const double declared = p.data(dims).in_host_memory();
        const uint64_t before = tk::host::resident_memory_bytes();
        uint64_t after = 0;
        {
            auto made = p.make(dims, 7);
            after = tk::host::resident_memory_bytes();
        }
        const double measured = double(after) - double(before);
        std::string size;
        for (const auto& [k, v] : dims) size += k + "=" + std::to_string(v) + " ";
        INFO(p.name << " at " << size << ": declared " << declared / 1e6 << " MB, making it took " << measured / 1e6 << " MB");
        CHECK(declared >= 100e6);
        CHECK(measured >= 0.85 * declared);
        CHECK(measured <= 1.15 * declared);
    }
}
