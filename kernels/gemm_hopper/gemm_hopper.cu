// The Hopper GEMM, runnable by name: `tklab run gemm_hopper` (simulator) or
// `tklab_gpu run gemm_hopper` (GPU, sm_90). C = A*B with A (M x K), B (K x N)
// and C in bf16, fp32 accumulation, checked against a float64 CPU product.
#include <memory>
#include <vector>
#include "kernels/gemm_hopper/gemm_hopper_kernel.cuh"
#include "tk/host/registry.h"

namespace {

struct Data {
    int m = 0, n = 0, k = 0;
    std::vector<tk::bf16> a, b;
    std::shared_ptr<tk::device_buffer<tk::bf16>> da, db, dc;
    // Both layouts take the same arguments.
    gemm_hopper::globals globals() const {
        return {{da->data(), 1, 1, m, k}, {db->data(), 1, 1, k, n}, {dc->data(), 1, 1, m, n}};
    }
};

Data make_inputs(const tk::host::dims_t& d, unsigned seed) {
    Data g;
    g.m = d.at("M"), g.n = d.at("N"), g.k = d.at("K");
    g.a = tk::host::random_values<tk::bf16>(size_t(g.m) * g.k, seed);
    g.b = tk::host::random_values<tk::bf16>(size_t(g.k) * g.n, seed + 1);
    g.da = std::make_shared<tk::device_buffer<tk::bf16>>(g.a.size(), g.a, "A");
    g.db = std::make_shared<tk::device_buffer<tk::bf16>>(g.b.size(), g.b, "B");
    g.dc = std::make_shared<tk::device_buffer<tk::bf16>>(size_t(g.m) * g.n, "C");
    return g;
}

// "cluster" runs in pairs of blocks where M allows it (a multiple of 256
// rows), else as bulk_store: the program takes every size its dims allow.
// A and B on the host; A, B and C (bf16) on the device.
tk::host::data_size data_size(const tk::host::dims_t& d) {
    const double m = d.at("M"), n = d.at("N"), k = d.at("K");
    return {.host = 2 * (m * k + k * n), .device = 2 * (m * k + k * n + m * n)};
}

bool clustered(const Data& d, const std::string& variant) {
    return variant == "cluster" && gemm_hopper::fits<gemm_hopper::layout_cluster>(d.globals());
}

void run(Data& d, const std::string& variant) {
    if (variant == "direct_store") gemm_hopper::run<gemm_hopper::layout_direct>(d.globals());
    else if (clustered(d, variant)) gemm_hopper::run<gemm_hopper::layout_cluster>(d.globals());
    else gemm_hopper::run<gemm_hopper::layout>(d.globals());
}


TKLAB_PROGRAM(gemm_hopper, tk::host::program_def<Data>{
    .name = "gemm_hopper",
    .kind = "kernel",
    .summary = "bf16 GEMM for Hopper: wgmma, bulk tensor copies (multicast in clusters of 2), producer/consumer warpgroups, 4 stages, persistent grid",
    .variants = {"cluster", "bulk_store", "direct_store"},
    .dims = {{"M", 256, 128}, {"N", 256, 256}, {"K", 128, 64}},
    .inputs = make_inputs,
    .run = run,
    .output = [](Data& d) { return tk::host::to_floats(d.dc->download()); },
    .reference = [](const Data& d) {
        return tk::host::matmul_reference(tk::host::to_floats(d.a), tk::host::to_floats(d.b), d.m, d.n, d.k);
    },
    .output_name = "C",
    .tolerance = 1e-2,
    .flops = [](const tk::host::dims_t& d) { return 2.0 * d.at("M") * d.at("N") * d.at("K"); },
    .time_ms = [](Data& d, const std::string& variant) -> double {
#if defined(TK_GPU)
        if (variant == "direct_store") return tk::producer_consumer::time_ms<gemm_hopper::layout_direct>("gemm_hopper", d.globals());
        if (clustered(d, variant)) return tk::producer_consumer::time_ms<gemm_hopper::layout_cluster>("gemm_hopper", d.globals());
        return tk::producer_consumer::time_ms<gemm_hopper::layout>("gemm_hopper", d.globals());
#else
        (void)d, (void)variant;
        return -1;
#endif
    },
    .data = data_size,
});

} // namespace
