// What traces cost, on the demonstration GEMM (issue 3's figures):
//   - recording a full trace (every block's timeline, CBOR) vs simulating
//     without one, at 512^3: target at most +30% time;
//   - the binary trace's size per warp instruction: target at most 100 bytes;
//   - loading a trace of about a million events: target at most 2 s;
//   - the memory a loaded trace holds, whole (`view`) and without timelines
//     (`report`, `fidelity`): the report's target is at most 3 times the file.
// Times are the best of three (a shared machine's noise only adds).
//
//   trace_cost [SIZE [LOAD_SIZE]]     (default 512 1024)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <malloc.h>
#include <string>
#include "kernels/gemm/gemm_kernel.cuh"
#include "sim/trace_recorder.h"
#include "tk/host/reference.h"
#include "trace/codec.h"

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct Gemm {
    int n;
    std::vector<tk::bf16> a, b;
    tk::device_buffer<tk::bf16> da, db;
    tk::device_buffer<float> dc;
    explicit Gemm(int size)
        : n(size), a(tk::host::random_values<tk::bf16>(size_t(n) * n, 1)), b(tk::host::random_values<tk::bf16>(size_t(n) * n, 2)),
          da(a.size(), a, "A"), db(b.size(), b, "B"), dc(size_t(n) * n, "C") {}
    void run(bool swizzled) {
        if (swizzled) gemm::run<tk::swizzle::automatic>({da.data(), 1, 1, n, n}, {db.data(), 1, 1, n, n}, {dc.data(), 1, 1, n, n});
        else gemm::run<tk::swizzle::none>({da.data(), 1, 1, n, n}, {db.data(), 1, 1, n, n}, {dc.data(), 1, 1, n, n});
    }
};

// Simulates once, recording to `path` when it is not empty; returns seconds.
double simulate(Gemm& g, bool swizzled, const std::string& path, uint64_t* bytes = nullptr) {
    std::unique_ptr<tklab::sim::TraceRecorder> rec;
    const auto t0 = std::chrono::steady_clock::now();
    if (!path.empty()) {
        tklab::sim::RecorderOptions ro;
        ro.path = path;
        ro.recording.timeline_blocks = "all";
        rec = std::make_unique<tklab::sim::TraceRecorder>(ro);
    }
    g.run(swizzled);
    if (rec) {
        rec->close();
        if (bytes) *bytes = rec->bytes_written();
    }
    return seconds_since(t0);
}

} // namespace

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 512;
    const int load_n = argc > 2 ? std::atoi(argv[2]) : 1024;
    if (n <= 0 || n % 64 || load_n <= 0 || load_n % 64) {
        std::fprintf(stderr, "usage: trace_cost [SIZE [LOAD_SIZE]] (multiples of 64)\n");
        return 2;
    }
    tklab::sim::options().keep_blocks = false;  // neither run keeps blocks in memory; only the trace differs
    const std::string dir = std::filesystem::temp_directory_path().string();
    const std::string cbor = dir + "/tklab_trace_cost.cbor", json = dir + "/tklab_trace_cost.json";

    std::printf("trace cost on the demonstration GEMM (best of 3)\n\n");
    std::printf("%-11s %-6s %10s %10s %9s %12s %14s %14s\n", "variant", "size", "sim s", "traced s", "overhead", "warp instr",
                "CBOR B/instr", "JSON B/instr");
    for (bool swz : {true, false}) {
        Gemm g(n);
        double plain = 1e30, traced = 1e30;
        uint64_t bytes = 0, jbytes = 0;
        for (int i = 0; i < 3; ++i) {
            plain = std::min(plain, simulate(g, swz, ""));
            traced = std::min(traced, simulate(g, swz, cbor, &bytes));
        }
        simulate(g, swz, json, &jbytes);
        const uint64_t instr = tklab::sim::last_run().stats.warp_instructions;
        std::printf("%-11s %-6d %10.3f %10.3f %8.1f%% %12llu %14.1f %14.1f\n", swz ? "swizzled" : "unswizzled", n, plain, traced,
                    (traced / plain - 1) * 100, (unsigned long long)instr, double(bytes) / double(instr), double(jbytes) / double(instr));
    }

    std::printf("\nloading a trace (GEMM %d^3 unswizzled, every block's timeline)\n\n", load_n);
    std::printf("%-9s %12s %12s %10s %12s %14s\n", "encoding", "events", "MB", "load s", "held MB", "report held MB");
    {
        Gemm g(load_n);
        for (const std::string& path : {cbor, json}) {
            simulate(g, false, path);
            double best = 1e30;
            uint64_t events = 0;
            for (int i = 0; i < 3; ++i) {
                const auto t0 = std::chrono::steady_clock::now();
                const auto loaded = tklab::trace::load_trace(path);
                best = std::min(best, seconds_since(t0));
                events = 0;
                for (const auto& l : loaded.trace.launches)
                    for (const auto& b : l.blocks) events += b.events.size();
            }
            // Heap the loaded trace holds (glibc's count of bytes in use).
            auto held = [&](bool timelines) {
                const size_t before = mallinfo2().uordblks;
                tklab::trace::LoadOptions opt;
                opt.timelines = timelines;
                const auto loaded = tklab::trace::load_trace(path, opt);
                return double(mallinfo2().uordblks - before) / 1e6;
            };
            std::printf("%-9s %12llu %12.1f %10.3f %12.1f %14.1f\n", path == cbor ? "CBOR" : "JSON", (unsigned long long)events,
                        double(std::filesystem::file_size(path)) / 1e6, best, held(true), held(false));
        }
    }
    std::filesystem::remove(cbor);
    std::filesystem::remove(json);
    return 0;
}
