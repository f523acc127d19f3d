// The compiler's figures (sim/compiler_figures.h): ptxas -v reports parsed,
// a simulated kernel matched to its entry across the two backends' spellings,
// and occupancy taking its registers from ptxas when there is a report.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <unistd.h>
#include "sim/compiler_figures.h"
#include "sim/merge.h"
#include "sim/simulator.h"
#include "sim/trace_recorder.h"
#include "trace/report.h"
#include "tk/tk.h"
#include <sstream>

namespace fs = std::filesystem;
using tklab::sim::parse_ptxas_report;

namespace tklab_test_ns {
// Named, external linkage: the simulator finds its symbol as a user's kernel's.
template <int N>
__global__ void figures_kernel(tk::gl<tk::bf16> x) {
    (void)x;
}
} // namespace tklab_test_ns

namespace {

// The report ptxas -v writes for one source compiled for two targets, with
// the given figures for sm_90a (a device function's properties in between).
std::string report(int regs, int stack, int spill_st, int spill_ld, int smem) {
    const std::string k = "_ZN13tklab_test_ns14figures_kernelILi4EEEvN2tk2glI13__nv_bfloat16EE";
    std::string s = "tklab compiler figures: nvcc 13.0\ntklab source: figures.cu for sm_90a\n";
    s += "ptxas info    : 0 bytes gmem\n";
    s += "ptxas info    : Compiling entry function '" + k + "' for 'sm_80'\n";
    s += "ptxas info    : Function properties for " + k + "\n";
    s += "    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n";
    s += "ptxas info    : Used 99 registers, used 1 barriers, 380 bytes cmem[0]\n";
    s += "ptxas info    : Function properties for _Z6helperv\n";
    s += "    999 bytes stack frame, 999 bytes spill stores, 999 bytes spill loads\n";
    s += "ptxas info    : Compiling entry function '" + k + "' for 'sm_90a'\n";
    s += "ptxas info    : Function properties for " + k + "\n";
    s += "    " + std::to_string(stack) + " bytes stack frame, " + std::to_string(spill_st) + " bytes spill stores, " +
         std::to_string(spill_ld) + " bytes spill loads\n";
    s += "ptxas info    : Used " + std::to_string(regs) + " registers, used 1 barriers";
    if (smem) s += ", " + std::to_string(smem) + " bytes smem";
    s += ", 400 bytes cmem[0]\n";
    s += "ptxas info    : Compile time = 7.987 ms\n";
    return s;
}

// Points the simulator at a folder holding `text` as a report while alive.
struct FiguresFolder {
    fs::path dir;
    std::string old;
    bool had_old = false;
    explicit FiguresFolder(const std::string& text) {
        // A folder of its own each time: the simulator reads a folder's reports once.
        static int made = 0;
        dir = fs::temp_directory_path() / ("tklab_test_" + std::to_string(::getpid()) + "_figures_" + std::to_string(made++));
        fs::create_directories(dir / "lessons");
        std::ofstream(dir / "lessons" / "figures.cu.txt") << text;
        if (const char* e = std::getenv("TKLAB_COMPILER_FIGURES")) { old = e; had_old = true; }
        ::setenv("TKLAB_COMPILER_FIGURES", dir.c_str(), 1);
    }
    ~FiguresFolder() {
        if (had_old) ::setenv("TKLAB_COMPILER_FIGURES", old.c_str(), 1);
        else ::unsetenv("TKLAB_COMPILER_FIGURES");
        fs::remove_all(dir);
    }
};

} // namespace

TEST_CASE("compiler figures: a ptxas -v report gives each sm_90a entry's registers, local memory and spills", "[sim][registers]") {
    std::mt19937 rng(24);
    for (int i = 0; i < 20; ++i) {
        const int regs = 16 + int(rng() % 240), stack = int(rng() % 3) * 8 * int(rng() % 50);
        const int st = int(rng() % 2) * int(rng() % 400), ld = st ? st + int(rng() % 64) : 0, smem = int(rng() % 2) * int(rng() % 4096);
        const auto ks = parse_ptxas_report(report(regs, stack, st, ld, smem));
        REQUIRE(ks.size() == 1);  // the sm_80 entry is not ours
        CHECK(ks[0].name == "void tklab_test_ns::figures_kernel<4>(tk::gl<__nv_bfloat16>)");
        CHECK(ks[0].key == "tklab_test_ns::figures_kernel<4>");
        const auto& f = ks[0].figures;
        CHECK(f.registers == regs);
        CHECK(f.stack_bytes == uint64_t(stack));
        CHECK(f.spill_store_bytes == uint64_t(st));
        CHECK(f.spill_load_bytes == uint64_t(ld));
        CHECK(f.static_shared_bytes == uint64_t(smem));
        CHECK(f.arch == "sm_90a");
        CHECK(f.entry == "_ZN13tklab_test_ns14figures_kernelILi4EEEvN2tk2glI13__nv_bfloat16EE");
        CHECK(f.tool == "ptxas (nvcc 13.0)");
    }
    CHECK(parse_ptxas_report(report(64, 0, 0, 0, 0), "sm_80").at(0).figures.registers == 99);
    CHECK(parse_ptxas_report("nvcc fatal: something else\n").empty());
}

TEST_CASE("compiler figures: the two backends' names of one kernel have one key", "[sim][registers]") {
    using tklab::sim::kernel_key;
    CHECK(kernel_key("void ns::k<16, 16>(tk::gl<__nv_bfloat16>, tk::gl<float>)") == "ns::k<16, 16>");
    CHECK(kernel_key("void ns::k<16, 16>(tk::gl<tk::bf16>, tk::gl<float>)") == "ns::k<16, 16>");
    CHECK(kernel_key("lesson01::solution::kernel(tk::gl<__nv_bfloat16>, tk::gl<float>)") == "lesson01::solution::kernel");
    // Template arguments keep their parentheses; CUDA's type names become tk's.
    CHECK(kernel_key("void tk::pc::kernel<a::layout<64, true, (a::schedule)1> >(a::layout<64, true, (a::schedule)1>::globals)") ==
          "tk::pc::kernel<a::layout<64, true, (a::schedule)1> >");
    CHECK(kernel_key("void ns::k<__nv_bfloat16, __half2, float2>(int)") == "ns::k<tk::bf16, tk::half_2, tk::float2>");
    CHECK(kernel_key("void ns::k<tk::bf16>(int)") == "ns::k<tk::bf16>");
    // The simulator names its own kernel the same way.
    const std::string sim_name = tklab::sim::function_name(reinterpret_cast<const void*>(&tklab_test_ns::figures_kernel<4>));
    CHECK(sim_name == "void tklab_test_ns::figures_kernel<4>(tk::gl<tk::bf16>)");
}

TEST_CASE("compiler figures: a launch shows ptxas's registers and occupancy uses them", "[sim][registers]") {
    std::mt19937 rng(25);
    tk::device_buffer<tk::bf16> x(16, "x");
    const tk::gl<tk::bf16> g(x.data(), 1, 1, 4, 4);
    {
        const int regs = 129 + int(rng() % 120);  // above 128: 256 threads fit once per SM
        FiguresFolder f(report(regs, 16, 8, 8, 0));
        tk::launch("figures", tklab_test_ns::figures_kernel<4>, dim3(1), dim3(256), 0, g);
        const auto& last = tklab::sim::last_run();
        REQUIRE(last.compiler);
        CHECK(last.compiler->registers == regs);
        CHECK(last.compiler->stack_bytes == 16);
        CHECK(last.compiler->spill_store_bytes == 8);
        CHECK(last.stats.blocks_per_sm == 65536 / ((regs + 7) / 8 * 8 * 256));
        CHECK(std::string(last.stats.occupancy_limit) == "registers");  // a const char*: compare the text
    }
    // No report: the estimate (tiles plus base), and no compiler figures.
    ::setenv("TKLAB_COMPILER_FIGURES", "", 1);
    tk::launch("figures", tklab_test_ns::figures_kernel<4>, dim3(1), dim3(256), 0, g);
    CHECK(!tklab::sim::last_run().compiler);
    CHECK(std::string(tklab::sim::last_run().stats.occupancy_limit) != "registers");
    ::unsetenv("TKLAB_COMPILER_FIGURES");
}

TEST_CASE("compiler figures: the report says what a stack frame without spills is, and how to keep it in registers", "[sim][registers]") {
    std::mt19937 rng(27);
    tk::device_buffer<tk::bf16> x(16, "x");
    const tk::gl<tk::bf16> g(x.data(), 1, 1, 4, 4);
    // The report of one launch with ptxas's figures (a stack frame of `stack`
    // bytes, `spilled` bytes each way).
    auto report_with = [&](int stack, int spilled) {
        FiguresFolder f(report(64 + int(rng() % 64), stack, spilled, spilled, 0));
        tklab::sim::TraceRecorder rec(tklab::sim::RecorderOptions{});
        tk::launch("figures", tklab_test_ns::figures_kernel<4>, dim3(1), dim3(128), 0, g);
        rec.close();
        std::ostringstream out;
        tklab::trace::write_report(out, rec.trace());
        return out.str();
    };
    const int frame = 8 * (1 + int(rng() % 4));
    const std::string arrays = report_with(frame, 0);
    CHECK_THAT(arrays, Catch::Contains("local memory: " + std::to_string(frame) + " B stack frame per thread"));
    CHECK_THAT(arrays, Catch::Contains("a frame without spills is an array the code indexes at run time"));
    CHECK_THAT(arrays, Catch::Contains("al.allocate<tile[2]>()"));
    const std::string spills = report_with(frame, 8);
    CHECK_THAT(spills, Catch::Contains("8 B spilled"));
    CHECK_THAT(spills, Catch::Contains("fewer or smaller tiles live at the peak"));
    CHECK_THAT(spills, !Catch::Contains("a frame without spills"));
}

namespace {
// Each lane loads `pieces` 16-byte pieces into a plain array, then sums them:
// 4 x pieces registers are filled before anything reads them.
__global__ void plain_array_kernel(const float* in, float* out, int pieces) {
    uint32_t v[8][4];
    for (int p = 0; p < pieces; ++p) tk::arch::ld_global<4>(v[p], in + 4 * (32 * p + tk::laneid()));
    uint32_t sum = 0;
    for (int p = 0; p < pieces; ++p) sum ^= v[p][0] ^ v[p][1] ^ v[p][2] ^ v[p][3];
    const uint32_t s[1] = {sum};
    tk::arch::st_global<1>(out + tk::laneid(), s);
}
} // namespace

TEST_CASE("register estimate: registers loads fill before use count when no tile holds more", "[sim][registers]") {
    std::mt19937 rng(26);
    std::vector<float> host(8 * 32 * 4);
    for (float& x : host) x = float(rng() % 100);
    tk::device_buffer<float> in(host.size(), host, "in"), out(32, "out");
    const auto cost = tklab::sim::CostModel::load("h100");
    for (int pieces : {1, 3, 8}) {
        tk::launch("plain", plain_array_kernel, dim3(1), dim3(32), 0, (const float*)in.data(), out.data(), pieces);
        const auto& r = tklab::sim::last_run();
        CHECK(r.stats.peak_regs == 0);  // no tiles
        CHECK(r.stats.peak_loaded_regs == 4 * pieces);
        // The load's line runs once per piece: a loop of one global-memory
        // instruction, whose address the estimate counts too.
        CHECK(r.stats.loop_addresses == (pieces > 1 ? 1 : 0));
        CHECK(r.stats.estimated_registers ==
              cost.base_registers_per_thread + 4 * pieces + tklab::sim::loop_address_registers(cost, r.stats.loop_addresses));
    }
}

namespace {
// `passes` times: one tile load from global (a tile op of several ld.global)
// and one plain 8-byte load; then one store, outside the loop.
__global__ void loop_loads_kernel(tk::gl<tk::bf16> g, float* out, int passes) {
    uint32_t acc = 0;
    for (int p = 0; p < passes; ++p) {
        tk::rt_bf<16, 16> t;
        tk::load(t, g, {0, 0, 0, p % 2});
        uint32_t v[2];
        tk::arch::ld_global<2>(v, out + 2 * tk::laneid());
        acc ^= v[0] ^ v[1];
    }
    const uint32_t s[1] = {acc};
    tk::arch::st_global<1>(out + tk::laneid(), s);
}

// Each pass loads 4 registers into a plain variable, then waits at a block
// barrier before plain code uses them.
__global__ void loads_then_barrier_kernel(const float* in, float* out, int passes) {
    uint32_t sum = 0;
    for (int p = 0; p < passes; ++p) {
        uint32_t v[4];
        tk::arch::ld_global<4>(v, in + 4 * (32 * p + tk::laneid()));
        __syncthreads();
        sum ^= v[0] ^ v[1] ^ v[2] ^ v[3];
    }
    const uint32_t s[1] = {sum};
    tk::arch::st_global<1>(out + tk::laneid(), s);
}

__global__ void idle_kernel(float*) {}

// One warp: A (16 x 64) from global memory straight into registers, B
// (64 x 16) through shared memory (ldmatrix), then C = A B stored.
__global__ void operands_kernel(tk::gl<tk::bf16> a, tk::gl<tk::bf16> b, tk::gl<float> c) {
    tk::shared_allocator al;
    tk::st_bf<64, 16>& bs = al.allocate<tk::st_bf<64, 16>>();
    tk::group<1>::load(bs, b, {0, 0, 0, 0});
    __syncwarp();
    tk::rt_bf<16, 64> at;
    tk::rt_bf<64, 16, tk::col_l> bt;
    tk::rt_fl<16, 16> acc;
    tk::load(at, a, {0, 0, 0, 0});
    tk::load(bt, bs);
    tk::zero(acc);
    tk::mma_AB(acc, at, bt, acc);
    tk::store(c, acc, {0, 0, 0, 0});
}
} // namespace

TEST_CASE("register estimate: an mma operand filled from shared memory counts a share of its registers, one from global all",
          "[sim][registers]") {
    std::mt19937 rng(30);
    std::vector<tk::bf16> ha(16 * 64), hb(64 * 16);
    for (tk::bf16& x : ha) x = tk::bf16(float(int(rng() % 7) - 3));
    for (tk::bf16& x : hb) x = tk::bf16(float(int(rng() % 7) - 3));
    tk::device_buffer<tk::bf16> a(ha.size(), ha, "a"), b(hb.size(), hb, "b");
    tk::device_buffer<float> c(16 * 16, "c");
    tk::launch("operands", operands_kernel, dim3(1), dim3(32), 1024 + sizeof(tk::st_bf<64, 16>), tk::gl<tk::bf16>(a.data(), 1, 1, 16, 64),
               tk::gl<tk::bf16>(b.data(), 1, 1, 64, 16), tk::gl<float>(c.data(), 1, 1, 16, 16));
    // The product is right (exact: small integers).
    const std::vector<float> got = c.download();
    for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 16; ++j) {
            float want = 0;
            for (int k = 0; k < 64; ++k) want += float(ha[size_t(i * 64 + k)]) * float(hb[size_t(k * 16 + j)]);
            CHECK(got[size_t(i * 16 + j)] == want);
        }
    const auto& st = tklab::sim::last_run().stats;
    const auto cost = tklab::sim::CostModel::load("h100");
    REQUIRE(cost.registers_from_shared_share < 1);
    // At the peak: A's 16, B's 16 and C's 8; only B came from shared memory.
    CHECK(st.peak_regs == 16 + 16 + 8);
    CHECK(st.peak_from_shared_regs == 16);
    CHECK(tklab::sim::from_shared_saving(cost, 16) == std::lround((1 - cost.registers_from_shared_share) * 16));
    CHECK(st.estimated_registers == cost.base_registers_per_thread + st.peak_regs - tklab::sim::from_shared_saving(cost, 16) +
                                        tklab::sim::loop_address_registers(cost, st.loop_addresses));
}

TEST_CASE("register estimate: the hottest loop's global-memory instructions hold an address each", "[sim][registers]") {
    std::mt19937 rng(27);
    std::vector<tk::bf16> host(16 * 32);
    for (tk::bf16& x : host) x = tk::bf16(float(rng() % 16));
    tk::device_buffer<tk::bf16> a(host.size(), host, "a");
    tk::device_buffer<float> out(64, std::vector<float>(64, 1.0f), "out");
    const tk::gl<tk::bf16> g(a.data(), 1, 1, 16, 32);
    const auto cost = tklab::sim::CostModel::load("h100");
    const int passes = 2 + int(rng() % 6);
    tk::launch("loop", loop_loads_kernel, dim3(1), dim3(32), 0, g, out.data(), passes);
    const auto& r = tklab::sim::last_run();
    const uint64_t loads = r.stats.by_op[size_t(tklab::sim::Op::ld_global)];
    REQUIRE(loads % uint64_t(passes) == 0);
    // Per pass: the tile load's instructions and the plain load; the store
    // (one visit) is not in the loop.
    CHECK(r.stats.loop_addresses == int(loads / uint64_t(passes)));
    CHECK(r.stats.loop_addresses > 2);  // the tile load is several instructions
    CHECK(r.stats.estimated_registers ==
          cost.base_registers_per_thread + std::max(r.stats.peak_regs, r.stats.peak_loaded_regs) +
              tklab::sim::loop_address_registers(cost, r.stats.loop_addresses));
    // One pass is no loop: nothing to keep across it.
    tk::launch("loop", loop_loads_kernel, dim3(1), dim3(32), 0, g, out.data(), 1);
    CHECK(tklab::sim::last_run().stats.loop_addresses == 0);
}

TEST_CASE("register estimate: loads nothing read by a block barrier free their registers", "[sim][registers]") {
    std::mt19937 rng(28);
    const int passes = 2 + int(rng() % 7);
    std::vector<float> host(size_t(passes) * 32 * 4);
    for (float& x : host) x = float(rng() % 100);
    tk::device_buffer<float> in(host.size(), host, "in"), out(32, "out");
    tk::launch("barrier", loads_then_barrier_kernel, dim3(1), dim3(64), 0, (const float*)in.data(), out.data(), passes);
    // Plain code used each pass's 4 registers before the barrier let the
    // next pass in: they are the same 4 every pass, not 4 x passes.
    CHECK(tklab::sim::last_run().stats.peak_loaded_regs == 4);
}

TEST_CASE("register estimate: a kernel that issues nothing holds no indices or addresses", "[sim][registers]") {
    tk::device_buffer<float> out(32, "out");
    tk::launch("idle", idle_kernel, dim3(1 + unsigned(std::mt19937(29)() % 4)), dim3(64), 0, out.data());
    CHECK(tklab::sim::last_run().stats.estimated_registers == tklab::sim::kIdleKernelRegisters);
}

namespace {
// A 32x32 tile filled with one value (32 registers a thread) and a 16x16 tile
// loaded (8); with `write`, a third tile (32) is added into the first before
// it is stored.
__global__ void constant_tile_kernel(tk::gl<float> in, tk::gl<float> out, float value, int write) {
    tk::rt_fl<32, 32> c;
    tk::fill(c, value);
    tk::rt_fl<16, 16> x;
    tk::load(x, in, {0, 0, 0, 0});
    if (write) {
        tk::rt_fl<32, 32> y;
        tk::load(y, in, {0, 0, 0, 0});
        tk::add(c, c, y);
    }
    tk::store(out, c, {0, 0, 0, 0});
    tk::store(out, x, {0, 0, 0, 0});
}
} // namespace

TEST_CASE("register estimate: a tile holding only a constant counts no registers until an op writes it", "[sim][registers]") {
    std::mt19937 rng(31);
    std::vector<float> host(32 * 32);
    for (float& x : host) x = float(1 + rng() % 100);
    tk::device_buffer<float> in(host.size(), host, "in"), out(host.size(), "out");
    const float value = float(rng() % 50) - 25.5f;
    const tk::gl<float> g_in(in.data(), 1, 1, 32, 32), g_out(out.data(), 1, 1, 32, 32);
    for (int write : {0, 1}) {
        tk::launch("constant", constant_tile_kernel, dim3(1), dim3(32), 0, g_in, g_out, value, write);
        const auto& st = tklab::sim::last_run().stats;
        // What was stored: the constant (plus the input, when written), the
        // 16x16 corner overwritten by x.
        const std::vector<float> got = out.download();
        for (int i = 0; i < 32; ++i)
            for (int j = 0; j < 32; ++j) {
                const size_t at = size_t(i * 32 + j);
                CHECK(got[at] == (i < 16 && j < 16 ? host[at] : value + (write ? host[at] : 0.0f)));
            }
        // Constant, c costs nothing (ptxas stores the zero register or an
        // immediate): only x's 8. Written while y and x live: 32 + 32 + 8.
        CHECK(st.peak_regs == (write ? 32 + 32 + 8 : 8));
    }
}

namespace {
// A warp storing an R x C tile of zeros: one tile op call, a straight run of
// global stores (a float pair a lane each) and no tile registers.
template <int R, int C>
__global__ void zero_store_kernel(tk::gl<float> out) {
    tk::rt_fl<R, C> z;
    tk::zero(z);
    tk::store(out, z, {0, 0, 0, 0});
}

// Runs it; its estimate must be `estimate` from a run of `stores`. Returns the report.
template <int R, int C>
std::string check_zero_store(int stores, int estimate) {
    std::mt19937 rng(uint32_t(R * 1000 + C));
    std::vector<float> host(size_t(R * C));
    for (float& x : host) x = float(1 + rng() % 100);
    tk::device_buffer<float> out(host.size(), host, "out");
    tklab::sim::TraceRecorder rec(tklab::sim::RecorderOptions{});
    tk::launch("zero_store", zero_store_kernel<R, C>, dim3(1), dim3(32), 0, tk::gl<float>(out.data(), 1, 1, R, C));
    const auto& st = tklab::sim::last_run().stats;
    INFO(R << "x" << C << " tile of zeros");
    for (float x : out.download()) CHECK(x == 0.0f);
    CHECK(st.peak_regs == 0);
    CHECK(st.run_addresses == stores);
    CHECK(st.estimated_registers == estimate);
    rec.close();
    std::ostringstream text;
    tklab::trace::write_report(text, rec.trace());
    return text.str();
}
} // namespace

// ptxas (nvcc 13.0, sm_90a) gives these kernels 20, 28, 32 and 32 registers
// (scripts/registers/straight_run.sh): each store's 64-bit address computed
// before the first, until full occupancy's 32 registers a thread.
TEST_CASE("register estimate: a straight run's addresses computed ahead count, up to full occupancy", "[sim][registers]") {
    const auto cost = tklab::sim::CostModel::load("h100");
    REQUIRE(cost.registers_per_sm / cost.max_threads_per_sm == 32);
    const std::string base = check_zero_store<16, 16>(4, cost.base_registers_per_thread);  // 12 + 2 x 4 = 20: the base is more
    CHECK_THAT(base, !Catch::Contains("computed ahead"));
    const std::string eight = check_zero_store<16, 32>(8, 28);  // 12 + 2 x 8
    CHECK_THAT(eight, Catch::Contains("about 28 per thread (8 addresses computed ahead), an estimate"));
    CHECK_THAT(eight, Catch::Contains("(12 + 2 x 8 addresses computed ahead)"));
    const std::string capped = check_zero_store<32, 32>(16, 32);  // 12 + 2 x 16 = 44, held to 32
    CHECK_THAT(capped, Catch::Contains("12 + 2 x 16 addresses computed ahead, at most 32 (full occupancy)"));
    CHECK_THAT(capped, Catch::Contains("its tiles hold one value each"));
    check_zero_store<64, 64>(64, 32);
    CHECK(tklab::sim::run_address_registers(cost, 0) == 0);
}
