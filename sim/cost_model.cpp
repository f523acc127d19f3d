#include "sim/cost_model.h"
#include "sim/api.h"
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <nlohmann/json.hpp>

namespace tklab::sim {

// Generated at build time from sim/arch/*.json, so binaries need no data files.
const char* builtin_arch_json(const std::string& name);
const char* builtin_arch_names();  // "h100, h200"

namespace {
const nlohmann::json& get(const nlohmann::json& j, const char* path) {
    const nlohmann::json* cur = &j;
    std::string p(path), part;
    std::stringstream ss(p);
    while (std::getline(ss, part, '.')) {
        if (!cur->is_object() || !cur->contains(part))
            throw std::runtime_error(std::string("cost model: missing field '") + path + "'");
        cur = &(*cur)[part];
    }
    if (!cur->is_number()) throw std::runtime_error(std::string("cost model: field '") + path + "' must be a number");
    return *cur;
}
int get_int(const nlohmann::json& j, const char* path) { return get(j, path).get<int>(); }
// A bandwidth: a positive number.
double get_rate(const nlohmann::json& j, const char* path) {
    const double v = get(j, path).get<double>();
    if (!(v > 0)) throw std::runtime_error(std::string("cost model: field '") + path + "' must be above 0");
    return v;
}
} // namespace

CostModel CostModel::load(const std::string& name_or_path) {
    nlohmann::json j;
    if (const char* text = builtin_arch_json(name_or_path)) {
        j = nlohmann::json::parse(text);
    } else {
        std::ifstream in(name_or_path);
        if (!in) throw std::runtime_error("cost model '" + name_or_path + "': not a built-in architecture (" + builtin_arch_names() +
                                             ") and no such file");
        try { j = nlohmann::json::parse(in); } catch (const nlohmann::json::parse_error& e) {
            throw std::runtime_error("cost model '" + name_or_path + "': " + e.what());
        }
    }
    CostModel m;
    m.name = j.value("name", name_or_path);
    m.source_json = j.dump();
    m.clock_mhz = get_int(j, "clock_mhz");
    m.tensor_clock_mhz = j.contains("tensor_clock_mhz") ? get_rate(j, "tensor_clock_mhz") : m.clock_mhz;
    m.sms = get_int(j, "sms");
    m.max_threads_per_sm = get_int(j, "max_threads_per_sm");
    m.max_blocks_per_sm = get_int(j, "max_blocks_per_sm");
    m.registers_per_sm = get_int(j, "registers_per_sm");
    m.max_registers_per_thread = get_int(j, "max_registers_per_thread");
    m.base_registers_per_thread = get_int(j, "base_registers_per_thread");
    m.registers_per_loop_address = j.value("registers_per_loop_address", 0.0);
    m.registers_from_shared_share = j.value("registers_from_shared_share", 1.0);
    m.registers_run_base = j.value("registers_run_base", 0.0);
    m.registers_per_run_address = j.value("registers_per_run_address", 0.0);
    m.shared_bytes_per_sm = get_int(j, "shared_bytes_per_sm");
    m.issue_cycles = get_int(j, "issue_cycles");
    m.shared_latency = get_int(j, "shared.latency");
    m.shared_cycles_per_wavefront = get_int(j, "shared.cycles_per_wavefront");
    m.mio_queue_high = get_int(j, "shared.mio_queue_high");
    m.mio_queue_low = get_int(j, "shared.mio_queue_low");
    m.ldmatrix_latency = get_int(j, "ldmatrix.latency");
    m.shfl_latency = get_int(j, "shfl.latency");
    m.global_latency = get_int(j, "global.latency");
    m.global_issue_cycles = get_int(j, "global.issue_cycles");
    m.cp_async_latency = get_int(j, "cp_async.latency");
    m.mma_latency = get_int(j, "mma_m16n8k16.latency");
    m.mma_pipe_cycles = get_int(j, "mma_m16n8k16.pipe_cycles");
    m.barrier_latency = get_int(j, "barrier.latency");
    m.mbarrier_latency = get_int(j, "mbarrier.latency");
    m.tma_latency = get_int(j, "tma.latency");
    m.tma_bytes_per_cycle = get_int(j, "tma.bytes_per_cycle");
    m.wgmma_latency = get_int(j, "wgmma.latency");
    m.wgmma_fma_per_cycle = get_int(j, "wgmma.fma_per_cycle");
    m.global_dram_latency = get_int(j, "global.dram_latency");
    m.cp_async_dram_latency = get_int(j, "cp_async.dram_latency");
    m.tma_dram_latency = get_int(j, "tma.dram_latency");
    m.l2_bytes = get(j, "memory.l2_bytes").get<int64_t>();
    m.l2_bytes_per_cycle_per_sm = get_rate(j, "memory.l2_bytes_per_cycle_per_sm");
    m.l2_bytes_per_cycle_one_sm = get_rate(j, "memory.l2_bytes_per_cycle_one_sm");
    m.tma_l2_bytes_per_cycle_per_sm = j["memory"].contains("tma_l2_bytes_per_cycle_per_sm") ? get_rate(j, "memory.tma_l2_bytes_per_cycle_per_sm")
                                                                                             : m.l2_bytes_per_cycle_per_sm;
    m.dram_bytes_per_cycle_per_sm = get_rate(j, "memory.dram_bytes_per_cycle_per_sm");
    m.dram_bytes_per_cycle_one_sm = get_rate(j, "memory.dram_bytes_per_cycle_one_sm");
    m.sector_bytes = get_int(j, "memory.sector_bytes");
    m.l1_modelled = j.value("l1_modelled", false);
    m.global_l1_latency = get_int(j, "global.l1_latency");
    m.lsu_cycles_per_instruction = get_rate(j, "lsu.cycles_per_instruction");
    m.lsu_cycles_per_line = get_rate(j, "lsu.cycles_per_line");
    m.lsu_st_cycles_per_line = get_rate(j, "lsu.st_cycles_per_line");
    m.lsu_queue_depth = get_int(j, "lsu.queue_depth");
    if (j.contains("constant")) m.constant_miss_cycles = get_int(j, "constant.miss_cycles");
    m.l1_shared_bytes_per_sm = get(j, "memory.l1_shared_bytes_per_sm").get<int64_t>();
    if (!j["memory"].contains("shared_carveouts_kb") || !j["memory"]["shared_carveouts_kb"].is_array() || j["memory"]["shared_carveouts_kb"].empty())
        throw std::runtime_error("cost model: missing field 'memory.shared_carveouts_kb' (a list of KiB, smallest first)");
    m.shared_carveouts_kb = j["memory"]["shared_carveouts_kb"].get<std::vector<int>>();
    m.l2_write_bytes_per_cycle_per_sm = get_rate(j, "memory.l2_write_bytes_per_cycle_per_sm");
    m.l2_write_bytes_per_cycle_one_sm = get_rate(j, "memory.l2_write_bytes_per_cycle_one_sm");
    m.dram_write_bytes_per_cycle_per_sm = get_rate(j, "memory.dram_write_bytes_per_cycle_per_sm");
    {
        const char* kinds[] = {"simple", "exp", "exp2", "log", "div", "convert"};
        static_assert(sizeof(kinds) / sizeof(kinds[0]) == size_t(AluKind::count_));
        for (size_t k = 0; k < size_t(AluKind::count_); ++k) {
            m.alu[k].latency = get_rate(j, ("alu." + std::string(kinds[k]) + ".latency").c_str());
            m.alu[k].throughput = get_rate(j, ("alu." + std::string(kinds[k]) + ".throughput").c_str());
            const std::string instructions = "alu." + std::string(kinds[k]) + ".instructions";
            if (j["alu"][kinds[k]].contains("instructions")) m.alu[k].instructions = get_rate(j, instructions.c_str());
        }
    }
    {
        auto extra = [&](const char* f) {
            const double v = get(j, f).get<double>();
            if (!(v >= 0)) throw std::runtime_error(std::string("cost model: field '") + f + "' must be 0 or more");
            return v;
        };
        auto both = [&](const std::string& kind) {
            return CostModel::Overhead{extra(("overhead." + kind + ".per_call").c_str()),
                                       extra(("overhead." + kind + ".per_instruction").c_str())};
        };
        m.ov_ldmatrix = both("ldmatrix");
        m.ov_ld_global = both("ld_global");
        m.ov_st_global = both("st_global");
        m.ov_cp_async = both("cp_async");
        m.ov_cp_async_loop = j["overhead"].contains("cp_async_loop") ? both("cp_async_loop") : m.ov_cp_async;
        m.ov_group_copy = both("group_copy");
        m.overhead_latency = get_rate(j, "overhead.latency");
    }
    m.launch_overhead_cycles = get_int(j, "launch.overhead_cycles");
    m.launch_dispatch_cycles_per_block = get_rate(j, "launch.dispatch_cycles_per_block");
    if (j["launch"].contains("block_turnaround_cycles")) m.launch_block_turnaround_cycles = get_int(j, "launch.block_turnaround_cycles");
    if (m.launch_block_turnaround_cycles < 0) throw std::runtime_error("cost model: field 'launch.block_turnaround_cycles' must be 0 or more");
    if (m.mio_queue_high < 0 || m.mio_queue_high > kMaxMioQueue)
        throw std::runtime_error("cost model: field 'shared.mio_queue_high' must be 0.." + std::to_string(kMaxMioQueue));
    if (m.mio_queue_low < 0 || (m.mio_queue_high > 0 && m.mio_queue_low >= m.mio_queue_high))
        throw std::runtime_error("cost model: field 'shared.mio_queue_low' must be 0 or more and below 'shared.mio_queue_high'");
    if (m.sector_bytes < 1) throw std::runtime_error("cost model: field 'memory.sector_bytes' must be at least 1");
    if (m.tma_bytes_per_cycle < 1) throw std::runtime_error("cost model: field 'tma.bytes_per_cycle' must be at least 1");
    if (m.wgmma_fma_per_cycle < 4) throw std::runtime_error("cost model: field 'wgmma.fma_per_cycle' must be at least 4");
    return m;
}

} // namespace tklab::sim
