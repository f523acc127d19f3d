// Launch: a grid's blocks run on host threads (each block on one, its
// threads as fibers there), are handed on in block order to the merger and
// the observer (the trace recorder), and the first failing block's error is
// the launch's. Also the options, the cost models, and the SM count kernels ask for.
#include "sim/simulator.h"

#include "sim/compiler_figures.h"
#include "sim/memory.h"
#include "sim/merge.h"
#include "sim/scheduler.h"
#include "sim/sm.h"
#include "sim/state.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <iostream>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace tklab::sim {

Options& options() {
    static Options o;
    return o;
}

namespace {

const CostModel& cost_model(const std::string& name) {
    static std::mutex mu;
    static std::map<std::string, std::unique_ptr<CostModel>> cache;
    std::lock_guard lk(mu);
    auto& slot = cache[name];
    if (!slot) slot = std::make_unique<CostModel>(CostModel::load(name));
    return *slot;
}

struct AlignedBuffer {
    char* p = nullptr;
    size_t n = 0;
    void ensure(size_t bytes) {
        if (bytes <= n) return;
        std::free(p);
        n = (bytes + 1023) / 1024 * 1024;
        p = static_cast<char*>(std::aligned_alloc(1024, n));
    }
    ~AlignedBuffer() { std::free(p); }
};

// Regions still open when the block stops (a fault, or a lane that never left)
// end where their warp's clock stands, and stay marked open.
void end_open_regions(Block& b) {
    for (RegionRecord& r : b.out->trace.regions)
        if (r.open) r.end = std::max(r.end, b.warps[r.warp].clock);
}

// A block that started at `start` on its SM's clock (a slot another block
// left): its trace counts from its own start, as every block's does.
void shift_block_times(BlockTrace& t, uint64_t start) {
    if (start == 0) return;
    auto back = [start](uint64_t& c) { c = c > start ? c - start : 0; };
    back(t.cycles);
    for (Event& e : t.events) back(e.issue), back(e.done);
    for (BarrierRecord& b : t.barriers) back(b.arrive), back(b.release);
    for (RegRecord& r : t.regs) back(r.cycle);
    for (SnapshotRecord& s : t.snapshots) back(s.cycle);
    for (RegionRecord& r : t.regions) back(r.begin), back(r.end);
}

// Waves of one SM simulated in one stream (sm.h): the overlap of consecutive
// waves is lost only between streams, and the blocks held until those before
// them are handed on stay about this many waves' worth.
constexpr int kStreamWaves = 2;

// A block ready to run: its threads, warps, shared memory and bug finders.
// `smem` and `shadow` are its own while it runs (each block resident on the
// SM beside it has others).
void set_up_block(Block& b, const std::string& kernel, uint32_t linear, Dim3 grid, Dim3 block_dim, size_t smem_bytes, const CostModel& cost,
                  const MemoryPath& memory, const Options::Checks& checks, SmPipes& sm, AlignedBuffer& smem, bugs::SharedShadow& shadow,
                  BlockResult& out) {
    b.cost = &cost;
    b.sm = &sm;
    b.memory = memory;
    b.out = &out;
    b.kernel = kernel;
    b.smem_bytes = smem_bytes;
    b.snapshots = options().snapshots && out.trace.timeline;
    smem.ensure(std::max<size_t>(smem_bytes, 16));
    b.smem = smem.p;
    // Uninitialised shared memory holds garbage on the GPU; all-ones bytes read
    // as NaN, so a kernel that reads before writing fails its check visibly.
    std::memset(b.smem, 0xff, smem_bytes);
    Dim3 bi{linear % grid.x, (linear / grid.x) % grid.y, linear / (grid.x * grid.y)};
    out.trace.block = bi;
    out.trace.index = linear;
    const unsigned nthreads = block_dim.x * block_dim.y * block_dim.z;
    const unsigned nwarps = (nthreads + 31) / 32;
    b.threads.resize(nthreads);
    b.warps.resize(nwarps);
    for (unsigned w = 0; w < nwarps; ++w) { b.warps[w].id = int(w); b.warps[w].block = &b; }
    // The bug finders' state: the host thread's shadow of shared memory
    // (reused block after block); each warp starts in its first epoch. The
    // finders and the block's records attach to the instructions through its hooks.
    b.checks = checks;
    bugs::SharedShadow* finders = nullptr;
    if (b.checks.races || b.checks.uninit) {
        shadow.begin_block(smem_bytes, int(nwarps), b.checks.races, b.checks.uninit);
        finders = &shadow;
        for (Warp& w : b.warps) {
            w.hb.assign(size_t(shadow.agents().count()), 0u);
            w.hb[size_t(w.id)] = 1;
        }
    }
    b.hooks.attach(&b, &out.trace, finders);
    b.pending_snapshots.resize(nwarps);
    b.pending_regions.resize(nwarps);
    for (unsigned i = 0; i < nthreads; ++i) {
        Thread& t = b.threads[i];
        t.ids.thread = dim3(i % block_dim.x, (i / block_dim.x) % block_dim.y, i / (block_dim.x * block_dim.y));
        t.ids.block = dim3(bi.x, bi.y, bi.z);
        t.ids.block_dim = dim3(block_dim.x, block_dim.y, block_dim.z);
        t.ids.grid_dim = dim3(grid.x, grid.y, grid.z);
        Warp& w = b.warps[i / 32];
        t.warp = &w;
        t.lane = int(i % 32);
        w.lanes[t.lane] = &t;
        w.exists |= 1u << t.lane;
        w.live |= 1u << t.lane;
    }
}

// Waits a stopped block's warps were still in (a deadlock, or a fault in
// another warp): recorded as open, to the cycle the block had reached, so a
// failed run's trace shows them. Their instructions' events end there too.
void record_open_waits(Block& b, uint64_t reached) {
    for (Warp& w : b.warps) {
        if (w.state != WarpState::at_barrier && w.state != WarpState::at_mbarrier) continue;
        BarrierRecord r;
        r.arrive = w.wait_since;
        r.release = std::max(reached, w.wait_since);
        r.warp = r.last_warp = uint16_t(w.id);
        r.mbarrier = w.state == WarpState::at_mbarrier;
        r.id = uint8_t(w.wait_bar);
        r.address = w.wait_addr;
        if (r.mbarrier)
            if (auto it = b.mbars.find(w.wait_addr); it != b.mbars.end()) r.phase = it->second.phase;
        r.loc = b.out->locs(w.wait_file, w.wait_line);
        r.open = true;
        b.hooks.barrier_wait(r);
        if (w.wait_event >= 0 && size_t(w.wait_event) < b.out->trace.events.size()) b.out->trace.events[size_t(w.wait_event)].done = r.release;
    }
}

// A block that ended (ran to its end, or stopped with an error): its register peaks into its trace.
void finish_block(Block& b, const CostModel& cost) {
    BlockResult& out = *b.out;
    end_open_regions(b);
    out.trace.warp_peak_regs.resize(b.warps.size());
    for (const Warp& w : b.warps) out.trace.peak_loaded_regs = std::max(out.trace.peak_loaded_regs, int(w.peak_loaded_regs));
    // The hottest loop's global-memory instructions per pass: their sites
    // are the ones visited most (and more than once); each keeps an address
    // in registers across the loop. And the longest straight run: the most
    // one call at a site issued, whose addresses the compiler computes
    // before the first (sim/README.md, "Registers").
    for (const Warp& w : b.warps) {
        uint32_t most = 2, per_pass = 0;
        for (const auto& [site, st] : w.global_sites) {
            out.trace.run_addresses = std::max(out.trace.run_addresses, int(st.per_visit));
            if (st.visits < most) continue;
            if (st.visits > most) { most = st.visits; per_pass = 0; }
            per_pass += st.per_visit;
        }
        out.trace.loop_addresses = std::max(out.trace.loop_addresses, int(per_pass));
    }
    for (const Thread& t : b.threads) {
        uint16_t& peak = out.trace.warp_peak_regs[t.warp->id];
        peak = std::max<uint16_t>(peak, uint16_t(t.peak_regs));
        if (t.peak_regs > out.trace.peak_regs) {
            out.trace.peak_regs = t.peak_regs;
            out.trace.peak_regs_loc = out.locs(t.peak_file, t.peak_line);
            out.trace.peak_live.clear();
            out.trace.peak_from_shared_regs = 0;
            for (const Thread::Alloc& a : t.peak_live) {
                out.trace.peak_live.push_back({out.locs(a.file, a.line), a.regs});
                if (std::find(t.from_shared.begin(), t.from_shared.end(), std::pair{a.file, a.line}) != t.from_shared.end())
                    out.trace.peak_from_shared_regs += a.regs;
            }
        }
    }
    // Register reallocation: the block then holds what its warps asked for.
    if (std::any_of(b.warps.begin(), b.warps.end(), [](const Warp& w) { return !w.maxnreg.empty(); })) {
        for (const Warp& w : b.warps) {
            const int own = w.maxnreg.empty() ? (cost.base_registers_per_thread + out.trace.warp_peak_regs[size_t(w.id)] + 7) / 8 * 8
                                              : int(w.maxnreg.back().first);
            out.trace.setmaxnreg_registers += 32 * own;
        }
    }
}

// Blocks of this launch resident on one SM at once, by threads, shared memory,
// the block limit and, when the compiler's figures are at hand, registers
// (the estimate is known only after the run: merge.cpp checks it then).
int blocks_per_sm_before_run(const CostModel& cost, unsigned threads, size_t smem_bytes, const std::optional<trace::CompilerFigures>& compiler) {
    int per_sm = std::min(cost.max_blocks_per_sm, cost.max_threads_per_sm / int(std::max(1u, threads)));
    if (smem_bytes) per_sm = std::min<int>(per_sm, int(cost.shared_bytes_per_sm / smem_bytes));
    if (compiler && compiler->registers > 0) per_sm = std::min(per_sm, blocks_per_sm_by_registers(cost, compiler->registers, 0, threads));
    return std::max(per_sm, 1);
}

// Standard output sent to /dev/null while one lives: the probe's printf()s
// would print block 0's lines twice.
class SilentStdout {
public:
    SilentStdout() {
        std::fflush(stdout);
        std::cout.flush();
        saved_ = ::dup(1);
        const int null = ::open("/dev/null", O_WRONLY);
        if (saved_ >= 0 && null >= 0) ::dup2(null, 1);
        if (null >= 0) ::close(null);
    }
    ~SilentStdout() {
        std::fflush(stdout);
        std::cout.flush();
        if (saved_ >= 0) {
            ::dup2(saved_, 1);
            ::close(saved_);
        }
    }
    SilentStdout(const SilentStdout&) = delete;
    SilentStdout& operator=(const SilentStdout&) = delete;

private:
    int saved_ = -1;
};

// Without the compiler's figures, registers are known only once a block has
// run. When they decide how many blocks share an SM (a grid with more blocks
// than SMs), block 0 runs first on its own, its global stores dropped, its
// bug finders off and its standard output silenced, and the blocks that fit
// beside it by the register estimate are what the launch simulates together.
// Anything that goes wrong in it is left for the real run to report.
int probe_blocks_per_sm(const std::string& kernel, Dim3 grid, Dim3 block_dim, size_t smem_bytes, const std::function<void()>& body,
                        const CostModel& cost, const MemoryPath& memory, int per_sm) {
    BlockResult out;
    out.trace.timeline = false;
    Block b;
    SmPipes pipes;
    AlignedBuffer smem;
    bugs::SharedShadow shadow;
    StackPool stacks(options().stack_bytes);
    set_up_block(b, kernel, 0, grid, block_dim, smem_bytes, cost, memory, Options::Checks{false, false, false}, pipes, smem, shadow, out);
    b.probe = true;
    BlockRunner runner(b, stacks, body);
    kernel_crash::guard_host_thread();
    try {
        const SilentStdout quiet;
        runner.run();
    } catch (...) {
        runner.unwind();
        return per_sm;
    }
    finish_block(b, cost);
    const unsigned threads = block_dim.x * block_dim.y * block_dim.z;
    const int regs = register_estimate(cost, register_use(out.trace), threads);
    return std::max(1, std::min(per_sm, blocks_per_sm_by_registers(cost, regs, out.trace.setmaxnreg_registers, threads)));
}

// The memory model (sim/README.md, "Global memory"): a launch whose data (the
// buffers anything has written: the only ones a correct kernel reads) fits
// in L2 finds it there, else in DRAM. Fresh buffers it only writes take no
// room from its reads; they still count in the DRAM bandwidth bound (merge.cpp).
// Each busy SM's share of each level's bandwidth, measured with every SM busy.
void share_bandwidth(MemoryPath& m, const CostModel& cost, uint64_t busy) {
    const double k = double(cost.sms) / double(std::max<uint64_t>(busy, 1));
    m.l2_read = cost.l2_bytes_per_cycle_per_sm * k;
    m.l2_tma_read = cost.tma_l2_bytes_per_cycle_per_sm * k;
    m.tensor_clock_scale = cost.clock_mhz / cost.tensor_clock_mhz;
    m.l2_write = cost.l2_write_bytes_per_cycle_per_sm * k;
    m.dram_read = cost.dram_bytes_per_cycle_per_sm * k;
    m.dram_write = cost.dram_write_bytes_per_cycle_per_sm * k;
}

// What of the SM's L1 and shared memory L1 keeps: the driver gives shared
// memory the smallest carveout that holds the resident blocks' (each with the
// 1 KiB the system reserves per block), as Nsight Compute's
// launch__shared_mem_config_size shows (results/l1_hits_h100.txt).
int64_t l1_bytes(const CostModel& cost, int per_sm, size_t smem_bytes) {
    const int64_t need = int64_t(per_sm) * (int64_t(smem_bytes) + 1024);
    int64_t carveout = int64_t(cost.shared_carveouts_kb.back()) * 1024;
    for (int kb : cost.shared_carveouts_kb)
        if (int64_t(kb) * 1024 >= need) { carveout = int64_t(kb) * 1024; break; }
    return std::max<int64_t>(0, cost.l1_shared_bytes_per_sm - carveout);
}

MemoryPath memory_path(const CostModel& cost) {
    MemoryPath m;
    const GlobalFootprint f = registered_footprint();
    m.footprint = f.data_bytes + f.fresh_bytes;
    m.read_footprint = f.data_bytes;
    m.dram = int64_t(m.read_footprint) > cost.l2_bytes;
    m.tma_latency = m.dram ? cost.tma_dram_latency : cost.tma_latency;
    m.dram_writes = int64_t(m.footprint) > cost.l2_bytes;
    if (m.dram) m.streamed_above = uint64_t(cost.l2_bytes) / 2;
    m.read_port = cost.l2_bytes_per_cycle_one_sm;
    m.dram_read_port = cost.dram_bytes_per_cycle_one_sm;
    m.write_port = cost.l2_write_bytes_per_cycle_one_sm;
    share_bandwidth(m, cost, 1);
    return m;
}

RunResult g_last;
Observer* g_observer = nullptr;

int host_threads() {
    int n = options().host_threads;
    if (n <= 0) {
        const char* env = std::getenv("TKLAB_SIM_THREADS");
        n = env ? std::atoi(env) : 1;
    }
    return std::max(1, n);
}

// Blocks resident on the whole GPU at once, by threads and shared memory
// (registers are known only after the run): the default timeline set.
uint64_t first_wave(const CostModel& cost, unsigned threads, size_t smem_bytes, const std::optional<trace::CompilerFigures>& compiler, uint64_t nblocks) {
    return std::min<uint64_t>(nblocks, uint64_t(blocks_per_sm_before_run(cost, threads, smem_bytes, compiler)) * uint64_t(cost.sms));
}
} // namespace

int simulation_threads() { return host_threads(); }

// The simulated GPU's SM count, from the (cached) cost model runs use.
int multiprocessors() { return options().sms > 0 ? options().sms : cost_model(options().arch).sms; }

void set_observer(Observer* o) { g_observer = o; }
Observer* observer() { return g_observer; }

const RunResult& last_run() { return g_last; }

const RunResult& launch(const std::string& kernel, Dim3 grid, Dim3 block, size_t smem_bytes, const std::function<void()>& body,
                        const void* kernel_code) {
    if (g_cur) throw SimError(ErrorKind::usage, "kernel " + kernel + " launched from inside a simulated kernel; launch from host code");
    const unsigned nthreads = block.x * block.y * block.z;
    const uint64_t nblocks = uint64_t(grid.x) * grid.y * grid.z;
    if (nthreads == 0 || nthreads > 1024 || nblocks == 0)
        throw SimError(ErrorKind::usage, "kernel " + kernel + ": launch shape has " + std::to_string(nthreads) +
                                             " threads per block and " + std::to_string(nblocks) +
                                             " blocks; a block holds 1..1024 threads and the grid at least one block");
    // The cost model, with the L1 model switched as the options say (a copy:
    // the cached one stays as its file says).
    CostModel cost = cost_model(options().arch);
    if (options().l1 >= 0) cost.l1_modelled = options().l1 == 1;
    if (!options().constant_miss) cost.constant_miss_cycles = 0;
    const size_t max_smem = 227 * 1024;
    if (smem_bytes > max_smem)
        throw SimError(ErrorKind::usage, "kernel " + kernel + " asks for " + std::to_string(smem_bytes) +
                                             " bytes of dynamic shared memory; a block can have at most " + std::to_string(max_smem));

    auto t_start = std::chrono::steady_clock::now();
    g_last = RunResult{};
    g_last.kernel = kernel;
    g_last.grid = grid;
    g_last.block = block;
    g_last.smem_bytes = smem_bytes;
    g_last.arch = cost.name;
    g_last.compiler = compiler_figures_for(kernel_code);
    g_last.first_wave_blocks = first_wave(cost, nthreads, smem_bytes, g_last.compiler, nblocks);
    MemoryPath memory = memory_path(cost);
    Observer* obs = g_observer;
    if (obs) obs->launch_begin(g_last, cost);
    const bool keep = options().keep_blocks;

    Merger merger(g_last);
    std::vector<BlockResult> results(nblocks);
    std::atomic<uint64_t> first_error{UINT64_MAX};
    std::mutex emit_mu;
    uint64_t next_emit = 0;  // guarded by emit_mu
    std::exception_ptr observer_error;
    // Hands finished blocks on in block order: merged into run-wide ids, given
    // to the observer, then kept or freed. A failed block is the last handed on.
    auto emit_ready = [&] {
        std::lock_guard lk(emit_mu);
        while (next_emit < nblocks && results[next_emit].finished.load()) {
            BlockResult& br = results[next_emit++];
            merger.add(br);
            if (obs && !observer_error) {
                try { obs->block_done(br.trace, g_last); } catch (...) { observer_error = std::current_exception(); }
            }
            if (keep) g_last.blocks.push_back(std::move(br.trace));
            br.trace = BlockTrace{};
            br.locs = Interner{};
            br.names = Interner{};
            br.decls = Interner{};
            if (br.error) next_emit = nblocks;
        }
    };
    // The SM model: blocks resident on one SM at once run together (sm.h).
    int per_sm = blocks_per_sm_before_run(cost, nthreads, smem_bytes, g_last.compiler);
    if (!g_last.compiler && per_sm > 1 && nblocks > uint64_t(multiprocessors()))
        per_sm = probe_blocks_per_sm(kernel, Dim3{grid.x, grid.y, grid.z}, block, smem_bytes, body, cost, memory, per_sm);
    const SmLayout layout = sm_layout(nblocks, multiprocessors(), per_sm);
    // Each busy SM's share of L2's and DRAM's bandwidth (sim/README.md, "Global memory").
    share_bandwidth(memory, cost, std::min<uint64_t>(std::max<uint64_t>(layout.groups(), 1), uint64_t(multiprocessors())));
    // One SM's blocks of up to kStreamWaves consecutive waves at a time, each
    // block starting in the slot another left as it leaves (sm.h).
    const std::vector<SmStream> streams = sm_streams(layout, multiprocessors(), kStreamWaves);
    const int64_t l1 = cost.l1_modelled ? l1_bytes(cost, per_sm, smem_bytes) : 0;
    std::vector<uint64_t> stream_cycles(streams.size());
    // Past its end, until L2 has acknowledged its blocks' stores: what the
    // SM's last stream adds to the kernel's time (earlier ones' next blocks
    // start at their exits).
    std::vector<uint64_t> stream_ack_tail(streams.size());
    const int slots = int(std::max<uint64_t>(layout.largest(), 1));
    // The first wave's blocks are dealt one at a time, one to each SM in
    // turn (launch.dispatch_cycles_per_block each): an SM's i-th block starts
    // i rounds after its first, so resident blocks do not run in lockstep.
    const double dispatch_round = cost.launch_dispatch_cycles_per_block * double(std::min<uint64_t>(nblocks, uint64_t(multiprocessors())));
    std::atomic<uint64_t> next_stream{0};
    auto worker = [&] {
        StackPool stacks(options().stack_bytes);
        // Each slot's shared memory and the bug finders' view of it, reused
        // block after block.
        std::vector<AlignedBuffer> smem(static_cast<size_t>(slots));
        std::vector<bugs::SharedShadow> shadow(static_cast<size_t>(slots));
        kernel_crash::guard_host_thread();  // a kernel's crash on this host thread becomes its SimError
        for (;;) {
            const uint64_t u = next_stream.fetch_add(1);
            if (u >= streams.size()) break;
            const SmStream& stream = streams[u];
            SmPipes pipes;
            pipes.l1.configure(l1);
            std::vector<std::unique_ptr<Block>> blocks(static_cast<size_t>(slots));
            std::vector<std::unique_ptr<BlockRunner>> runners(static_cast<size_t>(slots));
            std::vector<uint64_t> started(static_cast<size_t>(slots));
            uint64_t end = 0, acknowledged = 0;
            // A block's trace counts from its own start, as if it ran alone.
            auto handed_on = [&](size_t i, size_t j) {
                const uint64_t id = stream.blocks[i];
                end = std::max(end, results[id].trace.cycles);
                for (const Warp& w : blocks[j]->warps) acknowledged = std::max(acknowledged, w.stores_acknowledged);
                shift_block_times(results[id].trace, started[j]);
                runners[j].reset();
                blocks[j].reset();
                results[id].finished.store(true);
                emit_ready();
            };
            run_stream(
                stream.blocks.size(), slots,
                [&](size_t i, size_t j, uint64_t cycle) -> BlockRunner* {
                    // Blocks after a failed one are skipped; earlier ones still run, so the
                    // error reported is always the lowest-numbered failing block's.
                    const uint64_t id = stream.blocks[i];
                    if (id > first_error.load()) return nullptr;
                    BlockResult& out = results[id];
                    out.trace.timeline = !obs || obs->wants_timeline(id);
                    blocks[j] = std::make_unique<Block>();
                    set_up_block(*blocks[j], kernel, uint32_t(id), Dim3{grid.x, grid.y, grid.z}, block, smem_bytes, cost, memory, options().checks,
                                 pipes, smem[j], shadow[j], out);
                    blocks[j]->warp_base = int(j * blocks[j]->warps.size());
                    blocks[j]->first_wave = stream.first_wave && i < size_t(slots);
                    if (blocks[j]->first_wave) cycle += uint64_t(std::llround(dispatch_round * double(i)));
                    else cycle += uint64_t(cost.launch_block_turnaround_cycles);  // the SM retires the block before, then starts this one
                    for (Warp& w : blocks[j]->warps) w.clock = cycle;
                    started[j] = cycle;
                    runners[j] = std::make_unique<BlockRunner>(*blocks[j], stacks, body);
                    return runners[j].get();
                },
                [&](size_t i, size_t j) {
                    finish_block(*blocks[j], cost);
                    handed_on(i, j);
                },
                [&](size_t i, size_t j, std::exception_ptr e) {
                    // What it reached: its warps' clocks, the waits it stopped in and
                    // its register peaks, so a failed run's report and picture show
                    // what ran, not zero.
                    const uint64_t id = stream.blocks[i];
                    uint64_t reached = started[j];
                    for (const Warp& w : blocks[j]->warps) reached = std::max(reached, w.clock);
                    results[id].trace.cycles = reached;
                    record_open_waits(*blocks[j], reached);
                    end_open_regions(*blocks[j]);  // before unwinding: the unwound lanes leave them open
                    runners[j]->unwind();
                    finish_block(*blocks[j], cost);
                    results[id].error = e;
                    uint64_t cur = first_error.load();
                    while (id < cur && !first_error.compare_exchange_weak(cur, id)) {}
                    handed_on(i, j);
                },
                [&](size_t, size_t j) {
                    runners[j]->unwind();
                    runners[j].reset();
                    blocks[j].reset();
                });
            stream_cycles[u] = end;
            stream_ack_tail[u] = acknowledged > end ? acknowledged - end : 0;
        }
    };
    const int nt = int(std::min<uint64_t>(uint64_t(host_threads()), streams.size()));
    if (nt <= 1) worker();
    else {
        std::vector<std::thread> pool;
        for (int i = 0; i < nt; ++i) pool.emplace_back(worker);
        for (auto& th : pool) th.join();
    }
    emit_ready();

    // The busiest SM: its streams one after another; it is done when its last
    // block has exited and L2 has acknowledged the stores of its last stream.
    std::vector<uint64_t> sm_cycles(size_t(std::max(multiprocessors(), 1))), sm_tail(sm_cycles.size());
    for (size_t u = 0; u < streams.size(); ++u) {
        const size_t sm = std::min<size_t>(streams[u].sm, sm_cycles.size() - 1);
        sm_cycles[sm] += stream_cycles[u];
        sm_tail[sm] = stream_ack_tail[u];  // an SM's streams come in order: the last one's stays
    }
    for (size_t s = 0; s < sm_cycles.size(); ++s) sm_cycles[s] += sm_tail[s];
    const size_t busiest = size_t(std::max_element(sm_cycles.begin(), sm_cycles.end()) - sm_cycles.begin());
    merger.finish(cost, nthreads, nblocks, memory, int(layout.largest()), sm_cycles[busiest], sm_tail[busiest]);
    g_last.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
    const uint64_t err = first_error.load();
    std::exception_ptr error = err != UINT64_MAX ? results[err].error : nullptr;
    if (obs && !observer_error) {
        // The observer sees every failure as a SimError (other exceptions come from host code).
        std::optional<SimError> sim_error;
        if (error) {
            try { std::rethrow_exception(error); }
            catch (const SimError& e) { sim_error.emplace(e); }
            catch (const std::exception& e) { sim_error.emplace(ErrorKind::kernel_exception, e.what()); }
            catch (...) { sim_error.emplace(ErrorKind::kernel_exception, "unknown exception"); }
        }
        try { obs->launch_end(g_last, sim_error ? &*sim_error : nullptr); }
        catch (...) { observer_error = std::current_exception(); }
    }
    if (error) std::rethrow_exception(error);
    if (observer_error) std::rethrow_exception(observer_error);
    return g_last;
}


} // namespace tklab::sim
