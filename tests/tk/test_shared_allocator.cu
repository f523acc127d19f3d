// tk::shared_allocator: an array of tiles (pipeline stages) lies like its
// tiles allocated one by one, each at the 1024-byte alignment the swizzle
// patterns need, even after something of smaller alignment.
#include <catch2/catch.hpp>
#include <vector>
#include "tk/tk.h"

namespace {

using stage = tk::st_bf<64, 64>;

__global__ void offsets_kernel(tk::gl<float> out) {
    tk::shared_allocator al;
    auto& v = al.allocate<tk::sv_fl<16>>();  // 64 bytes, 16-byte aligned: the array must skip to 1024
    auto& stages = al.allocate<stage[2]>();
    auto& after = al.allocate<stage>();
    if (tk::laneid() == 0) {
        const char* base = tk::dynamic_shared_memory();
        out.raw[0] = float(reinterpret_cast<const char*>(&v) - base);
        out.raw[1] = float(reinterpret_cast<const char*>(&stages[0]) - base);
        out.raw[2] = float(reinterpret_cast<const char*>(&stages[1]) - base);
        out.raw[3] = float(reinterpret_cast<const char*>(&after) - base);
        out.raw[4] = float(al.used());
    }
}

} // namespace

TEST_CASE("shared_allocator: an array of tiles is laid out as its tiles one by one, each 1024-byte aligned",
          "[tk][allocator]") {
    tk::device_buffer<float> out(5, std::vector<float>(5, -1.0f), "offsets");
    const int bytes = 1024 + 3 * int(sizeof(stage));
    tk::launch("offsets", offsets_kernel, dim3(1), dim3(32), bytes, tk::gl<float>(out.data(), 1, 1, 1, 5));
    const auto got = out.download();
    CHECK(got[0] == 0.0f);
    CHECK(got[1] == 1024.0f);
    CHECK(got[2] == float(1024 + sizeof(stage)));
    CHECK(got[3] == float(1024 + 2 * sizeof(stage)));
    CHECK(got[4] == float(bytes));
}
