// Clusters (tk/ops/sync/cluster.h): a tile loaded in parts by the blocks of
// a cluster and multicast to all lands whole in every block, and arrivals on
// other blocks' semaphores complete their phases. On the GPU (sm_90) the
// cluster has 2 blocks; the simulator runs clusters of one block, where the
// same kernel runs with size 1 and naming another block is an error.
#include <catch2/catch.hpp>
#include "support/gpu_arch.h"
#include "tk/tk.h"
#include "support/test_data.h"
#if defined(TK_SIM)
#include "sim/simulator.h"
#endif

namespace {

constexpr int cluster = tk::cluster_size<2>;
using tile = tk::st_bf<64, 256>;  // four 64-column blocks: split evenly among 1, 2 or 4 blocks

// Cluster q loads row tile q of `src`; each block stores what landed in its
// shared memory to its own row tile of `out`, after every block of the
// cluster has arrived on its `met` semaphore.
__global__ void multicast_kernel(const __grid_constant__ tk::gl_tma<tk::bf16, tile> src, tk::gl<tk::bf16> out) {
    using namespace tk;
    shared_allocator al;
    tile& t = al.allocate<tile>();
    semaphore& full = al.allocate<semaphore>();
    semaphore& met = al.allocate<semaphore>();
    if (threadIdx.x == 0) {
        init_semaphore(full, 1);
        init_semaphore(met, cluster);
    }
    cluster::sync_after_init();
    const int rank = cluster::rank(), q = int(blockIdx.x) / cluster;
    if (threadIdx.x == 0) {
        tma::expect<tile>(full);  // the whole tile: the other parts come from the other blocks
        tma::load_async_multicast(t, src, {0, 0, q, 0}, full, uint16_t((1u << cluster) - 1), rank, cluster);
        for (int r = 0; r < cluster; ++r) cluster::arrive(met, r);
    }
    wait(full, 0);
    wait(met, 0);
    group<4>::store(out, t, {0, 0, int(blockIdx.x), 0});
    cluster::sync();  // no block leaves while another may still arrive on its semaphores
}

} // namespace

TEST_CASE("clusters: a multicast tile lands whole in every block, arrivals reach the other blocks", "[tk][hopper][tma]") {
    if (!tktest::hopper_here()) { WARN("skipped: needs an sm_90 GPU"); return; }
    const int clusters = 3;
    auto v = tktest::random_values<tk::bf16>(size_t(clusters) * tile::rows * tile::cols, 61);
    tk::device_buffer<tk::bf16> dsrc(v.size(), v, "src"), dout(v.size() * cluster, "out");
    tk::gl_tma<tk::bf16, tile> src(dsrc.data(), 1, 1, clusters * tile::rows, tile::cols);
    tk::gl<tk::bf16> out(dout.data(), 1, 1, clusters * cluster * tile::rows, tile::cols);
    REQUIRE(tk::multiprocessors() >= clusters * cluster);
    tk::launch_cluster("multicast_kernel", multicast_kernel, dim3(clusters * cluster), dim3(128), 1024 + sizeof(tile) + 64, cluster, src, out);
    const auto got = dout.download();
    for (int b = 0; b < clusters * cluster; ++b) {
        int wrong = 0;
        const size_t q = size_t(b / cluster) * tile::rows * tile::cols;
        for (size_t i = 0; i < size_t(tile::rows) * tile::cols; ++i)
            wrong += tk::to_float(got[size_t(b) * tile::rows * tile::cols + i]) != tk::to_float(v[q + i]);
        INFO("block " << b << " of clusters of " << cluster);
        CHECK(wrong == 0);
    }
}

namespace {
__global__ void empty_kernel() {}
} // namespace

TEST_CASE("clusters: a grid that is not a whole number of clusters is refused", "[tk]") {
    CHECK_THROWS_WITH(tk::launch_cluster("empty_kernel", empty_kernel, dim3(3), dim3(32), 0, 2),
                      Catch::Matchers::Contains("not a whole number of clusters of 2"));
}

#if defined(TK_SIM)
namespace {
__global__ void remote_arrive_kernel() {
    using namespace tk;
    shared_allocator al;
    semaphore& s = al.allocate<semaphore>();
    if (threadIdx.x == 0) init_semaphore(s, 1);
    __syncthreads();
    if (threadIdx.x == 0) cluster::arrive(s, 1);  // block 1 of a cluster of one
}
} // namespace

TEST_CASE("clusters in the simulator: one block each, and naming another block is an error", "[tk][sim]") {
    CHECK(cluster == 1);
    try {
        tk::launch("remote_arrive_kernel", remote_arrive_kernel, dim3(1), dim3(32), 1024 + 64);
        FAIL("not reported");
    } catch (const tklab::sim::SimError& e) {
        const std::string msg = e.what();
        INFO(msg);
        CHECK_THAT(msg, Catch::Matchers::Contains("test_cluster.cu:") && Catch::Matchers::Contains("another block of the cluster") &&
                            Catch::Matchers::Contains("fix:"));
    }
}
#endif
