// Per-architecture latencies and throughputs, read from sim/arch/<name>.json.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tklab::sim {

constexpr int kMaxMioQueue = 32;

struct CostModel {
    std::string name;
    std::string source_json;  // the data file as loaded (traces carry it)
    double clock_mhz = 0;
    // The SM clock of a launch that issues tensor instructions (mma.sync,
    // wgmma): measured lower than clock_mhz on Hopper, whatever the tensor
    // pipe's share of the time (sim/arch/README.md). 0 in a model without it: clock_mhz.
    double tensor_clock_mhz = 0;
    int sms = 0, max_threads_per_sm = 0, max_blocks_per_sm = 0, registers_per_sm = 0;
    int max_registers_per_thread = 0, shared_bytes_per_sm = 0, base_registers_per_thread = 0;
    // Registers the compiler keeps per global-memory instruction of a loop
    // (its address or offset, live across the loop): a compiler figure,
    // fitted against ptxas (sim/README.md, "Registers").
    double registers_per_loop_address = 0;
    // The share of a register tile filled from shared memory (ldmatrix: an
    // mma operand) the compiler holds at once: it loads the operand a part at
    // a time as the mma reads it. A compiler figure, fitted against ptxas.
    double registers_from_shared_share = 1;
    // A straight run's addresses (merge.cpp run_address_registers): what the
    // kernel holds besides them, and registers per address.
    double registers_run_base = 0, registers_per_run_address = 0;
    int issue_cycles = 1;
    int shared_latency = 0, shared_cycles_per_wavefront = 1, ldmatrix_latency = 0;
    // A warp's shared-memory instructions waiting for the pipe: with `high`
    // of them waiting it stops issuing more (mio_throttle) until only `low`
    // are left. high 0: each waits for the pipe at issue.
    int mio_queue_high = 0, mio_queue_low = 0;
    int shfl_latency = 0;
    int global_latency = 0, global_issue_cycles = 1;
    int cp_async_latency = 0;
    int mma_latency = 0, mma_pipe_cycles = 0;
    int barrier_latency = 0, mbarrier_latency = 0;
    int tma_latency = 0, tma_bytes_per_cycle = 1;    // bulk tensor copies (one copy engine per block)
    int wgmma_latency = 0, wgmma_fma_per_cycle = 4;  // dense bf16 multiply-adds per cycle per SM
    // The memory model (sim/README.md, "Global memory"): a launch whose
    // buffers fit in L2 is served by L2, else by DRAM; the latencies above are
    // L2's, these DRAM's. Bandwidths in bytes per SM cycle: per SM when every
    // SM streams at once (the device's total over its SMs), and one SM alone.
    int global_dram_latency = 0, cp_async_dram_latency = 0, tma_dram_latency = 0;
    int64_t l2_bytes = 0;
    double l2_bytes_per_cycle_per_sm = 1, l2_bytes_per_cycle_one_sm = 1;
    // Bulk tensor copies' reads, every SM at once: L2 serves TMA more than
    // the load/store unit's ld.global (a model without the figure: ld.global's).
    double tma_l2_bytes_per_cycle_per_sm = 0;
    double dram_bytes_per_cycle_per_sm = 1, dram_bytes_per_cycle_one_sm = 1;
    // Writes, every SM at once, per SM (the H100 writes L2 at half its read rate).
    double l2_write_bytes_per_cycle_per_sm = 1, dram_write_bytes_per_cycle_per_sm = 1;
    double l2_write_bytes_per_cycle_one_sm = 1;  // one SM alone: its own write limit
    int sector_bytes = 32;  // global accesses move whole sectors
    // L1 (sim/README.md, "L1"): an ld.global whose sectors an SM's
    // L1 holds is served there, global_l1_latency after its turn in the SM's
    // load/store unit, which takes each ld.global for the larger of
    // lsu_cycles_per_instruction and lsu_cycles_per_line per 128-byte line.
    // L1 and shared memory share l1_shared_bytes_per_sm; the driver gives
    // shared memory the smallest carveout (KiB) that holds the resident blocks'.
    bool l1_modelled = false;  // "l1_modelled": on in the shipped models (sim/README.md, "L1")
    int global_l1_latency = 0;
    double lsu_cycles_per_instruction = 1, lsu_cycles_per_line = 0.5;
    // A st.global goes through it beside the loads, lsu_st_cycles_per_line a
    // line (or lsu_cycles_per_instruction, the larger). The unit's queue
    // holds the lines of lsu_queue_depth 32-line global instructions of the
    // SM not yet through it (a store: not yet out of the SM): a warp whose
    // instruction does not fit waits to issue it (lg_throttle). 0: no queue.
    double lsu_st_cycles_per_line = 0;
    int lsu_queue_depth = 0;
    // A constant-cache miss (sim/README.md, "The constant cache"): what the first
    // warps of a launch on an SM wait for the kernel's parameters, Nsight's
    // imc_miss. 0: not modelled.
    int constant_miss_cycles = 0;
    int64_t l1_shared_bytes_per_sm = 0;
    std::vector<int> shared_carveouts_kb;
    // The tile library's register arithmetic, cycles per element of a warp's
    // op: alone on its sub-partition (latency) and what it takes of the
    // sub-partition's issue slot (throughput). Indexed by AluKind.
    // `instructions`: SASS instructions an element takes (the time a warp
    // spends issuing them: PC sampling's `selected`); 1 in a model without it.
    struct AluCost { double latency = 1, throughput = 1, instructions = 1; };
    AluCost alu[6];  // AluKind's count (sim/api.h; cost_model.cpp checks)
    // The instructions nvcc adds around a tile op's memory instructions
    // (address arithmetic, bounds checks), per instruction the simulator
    // models, measured by bench/calibrate/overhead_probes.h; each costs an
    // issue slot at the simple arithmetic's rate.
    // Per op call (its first such instruction) and per instruction.
    // ov_cp_async_loop: a copy whose addresses move as a loop walks a
    // tensor (Executor::addresses_hoisted), where nvcc moves the addresses it
    // has instead of computing them again; a model without the figure
    // charges such copies as any other.
    struct Overhead { double per_call = 0, per_instruction = 0; };
    Overhead ov_ldmatrix, ov_ld_global, ov_st_global, ov_cp_async, ov_cp_async_loop, ov_group_copy;
    double overhead_latency = 1;  // one warp's cycles per instruction of it, alone on its sub-partition
    int launch_overhead_cycles = 0;  // a launch's time beyond its blocks' (start-up and drain), one block
    double launch_dispatch_cycles_per_block = 0;  // what each block more of the first wave adds to it
    // A later wave's block starts this long after the block before it in its
    // place ended (the SM retiring one and starting the next); 0 where the
    // model has no such figure.
    int launch_block_turnaround_cycles = 0;

    // Loads sim/arch/<name>.json (or a path); throws std::runtime_error saying which field is wrong.
    static CostModel load(const std::string& name_or_path);
};

} // namespace tklab::sim
