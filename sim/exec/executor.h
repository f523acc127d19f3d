// The executor: performs one warp instruction for the lanes that met at it,
// and records it. `run()` does what every instruction shares -- its event,
// its wait for registers a load is still filling, the race finder's view of
// lanes that met, the register record -- from the instruction's row
// (sim/instructions.h), and hands the instruction itself to its family's
// file in sim/exec/. A handler reads its lanes' operands, checks them
// (memory.h, diagnostics.h), does what the hardware does to memory and
// registers, says what it costs on the warp's clock and the SM's pipes, and
// reaches the bug finders and the trace only through the block's Hooks.
#pragma once
#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "sim/banks.h"
#include "sim/diagnostics.h"
#include "sim/memory.h"
#include "sim/state.h"

namespace tklab::sim {

// PTX ISA: an mbarrier's tx-count lies within +-(2^20 - 1).
constexpr int64_t kMaxTx = (int64_t(1) << 20) - 1;

// A 16-bit float (bf16, or IEEE half when `half`) as a float.
float bits16_to_float(uint16_t h, bool half);
// The shared-memory swizzles (PTX ISA, "Tensor swizzling modes") of a byte address.
uint32_t swizzle_address(uint32_t a, uint32_t swizzle_bytes);

// Lanes `lanes` of warp w acquire `from` (an mbarrier wait, a barrier's
// release); the warp's other lanes do not until they meet one of them at a
// warp-synchronous instruction (catch_up).
void acquire_for_lanes(Block& b, Warp& w, uint32_t lanes, const bugs::VectorClock& from);
// Lanes `lanes` of w met at a warp-synchronous instruction: lagging ones among
// them that met a lane that knows more know it too.
void catch_up(Warp& w, uint32_t lanes);

// mbarrier phases (barriers.cpp), also completed by bulk copies landing (bulk_copy.cpp).
void resume_waiter(Block& b, Warp& w, uint64_t release, Stall why);
void try_complete_phase(Block& b, uint32_t addr, MbarState& m, uint64_t t, int releaser, const char* file, int line,
                        const std::string& who);
// A bulk copy's bytes landing on the mbarrier at `addr` at cycle t ("copier": what the copy knew).
void land_bytes(Block& b, uint32_t addr, uint64_t bytes, const bugs::VectorClock& copier, uint64_t t, int issuer, const char* file,
                int line, const std::string& who);
// After the block: bytes that landed with no expect_tx to count them are a fault.
void check_transactions_settled(const Block& b);

class Executor {
public:
    Executor(Block& b, Warp& w, uint32_t mask) : b_(b), w_(w), mask_(mask), cost_(*b.cost) {
        first_ = std::countr_zero(mask);
        t0_ = w.lanes[first_];
        op0_ = t0_->pending;
        t_ = begun_ = w.clock;
    }
    void run();

private:
    Block& b_;
    Warp& w_;
    uint32_t mask_;            // the lanes executing it
    const CostModel& cost_;
    int first_ = 0;            // the first of them, its thread and its operands
    Thread* t0_ = nullptr;
    LaneOp* op0_ = nullptr;
    uint64_t t_ = 0;           // the cycle the instruction can issue
    uint64_t begun_ = 0;       // the warp's clock when it came to the instruction, before any wait in it
    int ev_ = 0;               // its event
    uint32_t seq_ = 0;         // the warp's instruction number
    uint32_t site_ = 0;        // the instruction, as findings name it

    // ---- what every handler uses (executor.cpp, and inline here)
    LaneOp& lane_op(int l) { return *w_.lanes[l]->pending; }
    Thread& lane(int l) { return *w_.lanes[l]; }
    template <class F> void for_lanes(F&& f) {
        for (uint32_t m = mask_; m; m &= m - 1) f(std::countr_zero(m));
    }
    BlockTrace& trace() { return b_.hooks.trace(); }

    // Who lane l is to the race finder: its warp, with what the lane knows.
    bugs::Accessor lane_accessor(int l) const {
        return {w_.id, l, w_.hb.empty() ? 0u : w_.hb[size_t(w_.id)], seq_, (w_.lag_lanes >> l & 1) ? &w_.hb_lag : &w_.hb, site_};
    }
    // A shared-memory access by `who` at thread t's kernel line, shown to the finders
    // (`atomic`: an atomic read-modify-write, which races with plain accesses only).
    void access(const bugs::Accessor& who, uint32_t addr, uint32_t bytes, bool write, const Thread& t, bool atomic = false) {
        b_.hooks.access(who, addr, bytes, write, op0_->op, t.kfile, t.kline, t.ids.block, false, t.allow_uninit > 0, atomic);
    }
    // A read of global memory in `al`: every byte must have been written (by an upload or a kernel).
    // `atomic`: the read is an atomic's (atom/red), which adds to (or
    // compares with) the old value: the fix is to initialise it first.
    void check_global_written(const Thread& t, const Allocation& al, uintptr_t a, uint64_t bytes, const char* what, bool atomic = false);

    // Waits before issue; the event keeps the reason that cost the most, the
    // totals each part's (charge_stall).
    void wait_until(uint64_t when, Stall why) {
        if (when <= t_) return;
        charge_stall(trace(), w_, ev_, why, when - t_);
        t_ = when;
    }
    // Registers a load fills (`regs` per lane) are ready at `ready`: the next
    // instruction that reads them waits. Until then they hold registers of
    // their own, tile or not (the register estimate counts the most at once).
    // `reg_tile`: the register sub-tile a tile op's ldmatrix fills (Warp::loaded_tiles).
    void note_load(uint64_t ready, Stall why, uint32_t regs, const void* reg_tile = nullptr) {
        if (ready > w_.load_ready) { w_.load_ready = ready; w_.load_stall = why; }
        if (reg_tile) {
            auto& tiles = w_.loaded_tiles;
            std::erase_if(tiles, [&](const Warp::LoadedTile& e) { return e.ready <= t_; });  // landed: nothing waits for them
            auto same = std::find_if(tiles.begin(), tiles.end(), [&](const Warp::LoadedTile& e) { return e.tile == reg_tile && e.lane == first_; });
            if (same == tiles.end()) tiles.push_back({reg_tile, first_, ready, why});
            else if (ready > same->ready) { same->ready = ready; same->why = why; }
        } else if (ready > w_.other_loads_ready) {
            w_.other_loads_ready = ready;
            w_.other_loads_stall = why;
        }
        w_.loaded_regs += regs;
        if (w_.loaded_regs > w_.peak_loaded_regs) w_.peak_loaded_regs = w_.loaded_regs;
    }
    // When the registers the instruction reads have landed, and the stall
    // until then: an mma naming its operands' register sub-tiles waits for
    // the loads into those and for loads no sub-tile names; any other reader
    // for every load in flight.
    std::pair<uint64_t, Stall> operands_ready() const {
        const LaneOp& o = *op0_;
        if (o.op != Op::mma || !o.reg_tile[0] || !o.reg_tile[1]) return {w_.load_ready, w_.load_stall};
        std::pair<uint64_t, Stall> r{w_.other_loads_ready, w_.other_loads_stall};
        for (const Warp::LoadedTile& e : w_.loaded_tiles)  // another first lane: its sub-tiles are not comparable
            if ((e.tile == o.reg_tile[0] || e.tile == o.reg_tile[1] || e.lane != first_) && e.ready > r.first) r = {e.ready, e.why};
        return r;
    }
    // A global-memory instruction's site (kernel line and op): a new tile op
    // call there (outside one, each instruction is a call of its own) is
    // another visit; the register estimate counts the addresses of the sites
    // visited most (finish_block).
    void visit_global_site(Op op) {
        if (op != Op::ld_global && op != Op::st_global && op != Op::cp_async && op != Op::atom_global && op != Op::red_global) return;
        Warp::GlobalSite& s = w_.global_sites[site_];
        if (s.visits == 0 || s.seq != t0_->op_seq || t0_->op_depth == 0) {
            s.seq = t0_->op_seq;
            ++s.visits;
            s.in_visit = 0;
        }
        s.per_visit = std::max(s.per_visit, ++s.in_visit);
    }
    // Shared-memory pipe: wavefronts queue behind other warps' wavefronts.
    // The warp issues at once while few of its instructions wait for the
    // pipe (its data, later, is short_scoreboard); with mio_queue_high
    // waiting, it waits until only mio_queue_low are (mio_throttle). Returns
    // when the instruction's last wavefront leaves the pipe. `queued` false:
    // an ldmatrix, which no queue of the warp's holds back (the H100 issues 24
    // back-to-back 8-way-conflicted ldmatrix.x4 a warp, one warp per
    // sub-partition, in 90 cycles, where 12 such ld.shared take 975:
    // results/calibration_mio_depth_h100.txt); it waits for the pipe only
    // through its data (short_scoreboard at the reader).
    uint64_t use_smem_pipe(int wavefronts, bool queued = true) {
        SmPipes& sm = *b_.sm;
        const int high = queued ? cost_.mio_queue_high : -1;
        if (high == 0) wait_until(sm.smem_free, Stall::mio_throttle);
        uint64_t start = std::max(t_, sm.smem_free);
        if (high > 0) {
            // The ring holds the warp's last `high` start times, oldest at
            // mio_next. Starts only grow, so all `high` still wait exactly
            // when the oldest does: then wait until `low` are left.
            if (w_.mio_start[w_.mio_next] > t_) {
                wait_until(w_.mio_start[(w_.mio_next + high - 1 - cost_.mio_queue_low) % high], Stall::mio_throttle);
                start = std::max(t_, sm.smem_free);
            }
            w_.mio_start[w_.mio_next] = start;
            w_.mio_next = uint8_t((w_.mio_next + 1) % high);
        }
        const uint64_t end = start + uint64_t(wavefronts) * cost_.shared_cycles_per_wavefront;
        sm.smem_free = end;
        return end;
    }
    // The SM's paths and shares of the memory's bandwidth (sim/README.md,
    // "Global memory"): a load of `bytes` issued at `from` comes through the
    // SM's read path and its shares of L2's (and, for data in DRAM, DRAM's)
    // bandwidth, each after the traffic before it, and arrives `latency`
    // after the last; returns when. `tma`: a bulk tensor copy's, whose
    // share of L2's bandwidth is its own (cost_model.h).
    uint64_t load_arrives(uint64_t from, uint64_t bytes, int latency, bool from_dram, bool tma = false) {
        const MemoryPath& m = b_.memory;
        const double clock = b_.sm->tensor_clock ? m.tensor_clock_scale : 1.0;
        double through = take(b_.sm->read_port_free, from, bytes, from_dram ? m.dram_read_port : m.read_port);
        through = std::max(through, take(b_.sm->l2_free, from, bytes, (tma ? m.l2_tma_read : m.l2_read) * clock));
        if (from_dram) through = std::max(through, take(b_.sm->dram_free, from, bytes, m.dram_read * clock));
        return uint64_t(through + 0.5) + uint64_t(latency);
    }
    // A store of `bytes` issued at `from` leaves through the SM's write path
    // (the warp's exit waits for that: the drain) and its share of L2's
    // bandwidth, and is acknowledged an L2 latency later (the kernel's end
    // waits for that, a block's exit does not: sim/README.md, "Stores
    // drain"). Written on to DRAM (a launch bigger than L2), it takes DRAM's
    // bandwidth from later loads, but nobody waits for that. Returns when it
    // has left the SM.
    uint64_t store_leaves(uint64_t from, uint64_t bytes) {
        const MemoryPath& m = b_.memory;
        const double clock = b_.sm->tensor_clock ? m.tensor_clock_scale : 1.0;
        const double left = take(b_.sm->write_port_free, from, bytes, m.write_port);
        const double through = std::max(left, take(b_.sm->l2_free, from, bytes, m.l2_write * clock));
        if (m.dram_writes) take(b_.sm->dram_free, from, bytes, m.dram_write * clock);
        w_.stores_done = std::max(w_.stores_done, uint64_t(left + 0.5));
        w_.stores_acknowledged = std::max(w_.stores_acknowledged, uint64_t(through + 0.5) + uint64_t(cost_.global_latency));
        return uint64_t(left + 0.5);
    }
    // `bytes` through a queue free from `free` at `rate` bytes a cycle, from
    // `from` on; returns when they are through. The simulator executes an SM's
    // instructions in the order their warps come to them, but an instruction
    // that first waits in itself (a store for its data) issues later: its
    // bytes join the queue as of when the warp came to it, so that the queue
    // never skips ahead to that later cycle and idles under the traffic of
    // others that come in between.
    double take(double& free, uint64_t from, uint64_t bytes, double rate) const {
        const double cost = double(bytes) / rate;
        free = std::max(free, double(std::min(from, begun_))) + cost;
        return std::max(free, double(from) + cost);
    }
    // The address arithmetic and checks nvcc adds around a tile op's memory
    // instruction (the cost model's "overhead"), issued before it.
    void issue_overhead(Op op);
    // A first-wave block's warp waits for the launch's parameters (constant_miss_cycles).
    void constants_fetched();
    enum class Hoisted { none, instruction, all };  // no arithmetic: for this instruction's addresses, or the whole call's
    Hoisted addresses_hoisted();
    void arithmetic_stalls(double issuing, double own, double slot);
    void note_pass(uint32_t addr, uint32_t phase);

    // Global memory traffic, in whole sectors: the executing lanes' accesses
    // of `bytes_per_lane` each; added to the block's total, which bounds the
    // launch's time by the memory's bandwidth (merge.cpp).
    uint64_t global_traffic(uint32_t bytes_per_lane);
    // The executing lanes' sectors (sector numbers, sorted, each once); returns how many.
    int global_sectors(uint32_t bytes_per_lane, uint64_t (&sectors)[64]);
    // The SM's load/store unit (global_memory.cpp): its turn for an
    // instruction, and its queue, which a full one makes the warp wait for.
    uint64_t lsu_take(double& free, uint64_t issued, double unit);
    void lsu_queue_wait(int lines);
    void lsu_queue_enter(uint64_t through, int lines);
    // 128-byte lines among sorted sectors.
    int lines_of(const uint64_t* sectors, int n) const;
    // An ld.global's data (its n sorted sectors) through the load/store unit and L1: when it arrives.
    uint64_t load_through_l1(uint64_t issued, const uint64_t* sectors, int n, int latency, bool from_dram, bool no_allocate);

    void begin_event(Op op);
    void finish_event();
    void record_smem(const BankAnalysis& ba, const uint32_t addr[32]);
    // Shared-memory traffic in 16-byte rows (bulk copies, wgmma's core matrices).
    void record_rows16(const std::vector<uint32_t>& rows);
    void record_registers();

    // ---- shared_memory.cpp
    void shared_memory(Op op);
    void shared_access(Op op);
    void matrix_access(Op op);

    // ---- math.cpp
    void math(Op op);
    void mma();
    void shfl();
    void alu();

    // ---- barriers.cpp
    void barriers(Op op);
    void barrier(Op op);
    void release_barrier(int id);
    MbarState& mbar_at(int l, uint32_t addr);
    MbarState& mbar_for_tx(int l, uint32_t addr, const std::string& what);
    void check_tx(int l, uint32_t addr, const MbarState& m);
    void try_complete_phase(int l, uint32_t addr, MbarState& m);
    void arrive(int l, uint32_t addr, MbarState& m, bool after_expect);
    void mbarrier(Op op);
    void expect_tx();

    // ---- global_memory.cpp
    void global_memory(Op op);
    void global_access(Op op);
    void cp_async();
    void cp_async_wait();

    // ---- atomics.cpp
    void atomics(Op op);
    void shared_atomic(bool returns);
    void global_atomic(bool returns);

    // ---- bulk_copy.cpp
    void bulk_copy(Op op);
    const TensorMap& tensor_map(int l);
    const Allocation& check_tensor_memory(int l, uintptr_t a, uint64_t bytes, uint64_t row);
    void check_copy_smem(int l, uint32_t addr, uint64_t bytes, uint32_t swizzle, const char* what);
    uint64_t use_copy_engine(uint64_t bytes, uint64_t& engine_done, bool load);
    void schedule(uint64_t when, std::function<void()> f);
    void tma_load();
    void tma_store();
    void bulk_commit();
    void bulk_wait();

    // ---- wgmma.cpp
    struct Descriptor { uint32_t start = 0, lbo = 0, sbo = 0, swizzle = 0; };  // PTX ISA, "Matrix Descriptor Format"
    void warpgroup(Op op);
    void check_full_warpgroup(const char* what);
    Descriptor decode_descriptor(uint64_t d, const char* which);
    uint32_t operand_address(const Descriptor& d, int mn, int k, bool mn_major, const char* which, uint64_t raw);
    void wgmma();
    void wgmma_commit();
    void wgmma_wait();
    void setmaxnreg();
};

} // namespace tklab::sim
