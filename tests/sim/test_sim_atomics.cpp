// What the simulator records and checks for atomics (the values are tested in
// both builds by tests/tk/test_atomics.cu):
//   - shared atomics' bank analysis for known patterns (sim/banks.h,
//     analyze_atomic: lanes on one word serialise, unlike a store's), their
//     trace records and Nsight-style totals (atom_shared), through a trace
//     file and the report;
//   - the race finder: atomics never race with each other, an atomic and an
//     unordered plain load or store do (both lines named), and a barrier
//     orders them;
//   - faults and unwritten memory, as for loads and stores;
//   - lane order: a warp's f32 adds on one word run lane by lane.
#include <catch2/catch.hpp>

#include "tk/tk.h"
#include "sim/simulator.h"
#include "sim/trace_recorder.h"
#include "trace/codec.h"
#include "trace/report.h"
#include "tk/host/reference.h"

#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace {

using tklab::sim::ErrorKind;
using tklab::sim::Event;
using tklab::sim::Op;
using tklab::sim::RunResult;
using tklab::sim::SimError;
using tklab::sim::SmemRecord;
using tk::arch::atomic_op;

uint32_t smem_base() { return tk::arch::smem_addr(tk::dynamic_shared_memory()); }

// ------------------------------------------------------------ bank analysis

// One warp: every lane writes its word of a 4 KiB arena (so nothing reads
// unwritten bytes), then the lanes in `active` do one atomic at base + offsets[lane].
template <bool Returns>
__global__ void bank_pattern_kernel(const uint32_t* offsets, uint32_t active) {
    const uint32_t base = smem_base();
    const int lane = tk::laneid();
    for (int i = lane; i < 1024; i += 32) tk::arch::st_shared_b32(base + 4 * uint32_t(i), uint32_t(i) + 1);
    tk::arch::syncwarp();
    if (active >> lane & 1u) {
        if constexpr (Returns) (void)tk::arch::atom_shared<atomic_op::add>(base + offsets[lane], 3u);
        else tk::arch::red_shared<atomic_op::max>(base + offsets[lane], 5u);
    }
}

struct Pattern {
    const char* what;
    std::vector<uint32_t> offsets;
    uint32_t active;
    int wavefronts;
};

std::vector<uint32_t> offsets_of(uint32_t (*f)(int)) {
    std::vector<uint32_t> o(32);
    for (int l = 0; l < 32; ++l) o[size_t(l)] = f(l);
    return o;
}

const SmemRecord& atomic_record(const RunResult& r, Op op) {
    const auto& b = r.blocks.at(0);
    const Event* found = nullptr;
    for (const Event& e : b.events)
        if (e.op == op) { REQUIRE(found == nullptr); found = &e; }
    REQUIRE(found);
    CHECK(int(found->aux) == 4);
    REQUIRE(found->smem >= 0);
    return b.smem.at(size_t(found->smem));
}

} // namespace

TEST_CASE("atomics: shared atomics' wavefronts, lanes on one word serialising", "[sim][atomics][banks]") {
    const std::vector<Pattern> patterns = {
        {"consecutive words", offsets_of([](int l) { return 4u * uint32_t(l); }), 0xffffffffu, 1},
        {"every lane on one word", offsets_of([](int) { return 64u; }), 0xffffffffu, 32},
        {"a stride of 2 words", offsets_of([](int l) { return 8u * uint32_t(l); }), 0xffffffffu, 2},
        {"a stride of 32 words (one bank)", offsets_of([](int l) { return 128u * uint32_t(l); }), 0xffffffffu, 32},
        {"a stride of 17 words", offsets_of([](int l) { return 68u * uint32_t(l); }), 0xffffffffu, 1},
        {"lanes 0-15 on word 0, lanes 16-31 on words 16-31", offsets_of([](int l) { return l < 16 ? 0u : 4u * uint32_t(l); }), 0xffffffffu, 16},
        {"4 bins, 8 lanes each", offsets_of([](int l) { return 4u * uint32_t(l % 4); }), 0xffffffffu, 8},
        {"even lanes only, on one word", offsets_of([](int) { return 0u; }), 0x55555555u, 16},
    };
    std::vector<uint32_t> none(32, 0);
    for (const Pattern& p : patterns) {
        INFO(p.what);
        for (bool returns : {true, false}) {
            INFO((returns ? "atom.shared.add.u32" : "red.shared.max.u32"));
            tk::device_buffer<uint32_t> off(32, p.offsets, "offsets");
            if (returns) tk::launch("bank_pattern", bank_pattern_kernel<true>, dim3(1), dim3(32), 4096, (const uint32_t*)off.data(), p.active);
            else tk::launch("bank_pattern", bank_pattern_kernel<false>, dim3(1), dim3(32), 4096, (const uint32_t*)off.data(), p.active);
            const RunResult& r = tklab::sim::last_run();
            const SmemRecord& s = atomic_record(r, returns ? Op::atom_shared : Op::red_shared);
            CHECK(s.banks.wavefronts == p.wavefronts);
            CHECK(s.banks.ideal == 1);
            CHECK(s.banks.max_way == p.wavefronts);
            int lanes = 0;
            for (int b = 0; b < 32; ++b) lanes += s.banks.bank_words[b];
            CHECK(lanes == __builtin_popcount(p.active));  // one access per lane: same-word lanes count apiece
            CHECK((s.lanes >= 0) == (p.wavefronts > 1));    // lane addresses kept for the conflicted ones
            CHECK(r.stats.atom_shared.instructions == 1);
            CHECK(r.stats.atom_shared.wavefronts == uint64_t(p.wavefronts));
            CHECK(r.stats.atom_shared.ideal == 1);
            CHECK(r.stats.ld_shared.instructions == 0);  // counted apart from loads and stores, as Nsight does (op_atom)
        }
    }
}

namespace {
// A plain store of one word by every lane, for contrast: stores on one word need one wavefront.
__global__ void same_word_store_kernel() { tk::arch::st_shared_b32(smem_base() + 64, uint32_t(tk::laneid())); }
} // namespace

TEST_CASE("atomics: a plain store of one word by every lane is one wavefront, an atomic 32", "[sim][atomics][banks]") {
    tk::launch("same_word_store", same_word_store_kernel, dim3(1), dim3(32), 256);
    const RunResult& r = tklab::sim::last_run();
    CHECK(r.stats.st_shared.wavefronts == 1);
    CHECK(r.stats.atom_shared.instructions == 0);
}

// ------------------------------------------------------------ trace and report

namespace {
__global__ void contended_kernel(uint32_t* out) {
    const uint32_t base = smem_base();
    if (threadIdx.x == 0) tk::arch::st_shared_b32(base, 11u);
    tk::arch::syncthreads();
    tk::arch::red_shared<atomic_op::add>(base, 1u);  // every lane of both warps on one word
    tk::arch::syncthreads();
    if (threadIdx.x == 0) out[0] = tk::arch::ld_shared_b32(base);
}
} // namespace

TEST_CASE("atomics: shared atomics' totals and sites go through a trace file into the report", "[sim][atomics][trace]") {
    const std::string path = (std::filesystem::temp_directory_path() / "tklab_atomics_trace.cbor").string();
    tk::device_buffer<uint32_t> out(1, std::vector<uint32_t>{1}, "out");
    tklab::sim::RecorderOptions ro;
    ro.path = path;
    ro.program = "contended_kernel";
    tklab::sim::TraceRecorder rec(ro);
    tk::launch("contended", contended_kernel, dim3(1), dim3(64), 64, out.data());
    rec.close();
    CHECK(out.download()[0] == 11u + 64u);
    const auto loaded = tklab::trace::load_trace(path).trace;
    REQUIRE(loaded.launches.size() == 1);
    REQUIRE(loaded.launches[0].summary);
    const auto& s = *loaded.launches[0].summary;
    CHECK(s.atom_shared.instructions == 2);   // one per warp
    CHECK(s.atom_shared.wavefronts == 64);    // 32 lanes on one word, twice
    CHECK(s.atom_shared.ideal == 2);
    std::ostringstream text;
    tklab::trace::write_report(text, loaded);
    INFO(text.str());
    CHECK_THAT(text.str(), Catch::Matchers::Contains("red.shared") && Catch::Matchers::Contains("32-way") &&
                               Catch::Matchers::Contains("atomics on one word serialise"));
    std::filesystem::remove(path);
}

// ------------------------------------------------------------ race finder

namespace {

constexpr int kWarps = 4;

// Every warp adds into one shared word with atomics (written first), and
// takes the max into the next word, which nothing wrote.
__global__ void atomics_only_kernel(const uint32_t* v, uint32_t* out) {
    const uint32_t base = smem_base();
    if (threadIdx.x == 0) tk::arch::st_shared_b32(base, 0u);
    tk::arch::syncthreads();
    (void)tk::arch::atom_shared<atomic_op::add>(base, v[threadIdx.x]);
    tk::arch::red_shared<atomic_op::max>(base + 4, v[threadIdx.x]);  // nothing wrote this word
    tk::arch::syncthreads();
    if (threadIdx.x == 0) out[0] = tk::arch::ld_shared_b32(base);
}

// Warp 0 adds with atomics while warp 1 reads the word with a plain load, nothing between.
constexpr int kAtomicLine = __LINE__ + 6;
constexpr int kPlainLoadLine = __LINE__ + 6;
__global__ void atomic_vs_plain_load_kernel(uint32_t* out) {
    const uint32_t base = smem_base();
    if (threadIdx.x == 0) tk::arch::st_shared_b32(base, 1u);
    tk::arch::syncthreads();
    if (tk::warpid() == 0) tk::arch::red_shared<atomic_op::add>(base, 1u);
    if (tk::warpid() == 1) out[threadIdx.x] = tk::arch::ld_shared_b32(base);
}

} // namespace

TEST_CASE("atomics: an atomic on a shared word nothing wrote reads unwritten memory", "[sim][atomics][races]") {
    std::vector<uint32_t> v(32 * kWarps);
    for (size_t i = 0; i < v.size(); ++i) v[i] = uint32_t(i * 2654435761u % 1000 + 1);
    uint32_t want = 0;
    for (uint32_t x : v) want += x;
    tk::device_buffer<uint32_t> dv(v.size(), v, "v"), out(1, "out");
    // The max word is written by nobody first: an atomic reads it, which is a read of unwritten memory.
    try {
        tk::launch("atomics_only", atomics_only_kernel, dim3(1), dim3(32 * kWarps), 64, (const uint32_t*)dv.data(), out.data());
        FAIL("the atomic on the unwritten word was not reported");
    } catch (const SimError& e) {
        INFO(e.what());
        CHECK(e.kind == ErrorKind::uninitialized_read);
        CHECK_THAT(e.what(), Catch::Matchers::Contains("red.shared") && Catch::Matchers::Contains("fix:"));
    }
}

namespace {
// Every warp adds into one shared word, and takes the max into the next, with
// no barrier between the warps' atomics: no race. After a barrier, plain loads.
__global__ void atomics_only_written_kernel(const uint32_t* v, uint32_t* out) {
    const uint32_t base = smem_base();
    if (threadIdx.x < 2) tk::arch::st_shared_b32(base + 4 * threadIdx.x, 0u);
    tk::arch::syncthreads();
    (void)tk::arch::atom_shared<atomic_op::add>(base, v[threadIdx.x]);
    tk::arch::red_shared<atomic_op::max>(base + 4, v[threadIdx.x]);
    tk::arch::syncthreads();
    if (threadIdx.x == 0) {
        out[0] = tk::arch::ld_shared_b32(base);
        out[1] = tk::arch::ld_shared_b32(base + 4);
    }
}
} // namespace

TEST_CASE("atomics: atomics from many warps, then a barrier and a plain load: no finding", "[sim][atomics][races]") {
    std::vector<uint32_t> v(32 * kWarps);
    for (size_t i = 0; i < v.size(); ++i) v[i] = uint32_t(i * 2654435761u % 1000 + 1);
    uint32_t sum = 0, most = 0;
    for (uint32_t x : v) { sum += x; most = std::max(most, x); }
    tk::device_buffer<uint32_t> dv(v.size(), v, "v"), out(2, "out");
    tk::launch("atomics_only", atomics_only_written_kernel, dim3(1), dim3(32 * kWarps), 64, (const uint32_t*)dv.data(), out.data());
    CHECK(out.download() == std::vector<uint32_t>{sum, most});
}

TEST_CASE("atomics: an atomic and an unordered plain load of its word race, both lines named", "[sim][atomics][races]") {
    tk::device_buffer<uint32_t> out(64, "out");
    try {
        tk::launch("atomic_vs_plain_load", atomic_vs_plain_load_kernel, dim3(1), dim3(64), 64, out.data());
        FAIL("not reported");
    } catch (const SimError& e) {
        const std::string msg = e.what();
        INFO(msg);
        CHECK(e.kind == ErrorKind::race);
        CHECK_THAT(msg, Catch::Matchers::Contains(std::string(__FILE__) + ":" + std::to_string(kAtomicLine)) &&
                            Catch::Matchers::Contains(std::string(__FILE__) + ":" + std::to_string(kPlainLoadLine)) &&
                            Catch::Matchers::Contains("red.shared") && Catch::Matchers::Contains("ld.shared") &&
                            Catch::Matchers::Contains("one is an atomic") && Catch::Matchers::Contains("fix:"));
    }
}

// ------------------------------------------------------------ faults

namespace {
__global__ void shared_atomic_at(uint32_t offset) { (void)tk::arch::atom_shared<atomic_op::add>(smem_base() + offset, 1u); }
__global__ void global_atomic_at(uint32_t* p) { tk::arch::red_global<atomic_op::add>(p, 1u); }
__global__ void global_cas_at(uint32_t* p) { (void)tk::arch::atom_cas_global(p, 0u, 1u); }
} // namespace

TEST_CASE("atomics: out-of-bounds, misaligned and unwritten accesses are errors naming the line", "[sim][atomics][faults]") {
    auto error_of = [](auto&& run) -> SimError {
        try {
            run();
        } catch (const SimError& e) {
            return e;
        }
        FAIL("no error");
        throw 0;
    };
    {
        const SimError e = error_of([] { tk::launch("shared_oob", shared_atomic_at, dim3(1), dim3(32), 64, 64u); });
        INFO(e.what());
        CHECK(e.kind == ErrorKind::fault);
        CHECK(e.file == __FILE__);
        CHECK_THAT(e.what(), Catch::Matchers::Contains("atom.shared") && Catch::Matchers::Contains("fix:"));
    }
    {
        const SimError e = error_of([] { tk::launch("shared_misaligned", shared_atomic_at, dim3(1), dim3(32), 64, 2u); });
        INFO(e.what());
        CHECK(e.kind == ErrorKind::fault);
        CHECK(e.file == __FILE__);
    }
    {
        tk::device_buffer<uint32_t> b(8, std::vector<uint32_t>(8, 1), "counters");
        const SimError e = error_of([&] { tk::launch("global_oob", global_atomic_at, dim3(1), dim3(32), 0, b.data() + 8); });
        INFO(e.what());
        CHECK(e.kind == ErrorKind::fault);
        CHECK(e.file == __FILE__);
        CHECK_THAT(e.what(), Catch::Matchers::Contains("red.global") && Catch::Matchers::Contains("counters"));
    }
    {
        tk::device_buffer<uint32_t> b(8, "never_uploaded");
        const SimError e = error_of([&] { tk::launch("global_unwritten", global_cas_at, dim3(1), dim3(32), 0, b.data()); });
        INFO(e.what());
        CHECK(e.kind == ErrorKind::uninitialized_read);
        CHECK_THAT(e.what(), Catch::Matchers::Contains("atom.global") && Catch::Matchers::Contains("fix:"));
    }
}

// ------------------------------------------------------------ lane order

namespace {
__global__ void float_chain_kernel(const float* v, float* olds, float* final_value, float init) {
    const uint32_t base = smem_base();
    if (threadIdx.x == 0) tk::arch::st_shared_b32(base, tk::arch::f2u(init));
    tk::arch::syncwarp();
    olds[threadIdx.x] = tk::arch::atom_shared<atomic_op::add>(base, v[threadIdx.x]);
    tk::arch::syncwarp();
    if (threadIdx.x == 0) final_value[0] = tk::arch::u2f(tk::arch::ld_shared_b32(base));
}
} // namespace

TEST_CASE("atomics: the simulator applies a warp's atomics on one word in lane order", "[sim][atomics]") {
    const auto v = tk::host::random_values<float>(32, 781);
    tk::device_buffer<float> dv(32, v, "v"), olds(32, "olds"), fin(1, "final");
    tk::launch("float_chain", float_chain_kernel, dim3(1), dim3(32), 64, (const float*)dv.data(), olds.data(), fin.data(), 0.375f);
    const auto got = olds.download();
    float acc = 0.375f;
    for (int l = 0; l < 32; ++l) {
        INFO("lane " << l);
        CHECK(std::memcmp(&got[size_t(l)], &acc, 4) == 0);  // bit for bit: this order, this rounding
        acc += v[size_t(l)];
    }
    const float f = fin.download()[0];
    CHECK(std::memcmp(&f, &acc, 4) == 0);
}
