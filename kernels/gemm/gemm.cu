// The flagship demo: runs the demonstration GEMM (both variants) in the
// simulator -- or on the GPU when built by nvcc -- checks it against a
// float64 CPU reference, and prints what each variant costs.
//
//   gemm_sim [--size N | --m M --n N --k K] [--variant both|swizzled|unswizzled] [--seed S] [--no-check]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include "kernels/gemm/gemm_kernel.cuh"
#include "tk/host/reference.h"

namespace {

struct Args {
    int m = 256, n = 256, k = 256;
    std::string variant = "both";
    unsigned seed = 1;
    bool check = true;
};

[[noreturn]] void usage(int code) {
    std::printf(
        "usage: gemm [--size N | --m M --n N --k K] [--variant both|swizzled|unswizzled] [--seed S] [--no-check]\n"
        "  Runs the demonstration bf16 GEMM (C = A*B, fp32 out; 64x64 block tiles, 4 warps,\n"
        "  double-buffered cp.async, ldmatrix, mma.sync) %s,\n"
        "  checks it against a float64 reference and prints its costs.\n"
        "  Sizes must be positive multiples of 64 (default 256).\n",
#if defined(TK_SIM)
        "in the CPU simulator"
#else
        "on the GPU"
#endif
    );
    std::exit(code);
}

int parse_size(const char* flag, const char* v) {
    char* end = nullptr;
    long x = v ? std::strtol(v, &end, 10) : 0;
    if (!v || *end || x <= 0 || x % 64 != 0 || x > 65536) {
        std::fprintf(stderr, "gemm: %s needs a positive multiple of 64 (got '%s')\n", flag, v ? v : "");
        std::exit(2);
    }
    return int(x);
}

Args parse(int argc, char** argv) {
    Args a;
    for (int i = 1; i < argc; ++i) {
        std::string f = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
        if (f == "-h" || f == "--help") usage(0);
        else if (f == "--size") { a.m = a.n = a.k = parse_size("--size", v); ++i; }
        else if (f == "--m") { a.m = parse_size("--m", v); ++i; }
        else if (f == "--n") { a.n = parse_size("--n", v); ++i; }
        else if (f == "--k") { a.k = parse_size("--k", v); ++i; }
        else if (f == "--variant") {
            if (!v || (std::strcmp(v, "both") && std::strcmp(v, "swizzled") && std::strcmp(v, "unswizzled"))) {
                std::fprintf(stderr, "gemm: --variant takes both, swizzled or unswizzled\n");
                std::exit(2);
            }
            a.variant = v; ++i;
        } else if (f == "--seed") {
            if (!v) { std::fprintf(stderr, "gemm: --seed needs a number\n"); std::exit(2); }
            a.seed = unsigned(std::strtoul(v, nullptr, 10)); ++i;
        } else if (f == "--no-check") a.check = false;
        else { std::fprintf(stderr, "gemm: unknown option '%s' (see --help)\n", f.c_str()); std::exit(2); }
    }
    return a;
}

} // namespace

int main(int argc, char** argv) {
    Args args = parse(argc, argv);
    std::printf("tklab demo: bf16 GEMM %dx%dx%d -> fp32 (64x64 block tiles, 4 warps, double-buffered cp.async, mma.sync)\n",
                args.m, args.n, args.k);
    auto a = tk::host::random_values<tk::bf16>(size_t(args.m) * args.k, args.seed);
    auto b = tk::host::random_values<tk::bf16>(size_t(args.k) * args.n, args.seed + 1);
    std::vector<double> ref;
    if (args.check) ref = tk::host::matmul_reference(tk::host::to_floats(a), tk::host::to_floats(b), args.m, args.n, args.k);

    tk::device_buffer<tk::bf16> da(a.size(), a, "A"), db(b.size(), b, "B");
    tk::device_buffer<float> dc(size_t(args.m) * args.n, "C");
    tk::gl<tk::bf16> ga(da.data(), 1, 1, args.m, args.k), gb(db.data(), 1, 1, args.k, args.n);
    tk::gl<float> gc(dc.data(), 1, 1, args.m, args.n);

    bool ok = true;
    for (bool swz : {false, true}) {
        if ((swz && args.variant == "unswizzled") || (!swz && args.variant == "swizzled")) continue;
        const char* name = swz ? "swizzled" : "unswizzled";
        auto t0 = std::chrono::steady_clock::now();
        try {
            if (swz) gemm::run<tk::swizzle::automatic>(ga, gb, gc);
            else gemm::run<tk::swizzle::none>(ga, gb, gc);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "%s: %s\n", name, e.what());
            return 1;
        }
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("\n== %s ==\n", name);
        if (args.check) {
            const double err = tk::host::max_relative_error(dc.download(), ref);
            const bool pass = err <= 1e-2;
            ok = ok && pass;
            std::printf("  check       max relative error vs float64 reference: %.2e  %s\n", err, pass ? "ok" : "FAILED (limit 1e-2)");
        }
#if defined(TK_SIM)
        const auto& r = tklab::sim::last_run();
        const auto& st = r.stats;
        std::printf("  simulated   %llu warp instructions in %.2f s (%.0f thousand/s), cost model %s\n",
                    (unsigned long long)st.warp_instructions, secs, st.warp_instructions / secs / 1e3, r.arch.c_str());
        std::printf("  ldmatrix    %llu instructions, %llu wavefronts, ideal %llu, conflicts %llu (worst %d-way)\n",
                    (unsigned long long)st.ldmatrix.instructions, (unsigned long long)st.ldmatrix.wavefronts,
                    (unsigned long long)st.ldmatrix.ideal, (unsigned long long)st.ldmatrix.conflicts(), st.ldmatrix.max_way);
        std::printf("  cycles      slowest block %llu, estimated kernel %llu (%d blocks/SM)\n",
                    (unsigned long long)st.max_block_cycles, (unsigned long long)st.est_kernel_cycles, st.blocks_per_sm);
        std::printf("  stalls     ");
        for (int s = 1; s < int(tklab::sim::Stall::count_); ++s)
            if (st.stall_cycles[s]) std::printf(" %s %llu", tklab::sim::stall_name(tklab::sim::Stall(s)), (unsigned long long)st.stall_cycles[s]);
        std::printf("\n  registers   %d live per thread in tiles at the peak (%s:%d)\n", st.peak_regs,
                    r.locations[st.peak_regs_loc].file.c_str(), r.locations[st.peak_regs_loc].line);
#else
        (void)secs;
        const float ms = swz ? gemm::time_ms<tk::swizzle::automatic>(ga, gb, gc) : gemm::time_ms<tk::swizzle::none>(ga, gb, gc);
        std::printf("  GPU time    %.4f ms per run, %.1f TFLOP/s\n", ms, 2.0 * args.m * args.n * args.k / (ms * 1e-3) / 1e12);
#endif
    }
    return ok ? 0 : 1;
}
