// The simulated state of one block while it runs: its threads (one fiber
// each), warps, barriers, mbarriers and shared memory, and where its records
// go. Internal to the simulator: the executors (sim/exec/), the scheduler and
// launch share it; kernels and the tile library never see it.
#pragma once
#include "sim/bug_finders/shared_shadow.h"
#include "sim/cuda_shim.h"
#include "sim/fiber_stack.h"
#include "sim/hooks.h"
#include "sim/simulator.h"

#include <boost/context/fiber.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tklab::sim {

struct Warp;
struct Block;

struct Thread {
    boost::context::fiber fib;    // this thread while it is parked
    boost::context::fiber sched;  // the scheduler, while this thread runs
    ThreadIds ids;
    Warp* warp = nullptr;
    int lane = 0;
    LaneOp* pending = nullptr;  // the instruction it is parked at
    const char* kfile = "";     // kernel line of that instruction
    int kline = 0;
    bool exited = false;
    int op_depth = 0;
    int allow_uninit = 0;  // tk::allow_uninitialized_reads alive in this thread
    uint32_t intrinsics[size_t(AluKind::count_)] = {};  // tk::arch intrinsic calls not yet charged

    const char* op_file = "";
    int op_line = 0;
    const char* op_name = nullptr;
    uint32_t op_seq = 0;
    int regs = 0, peak_regs = 0;
    const char* peak_file = "";
    int peak_line = 0;
    struct Alloc {
        const char* file; int line; int regs;
        const void* tile = nullptr;  // the register tile's address (when it said)
        // Holding one constant since its declaration or a fill: not counted
        // in `regs` until a word differs from `value` (count_written_constants).
        bool constant = false;
        uint32_t value = 0;
        bool operator==(const Alloc&) const = default;
    };
    std::vector<Alloc> live;       // register tiles and vectors alive now, oldest first (constant ones too)
    std::vector<Alloc> peak_live;  // and at the peak (those holding registers)
    // Declarations (file, line) of tiles filled from shared memory (reg_from_shared).
    std::vector<std::pair<const char*, int>> from_shared;
    uint32_t snapshots = 0;        // tk::snapshot calls so far (matches lanes' calls up)
    int region_depth = 0;          // tk::regions this thread is inside
    // How often this thread has begun each region marker (by its name and
    // line): a lane's n-th pass through a marker is its warp's n-th.
    std::map<std::pair<const char*, int>, uint32_t> region_passes;
    // Bulk stores (cp.async.bulk): a group's shared source read, and its global writes, done by these cycles.
    struct BulkGroup { uint64_t read = 0, done = 0; };
    BulkGroup bulk_open;                 // stores since the last commit
    std::vector<BulkGroup> bulk_groups;  // committed, oldest first
    std::exception_ptr error;
    FiberStack stack;            // its fiber's (sim/fiber_stack.h)
    uint32_t parked_op_seq = 0;  // op_seq when it last parked: a later op_line is newer than kline
};

// Register tiles that held one constant and now hold other values count
// their registers from now on, and the peak is taken again (kernel_api.cpp).
void count_written_constants(Thread& t, const char* file = nullptr, int line = 0);

enum class WarpState { runnable, at_barrier, at_mbarrier, done };

// cp.async copies: the source as read at issue, landed in shared memory by the
// wait_group that retires their group.
struct AsyncCopy { uint32_t smem; uint32_t bytes; uint8_t data[16]; uint8_t lane; uint32_t site; };
struct AsyncGroup {
    uint64_t complete = 0;
    uint32_t epoch = 0;  // the warp's cp.async agent's epoch for this group (the race finder's)
    std::vector<AsyncCopy> copies;
};

struct Warp {
    int id = 0;
    Block* block = nullptr;
    Thread* lanes[32] = {};
    uint32_t exists = 0;  // lanes the block has
    uint32_t live = 0;    // lanes that have not exited
    uint64_t clock = 0;
    uint64_t load_ready = 0;  // when outstanding loads have landed
    // The ldmatrix loads of tile ops still landing, by the register sub-tile
    // (its first lane's) each fills, and the other loads into registers: an
    // mma that names its operands' sub-tiles waits for theirs only, as the
    // GPU's scoreboards wait per register (ptxas starts the mma on the first
    // fragments while later ones load; Executor::operands_ready).
    struct LoadedTile { const void* tile = nullptr; int lane = 0; uint64_t ready = 0; Stall why = Stall::none; };
    std::vector<LoadedTile> loaded_tiles;
    uint64_t other_loads_ready = 0;
    Stall other_loads_stall = Stall::none;
    // When its last shared-memory instructions enter the pipe (a ring of
    // the cost model's mio_queue_high; mio_next is the oldest).
    uint64_t mio_start[kMaxMioQueue] = {};
    uint8_t mio_next = 0;
    uint32_t overhead_seq = 0;  // the tile op call (op_seq) whose per-call overhead was charged last
    // Global loads that count as issued together (global_memory.cpp): a tile
    // op's (key: its op_seq), or a kernel's own loop's whose loads only go on
    // to shared memory (key: the load's site, with bit 32 set). From when the
    // run's first load issued, how many it has, and whether a loop's run
    // still holds (the warp ran nothing but st.shared since its last load).
    struct LoadRun {
        uint64_t key = 0;
        uint64_t start = 0;
        uint32_t count = 0;
        bool open = false;
    } load_run;
    // Its global stores: when they have left the SM (its exit waits for that,
    // the drain) and when L2 has acknowledged them (the kernel's end waits).
    uint64_t stores_done = 0;
    uint64_t stores_acknowledged = 0;
    // Its last mma.sync results (first lane's accumulator address) and when
    // each is ready: an mma adding into one waits for it (the chain's latency).
    struct MmaResult { const void* acc = nullptr; uint64_t ready = 0; };
    static constexpr int kMmaResults = 16;  // more than a chain's latency over the pipe's interval
    MmaResult mma_results[kMmaResults] = {};
    uint8_t mma_next = 0;
    uint32_t loaded_regs = 0, peak_loaded_regs = 0;  // registers loads filled that nothing has read yet, per lane
    // Each global-memory instruction site (kernel line and op): how many
    // tile op calls reached it and the most instructions one call issued
    // there. The sites of the loop run most keep their addresses in
    // registers across it (the register estimate).
    struct GlobalSite { uint32_t visits = 0, per_visit = 0, in_visit = 0, seq = 0; };
    std::unordered_map<uint32_t, GlobalSite> global_sites;
    // Tile-op sites whose address arithmetic may be hoisted out of a loop
    // (Executor::addresses_hoisted): each instruction of the last call there
    // and of the current one, as its first lane's addresses and the shape of
    // the others' around them.
    struct AddressShape { uint64_t shape = 0; uint32_t in_tile = 0, tile = 0; const void* gptr = nullptr; };
    struct HoistSite {
        uint32_t seq = 0;  // the call (op_seq) `now` belongs to
        uint32_t calls = 0;
        std::vector<AddressShape> last, now;
        int64_t gshift = 0, stride = 0;  // how far the current call's global addresses moved, and the last call's
        bool recomputed = false;         // a call's addresses once changed otherwise: nvcc computes them each time
    };
    std::unordered_map<uint32_t, HoistSite> hoist_sites;
    Stall load_stall = Stall::none;
    WarpState state = WarpState::runnable;
    uint64_t wait_since = 0;
    int wait_event = -1;
    // Its instruction waits for loaded data past its clock: the warp yields
    // until the data is there (its clock moves on), so the other warps'
    // instructions of the cycles between take the issue slot and the pipes
    // first, as on the GPU. The instruction's event, and the clock it came to it at.
    bool yielded = false;
    int yield_event = -1;
    uint64_t yield_begun = 0;
    int split_event = -1;  // its event with stall parts (BlockTrace::stall_parts), if the latest
    int wait_bar = 0;
    uint32_t wait_addr = 0, wait_parity = 0;
    const char* wait_file = "";
    int wait_line = 0;
    Op last_op = Op::count_;         // the last instruction it executed, for reports
    // Its last instruction was an mbarrier.test_wait that found no lane's
    // phase complete: it polls (the scheduler's livelock finder), at this
    // barrier and parity (its first lane's).
    bool failed_poll = false;
    uint32_t poll_addr = 0, poll_parity = 0;
    // Its last mbarrier wait (or successful test_wait) that went on at once
    // because the barrier had completed no phase and it asked for parity 1,
    // "the phase before the first": the uninitialised-read message names it.
    struct FreshPass { uint32_t addr = 0; const char* file = ""; int line = 0; bool set = false; } fresh_pass;
    const char* last_file = "";
    int last_line = 0;
    AsyncGroup open;                 // cp.async not yet committed
    std::vector<AsyncGroup> groups;  // committed, oldest first
    uint16_t last_regs = 0;
    std::vector<Thread::Alloc> last_live;  // what the last register record listed
    uint64_t wgmma_open = 0;               // completion of the wgmmas since the last commit
    std::vector<uint64_t> wgmma_groups;    // committed wgmma groups' completions, oldest first
    std::vector<std::pair<uint32_t, bool>> maxnreg;  // setmaxnreg counts (and .inc) in program order
    // Bug finders: what this warp has acquired (its own entry: its epoch now),
    // its instruction count, and the epochs of its bulk copies and wgmma groups.
    bugs::VectorClock hb;
    // Lanes that have not acquired everything hb holds: some lanes waited on
    // an mbarrier (one elected lane, say) and these did not, nor met them at
    // a warp-synchronous instruction since. They see hb_lag, the warp's
    // knowledge before that wait. (Two clocks, not 32: a lane can be credited
    // with more than it acquired -- a race missed, never one invented.)
    bugs::VectorClock hb_lag;
    uint32_t lag_lanes = 0;
    uint32_t wait_lanes = 0;  // the lanes of the mbarrier wait it is parked at
    uint32_t seq = 0;
    uint32_t copies = 0;                      // bulk copies issued (each its own epoch of the copy engine agent)
    uint32_t wgmma_commits = 0;               // the open wgmma group is epoch wgmma_commits + 1; committed ones count up to it
    uint32_t cp_async_commits = 0;            // the open cp.async group is epoch cp_async_commits + 1
};

// Where a launch's global accesses are served (sim/README.md, "Global
// memory"): L2 when the buffers it can read fit there, else DRAM. Set once
// per launch, the same for every block.
struct MemoryPath {
    bool dram = false;            // loads come from DRAM
    uint64_t footprint = 0;       // bytes of the launch's buffers
    uint64_t read_footprint = 0;  // of them, the buffers holding data (anything written them)
    int tma_latency = 0;          // a bulk tensor load's: DRAM's when the data is there, else L2's
    bool dram_writes = false;     // its buffers together exceed L2: what it writes goes on to DRAM
    // When its data is in DRAM, a buffer of more than half the L2 is read
    // from DRAM; smaller ones, read again and again (a table, a weight
    // vector), stay in L2 while the big ones stream past them.
    uint64_t streamed_above = UINT64_MAX;
    bool streamed(uint64_t buffer_bytes) const { return buffer_bytes > streamed_above; }
    // Bytes per cycle (sim/README.md, "Global memory"). An SM's own paths: what
    // one SM alone reads from L2 and from DRAM, and writes.
    double read_port = 1, dram_read_port = 1, write_port = 1;
    // Its share of the levels' bandwidth, by how many SMs the launch keeps
    // busy: reads and writes take turns at it, each at its own rate.
    double l2_read = 1, l2_write = 1, dram_read = 1, dram_write = 1;
    double l2_tma_read = 1;  // a bulk tensor copy's reads: L2 serves those faster
    // L2 and DRAM keep their own clocks when the SMs' drops for the tensor
    // cores (sim/arch/README.md, "The clock"): an SM running at
    // tensor_clock_mhz gets this many times the shares above per cycle.
    double tensor_clock_scale = 1;
};

struct BarrierState {
    int expected = 0;  // threads; 0 = idle
    int arrived = 0;
    uint64_t last_arrival = 0;
    int last_warp = 0;
    std::vector<int> waiters;
    uint32_t arrived_warps = 0;        // which warps arrived in this generation
    const char* first_file = "";       // the first arrival's kernel line
    int first_line = 0;
    bugs::VectorClock clock;           // the arrivals' clocks, joined
};

struct MbarState {
    uint32_t expected = 0;
    uint32_t pending = 0;
    uint32_t phase = 0;  // completed phases
    // Transaction bytes the current phase still waits for: expect_tx adds,
    // a bulk copy's completion subtracts (negative: bytes landed before they
    // were expected). The phase completes when pending == 0 and tx == 0.
    int64_t tx = 0;
    uint64_t in_flight = 0;  // bytes of bulk copies issued on it that have not landed
    const char* copy_file = "";  // kernel line of the last bulk copy issued on it
    int copy_line = 0;
    const char* expect_file = "";  // kernel line of the last expect_tx on it
    int expect_line = 0;
    const char* init_file = "";  // where it was initialised
    int init_line = 0;
    uint32_t arrivers = 0;       // warps that have arrived on it (or expected bytes), ever: the wait-for picture
    bugs::VectorClock clock;      // the current phase's arrivals and copies, joined
    bugs::VectorClock completed;  // what the last completed phase released
};

// The thread whose fiber runs now on this host thread (null outside a kernel).
// constinit: no dynamic initialisation, so other files read it directly
// rather than through a TLS wrapper call (it is read at every instruction).
extern constinit thread_local Thread* g_cur;

// Per-block interning of source locations and op names by pointer; turned into
// run-wide ids in block order after the run, so ids never depend on threads.
struct Interner {
    std::unordered_map<uint64_t, uint32_t> map;
    std::vector<std::pair<const char*, int>> list{{"", 0}};
    uint32_t operator()(const char* f, int line) {
        uint64_t key = (uint64_t(uintptr_t(f)) << 20) ^ uint64_t(uint32_t(line));
        auto [it, fresh] = map.try_emplace(key, uint32_t(list.size()));
        if (fresh) list.emplace_back(f, line);
        else if (list[it->second].first != f || list[it->second].second != line) {
            // Hash collision (different pointer/line, same key): fall back to a linear search.
            for (uint32_t i = 1; i < list.size(); ++i)
                if (list[i].first == f && list[i].second == line) return i;
            list.emplace_back(f, line);
            return uint32_t(list.size() - 1);
        }
        return it->second;
    }
};

struct BlockResult {
    BlockTrace trace;
    Interner locs, names;  // names uses the line field as 0
    // Declarations named by RegRecord::live: their own table, so that
    // recording them never changes the ids the run's other locations get.
    Interner decls;
    // Regions' names and lines, also their own tables, interned after the
    // others, so markers leave the ids of instructions and op names as they were.
    Interner region_names, region_locs;
    std::exception_ptr error;
    std::atomic<bool> finished{false};  // ran to its end or failed; ready to hand on in order
};

// An SM's L1 (sim/README.md, "L1"): 128-byte lines in sets of
// kWays, the least recently used out; each sector holds the cycle its data
// arrives, so a load of a sector still on its way waits for it. Without
// configure() it holds nothing and every load misses.
struct L1Cache {
    static constexpr int kWays = 4;
    static constexpr uint64_t kLineBytes = 128;
    struct Line {
        uint64_t tag = ~uint64_t(0), used = 0;
        uint64_t ready[4] = {};
        uint8_t valid = 0;  // a bit per 32-byte sector
    };
    std::vector<Line> lines;  // sets x kWays
    uint64_t sets = 0, tick = 0;
    void configure(int64_t bytes) {
        sets = bytes > 0 ? uint64_t(bytes) / (kLineBytes * kWays) : 0;
        lines.assign(size_t(sets * kWays), Line{});
    }
    // The line holding `line` (an address / 128), or null.
    Line* find(uint64_t line) {
        if (sets == 0) return nullptr;
        Line* set = &lines[size_t((line % sets) * kWays)];
        for (int w = 0; w < kWays; ++w)
            if (set[w].tag == line) { set[w].used = ++tick; return &set[w]; }
        return nullptr;
    }
    // The line for `line`, found or put in place of the set's least recently used.
    Line* fill(uint64_t line) {
        if (sets == 0) return nullptr;
        if (Line* l = find(line)) return l;
        Line* set = &lines[size_t((line % sets) * kWays)];
        Line* out = &set[0];
        for (int w = 1; w < kWays; ++w)
            if (set[w].used < out->used) out = &set[w];
        *out = Line{};
        out->tag = line;
        out->used = ++tick;
        return out;
    }
};

// What the blocks resident on one SM share (sim/README.md, "The SM"): its
// shared-memory pipe, the tensor pipe of each sub-partition, the bulk
// copy engine, the load/store unit and L1. Blocks simulated together hold
// one of these.
struct SmPipes {
    uint64_t smem_free = 0;         // the shared-memory pipe's next free cycle
    uint64_t tensor_free[4] = {};   // each sub-partition's tensor pipe
    uint64_t copy_engine_free = 0;  // the bulk copy engine's (TMA's) next free cycle
    int tensor_last[4] = {-1, -1, -1, -1};  // the SM warp slot that last issued on each tensor pipe
    double issue_free[4] = {};              // each sub-partition's issue slot, as the register arithmetic fills it
    // Global memory traffic (MemoryPath): the SM's read and write paths, and
    // its shares of L2's and DRAM's bandwidth, each free from this cycle on.
    double read_port_free = 0, write_port_free = 0, l2_free = 0, dram_free = 0;
    double lsu_free = 0;        // the load/store unit, which takes every ld.global in turn
    double lsu_store_free = 0;  // and every st.global, at their own rate beside the loads
    // The global instructions in the unit's queue, in the order they came:
    // when each is through it, and its lines (Executor::lsu_queue_wait).
    struct LsuEntry { uint64_t through = 0; int lines = 0; };
    std::deque<LsuEntry> lsu_queue;
    int lsu_queued_lines = 0;
    L1Cache l1;
    // When the kernel's parameters are in its constant cache: 0 until the
    // first warp of a first-wave block asks for them (Executor::run).
    uint64_t constants_ready = 0;
    // It has issued tensor-core instructions (mma.sync, wgmma): from then on
    // it runs at the launch's tensor clock (MemoryPath::tensor_clock_scale).
    bool tensor_clock = false;
};

struct Block {
    const CostModel* cost = nullptr;
    BlockResult* out = nullptr;
    std::vector<Thread> threads;
    std::vector<Warp> warps;
    char* smem = nullptr;
    size_t smem_bytes = 0;
    SmPipes* sm = nullptr;  // the SM's pipes, shared with the blocks resident beside it
    int warp_base = 0;      // its first warp's slot on the SM: warp w is on sub-partition (warp_base + w) % 4
    bool first_wave = false;  // one of the launch's first blocks on its SM, started with every other SM's (dealt a dispatch round apart)
    BarrierState bars[16];
    // Each barrier's last released round: who arrived, where, and its count
    // (a count smaller than the warps that use it shows as a second round of
    // other warps at the same line).
    struct BarrierRound { uint32_t warps = 0; const char* file = ""; int line = 0; int expected = 0; };
    BarrierRound last_round[16];
    std::unordered_map<uint32_t, MbarState> mbars;
    // Global memory (launch.cpp, memory_path): where the launch's data comes
    // from. The bandwidth the blocks share bounds the launch's time (merge.cpp).
    MemoryPath memory;
    // Asynchronous completions (bulk tensor loads landing), ordered by
    // simulated time, then by issue order: the scheduler fires each before
    // running a warp whose clock has passed it.
    std::map<std::pair<uint64_t, uint64_t>, std::function<void()>> async;
    uint64_t async_seq = 0;
    std::string kernel;
    bool snapshots = false;  // gather tk::snapshot values
    // Snapshots being gathered, per warp: lanes call in program order, so a
    // lane's n-th call belongs to its warp's n-th snapshot.
    struct PendingSnapshot {
        uint32_t nth;              // the warp's call number
        size_t index;              // BlockTrace::snapshots index
        bool shared;               // a shared tile: its first lane writes it all
        uint32_t lanes_seen = 0;   // lanes that have given their part
    };
    std::vector<std::vector<PendingSnapshot>> pending_snapshots;  // by warp
    // Regions some live lanes of the warp have not entered yet: (name, line,
    // pass) -> BlockTrace::regions index.
    using RegionKey = std::tuple<const char*, int, uint32_t>;
    std::vector<std::map<RegionKey, size_t>> pending_regions;  // by warp
    // Lanes that entered and left each region (by BlockTrace::regions index):
    // its warp's last lane to leave closes it.
    struct RegionLanes { uint32_t entered = 0, left = 0; };
    std::vector<RegionLanes> region_lanes;
    Hooks hooks;  // the bug finders and the block's records: every instruction reaches them through it
    Options::Checks checks;
    // Run before the launch only to learn what registers its blocks take
    // (launch.cpp, probe_blocks_per_sm): its global stores are dropped.
    bool probe = false;
};

// When the launch's parameters are in block b's SM's constant cache, for a
// warp of b at `clock` that has issued nothing yet (sim/README.md, "The
// constant cache"): the SM's fetch, which the first warp to ask starts;
// `clock` itself where nothing is fetched (a later wave's block, or a cost
// model without the miss).
inline uint64_t constants_ready(Block& b, uint64_t clock) {
    if (b.cost->constant_miss_cycles <= 0 || !b.first_wave) return clock;
    uint64_t& ready = b.sm->constants_ready;
    if (ready == 0) ready = clock + uint64_t(b.cost->constant_miss_cycles);
    return std::max(clock, ready);
}

// Adds `cycles` of stall `why` to warp w's event `ev` in `bt`. The event
// names the reason that cost it the most, or this one whatever it cost
// (`name`: a barrier's release names the wait); a second reason splits it
// into parts (BlockTrace::stall_parts).
inline void charge_stall(BlockTrace& bt, Warp& w, int ev, Stall why, uint64_t cycles, bool name = false) {
    if (cycles == 0) return;
    Event& e = bt.events[size_t(ev)];
    if (w.split_event != ev && e.stall_cycles > 0 && e.stall != why) {
        bt.stall_parts.push_back({uint32_t(ev), e.stall_cycles, e.stall});
        w.split_event = ev;
    }
    if (w.split_event == ev) bt.stall_parts.push_back({uint32_t(ev), uint32_t(cycles), uint8_t(why)});
    if (name || e.stall == Stall::none || cycles > e.stall_cycles) e.stall = uint8_t(why);
    e.stall_cycles += uint32_t(cycles);
}

} // namespace tklab::sim
