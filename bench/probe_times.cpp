// The calibration's tile-op probes (bench/calibrate/overhead_probes.h) timed
// in the simulator beside the H100: cycles per call of the slowest warp, one
// warp per sub-partition, 40 calls less 8, as bench/calibrate/overhead.cu
// times them on the GPU (results/calibration_overhead_timing_h100.json).
// Each op's code alone on a warp is where the simulator's clock can be read
// against the hardware's instruction by instruction; a figure, not a test.
//   build/bench/probe_times [CALIBRATION_JSON]
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/calibrate/overhead_probes.h"
#include "sim/simulator.h"

namespace ov = cal::overhead;

namespace {

struct Buffers {
    tk::device_buffer<tk::bf16> a;
    tk::device_buffer<float> f;
    tk::device_buffer<uint32_t> sink;
    Buffers()
        : a(size_t(ov::kRows) * ov::kCols, std::vector<tk::bf16>(size_t(ov::kRows) * ov::kCols, tk::from_float<tk::bf16>(0.5f)), "A"),
          f(size_t(ov::kRows) * ov::kCols, std::vector<float>(size_t(ov::kRows) * ov::kCols, 1.0f), "F"),
          sink(ov::kThreads, "sink") {}
};

} // namespace

int main(int argc, char** argv) {
    const std::string path = argc > 1 ? argv[1] : "results/calibration_overhead_timing_h100.json";
    std::map<std::string, double> gpu;
    if (std::ifstream in(path); in) {
        const nlohmann::json doc = nlohmann::json::parse(in);
        for (const auto& f : doc["figures"]) {
            const std::string n = f["name"].get<std::string>();
            const std::string suffix = "_cycles_per_call";
            if (n.rfind("overhead.", 0) == 0 && n.size() > suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0)
                gpu[n.substr(9, n.size() - 9 - suffix.size())] = f["value"].get<double>();
        }
    } else {
        std::fprintf(stderr, "probe_times: no %s (run from the project root, or name the calibration JSON): simulator figures only\n", path.c_str());
    }
    // The probes' warps overwrite each other's tiles on purpose: only time counts.
    tklab::sim::options().checks.races = tklab::sim::options().checks.uninit = false;
    Buffers b;
    const tk::gl<tk::bf16> A{b.a.data(), 1, 1, ov::kRows, ov::kCols};
    const tk::gl<float> F{b.f.data(), 1, 1, ov::kRows, ov::kCols};
    std::vector<double> sim(ov::probes);
    ov::for_each_probe([&](auto kernel, int p) {
        auto run = [&](int calls) {
            tk::launch("probe", kernel, dim3(1), dim3(ov::kThreads), ov::kSharedBytes, A, F, calls, b.sink.data(), static_cast<long long*>(nullptr));
            return double(tklab::sim::last_run().stats.max_block_cycles);
        };
        sim[size_t(p)] = (run(40) - run(8)) / 32.0;
    });
    std::printf("tile-op probes, cycles per call (slowest warp, one warp per sub-partition): simulator against %s\n", path.c_str());
    std::printf("%-22s %10s %10s %8s\n", "probe", "simulator", "GPU", "error");
    for (int p = 0; p < ov::probes; ++p) {
        const auto it = gpu.find(ov::kNames[p]);
        if (it == gpu.end()) std::printf("%-22s %10.1f %10s %8s\n", ov::kNames[p], sim[size_t(p)], "-", "-");
        else std::printf("%-22s %10.1f %10.1f %+7.0f%%\n", ov::kNames[p], sim[size_t(p)], it->second, 100 * (sim[size_t(p)] / it->second - 1));
    }
    return 0;
}
