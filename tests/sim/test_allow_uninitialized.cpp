// Reads of bytes nothing wrote, on purpose (tk::allow_uninitialized_reads):
// a ragged tile's tail rows, loaded with the tile and masked off at the
// store, are notes in the run's statistics, not errors; the same kernel
// without the scope stops at the load, as before.
#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include "sim/simulator.h"
#include "sim/trace_recorder.h"
#include "trace/report.h"
#include <filesystem>
#include <sstream>
#include <unistd.h>
#include "tk/tk.h"

namespace {

int g_load_line = 0;

// One warp: the first `rows` rows of a 16 x 16 float tile in shared memory
// are staged from `in`; the whole tile is read back and only those rows are
// stored. `allow`: the tail rows' reads are marked as intended.
__global__ void ragged_tile_kernel(const float* in, float* out, int rows, bool allow) {
    const int lane = tk::laneid();
    for (int i = lane; i < rows * 16; i += 32) {
        uint32_t v[1];
        tk::arch::ld_global<1>(v, in + i);
        tk::arch::st_shared<1>(4 * uint32_t(i), v);
    }
    tk::arch::syncwarp();
    for (int i = lane; i < 256; i += 32) {
        uint32_t v[1];
        if (allow) {
            tk::allow_uninitialized_reads ok;  // rows >= `rows` are never stored
            g_load_line = __LINE__ + 1;
            tk::arch::ld_shared<1>(v, 4 * uint32_t(i));
        } else {
            tk::arch::ld_shared<1>(v, 4 * uint32_t(i));
        }
        if (i < rows * 16) tk::arch::st_global<1>(out + i, v);
    }
}

// A 16-byte load of a 12-byte record: the last 4 bytes are padding nothing wrote.
__global__ void padded_record_kernel(const float* rec, float* out, bool allow) {
    uint32_t v[4];
    if (allow) {
        tk::allow_uninitialized_reads ok;
        tk::arch::ld_global<4>(v, rec + 4 * tk::laneid());
    } else {
        tk::arch::ld_global<4>(v, rec + 4 * tk::laneid());
    }
    const uint32_t sum[1] = {v[0] ^ v[1] ^ v[2]};
    tk::arch::st_global<1>(out + tk::laneid(), sum);
}

__global__ void write_records_kernel(float* rec) {
    for (int k = 0; k < 3; ++k) {
        const uint32_t w[1] = {uint32_t(tk::laneid() * 3 + k)};
        tk::arch::st_global<1>(rec + 4 * tk::laneid() + k, w);
    }
}

} // namespace

TEST_CASE("allow_uninitialized_reads: a ragged tile's unused tail rows are notes, the values stored are right", "[sim][bug_finders]") {
    std::mt19937 rng(41);
    for (int rows : {3, 9, 15}) {
        std::vector<float> host(256);
        for (float& x : host) x = float(rng() % 1000);
        tk::device_buffer<float> in(256, host, "in"), out(256, std::vector<float>(256, 0.f), "out");
        tk::launch("ragged", ragged_tile_kernel, dim3(1), dim3(32), 1024, (const float*)in.data(), out.data(), rows, true);
        const auto got = out.download();
        for (int i = 0; i < rows * 16; ++i) CHECK(got[size_t(i)] == host[size_t(i)]);
        const auto& r = tklab::sim::last_run();
        CHECK(r.stats.allowed_uninit_reads == uint64_t((16 - rows) * 16));  // one per lane read of a tail word
        CHECK(r.locations.at(r.stats.allowed_uninit_loc).line == g_load_line);
        // Without the scope: the first tail read stops the run, as before.
        try {
            tk::launch("ragged", ragged_tile_kernel, dim3(1), dim3(32), 1024, (const float*)in.data(), out.data(), rows, false);
            FAIL("expected an uninitialised read");
        } catch (const tklab::sim::SimError& e) {
            CHECK(e.kind == tklab::sim::ErrorKind::uninitialized_read);
        }
    }
}

TEST_CASE("allow_uninitialized_reads: a 16-byte load of a 12-byte record's padding is a note", "[sim][bug_finders]") {
    tk::device_buffer<float> rec(128, "records"), out(32, "out");
    tk::launch("write_records", write_records_kernel, dim3(1), dim3(32), 0, rec.data());
    tk::launch("padded", padded_record_kernel, dim3(1), dim3(32), 0, (const float*)rec.data(), out.data(), true);
    CHECK(tklab::sim::last_run().stats.allowed_uninit_reads == 32);  // every lane's record has 4 bytes of padding
    const auto got = out.download();
    for (uint32_t l = 0; l < 32; ++l) {
        uint32_t want = (l * 3) ^ (l * 3 + 1) ^ (l * 3 + 2), bits;
        std::memcpy(&bits, &got[l], 4);
        CHECK(bits == want);
    }
    CHECK_THROWS_AS(tk::launch("padded", padded_record_kernel, dim3(1), dim3(32), 0, (const float*)rec.data(), out.data(), false),
                    tklab::sim::SimError);
}

TEST_CASE("allow_uninitialized_reads: the trace keeps the count and line, and the report shows them", "[sim][bug_finders][trace]") {
    std::mt19937 rng(43);
    const int rows = 1 + int(rng() % 15);
    std::vector<float> host(256);
    for (float& x : host) x = float(rng() % 1000);
    tk::device_buffer<float> in(256, host, "in"), out(256, std::vector<float>(256, 0.f), "out");
    for (const char* ext : {".json", ".cbor"}) {
        const std::string p =
            (std::filesystem::temp_directory_path() / ("tklab_test_" + std::to_string(::getpid()) + "_allow_uninit" + ext)).string();
        {
            tklab::sim::RecorderOptions ro;
            ro.path = p;
            tklab::sim::TraceRecorder rec(ro);
            tk::launch("ragged", ragged_tile_kernel, dim3(1), dim3(32), 1024, (const float*)in.data(), out.data(), rows, true);
        }
        const auto t = tklab::trace::load_trace(p).trace;
        std::filesystem::remove(p);
        REQUIRE(t.launches.size() == 1);
        REQUIRE(t.launches[0].summary);
        const auto& s = *t.launches[0].summary;
        CHECK(s.allowed_uninit_reads == uint64_t((16 - rows) * 16));
        const std::string line = "tests/sim/test_allow_uninitialized.cpp:" + std::to_string(g_load_line);
        CHECK(t.where(s.allowed_uninit_loc) == line);
        std::ostringstream text;
        tklab::trace::write_report(text, t, {});
        CHECK_THAT(text.str(), Catch::Contains("allowed uninit") && Catch::Contains(line));
    }
}
