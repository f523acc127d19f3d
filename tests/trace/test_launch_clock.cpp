// The clock a launch's cycles are converted at: Hopper runs a kernel that
// uses the tensor cores at a lower clock than one that does not
// (results/kernel_clock_h200.txt), so a simulated launch that issues mma.sync
// or wgmma carries the cost model's tensor_clock_mhz, and its time, in the
// report and in a saved trace, is its cycles at that clock.
#include <catch2/catch.hpp>

#include "tk/tk.h"
#include "tk/host/reference.h"
#include "sim/cost_model.h"
#include "sim/simulator.h"
#include "sim/trace_recorder.h"
#include "trace/codec.h"
#include "trace/report.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace {

fs::path project_root() { return fs::path(__FILE__).parent_path().parent_path().parent_path(); }

// One warp: C = A x B (16x16 tiles) with the tensor cores, or C = A + B with
// the ALUs; the same loads and stores either way.
template <bool Tensor>
__global__ void clock_kernel(tk::gl<tk::bf16> A, tk::gl<tk::bf16> B, tk::gl<float> C) {
    tk::rt_bf<16, 16> a, b_row;
    tk::rt_bf<16, 16, tk::col_l> b;
    tk::load(a, A, {0, 0, 0, 0});
    tk::rt_fl<16, 16> c, fa, fb;
    if constexpr (Tensor) {
        tk::load(b, B, {0, 0, 0, 0});
        tk::zero(c);
        tk::mma_AB(c, a, b, c);
    } else {
        tk::load(b_row, B, {0, 0, 0, 0});
        tk::copy(fa, a);
        tk::copy(fb, b_row);
        tk::add(c, fa, fb);
    }
    tk::store(C, c, {0, 0, 0, 0});
}

template <bool Tensor>
tklab::trace::Trace record(unsigned seed, const std::string& path = {}) {
    auto a = tk::host::random_values<tk::bf16>(256, seed), b = tk::host::random_values<tk::bf16>(256, seed + 1);
    tk::device_buffer<tk::bf16> da(a.size(), a, "A"), db(b.size(), b, "B");
    tk::device_buffer<float> dc(256, "C");
    tklab::sim::RecorderOptions ro;
    ro.path = path;
    ro.seed = seed;
    tklab::sim::TraceRecorder rec(ro);
    tk::launch(Tensor ? "clock_mma" : "clock_add", clock_kernel<Tensor>, dim3(1), dim3(32), 0, tk::gl<tk::bf16>(da.data(), 1, 1, 16, 16),
               tk::gl<tk::bf16>(db.data(), 1, 1, 16, 16), tk::gl<float>(dc.data(), 1, 1, 16, 16));
    rec.close();
    return rec.trace();
}

std::string report_of(const tklab::trace::Trace& t) {
    std::ostringstream s;
    tklab::trace::write_report(s, t);
    return s.str();
}

// v with two decimals, as the report and the READMEs write it.
std::string fixed2(double v) {
    std::ostringstream s;
    s.setf(std::ios::fixed);
    s.precision(2);
    s << v;
    return s.str();
}

} // namespace

TEST_CASE("launch clock: a launch with tensor instructions runs at the tensor clock, others at the SM clock", "[trace][clock]") {
    const tklab::sim::CostModel m = tklab::sim::CostModel::load("h100");
    REQUIRE(m.tensor_clock_mhz < m.clock_mhz);  // else this test could not tell the two apart
    const unsigned seed = GENERATE(3u, 17u);
    const auto mma = record<true>(seed), add = record<false>(seed);
    REQUIRE(mma.launches.size() == 1);
    REQUIRE(add.launches.size() == 1);
    const auto& sm = *mma.launches[0].summary;
    const auto& sa = *add.launches[0].summary;
    CHECK(sm.by_op[size_t(mma.op_index("mma.sync"))] > 0);
    CHECK(sa.by_op[size_t(add.op_index("mma.sync"))] == 0);
    CHECK(sm.clock_mhz == m.tensor_clock_mhz);
    CHECK(sa.clock_mhz == m.clock_mhz);
    CHECK(tklab::trace::clock_mhz(mma, &sm) == m.tensor_clock_mhz);
    // The launch overhead was timed: the same time is fewer cycles of the slower clock.
    CHECK(sa.launch_overhead_cycles == uint64_t(m.launch_overhead_cycles));
    CHECK(sm.launch_overhead_cycles == uint64_t(std::llround(m.launch_overhead_cycles * m.tensor_clock_mhz / m.clock_mhz)));
    // The report's time is the launch's cycles at its clock, and says why the clock is lower.
    const std::string rm = report_of(mma), ra = report_of(add);
    CHECK_THAT(rm, Contains(fixed2(double(sm.est_kernel_cycles) / m.tensor_clock_mhz) + " us = " ) &&
                       Contains(" MHz (tensor cores in use)"));
    CHECK_THAT(ra, Contains(fixed2(double(sa.est_kernel_cycles) / m.clock_mhz) + " us = "));
    CHECK_THAT(ra, !Contains("tensor cores in use"));
}

TEST_CASE("launch clock: saved and loaded with the trace, an older trace without it uses the arch's clock", "[trace][clock][file]") {
    const std::string path = (fs::temp_directory_path() / ("tklab_test_clock_" + std::to_string(::getpid()) + ".json")).string();
    const auto recorded = record<true>(5, path);
    auto loaded = tklab::trace::load_trace(path).trace;
    REQUIRE(loaded.launches.size() == 1);
    CHECK(loaded.launches[0].summary->clock_mhz == recorded.launches[0].summary->clock_mhz);
    // Without the field (a trace written before it), the arch's clock_mhz converts.
    std::ifstream in(path);
    nlohmann::json j = nlohmann::json::parse(in);
    in.close();
    nlohmann::json* summary = nullptr;
    for (auto& r : j["records"])
        if (r["type"] == "summary") summary = &r;
    REQUIRE(summary);
    summary->erase("clock_mhz");
    std::ofstream(path) << j.dump();
    loaded = tklab::trace::load_trace(path).trace;
    CHECK(loaded.launches[0].summary->clock_mhz == 0);
    CHECK(tklab::trace::clock_mhz(loaded, &*loaded.launches[0].summary) == loaded.arch["clock_mhz"].get<double>());
    // A clock that is not a clock is refused, naming the field.
    (*summary)["clock_mhz"] = -1;
    std::ofstream(path) << j.dump();
    CHECK_THROWS_WITH(tklab::trace::load_trace(path), Contains("clock_mhz") && Contains("0 or more"));
    fs::remove(path);
}

TEST_CASE("launch clock: the H200's tensor clock is the median of its measured tensor launches", "[trace][clock][cost_model]") {
    // results/kernel_clock_h200.txt: scripts/gpu/l1_hits.sh with CLOCK_CONTROL=none
    // over the fidelity launches; scripts/dev/arch_from_calibration.py takes the median.
    std::ifstream in(project_root() / "results/kernel_clock_h200.txt");
    REQUIRE(in);
    std::vector<std::string> cols;
    std::vector<double> tensor, other;
    for (std::string line; std::getline(in, line);) {
        std::istringstream ss(line);
        if (line.rfind("# columns:", 0) == 0) {
            std::string w;
            ss >> w >> w;
            for (std::string c; ss >> c;) cols.push_back(c);
        } else if (!line.empty() && line[0] != '#') {
            std::vector<std::string> v;
            for (std::string w; ss >> w;) v.push_back(w);
            REQUIRE(v.size() == cols.size());
            auto at = [&](const std::string& name) { return std::stod(v.at(size_t(std::find(cols.begin(), cols.end(), name) - cols.begin()))); };
            const double mhz = at("sm__cycles_elapsed.avg.per_second") / 1e6;
            // Tensor work is 0.1% of the pipe's peak or more (lesson 2, which has none, reads 0.01%).
            (at("sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed") >= 0.1 ? tensor : other).push_back(mhz);
        }
    }
    REQUIRE(tensor.size() >= 20);
    REQUIRE(other.size() >= 5);
    std::sort(tensor.begin(), tensor.end());
    const size_t n = tensor.size();
    const double median = n % 2 ? tensor[n / 2] : 0.5 * (tensor[n / 2 - 1] + tensor[n / 2]);
    const tklab::sim::CostModel h200 = tklab::sim::CostModel::load("h200");
    CHECK(h200.tensor_clock_mhz == Approx(median).margin(0.5));
    // The measurement says what the model assumes: launches without tensor
    // work run near the SM clock, those with it well below.
    for (double mhz : other) CHECK(mhz > 0.95 * h200.clock_mhz);
    CHECK(median < 0.93 * h200.clock_mhz);
    // Lesson 9 and sim/arch/README.md quote the two ranges (GHz, two decimals) and the median.
    std::sort(other.begin(), other.end());
    auto ghz = [](double mhz) { return fixed2(mhz / 1000); };
    const std::string tensor_range = ghz(tensor.front()) + "-" + ghz(tensor.back()) + " GHz";
    const std::string other_range = ghz(other.front()) + "-" + ghz(other.back()) + " GHz";
    const std::string median_text = "median " + std::to_string(std::lround(median)) + " MHz";
    for (const char* doc : {"lessons/09_gpu_profiling/README.md", "sim/arch/README.md"}) {
        INFO(doc);
        std::ifstream f(project_root() / doc);
        std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
        for (char& c : text)
            if (c == '\n') c = ' ';
        std::string flat;  // the text with its line breaks and indents as single spaces
        for (char c : text)
            if (!(c == ' ' && !flat.empty() && flat.back() == ' ')) flat += c;
        CHECK_THAT(flat, Contains(tensor_range) && Contains(other_range) && Contains(median_text));
    }
}
