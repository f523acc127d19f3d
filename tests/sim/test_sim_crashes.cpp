// Kernels that throw, trap, fail an assert(), overrun their fiber stack or
// follow a wild pointer: each stops with a SimError naming the kernel line and
// the thread, the process goes on, the next launch on the same host thread
// works, and a trace being recorded ends cleanly with the failure in it.
#undef NDEBUG  // this file's kernels assert(), whatever the build type
#include <cassert>

#include <catch2/catch.hpp>

#include "tk/tk.h"
#include "sim/simulator.h"
#include "sim/trace_recorder.h"
#include "trace/codec.h"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <bit>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using tklab::sim::ErrorKind;
using tklab::sim::SimError;
using Catch::Matchers::Contains;

// The kernel line the error must name, stored by the kernel on that line.
std::atomic<int> g_line{0};
// The lane that misbehaves (random per test run, so no lane is special).
std::atomic<int> g_bad_lane{0};
// An address no mapping holds, read at run time (so no compiler sees a constant).
volatile uintptr_t g_wild = 0x18;

struct HostThreads {
    int old = tklab::sim::options().host_threads;
    explicit HostThreads(int n) { tklab::sim::options().host_threads = n; }
    ~HostThreads() { tklab::sim::options().host_threads = old; }
};

int pick_lane() {
    static std::mt19937 rng(8);
    return int(rng() % 32);
}

// Every lane stores its id at its own shared word (the instruction whose line
// is the thread's last known kernel line), then the bad lane misbehaves.
__global__ void throw_kernel() {
    const uint32_t v[1] = {uint32_t(tk::laneid())};
    g_line = __LINE__; tk::arch::st_shared<1>(uint32_t(tk::laneid()) * 4, v);
    if (tk::laneid() == g_bad_lane) throw std::runtime_error("bad index 42");
}

__global__ void trap_kernel() {
    const uint32_t v[1] = {uint32_t(tk::laneid())};
    tk::arch::st_shared<1>(uint32_t(tk::laneid()) * 4, v);
    if (tk::laneid() == g_bad_lane) { g_line = __LINE__; __trap(); }
}

__global__ void assert_kernel() {
    const uint32_t v[1] = {uint32_t(tk::laneid())};
    g_line = __LINE__; tk::arch::st_shared<1>(uint32_t(tk::laneid()) * 4, v);
    assert(tk::laneid() != g_bad_lane && "this assert fails on purpose (test_sim_crashes)");
}

// Each frame touches every page of its 4 KiB array, so the descent reaches
// the guard page below the stack before anything else.
int recurse(int depth) {
    volatile char frame[4096];
    for (int i = 0; i < 4096; i += 256) frame[i] = char(depth);
    if (depth > 1000000) return 0;
    return recurse(depth + 1) + frame[depth % 4096];
}

__global__ void overrun_kernel(int* out) {
    const uint32_t v[1] = {uint32_t(tk::laneid())};
    g_line = __LINE__; tk::arch::st_shared<1>(uint32_t(tk::laneid()) * 4, v);
    if (tk::laneid() == g_bad_lane && blockIdx.x == gridDim.x / 2) *out = recurse(0);
}

__global__ void wild_pointer_kernel(int* out) {
    const uint32_t v[1] = {uint32_t(tk::laneid())};
    g_line = __LINE__; tk::arch::st_shared<1>(uint32_t(tk::laneid()) * 4, v);
    if (tk::laneid() == g_bad_lane) *out = *reinterpret_cast<volatile int*>(g_wild);
}

// A kernel that works: each thread stores its global index.
__global__ void normal_kernel(float* out) {
    const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
    const uint32_t v[1] = {std::bit_cast<uint32_t>(float(i))};
    tk::arch::st_global<1>(out + i, v);
}

void expect_normal_launch_works() {
    tk::device_buffer<float> out(4 * 64, "out");
    TK_LAUNCH(normal_kernel, dim3(4), dim3(64), 0, out.data());
    const std::vector<float> got = out.download();
    for (size_t i = 0; i < got.size(); ++i) REQUIRE(got[i] == float(i));
}

enum class Misdeed { throws, traps, asserts, overruns, wild_pointer };

const char* name_of(Misdeed m) {
    switch (m) {
    case Misdeed::throws: return "throws";
    case Misdeed::traps: return "traps";
    case Misdeed::asserts: return "asserts";
    case Misdeed::overruns: return "overruns its stack";
    case Misdeed::wild_pointer: return "follows a wild pointer";
    }
    return "?";
}

void launch_misdeed(Misdeed m, int* out, unsigned blocks = 1) {
    switch (m) {
    case Misdeed::throws: tk::launch("throw_kernel", throw_kernel, dim3(blocks), dim3(32), 128); break;
    case Misdeed::traps: tk::launch("trap_kernel", trap_kernel, dim3(blocks), dim3(32), 128); break;
    case Misdeed::asserts: tk::launch("assert_kernel", assert_kernel, dim3(blocks), dim3(32), 128); break;
    case Misdeed::overruns: TK_LAUNCH(overrun_kernel, dim3(blocks), dim3(32), 128, out); break;
    case Misdeed::wild_pointer: TK_LAUNCH(wild_pointer_kernel, dim3(blocks), dim3(32), 128, out); break;
    }
}

// Runs the misdeed and returns its error, checked for what every one shares:
// the kind, the kernel line (file and line, also at the message's start) and
// the misbehaving lane.
SimError expect_error(Misdeed m, ErrorKind kind, unsigned blocks = 1) {
    g_bad_lane = pick_lane();
    g_line = -1;
    int sink = 0;
    try {
        launch_misdeed(m, &sink, blocks);
    } catch (const SimError& e) {
        INFO(name_of(m) << ": " << e.what());
        CHECK(e.kind == kind);
        CHECK(e.file == __FILE__);
        CHECK(e.line == g_line.load());
        CHECK_THAT(std::string(e.what()), Contains(std::string(__FILE__) + ":" + std::to_string(g_line.load()) + ": error: "));
        CHECK_THAT(std::string(e.what()), Contains("lane " + std::to_string(g_bad_lane.load())));
        CHECK_THAT(std::string(e.what()), Contains("fix: "));
        return e;
    }
    FAIL("the kernel that " << name_of(m) << " was not reported");
    return SimError(ErrorKind::usage, "");
}

} // namespace

TEST_CASE("crashes: a kernel that throws is a kernel_exception naming the type, message and line", "[sim][crash]") {
    const SimError e = expect_error(Misdeed::throws, ErrorKind::kernel_exception);
    CHECK_THAT(std::string(e.what()), Contains("threw std::runtime_error (\"bad index 42\")"));
    expect_normal_launch_works();
}

TEST_CASE("crashes: __trap() stops the kernel naming the trap's own line", "[sim][crash]") {
    const SimError e = expect_error(Misdeed::traps, ErrorKind::kernel_exception);
    CHECK_THAT(std::string(e.what()), Contains("executed __trap()"));
    expect_normal_launch_works();
    // Outside a kernel it is a usage error, not a crash.
    CHECK_THROWS_AS(__trap(), SimError);
}

TEST_CASE("crashes: a failed assert() in a kernel stops it instead of aborting the process", "[sim][crash]") {
    const SimError e = expect_error(Misdeed::asserts, ErrorKind::kernel_exception);
    CHECK_THAT(std::string(e.what()), Contains("SIGABRT") && Contains("assert()"));
    expect_normal_launch_works();
}

TEST_CASE("crashes: overrunning the fiber stack is a fault naming the stack size and the fix", "[sim][crash]") {
    const SimError e = expect_error(Misdeed::overruns, ErrorKind::fault);
    CHECK_THAT(std::string(e.what()), Contains("overran its simulated thread's stack (256 KiB"));
    CHECK_THAT(std::string(e.what()), Contains("options().stack_bytes"));
    expect_normal_launch_works();
    // Again: the crashed fiber's stack is not reused, the others are.
    expect_error(Misdeed::overruns, ErrorKind::fault);
    expect_normal_launch_works();
}

TEST_CASE("crashes: a wild pointer in kernel code is a fault naming the address", "[sim][crash]") {
    const SimError e = expect_error(Misdeed::wild_pointer, ErrorKind::fault);
    CHECK_THAT(std::string(e.what()), Contains("invalid memory at address 0x18"));
    expect_normal_launch_works();
}

TEST_CASE("crashes: with two host threads the failing block is named and the next launch works", "[sim][crash]") {
    HostThreads two(2);
    for (Misdeed m : {Misdeed::throws, Misdeed::traps, Misdeed::asserts, Misdeed::overruns, Misdeed::wild_pointer}) {
        const bool overrun = m == Misdeed::overruns;
        const ErrorKind kind = overrun || m == Misdeed::wild_pointer ? ErrorKind::fault : ErrorKind::kernel_exception;
        // Every block misbehaves except in the overrun kernel (the middle block
        // only); the lowest failing block is the one reported.
        const SimError e = expect_error(m, kind, 6);
        CHECK_THAT(std::string(e.what()), Contains(overrun ? "block (3,0,0)" : "block (0,0,0)"));
        expect_normal_launch_works();
    }
}

TEST_CASE("crashes: a trace being recorded ends cleanly with the crash as its failure", "[sim][crash][trace]") {
    for (const char* ext : {".json", ".cbor"}) {
        for (Misdeed m : {Misdeed::overruns, Misdeed::wild_pointer, Misdeed::asserts}) {
            const std::string p = (fs::temp_directory_path() / ("tklab_test_" + std::to_string(::getpid()) + "_crash" + ext)).string();
            {
                tklab::sim::RecorderOptions ro;
                ro.path = p;
                tklab::sim::TraceRecorder rec(ro);
                g_bad_lane = pick_lane();
                int sink = 0;
                CHECK_THROWS_AS(launch_misdeed(m, &sink, 4), SimError);
            }  // the recorder closes the file
            const auto t = tklab::trace::load_trace(p).trace;  // throws unless the file is complete
            REQUIRE(t.launches.size() == 1);
            const auto& l = t.launches[0];
            REQUIRE(l.failure);
            CHECK(l.failure->kind == (m == Misdeed::asserts ? "kernel_exception" : "fault"));
            CHECK(l.failure->block == (m == Misdeed::overruns ? 2 : 0));
            CHECK_THAT(t.where(l.failure->loc), Contains("tests/sim/test_sim_crashes.cpp:" + std::to_string(g_line.load())));
            CHECK_THAT(l.failure->message, Contains(m == Misdeed::overruns ? "overran" : m == Misdeed::asserts ? "SIGABRT" : "invalid memory"));
            REQUIRE(l.summary);
            fs::remove(p);
        }
    }
    expect_normal_launch_works();
}

TEST_CASE("crashes: a crash in host code still ends the process", "[sim][crash]") {
    expect_normal_launch_works();  // the simulator's handlers are installed on this thread
    std::fflush(nullptr);
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        std::signal(SIGSEGV, SIG_DFL);  // the test framework's own handler would report it as a failure
        expect_normal_launch_works();   // installs the simulator's handler over the default one
        const int v = *reinterpret_cast<volatile int*>(g_wild);
        std::_Exit(v == 12345 ? 3 : 0);  // not reached
    }
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    // Killed by the signal, or (under AddressSanitizer) reported and exited non-zero.
    CHECK((WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0)));
    if (WIFSIGNALED(status)) CHECK(WTERMSIG(status) == SIGSEGV);
}
