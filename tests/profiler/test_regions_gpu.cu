// tk::region on a real GPU: a small kernel with three regions per warp on
// several blocks, recorded and decoded; then a buffer too small for it (full
// slices and a launch with more warps than slices) with guard areas around it.
// GPU only: the simulator build of this file is empty (its markers cost
// nothing there yet), and without a GPU the runner exits 77 (skipped).
#include "tk/tk.h"

#if defined(TK_GPU)
#include <catch2/catch.hpp>
#include <cstring>
#include <vector>
#include "profiler/decode/regions.h"
#include "profiler/gpu/regions_session.h"

namespace {

constexpr int kThreads = 96;  // 3 warps per block
const dim3 kGrid(4, 3);       // 12 blocks

__device__ void spin(uint64_t cycles) {
    const uint64_t start = clock64();
    while (uint64_t(clock64()) - start < cycles) {}
}

__global__ void three_regions(float* out) {
    const int warp = int(threadIdx.x) / 32;
    const int block = int(blockIdx.x + gridDim.x * blockIdx.y);
    float v = 0;
    {
        tk::region r("setup");
        v = float(block);
        spin(200);
    }
    {
        tk::region r("work");
        spin(1000 + 300 * uint64_t(warp + block % 4));  // different lengths per warp
        v += 1;
    }
    {
        tk::region r("finish");
        out[block * kThreads + int(threadIdx.x)] = v;
    }
}

struct Output {
    float* p = nullptr;
    Output() { REQUIRE(cudaMalloc(&p, sizeof(float) * kThreads * 12) == cudaSuccess); }
    ~Output() { cudaFree(p); }
};

void run_kernel(float* out) { tk::launch("three_regions", three_regions, kGrid, dim3(kThreads), 0, out); }

// A target with guard bytes before and after the buffer, to prove the kernel
// writes nothing outside its slices.
class GuardedTarget final : public tklab::regions::Target {
public:
    static constexpr size_t kGuard = 4096;
    static constexpr unsigned char kFill = 0xa5;
    GuardedTarget(uint32_t warps, uint32_t records_per_warp) : warps_(warps), rpw_(records_per_warp) {}
    ~GuardedTarget() override { cudaFree(base_); }
    tklab::regions::DeviceView prepare(const char*, const uint32_t grid[3], const uint32_t block[3]) override {
        bytes_ = tklab::regions::buffer_bytes(warps_, rpw_);
        REQUIRE(cudaMalloc(&base_, bytes_ + 2 * kGuard) == cudaSuccess);
        REQUIRE(cudaMemset(base_, kFill, bytes_ + 2 * kGuard) == cudaSuccess);
        tklab::regions::Header h;
        h.warps = warps_, h.records_per_warp = rpw_;
        h.warps_per_block = (block[0] * block[1] * block[2] + 31) / 32;
        for (int i = 0; i < 3; ++i) h.grid[i] = grid[i], h.block[i] = block[i];
        unsigned char* buf = base_ + kGuard;
        REQUIRE(cudaMemcpy(buf, &h, sizeof h, cudaMemcpyHostToDevice) == cudaSuccess);
        REQUIRE(cudaMemset(buf + tklab::regions::kCountsOffset, 0, 4 * size_t(warps_)) == cudaSuccess);
        tklab::regions::DeviceView v;
        v.records = reinterpret_cast<tklab::regions::Record*>(buf + tklab::regions::records_offset(warps_));
        v.counts = reinterpret_cast<uint32_t*>(buf + tklab::regions::kCountsOffset);
        v.lost = reinterpret_cast<uint32_t*>(buf + offsetof(tklab::regions::Header, lost));
        v.warps = warps_, v.records_per_warp = rpw_;
        return v;
    }
    std::vector<unsigned char> download() const {
        std::vector<unsigned char> all(bytes_ + 2 * kGuard);
        REQUIRE(cudaMemcpy(all.data(), base_, all.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
        return all;
    }
    size_t bytes() const { return bytes_; }

private:
    uint32_t warps_, rpw_;
    unsigned char* base_ = nullptr;
    size_t bytes_ = 0;
};

} // namespace

TEST_CASE("GPU: every warp's regions are recorded, in order, without overlap", "[gpu][profiler][regions]") {
    Output out;
    using namespace tklab;
    trace::Trace t = profiler::gpu_trace(profiler::current_gpu_device());
    const profiler::RegionRun run = profiler::record_regions(t, [&] { run_kernel(out.p); },
                                                             profiler::RegionNames({"setup", "work", "finish"}));
    INFO(run.warning);
    CHECK(run.warning.empty());
    REQUIRE(run.launches.size() == 1);
    CHECK(run.launches[0].regions == 12 * 3 * 3);
    CHECK(run.launches[0].dropped == 0);
    REQUIRE(t.launches.size() == 1);
    const trace::Launch& l = t.launches[0];
    CHECK(l.kernel == "three_regions");
    REQUIRE(l.blocks.size() == 12);
    for (uint32_t b = 0; b < 12; ++b) {
        CHECK(l.blocks[b].index == b);
        for (int w = 0; w < 3; ++w) {
            std::vector<const trace::Event*> ev;
            for (const trace::Event& e : l.blocks[b].events)
                if (e.warp == w) ev.push_back(&e);
            INFO("block " << b << " warp " << w);
            REQUIRE(ev.size() == 3);
            CHECK(t.op_names[ev[0]->op_name] == "setup");
            CHECK(t.op_names[ev[1]->op_name] == "work");
            CHECK(t.op_names[ev[2]->op_name] == "finish");
            for (int i = 0; i < 3; ++i) CHECK(ev[size_t(i)]->done > ev[size_t(i)]->issue);
            CHECK(ev[0]->done <= ev[1]->issue);
            CHECK(ev[1]->done <= ev[2]->issue);
            CHECK(ev[0]->done - ev[0]->issue >= 200);   // the spins are inside their regions
            CHECK(ev[1]->done - ev[1]->issue >= 1000);
        }
    }
    // Aligned across SMs: the whole kernel spans a sane number of cycles (a
    // misaligned SM would put its blocks at its own clock64's origin).
    REQUIRE(l.summary);
    CHECK(l.summary->est_kernel_cycles < 50'000'000);
    // The markers cost nothing once the session is gone, and the kernel still runs.
    run_kernel(out.p);
}

TEST_CASE("GPU: full slices count what they drop and nothing is written past them", "[gpu][profiler][regions]") {
    Output out;
    using namespace tklab;
    // 2 records per warp for 3 regions each, and 4 slices too few for the 36 warps.
    const uint32_t warps = 12 * 3 - 4;
    GuardedTarget target(warps, 2);
    tklab::regions::current_target() = &target;
    try {
        run_kernel(out.p);
    } catch (...) {
        tklab::regions::current_target() = nullptr;
        throw;
    }
    tklab::regions::current_target() = nullptr;
    const std::vector<unsigned char> all = target.download();
    for (size_t i = 0; i < GuardedTarget::kGuard; ++i) {
        if (all[i] != GuardedTarget::kFill) FAIL("guard byte " << i << " before the buffer was written");
        if (all[GuardedTarget::kGuard + target.bytes() + i] != GuardedTarget::kFill)
            FAIL("guard byte " << i << " after the buffer was written");
    }
    trace::Trace t = profiler::gpu_trace(profiler::current_gpu_device());
    profiler::RegionDecodeOptions opt;
    opt.sm_clock_mhz = t.arch["clock_mhz"].get<double>();
    const profiler::RegionStats st = profiler::add_region_launch(t, all.data() + GuardedTarget::kGuard, target.bytes(),
                                                                 profiler::RegionNames({"setup", "work", "finish"}), opt);
    CHECK(st.regions == uint64_t(warps) * 2);
    CHECK(st.dropped == warps);
    CHECK(st.dropped_per_warp == std::vector<uint32_t>(warps, 1));
    CHECK(st.lost == 4 * 3);
    CHECK_THAT(st.warning(), Catch::Contains("regions were dropped"));
    // Each kept pair is the warp's first two regions, in order.
    for (const trace::Block& b : t.launches.at(0).blocks)
        for (const trace::Event& e : b.events) CHECK(t.op_names[e.op_name] == (e.op_seq == 1 ? "setup" : "work"));
}

#endif
