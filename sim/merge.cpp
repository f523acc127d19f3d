// Folding blocks into the run's result (merge.h).
#include "sim/merge.h"

#include "sim/instructions.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>

namespace tklab::sim {

void Merger::add(BlockResult& br) {
    const std::vector<uint32_t> loc_map = run_ids(br.locs);
    const std::vector<uint32_t> decl_map = run_ids(br.decls);  // after: new ones go last
    const std::vector<uint32_t> region_loc_map = run_ids(br.region_locs);  // and regions' after those
    std::vector<uint32_t> name_map(br.names.list.size());
    for (size_t i = 1; i < br.names.list.size(); ++i) {
        auto [it, fresh] = name_ids_.try_emplace(br.names.list[i].first, uint16_t(r_.op_names.size()));
        if (fresh) r_.op_names.push_back(br.names.list[i].first);
        name_map[i] = it->second;
    }
    std::vector<uint32_t> region_name_map(br.region_names.list.size());
    for (size_t i = 1; i < br.region_names.list.size(); ++i) {
        auto [it, fresh] = name_ids_.try_emplace(br.region_names.list[i].first, uint16_t(r_.op_names.size()));
        if (fresh) r_.op_names.push_back(br.region_names.list[i].first);
        region_name_map[i] = it->second;
    }
    Stats& st = r_.stats;
    BlockTrace& bt = br.trace;
    for (Event& e : bt.events) {
        e.loc = loc_map[e.loc];
        e.op_name = uint16_t(name_map[e.op_name]);
        st.warp_instructions++;
        st.by_op[size_t(e.op)]++;
    }
    for_each_stall(bt, [&](const Event&, uint8_t stall, uint64_t cycles) { st.stall_cycles[stall] += cycles; });
    for (BarrierRecord& b : bt.barriers) {
        b.loc = loc_map[b.loc];
        st.barrier_wait_cycles += b.release - b.arrive;
    }
    for (SnapshotRecord& s : bt.snapshots) s.loc = loc_map[s.loc];
    for (RegionRecord& g : bt.regions) {
        g.loc = region_loc_map[g.loc];
        g.name = uint16_t(region_name_map[g.name]);
    }
    for (LiveRegs& l : bt.peak_live) l.loc = loc_map[l.loc];
    for (RegRecord& g : bt.regs)
        for (LiveRegs& l : g.live) l.loc = decl_map[l.loc];
    bt.peak_regs_loc = loc_map[bt.peak_regs_loc];
    for (const SmemRecord& s : bt.smem) {
        SmemTotals* tot = nullptr;
        switch (instruction(Op(bt.events[s.event].op)).smem_total) {
        case SmemTotal::ld_shared: tot = &st.ld_shared; break;
        case SmemTotal::st_shared: tot = &st.st_shared; break;
        case SmemTotal::ldmatrix: tot = &st.ldmatrix; break;
        case SmemTotal::stmatrix: tot = &st.stmatrix; break;
        case SmemTotal::atom_shared: tot = &st.atom_shared; break;
        case SmemTotal::none: continue;
        }
        tot->instructions += s.banks.instructions;  // SASS instructions, as Nsight counts them
        if (s.banks.conflicts() > st.worst_conflict) {
            st.worst_conflict = s.banks.conflicts();
            st.worst_conflict_loc = bt.events[s.event].loc;  // run-wide by now
            st.worst_conflict_op = Op(bt.events[s.event].op);
            st.worst_conflict_way = s.banks.max_way;
        }
        tot->wavefronts += s.banks.wavefronts;
        tot->ideal += s.banks.ideal;
        tot->max_way = std::max<int>(tot->max_way, s.banks.max_way);
    }
    st.setmaxnreg_registers = std::max(st.setmaxnreg_registers, bt.setmaxnreg_registers);
    if (bt.peak_regs > st.peak_regs) {
        st.peak_regs = bt.peak_regs;
        st.peak_from_shared_regs = bt.peak_from_shared_regs;
        st.peak_regs_loc = bt.peak_regs_loc;
        st.peak_live = bt.peak_live;
    }
    st.global_bytes += bt.global_bytes;
    st.l1_hit_bytes += bt.l1_hit_bytes;
    st.global_write_bytes += bt.global_write_bytes;
    st.global_tma_read_bytes += bt.global_tma_read_bytes;
    st.overhead_instructions += uint64_t(std::llround(bt.overhead_instructions));
    st.peak_loaded_regs = std::max(st.peak_loaded_regs, bt.peak_loaded_regs);
    st.loop_addresses = std::max(st.loop_addresses, bt.loop_addresses);
    st.run_addresses = std::max(st.run_addresses, bt.run_addresses);
    bt.allowed_uninit_loc = loc_map[bt.allowed_uninit_loc];
    if (bt.allowed_uninit_reads && !st.allowed_uninit_reads) st.allowed_uninit_loc = bt.allowed_uninit_loc;
    st.allowed_uninit_reads += bt.allowed_uninit_reads;
    st.max_block_cycles = std::max(st.max_block_cycles, bt.cycles);
    st.sum_block_cycles += bt.cycles;
    st.blocks_run++;
}

int loop_address_registers(const CostModel& cost, int loop_addresses) {
    return int(std::lround(cost.registers_per_loop_address * loop_addresses));
}

int run_address_registers(const CostModel& cost, int run_addresses) {
    // ptxas computes a straight run's addresses (a tile's stores: one per
    // row and column of fragments) before its first instruction, a 64-bit
    // address each, for the instructions' overlap; but mostly only as far as
    // keeps full occupancy (2048 threads of 32 registers on sm_90), computing
    // the rest as it goes (probes: 32 to 42 past it;
    // scripts/registers/straight_run.sh).
    if (run_addresses <= 0) return 0;
    const int full_occupancy = cost.registers_per_sm / std::max(1, cost.max_threads_per_sm);
    return std::min(full_occupancy, int(std::lround(cost.registers_run_base + cost.registers_per_run_address * run_addresses)));
}

RegisterUse register_use(const BlockTrace& b) {
    return {b.peak_regs, b.peak_loaded_regs, b.loop_addresses, b.setmaxnreg_registers > 0, false, b.peak_from_shared_regs, b.run_addresses};
}

RegisterUse register_use(const Stats& st) {
    return {st.peak_regs, st.peak_loaded_regs, st.loop_addresses, st.setmaxnreg_registers > 0,
            st.warp_instructions == st.by_op[size_t(Op::exit)], st.peak_from_shared_regs, st.run_addresses};
}

int register_estimate(const CostModel& cost, const RegisterUse& use, unsigned threads_per_block) {
    // A kernel that moves registers between warpgroups (setmaxnreg) is compiled
    // to the most its launch bounds allow every thread: the pool it moves them
    // from (measured: the producer/consumer kernels get exactly that).
    if (use.reallocates && threads_per_block > 0)
        return std::min(cost.max_registers_per_thread, cost.registers_per_sm / int(threads_per_block) / 8 * 8);
    // Nothing issued: no indices, addresses or tiles to hold.
    if (use.idle) return kIdleKernelRegisters;
    // Otherwise: the tiles live at the peak, or the registers loads filled
    // before anything read them (plain arrays the simulator cannot see
    // declared; loads into tiles are the tiles' own), whichever is more; the
    // addresses of the hottest loop's global-memory instructions, which the
    // compiler keeps across it; and what indices and loop counters take (the
    // cost model's base). Or, when more, what the addresses of its longest
    // straight run take while computed ahead. Past the per-thread limit the
    // compiler would spill (occupancy counts the limit).
    return std::max(cost.base_registers_per_thread + std::max(use.tiles - from_shared_saving(cost, use.from_shared), use.loaded) +
                        loop_address_registers(cost, use.loop_addresses),
                    run_address_registers(cost, use.run_addresses));
}

int from_shared_saving(const CostModel& cost, int from_shared_regs) {
    // ptxas interleaves an operand's ldmatrix loads with the mma that reads
    // them (LDSM, LDSM, HMMA x4, LDSM, HMMA x2, ...): not all of it is live at once.
    return int(std::lround((1.0 - cost.registers_from_shared_share) * from_shared_regs));
}

int blocks_per_sm_by_registers(const CostModel& cost, int regs, int setmaxnreg_registers, unsigned threads_per_block) {
    // Past the limit the compiler spills: a thread holds the limit.
    regs = std::min(regs, cost.max_registers_per_thread);
    const int per_block = setmaxnreg_registers ? setmaxnreg_registers : (regs + 7) / 8 * 8 * int(threads_per_block);
    return cost.registers_per_sm / std::max(1, per_block);
}

void Merger::finish(const CostModel& cost, unsigned threads_per_block, uint64_t nblocks, const MemoryPath& memory, int simulated_per_sm,
                    uint64_t busiest_sm_cycles, uint64_t busiest_sm_ack_cycles) {
    Stats& st = r_.stats;
    // Registers are allocated 8 per thread at a time (256 per warp): the
    // compiler's figure when the build has one, else the estimate.
    st.estimated_registers = register_estimate(cost, register_use(st), threads_per_block);
    const int regs = ((r_.compiler ? r_.compiler->registers : st.estimated_registers) + 7) / 8 * 8;
    struct Limit { int blocks; const char* why; };
    Limit limits[] = {
        {cost.max_blocks_per_sm, "blocks"},
        {cost.max_threads_per_sm / int(std::max(1u, threads_per_block)), "threads"},
        // A block that reallocates registers (setmaxnreg) holds what its warps asked for.
        {blocks_per_sm_by_registers(cost, regs, st.setmaxnreg_registers, threads_per_block), "registers"},
        {r_.smem_bytes ? int(cost.shared_bytes_per_sm / r_.smem_bytes) : INT32_MAX, "shared memory"},
    };
    const Limit* low = std::min_element(std::begin(limits), std::end(limits),
                                        [](const Limit& a, const Limit& b) { return a.blocks < b.blocks; });
    st.blocks_per_sm = std::max(low->blocks, 0);
    st.occupancy_limit = low->why;
    // The blocks' bound: the busiest SM, its blocks simulated together. When
    // the register estimate (known only now) lets fewer blocks share an SM
    // than were simulated together, the waves that occupancy gives, each as
    // long as the slowest block, when that is longer.
    st.blocks_together = simulated_per_sm;
    st.wave_cycles = busiest_sm_cycles;
    st.store_ack_cycles = busiest_sm_ack_cycles;
    if (st.blocks_per_sm > 0 && st.blocks_per_sm < simulated_per_sm) {
        const uint64_t slots = uint64_t(st.blocks_per_sm) * cost.sms;
        const uint64_t waves = (nblocks + slots - 1) / slots;
        st.wave_cycles = std::max(st.wave_cycles, waves * st.max_block_cycles + st.store_ack_cycles);
    }
    // The memory model's bounds (sim/README.md, "Global memory"): every
    // block's traffic through the L2's bandwidth, and the launch's buffers
    // streamed once through DRAM's when they do not fit in L2. The SMs with
    // blocks share each level's bandwidth, each at most what one SM alone gets.
    // Hopper runs a launch that uses the tensor cores at a lower clock, even
    // when they are a small part of its time (sim/arch/README.md, "The
    // clock"): its cycles are converted to time at that clock. L2 and DRAM
    // keep theirs, so at the lower clock they move more bytes per SM cycle
    // than measured (the SM's own paths do not).
    const bool tensor = st.by_op[size_t(Op::mma)] + st.by_op[size_t(Op::wgmma)] > 0;
    st.clock_mhz = tensor ? cost.tensor_clock_mhz : cost.clock_mhz;
    const double active_sms = double(std::min<uint64_t>(nblocks, uint64_t(std::max(cost.sms, 1))));
    // Per-SM rates times this many: the levels' totals per cycle of this launch's clock.
    const double sms = double(cost.sms) * cost.clock_mhz / st.clock_mhz;
    const double l2_rate = std::min(cost.l2_bytes_per_cycle_per_sm * sms, cost.l2_bytes_per_cycle_one_sm * active_sms);
    const double dram_rate = std::min(cost.dram_bytes_per_cycle_per_sm * sms, cost.dram_bytes_per_cycle_one_sm * active_sms);
    st.dram_bytes = int64_t(memory.footprint) > cost.l2_bytes ? std::min<uint64_t>(memory.footprint, st.global_bytes) : 0;
    // Reads and writes take turns at each level, writes at their own rate.
    const double l2_write_rate = std::min(cost.l2_write_bytes_per_cycle_per_sm * sms, cost.l2_write_bytes_per_cycle_one_sm * active_sms);
    const double dram_write_rate = std::min(cost.dram_write_bytes_per_cycle_per_sm * sms, cost.l2_write_bytes_per_cycle_one_sm * active_sms);
    // Bulk tensor copies read at their own rate.
    const double l2_tma_rate = std::min(cost.tma_l2_bytes_per_cycle_per_sm * sms, cost.l2_bytes_per_cycle_one_sm * active_sms);
    const uint64_t writes = std::min(st.global_write_bytes, st.global_bytes), dram_writes = std::min(writes, st.dram_bytes);
    const uint64_t tma_reads = std::min(st.global_tma_read_bytes, st.global_bytes - writes);
    st.l2_cycles = uint64_t(std::ceil(double(st.global_bytes - writes - tma_reads) / l2_rate + double(tma_reads) / l2_tma_rate +
                                      double(writes) / l2_write_rate));
    st.dram_cycles = uint64_t(std::ceil(double(st.dram_bytes - dram_writes) / dram_rate + double(dram_writes) / dram_write_rate));
    const double overhead_scale = st.clock_mhz / cost.clock_mhz;
    // The launch overhead: an empty one-block kernel's time, and each SM
    // more dealt its first block (an SM's later first-wave blocks start a
    // round of dealing after each other, in its time: launch.cpp; those of
    // later waves start as slots free, while others run). A launch none of
    // whose blocks finished has no time to add it to. It was timed (CUPTI)
    // and converted at clock_mhz: the same time is fewer of a slower clock's
    // cycles.
    const uint64_t first_round = std::min<uint64_t>(nblocks, uint64_t(std::max(cost.sms, 1)));
    st.launch_overhead_cycles = st.blocks_run ? uint64_t(std::llround(overhead_scale * (std::max(0, cost.launch_overhead_cycles) +
                                                                                       cost.launch_dispatch_cycles_per_block * double(first_round - 1))))
                                              : 0;
    st.time_limit = "blocks";
    uint64_t bound = st.wave_cycles;
    if (st.l2_cycles > bound) bound = st.l2_cycles, st.time_limit = "L2 bandwidth";
    if (st.dram_cycles > bound) bound = st.dram_cycles, st.time_limit = "DRAM bandwidth";
    st.est_kernel_cycles = bound + st.launch_overhead_cycles;
}

std::vector<uint32_t> Merger::run_ids(const Interner& locs) {
    std::vector<uint32_t> map(locs.list.size());
    for (size_t i = 1; i < locs.list.size(); ++i) {
        auto key = std::make_pair(std::string(locs.list[i].first), locs.list[i].second);
        auto [it, fresh] = loc_ids_.try_emplace(key, uint32_t(r_.locations.size()));
        if (fresh) r_.locations.push_back({key.first, key.second});
        map[i] = it->second;
    }
    return map;
}

} // namespace tklab::sim
