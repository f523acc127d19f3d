// A run that asks for more host memory than the machine has is refused with
// both figures before the memory is taken (tk/host/memory_check.h).
#include <catch2/catch.hpp>
#include "tk/tk.h"
#include "tk/host/memory_check.h"
#include "tk/host/reference.h"

TEST_CASE("memory check: the machine's available memory is known on Linux", "[tk][memory]") {
    const uint64_t available = tk::host::available_memory_bytes();
    CHECK(available > (uint64_t(1) << 24));  // more than 16 MB: it read something real
}

TEST_CASE("memory check: inputs, references and device buffers beyond it are refused with both figures", "[tk][memory]") {
    const uint64_t huge = uint64_t(1) << 50;  // a petabyte: no machine has it
    try {
        tk::host::check_fits(huge, "the test's buffer");
        FAIL("expected a refusal");
    } catch (const std::runtime_error& e) {
        const std::string msg = e.what();
        CHECK_THAT(msg, Catch::StartsWith("the test's buffer needs 1125899.91 GB, more than the "));
        CHECK_THAT(msg, Catch::Contains(" of memory this machine has available now; fix: run a smaller size"));
    }
    CHECK_THROWS_WITH(tk::host::random_values<float>(size_t(1) << 48, 1), Catch::StartsWith("an input of 281474976710656 values needs"));
    CHECK_THROWS_WITH((tk::device_buffer<float>(size_t(1) << 48, "A")), Catch::StartsWith("device buffer 'A' (281474976710656 elements) needs"));
    CHECK_THROWS_WITH(tk::host::matmul_reference({}, {}, 1 << 24, 1 << 24, 1), Catch::StartsWith("the float64 reference of a 16777216 x 16777216 product needs"));
    // What fits is taken as before.
    tk::host::check_fits(1 << 20, "a megabyte");
    const auto v = tk::host::random_values<float>(1000, 7);
    CHECK(v.size() == 1000);
}
