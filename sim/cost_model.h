// Per-architecture latencies and throughputs, read from sim/arch/<name>.json.
#pragma once
#include <string>

namespace tklab::sim {

struct CostModel {
    std::string name;
    std::string source_json;  // the data file as loaded (traces carry it)
    double clock_mhz = 0;
    int sms = 0, max_threads_per_sm = 0, max_blocks_per_sm = 0, registers_per_sm = 0;
    int max_registers_per_thread = 0, shared_bytes_per_sm = 0, base_registers_per_thread = 0;
    int issue_cycles = 1;
    int shared_latency = 0, shared_cycles_per_wavefront = 1, ldmatrix_latency = 0;
    int shfl_latency = 0;
    int global_latency = 0, global_issue_cycles = 1;
    int cp_async_latency = 0;
    int mma_latency = 0, mma_pipe_cycles = 0;
    int barrier_latency = 0, mbarrier_latency = 0;
    int tma_latency = 0, tma_bytes_per_cycle = 1;    // bulk tensor copies (one copy engine per block)
    int wgmma_latency = 0, wgmma_fma_per_cycle = 4;  // dense bf16 multiply-adds per cycle per SM

    // Loads sim/arch/<name>.json (or a path); throws std::runtime_error saying which field is wrong.
    static CostModel load(const std::string& name_or_path);
};

} // namespace tklab::sim
