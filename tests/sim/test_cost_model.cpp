// The cost model's figures come from the calibration run they name, and the
// memory model (sim/README.md, "Global memory") does what it says on small
// kernels with known answers: where a load's data comes from, the bandwidth
// bounds of a launch, and the launch overhead.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "sim/cost_model.h"
#include "sim/simulator.h"
#include "support/registers_table.h"
#include "support/l1_model.h"
#include "tk/tk.h"

using registers_table::one_line;  // a README as one line, wraps and indents as one space

namespace {

std::filesystem::path project_root() { return std::filesystem::path(__FILE__).parent_path().parent_path().parent_path(); }

nlohmann::json read_json(const std::filesystem::path& p) {
    std::ifstream in(p);
    REQUIRE(in.good());
    return nlohmann::json::parse(in);
}

// A calibration run's figures (results/*.json): name -> value.
std::map<std::string, double> figures_of(const std::filesystem::path& p) {
    const nlohmann::json run = read_json(p);
    std::map<std::string, double> f;
    for (const auto& x : run["figures"]) f[x["name"].get<std::string>()] = x["value"].get<double>();
    return f;
}

// Each thread copies 16 bytes: a load, then a store that waits for it.
__global__ void copy_kernel(const uint32_t* in, uint32_t* out) {
    const uint32_t t = uint32_t(blockIdx.x * blockDim.x + threadIdx.x);
    uint32_t w[4];
    tk::arch::ld_global<4>(w, in + 4 * t);
    tk::arch::st_global<4>(out + 4 * t, w);
}

struct CopyRun {
    tklab::sim::Stats stats;
    uint64_t store_stall = 0;  // the store's wait for the load, in block 0's warp 0
};

// `blocks` of 128 threads copy the first words of an input of `in_words`
// (at least what they copy: more makes a bigger buffer to read from).
CopyRun run_copy(unsigned blocks, unsigned seed, size_t in_words = 0) {
    std::mt19937 rng(seed);
    const size_t words = size_t(blocks) * 128 * 4;
    std::vector<uint32_t> host(std::max(words, in_words));
    for (uint32_t& x : host) x = rng();
    tk::device_buffer<uint32_t> in(host.size(), host, "in"), out(words, "out");
    tk::launch("copy", copy_kernel, dim3(blocks), dim3(128), 0, in.data(), out.data());
    host.resize(words);
    CHECK(out.download() == host);
    const tklab::sim::RunResult& r = tklab::sim::last_run();
    CopyRun c{r.stats, 0};
    for (const auto& e : r.blocks.at(0).events)
        if (e.warp == 0 && e.op == tklab::sim::Op::st_global) c.store_stall = e.stall_cycles;
    return c;
}

// copy_kernel's copy, then `work` elements of arithmetic: a block that loads
// once and then computes, drawing little of the memory's bandwidth.
__global__ void copy_then_work_kernel(const uint32_t* in, uint32_t* out, int work) {
    const uint32_t t = uint32_t(blockIdx.x * blockDim.x + threadIdx.x);
    uint32_t w[4];
    tk::arch::ld_global<4>(w, in + 4 * t);
    tk::arch::st_global<4>(out + 4 * t, w);
    tk::arch::alu(tk::arch::alu_kind::simple, work);
}

// copy_kernel's copy after one mma.sync (when `tensor`): a launch on the
// tensor cores, which the GPU runs at its lower clock.
__global__ void mma_then_copy_kernel(const uint32_t* in, uint32_t* out, int tensor) {
    if (tensor) {
        const uint32_t a[4] = {0x3f803f80u, 0x3f803f80u, 0x3f803f80u, 0x3f803f80u}, b[2] = {0x3f803f80u, 0x3f803f80u};
        const float c[4] = {};
        float d[4];
        tk::arch::mma_m16n8k16(d, a, b, c);
    }
    const uint32_t t = uint32_t(blockIdx.x * blockDim.x + threadIdx.x);
    uint32_t w[4];
    tk::arch::ld_global<4>(w, in + 4 * t);
    tk::arch::st_global<4>(out + 4 * t, w);
}
// Every warp reads the same 512 bytes (a weight vector), 16 bytes a lane, and
// stores them to its own place.
__global__ void shared_vector_kernel(const uint32_t* in, uint32_t* out, int streaming) {
    const uint32_t lane = threadIdx.x % 32, warp = uint32_t(blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32);
    uint32_t w[4];
    if (streaming) tk::arch::ld_global<4, tk::arch::cache_hint::streaming>(w, in + 4 * lane);
    else tk::arch::ld_global<4>(w, in + 4 * lane);
    tk::arch::st_global<4>(out + 4 * (warp * 32 + lane), w);
}

// One warp: a register tile fragment's pattern (lane l reads word l % 4 of
// row l / 4, rows 256 bytes apart: 8 lines of 16 bytes), loaded and stored
// once to bring it into L1, then `n` loads of it back to back and a store of
// the last.
__global__ void fragment_rereads_kernel(const uint32_t* in, uint32_t* out, int n) {
    const uint32_t lane = threadIdx.x % 32;
    const uint32_t* p = in + (lane / 4) * 64 + lane % 4;
    uint32_t w[1];
    tk::arch::ld_global<1>(w, p);
    tk::arch::st_global<1>(out + lane, w);
    uint32_t last[1] = {0};
    for (int i = 0; i < n; ++i) tk::arch::ld_global<1>(last, p);
    tk::arch::st_global<1>(out + 32 + lane, last);
}

// bench/calibrate/lsu_queue.cu's burst: each warp brings 4 instructions'
// lines into L1, then issues `n` (at most 64) independent 32-line
// instructions (lanes 128 bytes apart) back to back, loads (L1 hits) or
// stores, and stores what it loaded.
__global__ void lsu_burst_kernel(const uint32_t* in, uint32_t* out, int n, int store) {
    const uint32_t lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const uint32_t* p = in + size_t(warp) * 4 * 32 * 32 + lane * 32;
    uint32_t* q = out + size_t(warp) * 4 * 32 * 32 + lane * 32;
    uint32_t x[1] = {0}, w[1];
    for (int j = 0; j < 4; ++j)
        for (int word : {0, 8}) {  // the two sectors the burst reads of each line
            tk::arch::ld_global<1>(w, p + j * 32 * 32 + word);
            x[0] ^= w[0];
        }
    tk::arch::st_global<1>(q, x);  // waits for the warm-up loads
    for (int j = 0; j < n; ++j) {
        if (store) {
            tk::arch::st_global<1>(q + (j & 3) * 32 * 32 + (j >> 2), x);
        } else {
            tk::arch::ld_global<1>(w, p + (j & 3) * 32 * 32 + (j >> 2));
            x[0] += w[0];
        }
    }
    tk::arch::st_global<1>(q + 1023, x);
}

struct one_sm {
    int saved = tklab::sim::options().sms;
    one_sm() { tklab::sim::options().sms = 1; }
    ~one_sm() { tklab::sim::options().sms = saved; }
};

} // namespace

TEST_CASE("cost model: every measured figure is the calibration run's it names", "[sim][cost_model]") {
    // Each built-in model, measured on its own GPU (sim/arch/README.md).
    const std::string name = GENERATE(as<std::string>{}, "h100", "h200");
    INFO("sim/arch/" << name << ".json");
    const nlohmann::json arch = read_json(project_root() / ("sim/arch/" + name + ".json"));
    const nlohmann::json cal = read_json(project_root() / ("results/calibration_" + name + ".json"));
    std::map<std::string, double> figures;
    for (const auto& f : cal["figures"])
        if (f["value"].is_number()) figures[f["name"].get<std::string>()] = f["value"].get<double>();
    // The launch figures: scripts/gpu/launch_overhead.sh's run.
    const nlohmann::json launch = read_json(project_root() / ("results/launch_overhead_" + name + ".json"));
    for (const auto& f : launch["figures"]) figures[f["name"].get<std::string>()] = f["value"].get<double>();
    // The store bandwidths (bench/calibrate/global.cu's run_stores) and the
    // register arithmetic (bench/calibrate/alu.cu): a family run on its own
    // (calibrate.sh --only) has a file of its own, a whole run is all in one.
    // (The clock is the main run's, as scripts/dev/arch_from_calibration.py takes it.)
    // A later run of the async family only adds figures the whole run lacks.
    for (const char* family : {"memory", "stores", "alu", "async"}) {
        const auto file = project_root() / ("results/calibration_" + std::string(family) + "_" + name + ".json");
        if (!std::filesystem::exists(file)) continue;
        const nlohmann::json run = read_json(file);  // named: a loop over a temporary's member would dangle
        for (const auto& f : run["figures"])
            if (f["name"] != "sm_clock_mhz") {
                if (std::string(family) == "async") figures.emplace(f["name"].get<std::string>(), f["value"].get<double>());
                else figures[f["name"].get<std::string>()] = f["value"].get<double>();
            }
    }
    REQUIRE(arch.contains("measured"));
    // The load/store unit's queue, fitted from its own run (scripts/dev/lsu_queue_fit.py):
    // where the run is committed, its fields are measured, not estimated.
    if (std::filesystem::exists(project_root() / ("results/calibration_lsu_queue_" + name + ".json")))
        for (const char* field : {"lsu.queue_depth", "lsu.st_cycles_per_line"}) {
            INFO(field);
            CHECK(arch["measured"].contains(field));
            CHECK(std::find(arch["estimated"].begin(), arch["estimated"].end(), field) == arch["estimated"].end());
        }
    size_t checked = 0;
    for (const auto& [field, m] : arch["measured"].items()) {
        INFO(field);
        // The field exists in the model, with a number.
        const nlohmann::json* cur = &arch;
        std::stringstream path(field);
        for (std::string part; std::getline(path, part, '.');) {
            REQUIRE(cur->contains(part));
            cur = &(*cur)[part];
        }
        CHECK(cur->is_number());
        // A single-figure source: the value it recorded is the calibration's.
        const std::string from = m["from"].get<std::string>();
        if (auto it = figures.find(from); it != figures.end() && m["value"].is_number()) {
            CHECK(m["value"].get<double>() == Approx(it->second));
            ++checked;
        }
    }
    CHECK(checked >= 19);
    // Each alu figure is its benchmark's, less the helper op the benchmark adds
    // (two names: "a - b"), or half of it for the round trip of a conversion.
    size_t alu_checked = 0;
    for (const char* kind : {"simple", "exp", "exp2", "log", "div", "convert"})
        for (const char* field : {"latency", "throughput"}) {
            const std::string key = std::string("alu.") + kind + "." + field;
            INFO(key);
            REQUIRE(arch["measured"].contains(key));
            const std::string from = arch["measured"][key]["from"].get<std::string>();
            const size_t minus = from.find(" - ");
            const double a = figures.at(from.substr(0, minus));
            double want = minus == std::string::npos ? a : a - figures.at(from.substr(minus + 3));
            if (std::string(kind) == "convert") want /= 2;
            CHECK(arch["alu"][kind][field].get<double>() == Approx(want).margin(0.006));
            ++alu_checked;
        }
    CHECK(alu_checked == 12);
    CHECK_THAT(arch["measured_on"].get<std::string>(), Catch::Contains(cal["date"].get<std::string>()));
    CHECK_THAT(arch["measured_on"].get<std::string>(), Catch::Contains(cal["gpu"].get<std::string>()));
    CHECK(arch["name"].get<std::string>() == name);
    // The loaded model is the file's.
    const tklab::sim::CostModel m = tklab::sim::CostModel::load(name);
    CHECK(m.clock_mhz == arch["clock_mhz"].get<double>());
    CHECK(m.global_latency == arch["global"]["latency"].get<int>());
    CHECK(m.global_dram_latency == arch["global"]["dram_latency"].get<int>());
    CHECK(m.launch_overhead_cycles == arch["launch"]["overhead_cycles"].get<int>());
    CHECK(m.launch_dispatch_cycles_per_block == Approx(arch["launch"]["dispatch_cycles_per_block"].get<double>()));
    CHECK(m.dram_bytes_per_cycle_per_sm == Approx(arch["memory"]["dram_bytes_per_cycle_per_sm"].get<double>()));
    CHECK(m.alu[size_t(tklab::sim::AluKind::div)].latency == Approx(arch["alu"]["div"]["latency"].get<double>()));
    CHECK(m.alu[size_t(tklab::sim::AluKind::convert)].throughput == Approx(arch["alu"]["convert"]["throughput"].get<double>()));
}

TEST_CASE("memory model: buffers that fit in L2 are read at L2's latency, and every sector counts", "[sim][cost_model]") {
    const test_support::l1_model_as l1(false);  // L2 and DRAM alone: L1's own tests are below
    const tklab::sim::CostModel m = tklab::sim::CostModel::load("h100");
    for (unsigned seed = 1; seed <= 3; ++seed) {
        const unsigned blocks = 1 + seed * 3;
        const CopyRun c = run_copy(blocks, seed);
        // The store waits for the load's data: its 512 bytes through the SM's
        // share of L2 (one SM's rate: few SMs are busy), then L2's latency,
        // less the load's issue.
        CHECK(double(c.store_stall) == Approx(m.global_latency - m.global_issue_cycles + 512.0 / m.l2_bytes_per_cycle_one_sm).margin(1.0));
        // 16 bytes a lane, read and written: 2 x 512 bytes a warp, whole sectors.
        CHECK(c.stats.global_bytes == uint64_t(blocks) * 4 * 2 * 512);
        CHECK(c.stats.dram_bytes == 0);
        // An empty one-block kernel's time, and each further block's dispatch (all are in the first wave).
        const uint64_t overhead = uint64_t(m.launch_overhead_cycles) + uint64_t(std::llround(m.launch_dispatch_cycles_per_block * (blocks - 1)));
        CHECK(c.stats.launch_overhead_cycles == overhead);
        // A few blocks move little: the blocks bound the time, plus the launch overhead.
        CHECK(std::string(c.stats.time_limit) == "blocks");
        CHECK(c.stats.est_kernel_cycles == c.stats.wave_cycles + overhead);
        // L2's bound: reads and writes take turns, each at what the SMs with
        // blocks get, each as one SM alone at most.
        const double rate = std::min(m.l2_bytes_per_cycle_per_sm * m.sms, m.l2_bytes_per_cycle_one_sm * blocks);
        const double write_rate = std::min(m.l2_write_bytes_per_cycle_per_sm * m.sms, m.l2_write_bytes_per_cycle_one_sm * blocks);
        CHECK(c.stats.global_write_bytes == c.stats.global_bytes / 2);
        CHECK(c.stats.l2_cycles == uint64_t(std::ceil(double(c.stats.global_bytes / 2) / rate + double(c.stats.global_bytes / 2) / write_rate)));
    }
}

TEST_CASE("memory model: blocks of every wave load at the fair share, a later one's burst too", "[sim][cost_model]") {
    const test_support::l1_model_as l1(false);  // L2's shares alone: the load/store unit's turn is L1's tests' (below)
    const tklab::sim::CostModel m = tklab::sim::CostModel::load("h100");
    std::mt19937 rng(43);
    // 200 KiB of shared memory a block: one block per SM, two waves over
    // every SM. Block b sits on SM b % 132; blocks 132.. are the second wave.
    const size_t smem = 200 * 1024;
    REQUIRE(m.shared_bytes_per_sm / smem == 1);
    const unsigned blocks = 2 * unsigned(m.sms);
    const int work = 20000 + int(rng() % 20000);  // tens of thousands of cycles of arithmetic
    std::vector<uint32_t> host(size_t(blocks) * 128 * 4);
    for (uint32_t& x : host) x = rng();
    tk::device_buffer<uint32_t> in(host.size(), host, "in"), out(host.size(), "out");
    tk::launch("copy_then_work", copy_then_work_kernel, dim3(blocks), dim3(128), smem, in.data(), out.data(), work);
    CHECK(out.download() == host);
    const tklab::sim::RunResult& r = tklab::sim::last_run();
    // Warp 0's store waits for its load: 512 bytes (the first in the SM's queues) and L2's latency.
    auto store_stall = [&](size_t block) {
        for (const auto& e : r.blocks.at(block).events)
            if (e.warp == 0 && e.op == tklab::sim::Op::st_global) return double(e.stall_cycles);
        FAIL("no store in block " << block);
        return 0.0;
    };
    const double wait = m.global_latency - m.global_issue_cycles;
    // The first wave: every SM loads at once, each through its fair share of L2.
    CHECK(store_stall(0) == Approx(wait + 512.0 / m.l2_bytes_per_cycle_per_sm).margin(1.0));
    // The second: this SM drew a few hundred cycles of its share over the
    // first block's tens of thousands, but its burst still gets the fair
    // share, not the idle L2's one-SM rate (against the H100 set, that made
    // the many-wave launches faster than the GPU: sim/README.md, "Global memory").
    CHECK(store_stall(size_t(m.sms)) == Approx(wait + 512.0 / m.l2_bytes_per_cycle_per_sm).margin(1.0));
    CHECK(m.l2_bytes_per_cycle_one_sm > 2 * m.l2_bytes_per_cycle_per_sm);  // so the two models differ here
}

TEST_CASE("memory model: L2 keeps its clock when a tensor launch lowers the SMs', so it moves more bytes per SM cycle", "[sim][cost_model]") {
    const test_support::l1_model_as l1(false);  // L2's shares alone
    const tklab::sim::CostModel m = tklab::sim::CostModel::load("h100");
    // Nsight Compute, clocks left alone (results/l2_traffic_h100.txt): L2 at
    // 1.70-1.71 GHz whether the SMs run at 1.98 or 1.76-1.81 GHz.
    const double scale = m.clock_mhz / m.tensor_clock_mhz;
    REQUIRE(scale > 1.05);
    std::mt19937 rng(59);
    const unsigned blocks = unsigned(m.sms);  // every SM busy: each at its fair share
    std::vector<uint32_t> host(size_t(blocks) * 128 * 4);
    for (uint32_t& x : host) x = rng();
    tk::device_buffer<uint32_t> in(host.size(), host, "in");
    for (int tensor : {0, 1}) {
        INFO("tensor " << tensor);
        tk::device_buffer<uint32_t> out(host.size(), "out");
        tk::launch("mma_then_copy", mma_then_copy_kernel, dim3(blocks), dim3(128), 0, in.data(), out.data(), tensor);
        CHECK(out.download() == host);
        const tklab::sim::RunResult& r = tklab::sim::last_run();
        const double k = tensor ? scale : 1.0;
        CHECK(r.stats.clock_mhz == (tensor ? m.tensor_clock_mhz : m.clock_mhz));
        // In the block: warp 0's store waits for its 512 bytes through the SM's share, then L2's latency.
        double stall = -1;
        for (const auto& e : r.blocks.at(0).events)
            if (e.warp == 0 && e.op == tklab::sim::Op::st_global) stall = double(e.stall_cycles);
        CHECK(stall == Approx(m.global_latency - m.global_issue_cycles + 512.0 / (m.l2_bytes_per_cycle_per_sm * k)).margin(1.0));
        // The launch's L2 bound: both rates k times the measured ones.
        const double reads = double(r.stats.global_bytes - r.stats.global_write_bytes), writes = double(r.stats.global_write_bytes);
        CHECK(writes == double(host.size() * 4));
        CHECK(r.stats.l2_cycles == uint64_t(std::ceil(reads / (m.l2_bytes_per_cycle_per_sm * m.sms * k) +
                                                      writes / (m.l2_write_bytes_per_cycle_per_sm * m.sms * k))));
    }
}

TEST_CASE("cost model: sim/arch/README.md's L2, DRAM and SM clocks are results/l2_traffic_h100.txt's", "[sim][cost_model]") {
    // Each launch's clocks (GHz) by unit: "  KERNEL  lts__cycles_elapsed.avg.per_second  hz  1,703,927,718.04".
    std::map<std::string, std::map<std::string, std::pair<double, double>>> clocks;  // launch -> unit -> range
    std::string launch;
    std::ifstream in(project_root() / "results/l2_traffic_h100.txt");
    REQUIRE(in.good());
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("== ", 0) == 0) { launch = line.substr(3, line.find(' ', 3) - 3); continue; }
        const size_t at = line.find("__cycles_elapsed.avg.per_second");
        if (at == std::string::npos || launch.empty()) continue;
        const size_t from = line.rfind(' ', at) + 1;
        std::string value = line.substr(line.find_last_of(' ') + 1);
        value.erase(std::remove(value.begin(), value.end(), ','), value.end());
        const double ghz = std::stod(value) / 1e9;
        auto [it, fresh] = clocks[launch].try_emplace(line.substr(from, at - from), ghz, ghz);
        it->second = {std::min(it->second.first, ghz), std::max(it->second.second, ghz)};
    }
    auto range = [&](std::initializer_list<const char*> launches, const std::string& unit) {
        double lo = 1e9, hi = 0;
        for (const char* l : launches) {
            INFO(l << " " << unit);
            REQUIRE(clocks[l].count(unit));
            lo = std::min(lo, clocks[l][unit].first), hi = std::max(hi, clocks[l][unit].second);
        }
        char text[32];
        std::snprintf(text, sizeof text, "%.2f-%.2f GHz", lo, hi);
        return std::string(text);
    };
    const auto all = {"lesson05", "gemm_hopper", "lesson07", "lesson04_gemm", "layernorm", "lesson01", "rotary"};
    const std::string readme = one_line(project_root() / "sim/arch/README.md");
    CHECK_THAT(readme, Catch::Contains("L2 at " + range(all, "lts")));
    CHECK_THAT(readme, Catch::Contains("DRAM at " + range(all, "dram")));
    CHECK_THAT(readme, Catch::Contains("SMs ran at " + range({"layernorm", "lesson01", "rotary"}, "sm") + " (layernorm, lesson 1, rotary: no tensor"));
    CHECK_THAT(readme, Catch::Contains("or at " + range({"lesson05", "gemm_hopper", "lesson07", "lesson04_gemm"}, "sm") + " (lessons 4's GEMM, 5 and 7, gemm_hopper)"));
    // And the scale the model applies is the clocks' ratio it quotes.
    const tklab::sim::CostModel m = tklab::sim::CostModel::load("h100");
    char scale[16];
    std::snprintf(scale, sizeof scale, "(%.3f)", m.clock_mhz / m.tensor_clock_mhz);
    CHECK_THAT(readme, Catch::Contains(std::string("`clock_mhz / tensor_clock_mhz` ") + scale));
}

TEST_CASE("memory model: a launch whose buffers exceed L2 reads from DRAM and is bound by its bandwidth", "[sim][cost_model]") {
    const test_support::l1_model_as l1(false);  // L2 and DRAM alone: L1's own tests are below
    const tklab::sim::CostModel m = tklab::sim::CostModel::load("h100");
    // The input holds data (uploaded) beyond L2's size, of which the kernel
    // reads the start: the launch's data is in DRAM, and a buffer that big
    // is read from there (a small one would stay in L2: the next test).
    const size_t in_words = size_t(m.l2_bytes) / 4 + 1;
    for (unsigned seed = 1; seed <= 2; ++seed) {
        // 64 and 128 blocks per SM (4 and 8 waves): every SM streams, and
        // enough bytes that DRAM's bandwidth outlasts the blocks' latencies,
        // their dispatch and store drain.
        const unsigned blocks = 1056 * 8 * seed;
        const CopyRun c = run_copy(blocks, seed + 10, in_words);
        // Its 512 bytes through the SM's share of DRAM (every SM busy), then DRAM's latency.
        CHECK(double(c.store_stall) == Approx(m.global_dram_latency - m.global_issue_cycles + 512.0 / m.dram_bytes_per_cycle_per_sm).margin(1.0));
        // What moved came from or went to DRAM (the buffers are larger than the traffic).
        CHECK(c.stats.dram_bytes == c.stats.global_bytes);
        // Reads and writes take turns at DRAM, each at its rate.
        const double dram_rate = std::min(m.dram_bytes_per_cycle_per_sm * m.sms, m.dram_bytes_per_cycle_one_sm * std::min(blocks, unsigned(m.sms)));
        const double write_rate = std::min(m.dram_write_bytes_per_cycle_per_sm * m.sms, m.l2_write_bytes_per_cycle_one_sm * std::min(blocks, unsigned(m.sms)));
        const uint64_t half = c.stats.global_bytes / 2;
        const uint64_t dram_cycles = uint64_t(std::ceil(double(half) / dram_rate + double(half) / write_rate));
        CHECK(c.stats.dram_cycles == dram_cycles);
        // DRAM's bandwidth is the kernel's time: its bound is over L2's, and
        // the blocks, each SM's taking its share of it, end within 2% of it
        // (the last blocks' latency past it: a wave-long tail).
        CHECK(c.stats.dram_cycles > c.stats.l2_cycles);
        CHECK(double(c.stats.wave_cycles) < 1.02 * double(c.stats.dram_cycles));
        CHECK(std::string(c.stats.time_limit) == (c.stats.dram_cycles >= c.stats.wave_cycles ? "DRAM bandwidth" : "blocks"));
        CHECK(c.stats.est_kernel_cycles == std::max(dram_cycles, c.stats.wave_cycles) + c.stats.launch_overhead_cycles);
        // The overhead counts dealing each SM its first block; an SM's later
        // blocks start in its own time (a round of dealing apart, or as slots free).
        CHECK(c.stats.launch_overhead_cycles ==
              uint64_t(m.launch_overhead_cycles) + uint64_t(std::llround(m.launch_dispatch_cycles_per_block * (m.sms - 1))));
    }
}

TEST_CASE("memory model: with the launch's data in DRAM, a buffer under half the L2 is read from L2", "[sim][cost_model]") {
    const test_support::l1_model_as l1(false);  // L2 and DRAM alone: L1's own tests are below
    const tklab::sim::CostModel m = tklab::sim::CostModel::load("h100");
    // Data beyond L2's size in a buffer the kernel never reads; the one it
    // reads (a table, say) stays in L2 while big ones stream past it.
    tk::device_buffer<uint8_t> ballast(size_t(m.l2_bytes) + 1, std::vector<uint8_t>(size_t(m.l2_bytes) + 1, 7), "ballast");
    std::mt19937 rng(41);
    const unsigned blocks = 132 * (2 + unsigned(rng() % 3));  // every SM busy
    const CopyRun c = run_copy(blocks, rng());
    // L2's latency, after its bytes through the SM's share of L2 (every SM busy).
    CHECK(double(c.store_stall) == Approx(m.global_latency - m.global_issue_cycles + 512.0 / m.l2_bytes_per_cycle_per_sm).margin(1.0));
    // It is still a launch whose traffic DRAM must take (merge.cpp's bound).
    CHECK(c.stats.dram_bytes == c.stats.global_bytes);
}

TEST_CASE("memory model: a fresh buffer the launch only writes takes no room in L2 from its reads", "[sim][cost_model]") {
    const test_support::l1_model_as l1(false);  // L2 and DRAM alone: L1's own tests are below
    const tklab::sim::CostModel m = tklab::sim::CostModel::load("h100");
    // Nothing has written this one: no correct kernel reads it, so the launch's
    // reads still fit in L2. It still counts towards what DRAM must take.
    tk::device_buffer<uint8_t> fresh(size_t(m.l2_bytes) + 1, "fresh");
    for (unsigned seed = 1; seed <= 2; ++seed) {
        const unsigned blocks = 264 * seed;
        const CopyRun c = run_copy(blocks, seed + 20);
        // L2's latency, after its bytes through the SM's share of L2 (every SM busy).
        CHECK(double(c.store_stall) == Approx(m.global_latency - m.global_issue_cycles + 512.0 / m.l2_bytes_per_cycle_per_sm).margin(1.0));
        CHECK(c.stats.dram_bytes == c.stats.global_bytes);
    }
}

TEST_CASE("cost model: the instructions around tile ops are the probes' SASS counts, solved per call and per instruction", "[sim][cost_model]") {
    // results/calibration_overhead_h100.json: SASS per call of each probe
    // (bench/calibrate/overhead_probes.h), each op at two sizes.
    const nlohmann::json cal = read_json(project_root() / "results/calibration_overhead_h100.json");
    std::map<std::string, double> v;
    for (const auto& f : cal["figures"]) {
        const std::string name = f["name"].get<std::string>();
        const std::string suffix = "_sass_per_call";  // (the file also holds the probes' timing)
        if (name.rfind("overhead.", 0) == 0 && name.size() > 9 + suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
            v[name.substr(9, name.size() - 9 - suffix.size())] = f["value"].get<double>();
    }
    REQUIRE(v.size() == 15);
    const tklab::sim::CostModel m = tklab::sim::CostModel::load("h100");
    // An op at two sizes: n1 and n2 modelled instructions a call (beyond `base1`
    // and `base2` that are not its own) give per_instruction from the
    // difference and per_call from the smaller.
    auto check = [](const char* what, const tklab::sim::CostModel::Overhead& got, double small, double big, double n1, double n2, int calls) {
        INFO(what);
        const double per_instruction = (big - small - (n2 - n1)) / (n2 - n1);
        const double per_call = (small - n1 - n1 * per_instruction) / calls;
        CHECK(got.per_instruction == Approx(std::max(0.0, per_instruction)).margin(0.006));
        CHECK(got.per_call == Approx(std::max(0.0, per_call)).margin(0.006));
    };
    const double loop = v.at("mma") - 32;  // the probe loop's own instructions
    check("ldmatrix", m.ov_ldmatrix, v.at("ldmatrix_mma_small") - v.at("mma_small"), v.at("ldmatrix_mma") - v.at("mma"), 8, 16, 2);
    check("cp_async", m.ov_cp_async, v.at("cp_async") - loop - 2, v.at("cp_async_one_warp") - loop - 2, 4, 16, 1);
    check("cp_async_loop", m.ov_cp_async_loop, v.at("cp_async_loop") - loop - 2, v.at("cp_async_loop_one_warp") - loop - 2, 4, 16, 1);
    check("st_global", m.ov_st_global, v.at("st_global") - loop, v.at("st_global_large") - loop, 16, 32, 1);
    check("ld_global", m.ov_ld_global, v.at("ld_st_global") - v.at("st_global"), v.at("ld_st_global_large") - v.at("st_global_large"), 16, 32, 1);
    check("group_copy", m.ov_group_copy, v.at("group_load") - loop, v.at("group_load_one_warp") - loop, 8, 32, 1);
    // What the GPU runs is more than the simulator models: every part is positive.
    for (const auto* o : {&m.ov_ldmatrix, &m.ov_cp_async, &m.ov_cp_async_loop, &m.ov_st_global, &m.ov_ld_global, &m.ov_group_copy})
        CHECK(o->per_instruction > 0);
    // A copy walking a tensor costs less than one computed afresh.
    CHECK(m.ov_cp_async_loop.per_call + 4 * m.ov_cp_async_loop.per_instruction < m.ov_cp_async.per_call + 4 * m.ov_cp_async.per_instruction);
}

TEST_CASE("memory model: L1 serves a vector every warp of an SM reads, L2 sends it once, unless the loads do not allocate", "[sim][cost_model]") {
    const one_sm sm;
    const test_support::l1_model_as l1(true);
    std::mt19937 rng(11);
    for (int trial = 0; trial < 3; ++trial) {
        const unsigned blocks = 1 + rng() % 4, warps = blocks * 4;
        std::vector<uint32_t> host(128);
        for (uint32_t& x : host) x = rng();
        tk::device_buffer<uint32_t> in(host.size(), host, "in"), out(size_t(warps) * 128, "out");
        for (int streaming : {0, 1}) {
            INFO(blocks << " blocks, streaming " << streaming);
            tk::launch("shared_vector", shared_vector_kernel, dim3(blocks), dim3(128), 0, in.data(), out.data(), streaming);
            const std::vector<uint32_t> got = out.download();
            for (unsigned w = 0; w < warps; ++w) CHECK(std::equal(host.begin(), host.end(), got.begin() + w * 128));
            const tklab::sim::Stats& st = tklab::sim::last_run().stats;
            REQUIRE(st.blocks_together == int(blocks));
            // Stores pass L1 by: each warp's 512 bytes go to L2.
            CHECK(st.global_write_bytes == uint64_t(warps) * 512);
            if (streaming) {
                CHECK(st.l1_hit_bytes == 0);
                CHECK(st.global_bytes == uint64_t(warps) * 512 * 2);
            } else {
                CHECK(st.l1_hit_bytes == uint64_t(warps - 1) * 512);
                CHECK(st.global_bytes == 512 + uint64_t(warps) * 512);
            }
        }
    }
}

TEST_CASE("memory model: the load/store unit takes a line a cycle, and an L1 hit arrives its latency after", "[sim][cost_model]") {
    const test_support::l1_model_as l1(true);
    const tklab::sim::CostModel m = tklab::sim::CostModel::load("h100");
    std::vector<uint32_t> host(512);
    std::mt19937 rng(3);
    for (uint32_t& x : host) x = rng();
    tk::device_buffer<uint32_t> in(host.size(), host, "in"), out(64, "out");
    const double unit = std::max(m.lsu_cycles_per_instruction, 8 * m.lsu_cycles_per_line);
    for (int n : {1, 6, 20}) {
        INFO(n << " loads");
        tk::launch("fragment_rereads", fragment_rereads_kernel, dim3(1), dim3(32), 0, in.data(), out.data(), n);
        const std::vector<uint32_t> got = out.download();
        for (uint32_t l = 0; l < 32; ++l) CHECK(got[32 + l] == host[(l / 4) * 64 + l % 4]);
        const tklab::sim::RunResult& r = tklab::sim::last_run();
        CHECK(r.stats.l1_hit_bytes == uint64_t(n) * 8 * 32);
        // The loads issue a global issue apart and queue for the unit, 8 lines
        // each; the store waits for the last one's hit.
        uint64_t last_store = 0;
        for (const auto& e : r.blocks.at(0).events)
            if (e.op == tklab::sim::Op::st_global) last_store = e.stall_cycles;
        const double want = n * unit + m.global_l1_latency - n * m.global_issue_cycles;
        CHECK(double(last_store) == Approx(want).margin(2.0));
    }
}

TEST_CASE("memory model: the SM's queue for the load/store unit fills, then each global instruction waits its turn (lg_throttle)", "[sim][cost_model]") {
    // The queue holds lsu.queue_depth 32-line instructions; the unit takes a
    // load a line a cycle, a store lsu.st_cycles_per_line a line.
    const test_support::l1_model_as l1(true);
    const tklab::sim::CostModel m = tklab::sim::CostModel::load("h100");  // the runs' default
    REQUIRE(m.lsu_queue_depth > 0);
    const int store = GENERATE(0, 1);
    INFO((store ? "stores" : "loads"));
    const int n = 64;
    std::vector<uint32_t> host(size_t(4) * 32 * 32);
    std::mt19937 rng(11);
    for (uint32_t& x : host) x = rng();
    tk::device_buffer<uint32_t> in(host.size(), host, "in"), out(host.size(), "out");
    tk::launch("lsu_burst", lsu_burst_kernel, dim3(1), dim3(32), 0, in.data(), out.data(), n, store);
    const std::vector<uint32_t> got = out.download();
    if (!store) {  // the sum of what each lane loaded: its own 4 words' xor, then n words of its lines
        for (uint32_t l = 0; l < 32; l += 7) {
            uint32_t x = 0;
            for (int j = 0; j < 4; ++j) x ^= host[j * 32 * 32 + l * 32] ^ host[j * 32 * 32 + l * 32 + 8];
            for (int j = 0; j < n; ++j) x += host[size_t(j & 3) * 32 * 32 + l * 32 + size_t(j >> 2)];
            CHECK(got[l * 32 + 1023] == x);
        }
    }
    // The burst's instructions: after the 8 warm-up loads and their store.
    const tklab::sim::Op op = store ? tklab::sim::Op::st_global : tklab::sim::Op::ld_global;
    std::vector<tklab::trace::Event> burst;
    int skip = store ? 1 : 8;
    for (const auto& e : tklab::sim::last_run().blocks.at(0).events)
        if (e.op == op && skip-- <= 0) burst.push_back(e);
    REQUIRE(burst.size() >= size_t(n));
    burst.resize(size_t(n));
    const double unit = 32 * (store ? m.lsu_st_cycles_per_line : m.lsu_cycles_per_line);
    // Below the knee the warp issues one every global issue, without a wait.
    const int free = int(m.lsu_queue_depth * unit / (unit - m.global_issue_cycles)) - 2;
    for (int j = 1; j < free; ++j) {
        INFO("instruction " << j);
        CHECK(burst[size_t(j)].stall_cycles == 0);
        CHECK(burst[size_t(j)].issue - burst[size_t(j - 1)].issue == uint64_t(m.global_issue_cycles));
    }
    // Past it, each waits for the queue and issues a unit's time after the one before.
    for (int j = 40; j < n; ++j) {
        INFO("instruction " << j);
        CHECK(burst[size_t(j)].stall == tklab::sim::Stall::lg_throttle);
        CHECK(double(burst[size_t(j)].issue - burst[size_t(j - 1)].issue) == Approx(unit).margin(1.0));
    }
}

TEST_CASE("memory model: with the L1 model off (tklab run --no-l1), every load goes to L2", "[sim][cost_model]") {
    const one_sm sm;
    // The shipped models have it on; the option turns it off.
    REQUIRE(tklab::sim::CostModel::load("h100").l1_modelled);
    REQUIRE(tklab::sim::CostModel::load("h200").l1_modelled);
    const test_support::l1_model_as l1(false);
    std::vector<uint32_t> host(128, 7);
    tk::device_buffer<uint32_t> in(host.size(), host, "in"), out(size_t(8) * 128, "out");
    tk::launch("shared_vector", shared_vector_kernel, dim3(2), dim3(128), 0, in.data(), out.data(), 0);
    const tklab::sim::Stats& st = tklab::sim::last_run().stats;
    CHECK(st.l1_hit_bytes == 0);
    CHECK(st.global_bytes == uint64_t(8) * 512 * 2);
}

TEST_CASE("cost model: the arithmetic's instructions per element are Nsight Compute's counts over the alu probes", "[sim][cost_model][alu]") {
    // results/alu_instructions_h200.txt: per probe, instructions per element
    // with one warp per sub-partition (the rows of 4 warps); each kind's
    // figure is its probe's less the helper op the probe adds (as the cycles
    // are: scripts/dev/arch_from_calibration.py), a conversion half a round trip.
    std::ifstream in(project_root() / "results/alu_instructions_h200.txt");
    REQUIRE(in);
    std::map<std::string, double> per, wait;
    for (std::string line; std::getline(in, line);) {
        std::istringstream ss(line);
        std::string kind;
        int warps = 0;
        double inst = 0, selected = 0, waits = 0;
        if (line.empty() || line[0] == '#' || !(ss >> kind >> warps >> inst >> selected >> waits) || warps != 4) continue;
        per[kind] = inst;
        wait[kind] = waits;
    }
    REQUIRE(per.size() == 11);
    const std::map<std::string, double> want = {{"simple", per["mul_scalar"]},
                                                {"exp", per["exp"] - per["mul_scalar"]},
                                                {"exp2", per["exp2"] - per["mul_scalar"]},
                                                {"log", per["log"] - per["mul_scalar"]},
                                                {"div", per["div"]},
                                                {"convert", per["convert_bf16"] / 2}};
    const char* kinds[] = {"simple", "exp", "exp2", "log", "div", "convert"};
    for (const char* name : {"h100", "h200"}) {
        const tklab::sim::CostModel m = tklab::sim::CostModel::load(name);
        for (size_t k = 0; k < std::size(kinds); ++k) {
            INFO(name << " alu." << kinds[k] << ".instructions");
            CHECK(m.alu[k].instructions == Approx(want.at(kinds[k])).margin(0.006));
            // Issuing cannot take longer than the whole op alone.
            CHECK(m.alu[k].instructions * m.issue_cycles <= m.alu[k].latency);
        }
    }
    // The READMEs quote the counts (one decimal) and the probes' waits per instruction.
    auto one_decimal = [](double v) {
        char b[32];
        std::snprintf(b, sizeof b, "%.1f", v);
        return std::string(b);
    };
    auto flat = [](const std::filesystem::path& path) {
        std::ifstream f(path);
        std::string out;
        for (char c; f.get(c);)
            if (c == '\n' || c == ' ') {
                if (!out.empty() && out.back() != ' ') out += ' ';
            } else {
                out += c;
            }
        return out;
    };
    const std::string arch_readme = flat(project_root() / "sim/arch/README.md"), sim_readme = flat(project_root() / "sim/README.md");
    const std::string counts = "exp " + one_decimal(want.at("exp")) + ", ex2.approx " + one_decimal(want.at("exp2"));
    CHECK_THAT(sim_readme, Catch::Contains(counts + ", division " + one_decimal(want.at("div"))));
    CHECK_THAT(arch_readme, Catch::Contains("An add is " + one_decimal(want.at("simple")) + ", exp " + one_decimal(want.at("exp"))));
    CHECK_THAT(arch_readme, Catch::Contains("ex2.approx " + one_decimal(want.at("exp2")) + ", logf " + one_decimal(want.at("log")) + ", division " +
                                            one_decimal(want.at("div")) + ", a conversion " + one_decimal(want.at("convert"))));
    CHECK_THAT(arch_readme, Catch::Contains("waits " + one_decimal(wait["exp"]) + " cycles an instruction in exp"));
    CHECK_THAT(arch_readme, Catch::Contains(one_decimal(wait["exp2"]) + " in ex2.approx and " + one_decimal(wait["div"]) + " in division"));
}

TEST_CASE("cost model: sim/arch/README.md's figures for the load/store unit's queue are the probe's", "[sim][cost_model]") {
    // results/calibration_lsu_queue_h200.json (bench/calibrate/lsu_queue.cu): issue times of bursts of N 32-line instructions.
    const nlohmann::json run = read_json(project_root() / "results/calibration_lsu_queue_h200.json");
    std::map<std::string, double> f;
    for (const auto& x : run["figures"]) f[x["name"].get<std::string>()] = x["value"].get<double>();
    auto t = [&](const char* kind, int n, const char* config) {
        const std::string name = std::string("lsu.") + kind + "_issue_cycles_" + std::to_string(n) + "x32lines_" + config;
        INFO(name);
        REQUIRE(f.count(name));
        return f.at(name);
    };
    std::ifstream in(project_root() / "sim/arch/README.md");
    std::string readme{std::istreambuf_iterator<char>(in), {}};
    for (char& c : readme) if (c == '\n') c = ' ';
    auto says = [&](const std::string& text) {
        INFO("sim/arch/README.md should say: " << text);
        CHECK(readme.find(text) != std::string::npos);
    };
    auto num = [](double v) { return std::to_string(std::llround(v)); };
    // One warp: a load every 4 cycles below the knee, then waits.
    const double gap = (t("ld", 24, "1w") - t("ld", 1, "1w")) / 23;
    CHECK(std::llround(gap) == 4);
    says("One warp issues 24 loads in " + num(t("ld", 24, "1w")) + " cycles, a load every 4, and 32 in " + num(t("ld", 32, "1w")));
    // Where each configuration passes the knee: the first burst over 100 cycles later than a load every 4.
    const int bursts[] = {1, 4, 8, 12, 16, 24, 32, 48, 64};
    auto knee = [&](const char* config) {
        for (int n : bursts)
            if (t("ld", n, config) > t("ld", 1, config) + 4.0 * n + 100) return n;
        return 0;
    };
    says("two warps of one sub-partition pass it at " + std::to_string(knee("2w_1smsp")) + " loads each, one warp on each sub-partition at " +
         std::to_string(knee("1w_per_smsp")) + ", two on each at " + std::to_string(knee("2w_per_smsp")) + ".");
    // Past the knee, 8 warps issuing: the unit's time a line for loads and for stores.
    auto per_line = [&](const char* kind) { return (t(kind, 64, "2w_per_smsp") - t(kind, 48, "2w_per_smsp")) / 16 / 8 / 32; };
    CHECK(per_line("ld") == Approx(1.0).margin(0.05));
    CHECK(per_line("st") == Approx(2.0).margin(0.05));
    says("a 32-line load goes through every 32 cycles (one a line");
    says("a 32-line store every 64 (two a line)");
    // Stores by the lines they write.
    auto st = [&](int lines) {
        const std::string name = "lsu.st_cycles_per_instruction_" + std::to_string(lines) + "lines";
        INFO(name);
        REQUIRE(f.count(name));
        return f.at(name);
    };
    for (int lines : {8, 16, 32}) CHECK(st(lines) == Approx(2.0 * lines).epsilon(0.05));
    says("16 cycles for 8 lines, 32 for 16 and 64 for 32 (two a line)");
    auto one = [](double v) { char b[16]; std::snprintf(b, sizeof b, "%.1f", v); return std::string(b); };
    says("but " + one(st(1)) + " for one line and " + one(st(2)) + " for two");
    // cp.async: its knee comes before the loads'.
    says("one warp issues 16 in " + num(t("cp_async", 16, "1w")) + " cycles and 24 in " + num(t("cp_async", 24, "1w")) +
         ", two warps of one sub-partition 12 each in " + num(t("cp_async", 12, "2w_1smsp")) + " cycles");
    CHECK(t("cp_async", 24, "1w") > t("cp_async", 1, "1w") + 4.0 * 24 + 100);  // past its knee at 24
    CHECK(t("ld", 24, "1w") < t("ld", 1, "1w") + 4.0 * 24 + 100);              // where the loads are not
}

TEST_CASE("cost model: sim/arch/README.md's figures for whose shared-memory queue it is are the probe's", "[sim][cost_model]") {
    // results/calibration_mio_share_h100.txt (bench/calibrate/shared.cu, mio_share): a late warp's one
    // load's issue cycles behind N queued conflicted loads of another warp on its sub-partition.
    std::ifstream in(project_root() / "results/calibration_mio_share_h100.txt");
    REQUIRE(in);
    std::map<int, int> behind;
    for (std::string line; std::getline(in, line);) {
        int n = 0, cycles = 0;
        if (!line.empty() && line[0] != '#' && std::sscanf(line.c_str(), "%d %d", &n, &cycles) == 2) behind[n] = cycles;
    }
    REQUIRE(behind.size() == 4);
    int lo = INT32_MAX, hi = 0;
    for (const auto& [n, cycles] : behind) lo = std::min(lo, cycles), hi = std::max(hi, cycles);
    // The measurement the per-warp queue rests on: nothing queued ahead and 32 ahead issue alike.
    CHECK(hi - lo <= 5);
    CHECK(behind.at(32) - behind.at(0) <= 5);
    CHECK_THAT(one_line(project_root() / "sim/arch/README.md"), Catch::Contains("issues in " + std::to_string(lo) + "-" + std::to_string(hi)));
}

TEST_CASE("cost model: a later wave's block starts the measured turnaround after its place was left, as sim/arch/README.md says", "[sim][cost_model]") {
    // results/launch_overhead_h100.json (scripts/gpu/launch_overhead.sh, block_gaps).
    const std::map<std::string, double> f = figures_of(project_root() / "results/launch_overhead_h100.json");
    REQUIRE(f.count("launch.block_turnaround_cycles_128_threads"));
    REQUIRE(f.count("launch.block_turnaround_cycles_512_threads"));
    const long t128 = std::lround(f.at("launch.block_turnaround_cycles_128_threads")), t512 = std::lround(f.at("launch.block_turnaround_cycles_512_threads"));
    // The model takes the 128-thread figure; the block's size hardly matters.
    CHECK(tklab::sim::CostModel::load("h100").launch_block_turnaround_cycles == t128);
    CHECK(std::abs(t512 - t128) <= 0.05 * double(t128));
    const std::string text = std::to_string(t128) + " cycles with 128 threads a block, " + std::to_string(t512) + " with 512";
    INFO("sim/arch/README.md should say: " << text);
    CHECK(one_line(project_root() / "sim/arch/README.md").find(text) != std::string::npos);
}

TEST_CASE("cost model: sim/arch/README.md's figures for ldmatrix and the warp's queue are the probe's", "[sim][cost_model]") {
    // results/calibration_mio_depth_h100.json (calibrate --only mio_depth): issue times of back-to-back conflicted instructions.
    const std::map<std::string, double> f = figures_of(project_root() / "results/calibration_mio_depth_h100.json");
    const double ldsm24 = f.at("shared.issue_cycles_24x8way_ldmatrix_x4_1w_per_smsp"), ld12 = f.at("shared.issue_cycles_12x32way_1w_per_smsp");
    CHECK(ldsm24 < 200);  // no wait at issue
    CHECK(ld12 > 500);
    const std::string text = "24 in " + std::to_string(std::lround(ldsm24)) + " cycles, where 12 such ld.shared take " + std::to_string(std::lround(ld12));
    INFO("sim/arch/README.md should say: " << text);
    CHECK(one_line(project_root() / "sim/arch/README.md").find(text) != std::string::npos);
}

TEST_CASE("cost model: sim/arch/README.md's figures for the load/store unit's queue by instruction are the H100 probe's", "[sim][cost_model]") {
    // results/calibration_lsu_queue_h100.json (calibrate --only lsu_queue): bursts of 8-line stores and 4-line loads, 8 warps.
    const std::map<std::string, double> f = figures_of(project_root() / "results/calibration_lsu_queue_h100.json");
    const double st8 = f.at("lsu.st_issue_cycles_8x8lines_32B_2w_per_smsp"), ld8 = f.at("lsu.ld_issue_cycles_8x4lines_2w_per_smsp");
    auto slope = [&](const std::string& fmt) {  // cycles per instruction past the knee: 48 to 64 a warp, 8 warps
        char a[96], b[96];
        std::snprintf(a, sizeof a, fmt.c_str(), 64);
        std::snprintf(b, sizeof b, fmt.c_str(), 48);
        return (f.at(a) - f.at(b)) / 16 / 8;
    };
    const double st = slope("lsu.st_issue_cycles_%dx8lines_32B_2w_per_smsp"), ld = slope("lsu.ld_issue_cycles_%dx4lines_2w_per_smsp");
    // Past the knee at 8 a warp already: 8 issue at the unit's pace, not at a warp's one every 4 cycles.
    CHECK(st8 > 0.6 * 64 * st);
    CHECK(ld8 > 0.6 * 64 * ld);
    char text[256];
    std::snprintf(text, sizeof text, "8 stores a warp take %ld cycles to issue and 8 loads %ld. Past the knee the stores go through every %.1f cycles and the loads every %.1f",
                  std::lround(st8), std::lround(ld8), st, ld);
    INFO("sim/arch/README.md should say: " << text);
    CHECK(one_line(project_root() / "sim/arch/README.md").find(text) != std::string::npos);
    // The stores' steady time by lines and bytes a line (8 warps past the knee).
    auto per = [&](const char* name) {
        char v[16];
        std::snprintf(v, sizeof v, "%.1f", f.at(std::string("lsu.st_cycles_per_instruction_") + name));
        return std::string(v);
    };
    const std::string wide = "take " + per("8lines_32B") + " cycles for 8 lines of 32 bytes (`st.global.v2`, 4 lanes a line), where 8 lines of 16 bytes take " +
                             std::to_string(std::lround(f.at("lsu.st_cycles_per_instruction_8lines"))) + " and of 64 bytes " + per("8lines_64B") +
                             "; 16 lines of 32 bytes " + per("16lines_32B") + "; 32 lines of 8 and of 16 bytes " + per("32lines_8B") + " and " +
                             per("32lines_16B");
    INFO("sim/arch/README.md should say: " << wide);
    CHECK(one_line(project_root() / "sim/arch/README.md").find(wide) != std::string::npos);
}

TEST_CASE("cost model: the READMEs' SASS counts around tile ops are the calibration's, and the figures solved from them the model's", "[sim][cost_model]") {
    // results/calibration_overhead_h100.json (bench/calibrate/overhead_probes.h): SASS per call of each probe.
    const std::map<std::string, double> f = figures_of(project_root() / "results/calibration_overhead_h100.json");
    auto sass = [&](const std::string& probe) { return std::to_string(std::lround(f.at("overhead." + probe + "_sass_per_call"))); };
    const std::string arch = one_line(project_root() / "sim/arch/README.md"), sim = one_line(project_root() / "sim/README.md");
    CHECK_THAT(arch, Catch::Contains("per call and warp: " + sass("cp_async_one_warp") + " instructions for a `group<1>::load_async`"));
    CHECK_THAT(arch, Catch::Contains(sass("cp_async") + " for `group<4>`'s"));
    CHECK_THAT(arch, Catch::Contains(sass("st_global_large") + " for a 32x64 float register-tile store"));
    CHECK_THAT(arch, Catch::Contains(sass("ldmatrix_mma") + " for two ldmatrix loads"));
    CHECK_THAT(arch, Catch::Contains("take " + sass("cp_async_loop_one_warp") + " and " + sass("cp_async_loop") + " instructions a call"));
    // The loop figures as solved, and the jumping ones beside them.
    const tklab::sim::CostModel m = tklab::sim::CostModel::load("h100");
    auto g = [](double v) { char b[16]; std::snprintf(b, sizeof b, "%g", v); return std::string(b); };
    CHECK_THAT(arch, Catch::Contains(g(m.ov_cp_async_loop.per_instruction) + " around each cp.async and " + g(m.ov_cp_async_loop.per_call) + " per call"));
    CHECK_THAT(sim, Catch::Contains("(" + g(m.ov_cp_async_loop.per_call) + " a call and " + g(m.ov_cp_async_loop.per_instruction) + " a `cp.async`, against " +
                                    g(m.ov_cp_async.per_call) + " and " + g(m.ov_cp_async.per_instruction) + " when"));
}

TEST_CASE("cost model: the constant cache's miss is each GPU's estimate from its PC samples, as sim/arch/README.md says", "[sim][cost_model]") {
    // results/constant_miss_ARCH.txt (scripts/fidelity/constant_miss.sh): the
    // miss that gives each one-wave launch the GPU's imc_miss share, and their
    // median, the estimate each model takes until a calibration run measures it.
    auto median_of = [](const char* arch) {
        std::ifstream in(project_root() / "results" / (std::string("constant_miss_") + arch + ".txt"));
        REQUIRE(in.good());
        const std::string text{std::istreambuf_iterator<char>(in), {}};
        const size_t at = text.find("constant.miss_cycles: median ");
        REQUIRE(at != std::string::npos);
        return std::stoi(text.substr(at + std::strlen("constant.miss_cycles: median ")));
    };
    const int median = median_of("h100"), h200 = median_of("h200");
    for (const auto& [arch, m] : {std::pair{"h100", median}, std::pair{"h200", h200}}) {
        INFO(arch);
        CHECK(m > 100);  // an L2 round trip or more, not a few cycles
        CHECK(tklab::sim::CostModel::load(arch).constant_miss_cycles == m);
    }
    const std::string says = "median " + std::to_string(median) + " cycles";
    INFO("sim/arch/README.md should say: " << says << " and the H200's " << h200);
    CHECK(one_line(project_root() / "sim/arch/README.md").find(says) != std::string::npos);
    CHECK(one_line(project_root() / "sim/arch/README.md").find("the H200's samples give " + std::to_string(h200)) != std::string::npos);
    const std::string model = std::to_string(median) + " cycles in the H100's model (" + std::to_string(h200) + " in the H200's)";
    INFO("sim/README.md should say: " << model);
    CHECK(one_line(project_root() / "sim/README.md").find(model) != std::string::npos);
    // The lessons that show the wait quote the same figure.
    CHECK_THAT(one_line(project_root() / "lessons/03_mma/README.md"), Catch::Contains("Their first " + std::to_string(median) + " cycles they wait"));
    CHECK_THAT(one_line(project_root() / "lessons/09_gpu_profiling/README.md"), Catch::Contains(std::to_string(median) + " cycles in the simulator"));
}
