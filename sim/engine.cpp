// The simulator's engine: one fiber per CUDA thread, lanes meeting at each
// instruction-layer call, warps scheduled in order of their simulated clocks,
// and one executor per instruction that performs it for the whole warp and
// records what the hardware would have done.
#include "sim/simulator.h"
#include "sim/banks.h"
#include "sim/bug_finders/shared_shadow.h"
#include "sim/cuda_shim.h"
#include "sim/fiber_stack.h"
#include "sim/kernel_crash.h"

#include <boost/context/fiber.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <sstream>
#include <thread>
#include <tuple>
#include <unordered_map>

namespace tklab::sim {
namespace ctx = boost::context;

// ---------------------------------------------------------------- names

const char* op_name(Op op) {
    switch (op) {
    case Op::ld_shared: return "ld.shared";
    case Op::st_shared: return "st.shared";
    case Op::ldmatrix: return "ldmatrix";
    case Op::stmatrix: return "stmatrix";
    case Op::mma: return "mma.sync";
    case Op::shfl: return "shfl.sync";
    case Op::bar_sync: return "bar.sync";
    case Op::bar_arrive: return "bar.arrive";
    case Op::syncwarp: return "bar.warp.sync";
    case Op::cp_async: return "cp.async";
    case Op::cp_async_commit: return "cp.async.commit_group";
    case Op::cp_async_wait: return "cp.async.wait_group";
    case Op::mbar_init: return "mbarrier.init";
    case Op::mbar_arrive: return "mbarrier.arrive";
    case Op::mbar_test_wait: return "mbarrier.test_wait";
    case Op::mbar_wait: return "mbarrier.wait";
    case Op::ld_global: return "ld.global";
    case Op::st_global: return "st.global";
    case Op::mbar_expect_tx: return "mbarrier.expect_tx";
    case Op::tma_load: return "cp.async.bulk.tensor.load";
    case Op::tma_store: return "cp.async.bulk.tensor.store";
    case Op::bulk_commit: return "cp.async.bulk.commit_group";
    case Op::bulk_wait: return "cp.async.bulk.wait_group";
    case Op::fence_proxy_async: return "fence.proxy.async";
    case Op::wgmma: return "wgmma.mma_async";
    case Op::wgmma_fence: return "wgmma.fence";
    case Op::wgmma_commit: return "wgmma.commit_group";
    case Op::wgmma_wait: return "wgmma.wait_group";
    case Op::setmaxnreg: return "setmaxnreg";
    case Op::count_: break;
    }
    return "?";
}

const char* stall_name(Stall s) {
    switch (s) {
    case Stall::none: return "none";
    case Stall::barrier: return "barrier";
    case Stall::mbarrier: return "mbarrier";
    case Stall::long_scoreboard: return "long_scoreboard";
    case Stall::short_scoreboard: return "short_scoreboard";
    case Stall::mio_throttle: return "mio_throttle";
    case Stall::math_pipe_throttle: return "math_pipe_throttle";
    case Stall::count_: break;
    }
    return "?";
}

Options& options() {
    static Options o;
    return o;
}

const char* error_kind_name(ErrorKind k) {
    switch (k) {
    case ErrorKind::fault: return "fault";
    case ErrorKind::deadlock: return "deadlock";
    case ErrorKind::divergence: return "divergence";
    case ErrorKind::kernel_exception: return "kernel_exception";
    case ErrorKind::usage: return "usage";
    case ErrorKind::instruction_limit: return "instruction_limit";
    case ErrorKind::race: return "race";
    case ErrorKind::uninitialized_read: return "uninitialized_read";
    case ErrorKind::sync_misuse: return "sync_misuse";
    }
    return "error";
}

// ---------------------------------------------------------------- global memory registry

namespace {
struct Allocation {
    uintptr_t base;
    size_t bytes;
    std::string name;
    // One bit per byte: written by the host (an upload) or by a kernel. Blocks
    // on several host threads may set bits of one byte at once: atomic.
    std::shared_ptr<uint8_t[]> written;
    void mark(uintptr_t a, size_t n) const {
        for (size_t i = a - base, end = i + n; i < end; ++i)
            std::atomic_ref<uint8_t>(written[i / 8]).fetch_or(uint8_t(1u << (i % 8)), std::memory_order_relaxed);
    }
    // The first byte of [a, a + n) nothing wrote, or none.
    std::optional<uintptr_t> first_unwritten(uintptr_t a, size_t n) const {
        for (size_t i = a - base, end = i + n; i < end; ++i)
            if (!(std::atomic_ref<uint8_t>(written[i / 8]).load(std::memory_order_relaxed) >> (i % 8) & 1)) return base + i;
        return std::nullopt;
    }
};
std::mutex g_alloc_mu;
std::map<uintptr_t, Allocation> g_allocs;  // read-only while a kernel runs (but for the written bits)
} // namespace

void register_global(const void* p, size_t bytes, const std::string& name) {
    std::lock_guard lk(g_alloc_mu);
    std::shared_ptr<uint8_t[]> written(new uint8_t[(bytes + 7) / 8]());
    g_allocs[uintptr_t(p)] = {uintptr_t(p), bytes, name, std::move(written)};
}
void unregister_global(const void* p) {
    std::lock_guard lk(g_alloc_mu);
    g_allocs.erase(uintptr_t(p));
}

namespace {
const Allocation* find_allocation(uintptr_t p, size_t bytes) {
    auto it = g_allocs.upper_bound(p);
    if (it == g_allocs.begin()) return nullptr;
    --it;
    const Allocation& a = it->second;
    if (p >= a.base && p + bytes <= a.base + a.bytes) return &a;
    return nullptr;
}

std::string describe_nearest_allocation(uintptr_t p) {
    auto it = g_allocs.upper_bound(p);
    std::ostringstream s;
    if (it != g_allocs.begin()) {
        auto prev = std::prev(it);
        const Allocation& a = prev->second;
        if (p >= a.base) s << "; it is " << (p - a.base) << " bytes past the start of '" << a.name << "' (" << a.bytes << " bytes)";
    } else if (it != g_allocs.end()) {
        s << "; it is " << (it->first - p) << " bytes before '" << it->second.name << "'";
    }
    if (g_allocs.empty()) s << "; no global memory is registered (allocate with tk::device_buffer)";
    return s.str();
}

} // namespace

void mark_global_written(const void* p, size_t bytes) {
    std::lock_guard lk(g_alloc_mu);
    if (!bytes) return;
    const Allocation* a = find_allocation(uintptr_t(p), bytes);
    if (!a) throw SimError(ErrorKind::usage, "mark_global_written: " + std::to_string(bytes) + " bytes at an address no registered allocation holds");
    a->mark(uintptr_t(p), bytes);
}

namespace {

// ---------------------------------------------------------------- fiber stacks

// Fiber stacks are reused between blocks; each has a guard page so a stack
// overflow in kernel code stops at a fault instead of corrupting memory.
//
// Each stack also starts at a different offset within its page: the stacks
// are separate page-aligned mappings, so without it every thread's hot frames
// would sit at the same cache-set index and evict each other at every fiber
// switch (measured: ~12% of the demo GEMM's simulation time).
class StackPool {
public:
    explicit StackPool(size_t bytes) : alloc_(bytes) {}
    ~StackPool() {
        for (auto& s : free_) {
            const size_t off = full_size_ - s.size;  // undo the stagger before unmapping
            s.sp = static_cast<char*>(s.sp) + off;
            s.size += off;
            alloc_.deallocate(s);
        }
    }
    ctx::stack_context allocate() {
        if (!free_.empty()) {
            auto s = free_.back();
            free_.pop_back();
            reuse_stack(s);
            return s;
        }
        ctx::stack_context s = alloc_.allocate();
        reuse_stack(s);  // the addresses may have held an earlier pool's stacks
        full_size_ = s.size;
        const size_t off = (count_++ * 17 % 64) * 64;  // 0..4032 bytes, 64-byte steps
        s.sp = static_cast<char*>(s.sp) - off;
        s.size -= off;
        return s;
    }
    void deallocate(ctx::stack_context& s) noexcept { free_.push_back(s); }
private:
    ctx::protected_fixedsize_stack alloc_;
    std::vector<ctx::stack_context> free_;
    size_t full_size_ = 0;
    size_t count_ = 0;
};
struct PooledStack {
    StackPool* pool;
    FiberStack* where;  // told where the stack is (its guard page, for sanitizers and the crash handler)
    ctx::stack_context allocate() {
        ctx::stack_context s = pool->allocate();
        *where = FiberStack::of(s, ctx::stack_traits::page_size());
        return s;
    }
    void deallocate(ctx::stack_context& s) noexcept { pool->deallocate(s); }
};

// ---------------------------------------------------------------- simulated state

struct Warp;
struct Block;

struct Thread {
    ctx::fiber fib;    // this thread while it is parked
    ctx::fiber sched;  // the scheduler, while this thread runs
    ThreadIds ids;
    Warp* warp = nullptr;
    int lane = 0;
    LaneOp* pending = nullptr;  // the instruction it is parked at
    const char* kfile = "";     // kernel line of that instruction
    int kline = 0;
    bool exited = false;
    int op_depth = 0;
    const char* op_file = "";
    int op_line = 0;
    const char* op_name = nullptr;
    uint32_t op_seq = 0;
    int regs = 0, peak_regs = 0;
    const char* peak_file = "";
    int peak_line = 0;
    struct Alloc {
        const char* file; int line; int regs;
        bool operator==(const Alloc&) const = default;
    };
    std::vector<Alloc> live;       // register tiles and vectors alive now, oldest first
    std::vector<Alloc> peak_live;  // and at the peak
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

enum class WarpState { runnable, at_barrier, at_mbarrier, done };

struct AsyncCopy { uint32_t smem; uint32_t bytes; uint8_t data[16]; uint8_t lane; uint32_t site; };
struct AsyncGroup { uint64_t complete = 0; std::vector<AsyncCopy> copies; };

struct Warp {
    int id = 0;
    Block* block = nullptr;
    Thread* lanes[32] = {};
    uint32_t exists = 0;  // lanes the block has
    uint32_t live = 0;    // lanes that have not exited
    uint64_t clock = 0;
    uint64_t load_ready = 0;  // when outstanding loads have landed
    Stall load_stall = Stall::none;
    WarpState state = WarpState::runnable;
    uint64_t wait_since = 0;
    int wait_event = -1;
    int wait_bar = 0;
    uint32_t wait_addr = 0, wait_parity = 0;
    const char* wait_file = "";
    int wait_line = 0;
    Op last_op = Op::count_;         // the last instruction it executed, for reports
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
    uint32_t seq = 0;
    uint32_t copies = 0;                      // bulk copies issued (each its own epoch of the copy engine agent)
    uint32_t wgmma_commits = 0;               // the open wgmma group is epoch wgmma_commits + 1; committed ones count up to it
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
    const char* init_file = "";  // where it was initialised
    int init_line = 0;
    uint32_t arrivers = 0;       // warps that have arrived on it (or expected bytes), ever: the wait-for picture
    bugs::VectorClock clock;      // the current phase's arrivals and copies, joined
    bugs::VectorClock completed;  // what the last completed phase released
};

thread_local Thread* g_cur = nullptr;

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

struct Block {
    const CostModel* cost = nullptr;
    BlockResult* out = nullptr;
    std::vector<Thread> threads;
    std::vector<Warp> warps;
    char* smem = nullptr;
    size_t smem_bytes = 0;
    uint64_t smem_free = 0;        // the shared-memory pipe's next free cycle
    uint64_t tensor_free[4] = {};  // each sub-partition's tensor pipe
    BarrierState bars[16];
    std::unordered_map<uint32_t, MbarState> mbars;
    uint64_t copy_engine_free = 0;  // the bulk copy engine's (TMA's) next free cycle
    // Asynchronous completions (bulk tensor loads landing), ordered by
    // simulated time, then by issue order: the scheduler fires each before
    // running a warp whose clock has passed it.
    std::map<std::pair<uint64_t, uint64_t>, std::function<void()>> async;
    uint64_t async_seq = 0;
    std::string kernel;
    bool snapshots = false;  // gather tk::snapshot values
    // Snapshots being gathered, per warp: lanes call in program order, so a
    // lane's n-th call belongs to its warp's n-th snapshot.
    struct PendingSnapshot { uint32_t nth; size_t index; };  // call number, BlockTrace::snapshots index
    std::vector<std::vector<PendingSnapshot>> pending_snapshots;  // by warp
    // Regions some live lanes of the warp have not entered yet: (name, line,
    // pass) -> BlockTrace::regions index.
    using RegionKey = std::tuple<const char*, int, uint32_t>;
    std::vector<std::map<RegionKey, size_t>> pending_regions;  // by warp
    bugs::SharedShadow* shadow = nullptr;  // races and uninitialised reads of shared memory
    Options::Checks checks;
};

// Regions still open when the block stops (a fault, or a lane that never left)
// end where their warp's clock stands, and stay marked open.
void end_open_regions(Block& b) {
    for (RegionRecord& r : b.out->trace.regions)
        if (!r.closed) r.end = std::max(r.end, b.warps[r.warp].clock);
}

// ---------------------------------------------------------------- errors

std::string block_name(const dim3& b) {
    std::ostringstream s;
    s << "block (" << b.x << "," << b.y << "," << b.z << ")";
    return s.str();
}
std::string where(const Thread& t) {
    return block_name(t.ids.block) + " warp " + std::to_string(t.warp->id) + " lane " + std::to_string(t.lane);
}
std::string line_of(const char* file, int line) {
    std::ostringstream s;
    s << file << ":" << line;
    return s.str();
}

[[noreturn]] void fault_at(const char* file, int line, const std::string& who, const std::string& what, const std::string& fix,
                           ErrorKind kind = ErrorKind::fault) {
    std::ostringstream s;
    s << line_of(file, line) << ": error: " << what << " (" << who << ").\n  fix: " << fix;
    throw SimError(kind, s.str(), file, line);
}
[[noreturn]] void fault(const Thread& t, const std::string& what, const std::string& fix) {
    fault_at(t.kfile, t.kline, where(t), what, fix);
}
// A misuse of a barrier or mbarrier: the same report, its own kind.
[[noreturn]] void fault_kind(ErrorKind kind, const Thread& t, const std::string& what, const std::string& fix) {
    fault_at(t.kfile, t.kline, where(t), what, fix, kind);
}

std::string hex(uint64_t v) {
    std::ostringstream s;
    s << "0x" << std::hex << v;
    return s.str();
}

void check_shared(const Block& b, const Thread& t, uint32_t addr, uint32_t bytes, const char* what) {
    if (uint64_t(addr) + bytes > b.smem_bytes) {
        std::ostringstream s;
        s << "out-of-bounds shared-memory " << what << " of " << bytes << " bytes at shared address " << hex(addr)
          << "; the block has " << b.smem_bytes << " bytes of dynamic shared memory";
        fault(t, s.str(), "keep shared tiles inside the shared memory requested at launch, or request more");
    }
    if (addr % bytes != 0) {
        std::ostringstream s;
        s << "misaligned shared-memory " << what << " of " << bytes << " bytes at shared address " << hex(addr);
        fault(t, s.str(), "align the address to the access width (" + std::to_string(bytes) + " bytes)");
    }
}

// The allocation the access falls in (a fault if none, or if misaligned).
const Allocation& check_global(const Thread& t, const void* p, uint32_t bytes, const char* what) {
    uintptr_t a = uintptr_t(p);
    const Allocation* al = find_allocation(a, bytes);
    if (!al) {
        std::ostringstream s;
        s << "out-of-bounds global-memory " << what << " of " << bytes << " bytes at address " << hex(a)
          << describe_nearest_allocation(a);
        fault(t, s.str(), "check the index math against the tensor's dimensions");
    }
    if (a % bytes != 0) {
        std::ostringstream s;
        s << "misaligned global-memory " << what << " of " << bytes << " bytes at address " << hex(a);
        fault(t, s.str(), "align the address to the access width (" + std::to_string(bytes) + " bytes)");
    }
    return *al;
}

// ---------------------------------------------------------------- bug finders' reports

// A finding names instructions by site: the event's location id and its op.
uint32_t make_site(uint32_t loc, Op op) { return (loc << 8) | uint32_t(op); }
std::pair<const char*, int> site_line(const Block& b, uint32_t site) { return b.out->locs.list.at(site >> 8); }
Op site_op(uint32_t site) { return Op(site & 0xff); }

std::string agent_name(const Block& b, int agent, int lane) {
    const bugs::Agents& ag = b.shadow->agents();
    const int owner = ag.owner(agent);
    switch (ag.kind(agent)) {
    case bugs::Agents::Kind::warp: return "warp " + std::to_string(owner) + " lane " + std::to_string(lane);
    case bugs::Agents::Kind::copy_engine: return "a bulk copy issued by warp " + std::to_string(owner);
    case bugs::Agents::Kind::tensor_cores:
        return "the wgmma of warpgroup " + std::to_string(owner) + " (warps " + std::to_string(4 * owner) + "-" +
               std::to_string(4 * owner + 3) + "), reading its operands,";
    }
    return "?";
}

// Why nothing orders the two accesses, and what would.
std::pair<std::string, std::string> race_cause(const Block& b, int earlier, int now, bool earlier_writes) {
    using K = bugs::Agents::Kind;
    const bugs::Agents& ag = b.shadow->agents();
    const K e = ag.kind(earlier), n = ag.kind(now);
    if (e == K::tensor_cores)
        return {"wgmma reads its shared operands until a wgmma wait retires its group, and no such wait orders the read before this access",
                "wait for the group (tk::warpgroup::mma_async_wait) before writing the tiles it reads or releasing their stage "
                "(arrive on the stage's 'empty' mbarrier only after the wait)"};
    if (e == K::copy_engine)
        return {"the bulk copy lands asynchronously, and nothing waited on the mbarrier phase its bytes complete",
                "wait on the copy's mbarrier (tk::wait with the right phase) before touching the tile"};
    if (n == K::copy_engine)
        return {std::string("the copy was issued before the ") + (earlier_writes ? "write" : "read") +
                    " was finished with: nothing orders that access before the copy's issue",
                "release the stage after its last use (the users arrive on an 'empty' mbarrier) and make the producer wait on "
                "it before issuing the next copy into the stage"};
    if (e == K::warp && n == K::warp && earlier == now)
        return {"two lanes of one warp, with no __syncwarp() or other warp-synchronous instruction between the accesses",
                "put __syncwarp() (tk::arch::syncwarp) between them"};
    return {"different warps, with no barrier (__syncthreads, bar.sync) or mbarrier phase ordering them",
            "synchronise between them: __syncthreads() (or a named barrier for the warps involved), or arrive on an mbarrier "
            "after the first and wait on it before the second"};
}

[[noreturn]] void report_finding(const Block& b, const bugs::Finding& f, const bugs::Accessor& who, Op op, const char* file,
                                 int line, const std::string& block, const char* space = "shared") {
    std::ostringstream s;
    const auto verb = [](Op o, bool writes) -> std::string {
        return std::string(writes ? "writes" : "reads") + " (" + op_name(o) + ")";
    };
    std::string fix;
    if (f.kind == bugs::Finding::Kind::uninitialized) {
        s << line_of(file, line) << ": error: read of " << space << " memory nothing wrote: " << agent_name(b, who.agent, who.lane)
          << " of " << block << " " << verb(op, false) << " byte " << hex(f.addr) << ", which nothing has written since the block began";
        fix = "write or load the tile before reading it -- shared memory starts as garbage on the GPU, not zeros; check the loop "
              "bounds and that the load (and its wait) comes first";
        throw SimError(ErrorKind::uninitialized_read, s.str() + ".\n  fix: " + fix, file, line);
    }
    const char* kind = f.earlier_writes ? (f.current_writes ? "write after write" : "read after write") : "write after read";
    const auto [ef, el] = site_line(b, f.earlier.site);
    const auto [cause, how] = race_cause(b, f.earlier.agent, who.agent, f.earlier_writes);
    s << line_of(file, line) << ": error: shared-memory race (" << kind << ") at shared address " << hex(f.addr) << " in " << block
      << ":\n  now:     " << agent_name(b, who.agent, who.lane) << " " << verb(op, f.current_writes) << " at " << line_of(file, line)
      << "\n  earlier: " << agent_name(b, f.earlier.agent, f.earlier.lane) << " " << verb(site_op(f.earlier.site), f.earlier_writes)
      << " at " << line_of(ef, el) << "\n  nothing orders them: " << cause << ".\n  fix: " << how;
    throw SimError(ErrorKind::race, s.str(), file, line);
}

// ---------------------------------------------------------------- the executor

// Instructions that read registers a recent load may still be filling.
bool consumes_loads(Op op) {
    return op == Op::mma || op == Op::st_shared || op == Op::stmatrix || op == Op::shfl || op == Op::st_global || op == Op::wgmma;
}
// The warpgroup instructions (.sync.aligned): every lane of the warp executes them together.
bool is_warpgroup_op(Op op) {
    return op == Op::wgmma || op == Op::wgmma_fence || op == Op::wgmma_commit || op == Op::wgmma_wait || op == Op::setmaxnreg;
}
// Warp-synchronous instructions: every lane they name must be there.
bool is_warp_sync(Op op) {
    return op == Op::ldmatrix || op == Op::stmatrix || op == Op::mma || op == Op::shfl || op == Op::syncwarp ||
           op == Op::bar_sync || op == Op::bar_arrive || is_warpgroup_op(op);
}

float bits16_to_float(uint16_t h, bool half) {
    uint32_t u;
    if (!half) {
        u = uint32_t(h) << 16;
    } else {
        uint32_t sign = uint32_t(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
        if (exp == 0x1f) u = sign | 0x7f800000u | (man << 13);
        else if (exp != 0) u = sign | ((exp + 112) << 23) | (man << 13);
        else if (man == 0) u = sign;
        else {  // subnormal: normalise
            int e = -1;
            do { man <<= 1; ++e; } while (!(man & 0x400));
            u = sign | (uint32_t(112 - e) << 23) | ((man & 0x3ff) << 13);
        }
    }
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

// D += A * B for one m16n8k16 tile. Products of 16-bit values are exact in
// double; summing in double and rounding once stands in for the tensor core's
// wide accumulator. The hottest loop of a GEMM simulation: on x86 the
// compiler also builds an AVX2/FMA version, picked at run time.
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target_clones("avx2", "default")))
#endif
void mma_16x8x16(double (&D)[16][8], const double (&A)[16][16], const double (&B)[16][8]) {
    for (int m = 0; m < 16; ++m)
        for (int k = 0; k < 16; ++k) {
            const double av = A[m][k];
            for (int n = 0; n < 8; ++n) D[m][n] += av * B[k][n];
        }
}

// A warp parked at a barrier or an mbarrier runs again at `release`.
void resume_waiter(Block& b, Warp& w, uint64_t release, Stall why) {
    if (w.wait_event >= 0) {
        Event& e = b.out->trace.events[w.wait_event];
        e.done = release;
        if (release > w.wait_since) {
            e.stall = why;
            e.stall_cycles += uint32_t(release - w.wait_since);
        }
    }
    // The warp that completes a barrier may be the waiter itself (the event
    // is still being built); finish_event() then sees it runnable.
    w.wait_event = -1;
    w.clock = std::max(w.clock, release);
    w.state = WarpState::runnable;
}

// The mbarrier's current phase completes at cycle t (an arrival, or a bulk
// copy landing): its waiters run again. `releaser`: the warp that arrived
// last, or that issued the copy.
void complete_phase(Block& b, uint32_t addr, MbarState& m, uint64_t t, int releaser) {
    m.phase += 1;
    m.pending = m.expected;
    m.completed = m.clock;  // what a wait on this phase acquires
    std::fill(m.clock.begin(), m.clock.end(), 0u);
    for (Warp& w : b.warps) {
        if (w.state != WarpState::at_mbarrier || w.wait_addr != addr) continue;
        if ((m.phase & 1) == w.wait_parity) continue;  // still waiting for a later phase
        BarrierRecord r;
        r.arrive = w.wait_since;
        r.release = std::max(w.wait_since, t) + b.cost->mbarrier_latency;
        r.warp = uint16_t(w.id);
        r.last_warp = uint16_t(releaser);
        r.mbarrier = true;
        r.address = addr;
        r.phase = m.phase - 1;
        r.loc = b.out->locs(w.wait_file, w.wait_line);
        b.out->trace.barriers.push_back(r);
        bugs::join(w.hb, m.completed);
        resume_waiter(b, w, r.release, Stall::mbarrier);
    }
}

// PTX ISA: a phase completes when its pending arrivals are 0 and its
// transaction count is 0. Copies still in flight on the barrier then are
// bytes no expect_tx counted: they would land in the next phase.
void try_complete_phase(Block& b, uint32_t addr, MbarState& m, uint64_t t, int releaser, const char* file, int line,
                        const std::string& who) {
    if (m.pending != 0 || m.tx != 0) return;
    if (m.in_flight != 0)
        fault_at(file, line, who,
                 "mbarrier " + hex(addr) + " completed phase " + std::to_string(m.phase) + " with " + std::to_string(m.in_flight) +
                     " bytes of bulk copies issued on it still in flight (last copy: " + line_of(m.copy_file, m.copy_line) +
                     "): its expect_tx counted fewer bytes than the copies deliver",
                 "expect every byte the phase's copies bring (tk::tma::expect<Tiles...> / expect_bytes with the tiles' total), "
                 "before or together with the arrival");
    complete_phase(b, addr, m, t, releaser);
}

// Shared-memory traffic served in 16-byte rows, 8 rows (128 bytes) per
// wavefront at best: a bulk copy's rows, or wgmma's core-matrix rows. Counted
// with the bank model of a 16-byte-per-lane access (phases of 8 rows), 32
// rows at a time. `worst` gets the 32 addresses of the most conflicted batch.
BankAnalysis analyze_rows16(const std::vector<uint32_t>& rows, uint32_t (&worst)[32]) {
    BankAnalysis total;
    int words[32] = {};
    int worst_excess = -1;
    for (size_t i = 0; i < rows.size(); i += 32) {
        const size_t n = std::min<size_t>(32, rows.size() - i);
        uint32_t addr[32] = {};
        std::copy(rows.begin() + long(i), rows.begin() + long(i + n), addr);
        const uint32_t mask = n == 32 ? 0xffffffffu : (1u << n) - 1;
        const BankAnalysis ba = analyze_access(mask, addr, 16);
        total.wavefronts = uint16_t(std::min<int>(total.wavefronts + ba.wavefronts, 65535));
        total.ideal = uint16_t(std::min<int>(total.ideal + ba.ideal, 65535));
        total.max_way = std::max(total.max_way, ba.max_way);
        for (int k = 0; k < 32; ++k) words[k] += ba.bank_words[k];
        if (ba.conflicts() > worst_excess) {
            worst_excess = ba.conflicts();
            std::copy(addr, addr + 32, worst);
        }
    }
    for (int k = 0; k < 32; ++k) total.bank_words[k] = uint8_t(std::min(words[k], 255));
    return total;
}

// The shared-memory swizzles (PTX ISA, "Tensor swizzling modes"): bits
// [4:6] ^= [7:9] (128B), [4:5] ^= [7:8] (64B), [4] ^= [7] (32B), on the byte address.
uint32_t swizzle_address(uint32_t a, uint32_t swizzle_bytes) {
    const uint32_t mask = swizzle_bytes == 128 ? 7 : swizzle_bytes == 64 ? 3 : swizzle_bytes == 32 ? 1 : 0;
    return a ^ (((a >> 7) & mask) << 4);
}

class Executor {
public:
    Executor(Block& b, Warp& w, uint32_t mask) : b_(b), w_(w), mask_(mask), cost_(*b.cost) {
        first_ = std::countr_zero(mask);
        t0_ = w.lanes[first_];
        op0_ = t0_->pending;
        t_ = w.clock;
    }

    void run() {
        Op op = op0_->op;
        begin_event(op);
        seq_ = ++w_.seq;
        site_ = make_site(trace().events[ev_].loc, op);
        if (consumes_loads(op)) wait_until(w_.load_ready, w_.load_stall);
        switch (op) {
        case Op::ld_shared: case Op::st_shared: shared_access(op); break;
        case Op::ldmatrix: case Op::stmatrix: matrix_access(op); break;
        case Op::mma: mma(); break;
        case Op::shfl: shfl(); break;
        case Op::bar_sync: case Op::bar_arrive: barrier(op); break;
        case Op::syncwarp: w_.clock = t_ + cost_.issue_cycles; break;
        case Op::cp_async: cp_async(); break;
        case Op::cp_async_commit:
            w_.groups.push_back(std::move(w_.open));
            w_.open = {};
            w_.clock = t_ + cost_.issue_cycles;
            break;
        case Op::cp_async_wait: cp_async_wait(); break;
        case Op::mbar_init: case Op::mbar_arrive: case Op::mbar_test_wait: case Op::mbar_wait: mbarrier(op); break;
        case Op::ld_global: case Op::st_global: global_access(op); break;
        case Op::mbar_expect_tx: expect_tx(); break;
        case Op::tma_load: tma_load(); break;
        case Op::tma_store: tma_store(); break;
        case Op::bulk_commit: bulk_commit(); break;
        case Op::bulk_wait: bulk_wait(); break;
        case Op::fence_proxy_async: case Op::wgmma_fence: w_.clock = t_ + cost_.issue_cycles; break;
        case Op::wgmma: wgmma(); break;
        case Op::wgmma_commit:
            w_.wgmma_groups.push_back(std::max(w_.wgmma_open, t_));
            ++w_.wgmma_commits;
            w_.wgmma_open = 0;
            w_.clock = t_ + cost_.issue_cycles;
            break;
        case Op::wgmma_wait: wgmma_wait(); break;
        case Op::setmaxnreg: setmaxnreg(); break;
        case Op::count_: break;
        }
        // Lanes that execute a warp-synchronous instruction together are
        // ordered with each other from here on (the race finder's view).
        if (b_.shadow && is_warp_sync(op)) b_.shadow->warp_sync(w_.id, seq_, op == Op::syncwarp || op == Op::shfl ? mask_ & op0_->mask : mask_);
        finish_event();
        w_.last_op = op;
        w_.last_file = t0_->kfile;
        w_.last_line = t0_->kline;
        for (uint32_t m = mask_; m; m &= m - 1) w_.lanes[std::countr_zero(m)]->pending = nullptr;
        record_registers();
    }

private:
    Block& b_;
    Warp& w_;
    uint32_t mask_;
    const CostModel& cost_;
    int first_ = 0;
    Thread* t0_ = nullptr;
    LaneOp* op0_ = nullptr;
    uint64_t t_ = 0;         // the cycle the instruction can issue
    int ev_ = 0;  // this instruction's event
    uint32_t seq_ = 0;   // the warp's instruction number
    uint32_t site_ = 0;  // this instruction, as findings name it

    // ---- bug finders
    bugs::Accessor lane_accessor(int l) const {
        return {w_.id, l, w_.hb.empty() ? 0u : w_.hb[size_t(w_.id)], seq_, &w_.hb, site_};
    }
    void shadow_access(const bugs::Accessor& who, uint32_t addr, uint32_t bytes, bool write, const Thread& t) {
        if (!b_.shadow) return;
        if (auto f = b_.shadow->access(who, addr, bytes, write)) report_finding(b_, *f, who, op0_->op, t.kfile, t.kline, block_name(t.ids.block));
    }
    // A read of global memory in `al`: every byte must have been written (by an upload or a kernel).
    void check_global_written(const Thread& t, const Allocation& al, uintptr_t a, uint64_t bytes, const char* what) {
        if (!b_.checks.uninit) return;
        if (auto bad = al.first_unwritten(a, bytes)) {
            std::ostringstream s;
            s << "read of global memory nothing wrote: " << what << " of " << bytes << " bytes at " << hex(a) << " reads byte " << hex(*bad)
              << " (byte " << (*bad - al.base) << " of '" << al.name << "'), which neither the host (an upload) nor a kernel has written";
            std::ostringstream m;
            m << line_of(t.kfile, t.kline) << ": error: " << s.str() << " (" << where(t) << ").\n  fix: "
              << "upload the buffer before the launch (tk::device_buffer(n, values) or upload()) or write it in an earlier kernel; "
                 "fresh device memory is garbage, not zeros";
            throw SimError(ErrorKind::uninitialized_read, m.str(), t.kfile, t.kline);
        }
    }
    // Synchronisation, as the race finder sees it: a release publishes this
    // warp's clock (and starts its next epoch), an acquire joins one.
    void release_into(bugs::VectorClock& into) {
        if (!b_.shadow) return;
        bugs::join(into, w_.hb);
        ++w_.hb[size_t(w_.id)];
    }

    BlockTrace& trace() { return b_.out->trace; }
    LaneOp& lane_op(int l) { return *w_.lanes[l]->pending; }
    Thread& lane(int l) { return *w_.lanes[l]; }
    template <class F> void for_lanes(F&& f) {
        for (uint32_t m = mask_; m; m &= m - 1) f(std::countr_zero(m));
    }

    // Waits before issue; the event keeps the reason that cost the most.
    void wait_until(uint64_t when, Stall why) {
        if (when <= t_) return;
        Event& e = trace().events[ev_];
        if (e.stall == Stall::none || when - t_ > e.stall_cycles) e.stall = why;
        e.stall_cycles += uint32_t(when - t_);
        t_ = when;
    }

    void begin_event(Op op) {
        Event e;
        e.warp = uint16_t(w_.id);
        e.op = op;
        e.mask = mask_;
        e.loc = b_.out->locs(t0_->kfile, t0_->kline);
        if (t0_->op_depth > 0) {
            e.op_seq = t0_->op_seq;
            e.op_name = uint16_t(b_.out->names(t0_->op_name, 0));
        }
        e.aux = op0_->width;
        e.issue = e.done = t_;  // final values in finish_event(); these stay if the instruction faults
        trace().events.push_back(e);
        ev_ = int(trace().events.size() - 1);
    }
    void finish_event() {
        Event& e = trace().events[ev_];
        e.issue = t_;
        if (w_.state == WarpState::runnable) e.done = w_.clock;
        else w_.wait_event = ev_;  // filled in at release
    }

    void record_smem(const BankAnalysis& ba, const uint32_t addr[32]) {
        SmemRecord r;
        r.event = uint32_t(ev_);
        r.banks = ba;
        if (ba.wavefronts > ba.ideal || options().all_lane_addresses) {
            r.lanes = int32_t(trace().lane_addrs.size());
            trace().lane_addrs.insert(trace().lane_addrs.end(), addr, addr + 32);
        }
        trace().events[ev_].smem = int32_t(trace().smem.size());
        trace().smem.push_back(r);
    }

    // Shared-memory pipe: wavefronts queue behind other warps' wavefronts.
    uint64_t use_smem_pipe(int wavefronts) {
        wait_until(b_.smem_free, Stall::mio_throttle);
        uint64_t end = t_ + uint64_t(wavefronts) * cost_.shared_cycles_per_wavefront;
        b_.smem_free = end;
        return end;
    }

    void note_load(uint64_t ready, Stall why) {
        if (ready > w_.load_ready) { w_.load_ready = ready; w_.load_stall = why; }
    }

    void shared_access(Op op) {
        const bool load = op == Op::ld_shared;
        const uint32_t bytes = op0_->width;
        uint32_t addr[32] = {};
        for_lanes([&](int l) {
            addr[l] = lane_op(l).addr;
            check_shared(b_, lane(l), addr[l], bytes, load ? "load" : "store");
        });
        for_lanes([&](int l) { shadow_access(lane_accessor(l), addr[l], bytes, !load, lane(l)); });
        BankAnalysis ba = analyze_access(mask_, addr, int(bytes));
        uint64_t end = use_smem_pipe(ba.wavefronts);
        for_lanes([&](int l) {
            if (load) std::memcpy(lane_op(l).data, b_.smem + addr[l], bytes);
            else std::memcpy(b_.smem + addr[l], lane_op(l).data, bytes);
        });
        if (load) note_load(end + cost_.shared_latency, Stall::short_scoreboard);
        w_.clock = t_ + cost_.issue_cycles;
        record_smem(ba, addr);
    }

    void matrix_access(Op op) {
        const bool load = op == Op::ldmatrix;
        const int n = op0_->width;
        const bool trans = op0_->flag != 0;
        uint32_t addr[32] = {};
        const uint32_t need = n == 4 ? 0xffffffffu : (n == 2 ? 0xffffu : 0xffu);
        for (int l = 0; l < 32; ++l) {
            if (!(need >> l & 1)) continue;
            addr[l] = lane_op(l).addr;
            check_shared(b_, lane(l), addr[l], 16, load ? "ldmatrix row read" : "stmatrix row write");
        }
        for (int l = 0; l < 32; ++l)
            if (need >> l & 1) shadow_access(lane_accessor(l), addr[l], 16, !load, lane(l));
        BankAnalysis ba = analyze_matrix(mask_, addr, n);
        uint64_t end = use_smem_pipe(ba.wavefronts);
        // Matrix i, row r lives at addr[8i+r] as 8 16-bit values.
        for (int i = 0; i < n; ++i) {
            for (int l = 0; l < 32; ++l) {
                uint32_t& reg = lane_op(l).data[i];
                if (!trans) {
                    uint8_t* p = reinterpret_cast<uint8_t*>(b_.smem + addr[8 * i + l / 4] + 4 * (l % 4));
                    if (load) std::memcpy(&reg, p, 4);
                    else std::memcpy(p, &reg, 4);
                } else {
                    // Transposed: this lane's pair is column l/4 of rows 2(l%4) and 2(l%4)+1.
                    uint8_t* lo = reinterpret_cast<uint8_t*>(b_.smem + addr[8 * i + 2 * (l % 4)] + 2 * (l / 4));
                    uint8_t* hi = reinterpret_cast<uint8_t*>(b_.smem + addr[8 * i + 2 * (l % 4) + 1] + 2 * (l / 4));
                    if (load) {
                        uint16_t a, c;
                        std::memcpy(&a, lo, 2);
                        std::memcpy(&c, hi, 2);
                        reg = uint32_t(a) | (uint32_t(c) << 16);
                    } else {
                        uint16_t a = uint16_t(reg), c = uint16_t(reg >> 16);
                        std::memcpy(lo, &a, 2);
                        std::memcpy(hi, &c, 2);
                    }
                }
            }
        }
        if (load) note_load(end + cost_.ldmatrix_latency, Stall::short_scoreboard);
        w_.clock = t_ + cost_.issue_cycles;
        record_smem(ba, addr);
    }

    void mma() {
        const bool half = MmaType(op0_->flag) == MmaType::f16;
        // Gather the warp's fragments (PTX ISA m16n8k16 layouts) into plain matrices.
        double A[16][16], B[16][8], D[16][8];
        for (int l = 0; l < 32; ++l) {
            const LaneOp& o = lane_op(l);
            const uint32_t* a = static_cast<const uint32_t*>(o.in[0]);
            const uint32_t* bb = static_cast<const uint32_t*>(o.in[1]);
            const float* c = static_cast<const float*>(o.in[2]);
            const int gid = l / 4, tig = l % 4;
            for (int r = 0; r < 4; ++r) {  // A register r: rows gid (+8 if r odd), cols 2*tig (+8 if r >= 2)
                const int row = gid + 8 * (r & 1), col = 2 * tig + 8 * (r >> 1);
                A[row][col] = bits16_to_float(uint16_t(a[r]), half);
                A[row][col + 1] = bits16_to_float(uint16_t(a[r] >> 16), half);
            }
            for (int r = 0; r < 2; ++r) {  // B register r: rows (k) 2*tig (+8 if r), col (n) gid
                B[2 * tig + 8 * r][gid] = bits16_to_float(uint16_t(bb[r]), half);
                B[2 * tig + 8 * r + 1][gid] = bits16_to_float(uint16_t(bb[r] >> 16), half);
            }
            for (int i = 0; i < 4; ++i) D[gid + 8 * (i >> 1)][2 * tig + (i & 1)] = c[i];
        }
        mma_16x8x16(D, A, B);
        for (int l = 0; l < 32; ++l) {
            float* d = static_cast<float*>(lane_op(l).out);
            const int gid = l / 4, tig = l % 4;
            for (int i = 0; i < 4; ++i) d[i] = float(D[gid + 8 * (i >> 1)][2 * tig + (i & 1)]);
        }
        uint64_t& pipe = b_.tensor_free[w_.id % 4];
        wait_until(pipe, Stall::math_pipe_throttle);
        pipe = t_ + cost_.mma_pipe_cycles;
        w_.clock = t_ + cost_.issue_cycles;
    }

    void shfl() {
        uint32_t in[32];
        for (int l = 0; l < 32; ++l) in[l] = (mask_ >> l & 1) ? lane_op(l).data[0] : 0;
        for_lanes([&](int l) {
            LaneOp& o = lane_op(l);
            int src = l;
            const int b = int(o.addr);
            switch (ShflMode(o.width)) {
            case ShflMode::idx: src = b & 31; break;
            case ShflMode::up: src = l - b >= 0 ? l - b : l; break;
            case ShflMode::down: src = l + b <= 31 ? l + b : l; break;
            case ShflMode::bfly: src = l ^ (b & 31); break;
            }
            // Reading a lane outside the exchange is undefined on the GPU; keep our own value.
            o.data[0] = (mask_ >> src & 1) ? in[src] : in[l];
        });
        note_load(t_ + cost_.shfl_latency, Stall::short_scoreboard);
        w_.clock = t_ + cost_.issue_cycles;
    }

    void barrier(Op op) {
        const int id = int(op0_->addr);
        const int count = int(op0_->arg);
        if (id < 0 || id > 15)
            fault_kind(ErrorKind::sync_misuse, *t0_, "barrier id " + std::to_string(id) + " is out of range", "use barrier ids 0..15");
        const int block_threads = int(b_.warps.size()) * 32;
        const int expected = count == 0 ? block_threads : count;
        if (count % 32 != 0 || expected > block_threads)
            fault_kind(ErrorKind::sync_misuse, *t0_, "barrier " + std::to_string(id) + " thread count " + std::to_string(count) +
                        " is not a multiple of 32 no greater than the block's " + std::to_string(block_threads) + " threads",
                  "pass a multiple of the warp size (32) up to the block size");
        BarrierState& bar = b_.bars[id];
        if (bar.expected != 0 && bar.expected != expected)
            fault_kind(ErrorKind::sync_misuse, *t0_, "barrier " + std::to_string(id) + " used with thread count " + std::to_string(expected) +
                        " while other warps wait on it with " + std::to_string(bar.expected),
                  "give every bar.sync/bar.arrive on one barrier id the same thread count");
        if (b_.checks.sync && (bar.arrived_warps >> w_.id & 1))
            fault_kind(ErrorKind::sync_misuse, *t0_,
                       "warp " + std::to_string(w_.id) + " arrived at barrier " + std::to_string(id) + " a second time before it released (" +
                           std::to_string(bar.arrived) + " of " + std::to_string(expected) + " threads arrived; the first arrival was at " +
                           line_of(bar.first_file, bar.first_line) + ")",
                       "give the barrier the thread count of the warps that really use it, and let each warp arrive once per use "
                       "(a bar.arrive in a loop needs a matching bar.sync by the others each time)");
        if (bar.arrived == 0) { bar.first_file = t0_->kfile; bar.first_line = t0_->kline; }
        bar.arrived_warps |= 1u << w_.id;
        release_into(bar.clock);
        bar.expected = expected;
        bar.arrived += 32;
        if (t_ >= bar.last_arrival) { bar.last_arrival = t_; bar.last_warp = w_.id; }
        if (op == Op::bar_sync) {
            w_.state = WarpState::at_barrier;
            w_.wait_since = t_;
            w_.wait_bar = id;
            w_.wait_file = t0_->kfile;
            w_.wait_line = t0_->kline;
            bar.waiters.push_back(w_.id);
        } else {
            w_.clock = t_ + cost_.barrier_latency;
        }
        if (bar.arrived >= bar.expected) release_barrier(id);
    }

    void release_barrier(int id) {
        BarrierState& bar = b_.bars[id];
        const uint64_t release = bar.last_arrival + cost_.barrier_latency;
        for (int wid : bar.waiters) {
            Warp& w = b_.warps[wid];
            if (b_.shadow) bugs::join(w.hb, bar.clock);
            BarrierRecord r;
            r.arrive = w.wait_since;
            r.release = release;
            r.warp = uint16_t(wid);
            r.last_warp = uint16_t(bar.last_warp);
            r.id = uint8_t(id);
            r.loc = b_.out->locs(w.wait_file, w.wait_line);
            trace().barriers.push_back(r);
            resume_waiter(w, release, Stall::barrier);
        }
        bar = BarrierState{};
    }

    void resume_waiter(Warp& w, uint64_t release, Stall why) { tklab::sim::resume_waiter(b_, w, release, why); }

    void cp_async() {
        const uint32_t bytes = op0_->width;
        uint64_t complete = t_ + cost_.cp_async_latency;
        for_lanes([&](int l) {
            LaneOp& o = lane_op(l);
            check_shared(b_, lane(l), o.addr, bytes, "cp.async destination");
            const Allocation& src = check_global(lane(l), o.gptr, bytes, "cp.async source");
            check_global_written(lane(l), src, uintptr_t(o.gptr), bytes, "a cp.async source read");
            AsyncCopy c{o.addr, bytes, {}, uint8_t(l), site_};
            std::memcpy(c.data, o.gptr, bytes);  // the source as it is at issue
            w_.open.copies.push_back(c);
        });
        w_.open.complete = std::max(w_.open.complete, complete);
        w_.clock = t_ + cost_.global_issue_cycles;
    }

    void cp_async_wait() {
        const size_t keep = op0_->arg;
        while (w_.groups.size() > keep) {
            AsyncGroup& g = w_.groups.front();
            wait_until(g.complete, Stall::long_scoreboard);
            for (const AsyncCopy& c : g.copies) {
                // The copy's write happens here, where the simulator lands it,
                // and is the issuing lane's, named by the cp.async's line.
                if (b_.shadow) {
                    bugs::Accessor who = lane_accessor(c.lane);
                    who.site = c.site;
                    if (auto f = b_.shadow->access(who, c.smem, c.bytes, true)) {
                        const auto [file, line] = site_line(b_, c.site);
                        report_finding(b_, *f, who, Op::cp_async, file, line, block_name(t0_->ids.block));
                    }
                }
                std::memcpy(b_.smem + c.smem, c.data, c.bytes);
            }
            w_.groups.erase(w_.groups.begin());
        }
        w_.clock = t_ + cost_.issue_cycles;
    }

    MbarState& mbar_at(int l, uint32_t addr) {
        check_shared(b_, lane(l), addr, 8, "mbarrier access");
        auto it = b_.mbars.find(addr);
        if (it == b_.mbars.end())
            fault(lane(l), "mbarrier at shared address " + hex(addr) + " used before mbarrier_init",
                  "initialise the barrier (tk::init_semaphore) and sync the block before other threads use it");
        return it->second;
    }

    // Completes the barrier's phase if its arrivals and bytes are all in.
    void try_complete_phase(int l, uint32_t addr, MbarState& m) {
        tklab::sim::try_complete_phase(b_, addr, m, t_, w_.id, lane(l).kfile, lane(l).kline, where(lane(l)));
    }

    void mbarrier(Op op) {
        switch (op) {
        case Op::mbar_init:
            for_lanes([&](int l) {
                LaneOp& o = lane_op(l);
                check_shared(b_, lane(l), o.addr, 8, "mbarrier init");
                if (o.arg == 0) fault(lane(l), "mbarrier initialised with an arrival count of 0", "pass the number of threads that arrive per phase");
                // The initialisation is a write: threads that use the barrier
                // must be ordered after it (a block sync after init).
                shadow_access(lane_accessor(l), o.addr, 8, true, lane(l));
                MbarState m;
                m.expected = m.pending = o.arg;
                m.init_file = lane(l).kfile;
                m.init_line = lane(l).kline;
                b_.mbars[o.addr] = m;
            });
            break;
        case Op::mbar_arrive: {
            // One warp instruction's arrivals completing several phases at
            // once: more lanes arrived than the barrier counts per phase.
            // (Almost always one barrier per instruction: a short list, not a map.)
            std::vector<std::pair<uint32_t, uint32_t>> phase_before;
            if (b_.checks.sync)
                for_lanes([&](int l) {
                    const uint32_t addr = lane_op(l).addr;
                    for (const auto& p : phase_before)
                        if (p.first == addr) return;
                    phase_before.emplace_back(addr, mbar_at(l, addr).phase);
                });
            for_lanes([&](int l) {
                const uint32_t addr = lane_op(l).addr;
                MbarState& m = mbar_at(l, addr);
                shadow_access(lane_accessor(l), addr, 8, false, lane(l));
                if (m.pending == 0)
                    fault_kind(ErrorKind::sync_misuse, lane(l),
                               "mbarrier " + hex(addr) + " (initialised at " + line_of(m.init_file, m.init_line) + " for " +
                                   std::to_string(m.expected) + " arrivals per phase) received more arrivals than its phase counts" +
                                   (m.tx > 0 ? " (its bytes are still expected)" : ""),
                               "arrive once per thread counted at init (one elected lane, if the count is per warp), and expect "
                               "the phase's bytes before its last arrival");
                --m.pending;
                m.arrivers |= 1u << w_.id;
                bugs::join(m.clock, w_.hb);
                try_complete_phase(l, addr, m);
            });
            if (b_.shadow) ++w_.hb[size_t(w_.id)];  // a release: the arrival published this epoch
            for (const auto& [addr, before] : phase_before) {
                const MbarState& m = b_.mbars.at(addr);
                if (m.phase - before > 1)
                    fault_kind(ErrorKind::sync_misuse, *t0_,
                               std::to_string(std::popcount(mask_)) + " lanes arrived at once on mbarrier " + hex(addr) + " (initialised at " +
                                   line_of(m.init_file, m.init_line) + " for " + std::to_string(m.expected) + " arrival" +
                                   (m.expected == 1 ? "" : "s") + " per phase): one instruction completed " + std::to_string(m.phase - before) +
                                   " phases, so waits on those phases' parities no longer mean what they say",
                               "let one elected lane arrive (if (tk::laneid() == 0) arrive(bar)) or initialise the barrier with the "
                               "number of threads that arrive per phase");
            }
            break;
        }
        case Op::mbar_test_wait:
            for_lanes([&](int l) {
                LaneOp& o = lane_op(l);
                MbarState& m = mbar_at(l, o.addr);
                shadow_access(lane_accessor(l), o.addr, 8, false, lane(l));
                o.data[0] = (m.phase & 1) != (o.arg & 1);
                // A lane that sees the phase done acquires it (the race finder
                // keeps one clock per warp, so the warp does).
                if (o.data[0] && b_.shadow) bugs::join(w_.hb, m.completed);
            });
            break;
        case Op::mbar_wait: {
            MbarState& m = mbar_at(first_, op0_->addr);
            for_lanes([&](int l) { shadow_access(lane_accessor(l), lane_op(l).addr, 8, false, lane(l)); });
            if (b_.shadow && (m.phase & 1) != (op0_->arg & 1)) bugs::join(w_.hb, m.completed);  // the phase is done: acquire it
            if ((m.phase & 1) == (op0_->arg & 1)) {
                w_.state = WarpState::at_mbarrier;
                w_.wait_since = t_;
                w_.wait_addr = op0_->addr;
                w_.wait_parity = op0_->arg & 1;
                w_.wait_file = t0_->kfile;
                w_.wait_line = t0_->kline;
                return;
            }
            break;
        }
        default: break;
        }
        w_.clock = t_ + cost_.mbarrier_latency;
    }

    void global_access(Op op) {
        const bool load = op == Op::ld_global;
        const uint32_t bytes = op0_->width;
        for_lanes([&](int l) {
            LaneOp& o = lane_op(l);
            const Allocation& al = check_global(lane(l), o.gptr, bytes, load ? "load" : "store");
            if (load) check_global_written(lane(l), al, uintptr_t(o.gptr), bytes, "a load");
            else al.mark(uintptr_t(o.gptr), bytes);
            if (load) std::memcpy(o.data, o.gptr, bytes);
            else std::memcpy(const_cast<void*>(o.gptr), o.data, bytes);
        });
        if (load) note_load(t_ + cost_.global_latency, Stall::long_scoreboard);
        w_.clock = t_ + cost_.global_issue_cycles;
    }

    // ------------------------------------------------ Hopper: transaction counts, bulk copies, wgmma

    static constexpr int64_t max_tx = (int64_t(1) << 20) - 1;  // PTX ISA: the tx-count's range is +-(2^20 - 1)

    MbarState& mbar_for_tx(int l, uint32_t addr, const std::string& what) {
        check_shared(b_, lane(l), addr, 8, "mbarrier access");
        auto it = b_.mbars.find(addr);
        if (it == b_.mbars.end())
            fault(lane(l), what + " names shared address " + hex(addr) + ", which is not an initialised mbarrier",
                  "initialise the barrier (tk::init_semaphore) and sync the block before expecting bytes or issuing copies on it");
        return it->second;
    }

    void check_tx(int l, uint32_t addr, const MbarState& m) {
        if (m.tx > max_tx)
            fault(lane(l), "mbarrier " + hex(addr) + "'s transaction count reached " + std::to_string(m.tx) +
                               " bytes, beyond the hardware's limit of 2^20 - 1 (1048575)",
                  "expect less than 1 MiB per phase: split the copies over more barriers or phases");
    }

    void expect_tx() {
        for_lanes([&](int l) {
            LaneOp& o = lane_op(l);
            MbarState& m = mbar_for_tx(l, o.addr, "mbarrier.expect_tx");
            shadow_access(lane_accessor(l), o.addr, 8, false, lane(l));
            m.tx += int64_t(o.arg);
            m.arrivers |= 1u << w_.id;
            check_tx(l, o.addr, m);
            if (o.flag & 1) {  // arrive.expect_tx: the bytes first, then the arrival
                if (m.pending == 0)
                    fault_kind(ErrorKind::sync_misuse, lane(l),
                               "mbarrier " + hex(o.addr) + " (initialised at " + line_of(m.init_file, m.init_line) + " for " +
                                   std::to_string(m.expected) + " arrivals per phase) received more arrivals than its phase counts (its bytes are still expected)",
                               "arrive once per thread counted at init");
                --m.pending;
                bugs::join(m.clock, w_.hb);
            }
            try_complete_phase(l, o.addr, m);
        });
        if (b_.shadow && (op0_->flag & 1)) ++w_.hb[size_t(w_.id)];
        w_.clock = t_ + cost_.mbarrier_latency;
    }

    // The tensor map a bulk tensor copy names, checked as the hardware would refuse it.
    const TensorMap& tensor_map(int l) {
        const LaneOp& o = lane_op(l);
        const uintptr_t p = uintptr_t(o.gptr);
        const std::string fix = "pass the map of a tk::gl_tma (gl.map<Tile>(), or tk::make_tensor_map on the host) and pass the gl_tma "
                                "to the kernel by value as const __grid_constant__";
        if (!p) fault(lane(l), "a bulk tensor copy was given a null tensor map", fix);
        if (p % 64 != 0) fault(lane(l), "a bulk tensor copy was given a tensor map at " + hex(p) + ", which is not 64-byte aligned", fix);
        const TensorMap& m = *static_cast<const TensorMap*>(o.gptr);
        if (m.magic != TensorMap::magic_value)
            fault(lane(l), "a bulk tensor copy was given " + hex(p) + " as its tensor map, and no tensor map is there" +
                               (find_allocation(p, 1) ? " (it points into global memory: a tensor, not its map)" : ""),
                  fix);
        std::string bad;
        if (m.rank < 1 || m.rank > 5) bad = "rank " + std::to_string(m.rank) + " (1..5)";
        else if (m.elem_bytes != 1 && m.elem_bytes != 2 && m.elem_bytes != 4 && m.elem_bytes != 8) bad = "element size " + std::to_string(m.elem_bytes);
        else if (m.swizzle_bytes != 0 && m.swizzle_bytes != 32 && m.swizzle_bytes != 64 && m.swizzle_bytes != 128)
            bad = "swizzle " + std::to_string(m.swizzle_bytes) + " bytes (0, 32, 64 or 128)";
        else if (uint64_t(m.box[0]) * m.elem_bytes % 16 != 0) bad = "a box row of " + std::to_string(m.box[0] * m.elem_bytes) + " bytes (a multiple of 16)";
        else if (m.swizzle_bytes && m.box[0] * m.elem_bytes > m.swizzle_bytes)
            bad = "a box row of " + std::to_string(m.box[0] * m.elem_bytes) + " bytes, wider than its " + std::to_string(m.swizzle_bytes) + "-byte swizzle";
        for (uint32_t d = 0; bad.empty() && d < m.rank; ++d)
            if (m.box[d] < 1 || m.box[d] > 256) bad = "box dimension " + std::to_string(d) + " of " + std::to_string(m.box[d]) + " elements (1..256)";
        if (!bad.empty()) fault(lane(l), "the tensor map at " + hex(p) + " has " + bad + "; the hardware refuses it", fix);
        return m;
    }

    static uint64_t box_bytes(const TensorMap& m) {
        uint64_t n = m.elem_bytes;
        for (uint32_t d = 0; d < m.rank; ++d) n *= m.box[d];
        return n;
    }

    // Visits the box's rows (all dimensions but the innermost) in box order:
    // f(row, first, end, address) with [first, end) the row's elements inside
    // the tensor (first == end: none) and the global address of element `first`.
    template <class F>
    static void for_box_rows(const TensorMap& m, const int32_t* coord, F&& f) {
        uint64_t rows = 1;
        for (uint32_t d = 1; d < m.rank; ++d) rows *= m.box[d];
        const int64_t lo = std::max<int64_t>(0, coord[0]), hi = std::min<int64_t>(m.dims[0], int64_t(coord[0]) + m.box[0]);
        for (uint64_t r = 0; r < rows; ++r) {
            uint64_t rest = r, off = 0;
            bool inside = lo < hi;
            for (uint32_t d = 1; d < m.rank; ++d) {
                const int64_t c = int64_t(coord[d]) + int64_t(rest % m.box[d]);
                rest /= m.box[d];
                if (c < 0 || c >= int64_t(m.dims[d])) inside = false;
                else off += uint64_t(c) * m.strides[d];
            }
            if (!inside) { f(r, uint32_t(0), uint32_t(0), uintptr_t(0)); continue; }
            f(r, uint32_t(lo - coord[0]), uint32_t(hi - coord[0]), uintptr_t(m.global) + off + uint64_t(lo) * m.elem_bytes);
        }
    }

    const Allocation& check_tensor_memory(int l, uintptr_t a, uint64_t bytes, uint64_t row) {
        if (const Allocation* al = find_allocation(a, bytes)) return *al;
        std::ostringstream s;
        s << "a bulk tensor copy's box row " << row << " (" << bytes << " bytes at " << hex(a)
          << ") lies inside the tensor map's dimensions but outside any global allocation" << describe_nearest_allocation(a);
        fault(lane(l), s.str(), "build the tensor map from the buffer the data lives in, with its real dimensions (tk::gl_tma over a tk::device_buffer)");
    }

    // The shared side of a bulk tensor copy: inside the block's shared memory,
    // aligned to where the swizzle pattern starts (the hardware computes it from address bits).
    void check_copy_smem(int l, uint32_t addr, uint64_t bytes, uint32_t swizzle, const char* what) {
        if (uint64_t(addr) + bytes > b_.smem_bytes) {
            std::ostringstream s;
            s << "a bulk tensor copy's shared " << what << " of " << bytes << " bytes at shared address " << hex(addr)
              << " runs past the block's " << b_.smem_bytes << " bytes of dynamic shared memory";
            fault(lane(l), s.str(), "keep shared tiles inside the shared memory requested at launch, or request more");
        }
        const uint32_t align = swizzle == 128 ? 1024 : swizzle == 64 ? 512 : swizzle == 32 ? 256 : 128;
        if (addr % align != 0) {
            std::ostringstream s;
            s << "a bulk tensor copy's shared " << what << " at " << hex(addr) << " is not " << align << "-byte aligned";
            if (swizzle) s << " (its " << swizzle << "-byte swizzle pattern repeats every " << align << " bytes)";
            fault(lane(l), s.str(), "allocate shared tiles from tk::shared_allocator (1024-byte aligned) and copy whole tiles or column blocks");
        }
    }

    // The copy engine moves one copy at a time: `bytes` occupy it bytes /
    // bandwidth cycles after it is free; the data is there `latency` later.
    uint64_t use_copy_engine(uint64_t bytes, uint64_t& engine_done) {
        const uint64_t start = std::max(t_, b_.copy_engine_free);
        const uint64_t bpc = uint64_t(std::max(1, cost_.tma_bytes_per_cycle));
        engine_done = start + (bytes + bpc - 1) / bpc;
        b_.copy_engine_free = engine_done;
        return engine_done + uint64_t(cost_.tma_latency);
    }

    void record_rows16(const std::vector<uint32_t>& rows) {
        if (rows.empty()) return;
        uint32_t worst[32] = {};
        const BankAnalysis ba = analyze_rows16(rows, worst);
        trace().events[ev_].aux = 16;  // the report's phases: 8 rows of 16 bytes each
        record_smem(ba, worst);
    }

    void tma_load() {
        std::vector<uint32_t> rows;
        for_lanes([&](int l) {
            LaneOp& o = lane_op(l);
            const TensorMap& m = tensor_map(l);
            const uint64_t bytes = box_bytes(m);
            const uint32_t row_bytes = m.box[0] * m.elem_bytes;
            check_copy_smem(l, o.addr, bytes, m.swizzle_bytes, "destination");
            const uint32_t bar = o.arg;
            MbarState& mb = mbar_for_tx(l, bar, "cp.async.bulk.tensor (its completion mbarrier)");
            // The box as it is in global memory at issue; elements outside the tensor read as zero.
            std::vector<uint8_t> image(bytes, 0);
            for_box_rows(m, o.coord, [&](uint64_t r, uint32_t first, uint32_t end, uintptr_t a) {
                if (first == end) return;
                const uint64_t n = uint64_t(end - first) * m.elem_bytes;
                check_global_written(lane(l), check_tensor_memory(l, a, n, r), a, n, "a bulk tensor load's box row");
                std::memcpy(image.data() + r * row_bytes + uint64_t(first) * m.elem_bytes, reinterpret_cast<const void*>(a), n);
            });
            for (uint64_t i = 0; i < bytes; i += 16) rows.push_back(swizzle_address(o.addr + uint32_t(i), m.swizzle_bytes));
            uint64_t engine_done = 0;
            const uint64_t done = use_copy_engine(bytes, engine_done);
            mb.in_flight += bytes;
            mb.copy_file = lane(l).kfile;
            mb.copy_line = lane(l).kline;
            Block* b = &b_;
            Thread* th = &lane(l);
            const uint32_t dst = o.addr, swizzle = m.swizzle_bytes;
            const int warp = w_.id;
            const char* file = lane(l).kfile;
            const int line = lane(l).kline;
            // The copy engine writes as its own agent, knowing what the
            // issuing warp knew at issue; its landing publishes that.
            bugs::Accessor copier{};
            bugs::VectorClock known;
            if (b_.shadow) {
                known = w_.hb;
                const int agent = b_.shadow->agents().copy_engine(w_.id);
                known[size_t(agent)] = ++w_.copies;
                copier = {agent, l, w_.copies, 0, nullptr, site_};
            }
            // At completion: the rows land in shared memory (swizzled) and the
            // bytes count off the barrier's transaction count.
            schedule(done, [b, th, dst, swizzle, bar, bytes, done, warp, file, line, image = std::move(image), copier,
                            known = std::move(known)]() mutable {
                if (b->shadow) {
                    copier.clock = &known;
                    for (uint64_t i = 0; i < bytes; i += 16)
                        if (auto f = b->shadow->access(copier, swizzle_address(dst + uint32_t(i), swizzle), 16, true))
                            report_finding(*b, *f, copier, Op::tma_load, file, line, block_name(th->ids.block));
                }
                for (uint64_t i = 0; i < bytes; i += 16)
                    std::memcpy(b->smem + swizzle_address(dst + uint32_t(i), swizzle), image.data() + i, 16);
                MbarState& m = b->mbars.at(bar);
                bugs::join(m.clock, known);
                m.in_flight -= bytes;
                m.tx -= int64_t(bytes);
                if (m.tx < -max_tx)
                    fault_at(file, line, where(*th),
                             "mbarrier " + hex(bar) + "'s transaction count fell to " + std::to_string(m.tx) +
                                 " bytes: bulk copies delivered far more bytes than any expect_tx counted",
                             "expect each phase's bytes (tk::tma::expect) on the barrier the copies complete on");
                tklab::sim::try_complete_phase(*b, bar, m, done, warp, file, line, where(*th));
            });
        });
        record_rows16(rows);
        w_.clock = t_ + cost_.global_issue_cycles;
    }

    void tma_store() {
        std::vector<uint32_t> rows;
        for_lanes([&](int l) {
            LaneOp& o = lane_op(l);
            const TensorMap& m = tensor_map(l);
            const uint64_t bytes = box_bytes(m);
            const uint32_t row_bytes = m.box[0] * m.elem_bytes;
            check_copy_smem(l, o.addr, bytes, m.swizzle_bytes, "source");
            // The engine reads the box out of shared memory (undoing the swizzle)...
            std::vector<uint8_t> image(bytes);
            for (uint64_t i = 0; i < bytes; i += 16) {
                const uint32_t a = swizzle_address(o.addr + uint32_t(i), m.swizzle_bytes);
                rows.push_back(a);
                shadow_access(lane_accessor(l), a, 16, false, lane(l));
                std::memcpy(image.data() + i, b_.smem + a, 16);
            }
            // ...and writes the elements inside the tensor (the others are dropped).
            for_box_rows(m, o.coord, [&](uint64_t r, uint32_t first, uint32_t end, uintptr_t a) {
                if (first == end) return;
                const uint64_t n = uint64_t(end - first) * m.elem_bytes;
                check_tensor_memory(l, a, n, r).mark(a, n);
                std::memcpy(reinterpret_cast<void*>(a), image.data() + r * row_bytes + uint64_t(first) * m.elem_bytes, n);
            });
            uint64_t read_done = 0;
            const uint64_t done = use_copy_engine(bytes, read_done);
            Thread::BulkGroup& g = lane(l).bulk_open;
            g.read = std::max(g.read, read_done);
            g.done = std::max(g.done, done);
        });
        record_rows16(rows);
        w_.clock = t_ + cost_.global_issue_cycles;
    }

    void bulk_commit() {
        for_lanes([&](int l) {
            Thread& t = lane(l);
            t.bulk_groups.push_back(t.bulk_open);
            t.bulk_open = {};
        });
        w_.clock = t_ + cost_.issue_cycles;
    }

    // Until at most N of each lane's bulk groups are pending (.read: still
    // reading shared memory): all but the newest N are done. Groups whose
    // writes are done by then are pending for neither form and are dropped.
    void bulk_wait() {
        const size_t keep = op0_->arg;
        const bool read = op0_->flag & 1;
        uint64_t until = t_;
        for_lanes([&](int l) {
            const auto& gs = lane(l).bulk_groups;
            for (size_t i = 0; i + keep < gs.size(); ++i) until = std::max(until, read ? gs[i].read : gs[i].done);
        });
        wait_until(until, Stall::long_scoreboard);
        for_lanes([&](int l) {
            auto& gs = lane(l).bulk_groups;
            gs.erase(std::remove_if(gs.begin(), gs.end(), [&](const Thread::BulkGroup& g) { return g.done <= t_; }), gs.end());
        });
        w_.clock = t_ + cost_.issue_cycles;
    }

    void schedule(uint64_t when, std::function<void()> f) {
        b_.async.emplace(std::make_pair(when, b_.async_seq++), std::move(f));
    }

    void check_full_warpgroup(const char* what) {
        const int first = w_.id / 4 * 4;
        const int have = std::min(int(b_.warps.size()) - first, 4);
        bool full = have == 4;
        for (int i = 0; full && i < 4; ++i) full = b_.warps[size_t(first + i)].exists == 0xffffffffu;
        if (!full) {
            std::ostringstream s;
            s << what << " is a warpgroup instruction, but warp " << w_.id << " is in warpgroup " << w_.id / 4
              << ", which does not have 4 whole warps in this block of " << b_.threads.size() << " threads";
            fault(*t0_, s.str(), "launch blocks whose thread count is a multiple of 128 (whole warpgroups)");
        }
    }

    // A wgmma matrix descriptor (PTX ISA, "Matrix Descriptor Format").
    struct Descriptor { uint32_t start = 0, lbo = 0, sbo = 0, swizzle = 0; };

    Descriptor decode_descriptor(uint64_t d, const char* which) {
        Descriptor r;
        r.start = uint32_t(d & 0x3FFF) << 4;
        r.lbo = uint32_t((d >> 16) & 0x3FFF) << 4;
        r.sbo = uint32_t((d >> 32) & 0x3FFF) << 4;
        const uint32_t base = uint32_t(d >> 49) & 7, mode = uint32_t(d >> 62);
        if (base != 0)
            fault(*t0_, std::string("wgmma's ") + which + " descriptor " + hex(d) + " has base offset " + std::to_string(base) +
                            "; the simulator models base offset 0 only (operands in swizzle-aligned tiles)",
                  "keep shared tiles 1024-byte aligned (tk::shared_allocator does) and build descriptors with make_wgmma_descriptor");
        r.swizzle = mode == 1 ? 128 : mode == 2 ? 64 : mode == 3 ? 32 : 0;
        return r;
    }

    // Shared byte address of element (mn, k) of an operand, following the
    // PTX ISA's canonical layouts (T = 16 bytes, S = the swizzle span):
    //   K-major:  8-row groups SBO apart; swizzled rows S bytes apart, else 8x8 core matrices (k groups LBO apart);
    //   MN-major: 8-k groups SBO apart; swizzled span-wide mn blocks LBO apart, else core matrices (mn groups SBO, k groups LBO).
    uint32_t operand_address(const Descriptor& d, int mn, int k, bool mn_major, const char* which, uint64_t raw) {
        const uint32_t S = d.swizzle;
        uint64_t a;
        if (!mn_major) {
            a = S ? uint64_t(d.start) + uint64_t(mn / 8) * d.sbo + uint64_t(mn % 8) * S + uint64_t(k) * 2
                  : uint64_t(d.start) + uint64_t(mn / 8) * d.sbo + uint64_t(k / 8) * d.lbo + uint64_t(mn % 8) * 16 + uint64_t(k % 8) * 2;
        } else {
            const int span = int(S / 2);
            a = S ? uint64_t(d.start) + uint64_t(mn / span) * d.lbo + uint64_t(mn % span) * 2 + uint64_t(k / 8) * d.sbo + uint64_t(k % 8) * S
                  : uint64_t(d.start) + uint64_t(mn / 8) * d.sbo + uint64_t(mn % 8) * 2 + uint64_t(k / 8) * d.lbo + uint64_t(k % 8) * 16;
        }
        if (a + 2 > b_.smem_bytes) {
            std::ostringstream s;
            s << "wgmma's " << which << " descriptor " << hex(raw) << " (start " << hex(d.start) << ", LBO " << d.lbo << ", SBO " << d.sbo
              << ", swizzle " << S << ") addresses element (" << (which[0] == 'A' ? "m " : "n ") << mn << ", k " << k << ") at shared address "
              << hex(a) << ", outside the block's " << b_.smem_bytes << " bytes of shared memory";
            fault(*t0_, s.str(), "build descriptors from shared tiles (tk::warpgroup::mma does) with the offsets of their layout");
        }
        return swizzle_address(uint32_t(a), S);
    }

    static double bf16_at(const char* p) {
        uint16_t h;
        std::memcpy(&h, p, 2);
        return bits16_to_float(h, false);
    }

    // This warp's part of a warpgroup's m64nNk16: rows 16(w%4)..+15 of D.
    void wgmma() {
        const int N = int(op0_->arg);
        if (N < 8 || N > 256 || N % 8 != 0)
            fault(*t0_, "wgmma with N = " + std::to_string(N) + "; bf16 wgmma.m64nNk16 has N = 8, 16, ..., 256 (a multiple of 8)",
                  "use a supported N (tk::warpgroup::mma: 16, 32, 64, 128 or 256 columns)");
        check_full_warpgroup("wgmma.mma_async");
        const int q = w_.id % 4;
        const uint8_t flags = op0_->flag;
        const bool a_regs = flags & wgmma_a_in_registers, ta = flags & wgmma_trans_a, tb = flags & wgmma_trans_b;
        std::vector<uint32_t> rows;  // core-matrix rows read from shared memory, 8 per matrix
        double A[16][16];
        if (a_regs) {
            for (int l = 0; l < 32; ++l) {
                const uint32_t* a = static_cast<const uint32_t*>(lane_op(l).in[0]);
                const int gid = l / 4, tig = l % 4;
                for (int r = 0; r < 4; ++r) {  // mma.sync's A fragment
                    const int row = gid + 8 * (r & 1), col = 2 * tig + 8 * (r >> 1);
                    A[row][col] = bits16_to_float(uint16_t(a[r]), false);
                    A[row][col + 1] = bits16_to_float(uint16_t(a[r] >> 16), false);
                }
            }
        } else {
            const Descriptor da = decode_descriptor(op0_->desc[0], "A");
            for (int m = 0; m < 16; ++m)
                for (int k = 0; k < 16; ++k) A[m][k] = bf16_at(b_.smem + operand_address(da, 16 * q + m, k, ta, "A", op0_->desc[0]));
            for (int mg = 0; mg < 2; ++mg)  // this warp's 2 x 2 core matrices
                for (int kg = 0; kg < 2; ++kg)
                    for (int i = 0; i < 8; ++i)
                        rows.push_back(ta ? operand_address(da, 16 * q + 8 * mg, 8 * kg + i, true, "A", op0_->desc[0])
                                          : operand_address(da, 16 * q + 8 * mg + i, 8 * kg, false, "A", op0_->desc[0]));
        }
        const Descriptor db = decode_descriptor(op0_->desc[1], "B");
        std::vector<double> B(size_t(16) * size_t(N));
        for (int k = 0; k < 16; ++k)
            for (int n = 0; n < N; ++n) B[size_t(k * N + n)] = bf16_at(b_.smem + operand_address(db, n, k, tb, "B", op0_->desc[1]));
        if (q == 0)  // B is read once for the warpgroup: counted with its first warp
            for (int ng = 0; ng < N / 8; ++ng)
                for (int kg = 0; kg < 2; ++kg)
                    for (int i = 0; i < 8; ++i)
                        rows.push_back(tb ? operand_address(db, 8 * ng, 8 * kg + i, true, "B", op0_->desc[1])
                                          : operand_address(db, 8 * ng + i, 8 * kg, false, "B", op0_->desc[1]));
        // D: lane l holds, per 8-column group j, d[4j..4j+1] = (row l/4, cols 8j + 2(l%4) + 0..1), d[4j+2..3] = row l/4 + 8.
        std::vector<double> D(size_t(16) * size_t(N), 0.0);
        const bool accumulate = op0_->width != 0;
        if (accumulate)
            for (int l = 0; l < 32; ++l) {
                const float* d = static_cast<const float*>(lane_op(l).out);
                for (int j = 0; j < N / 8; ++j)
                    for (int i = 0; i < 4; ++i) D[size_t((l / 4 + 8 * (i >> 1)) * N + 8 * j + 2 * (l % 4) + (i & 1))] = d[4 * j + i];
            }
        for (int m = 0; m < 16; ++m)
            for (int k = 0; k < 16; ++k) {
                const double av = A[m][k];
                double* drow = &D[size_t(m * N)];
                const double* brow = &B[size_t(k * N)];
                for (int n = 0; n < N; ++n) drow[n] += av * brow[n];
            }
        for (int l = 0; l < 32; ++l) {
            float* d = static_cast<float*>(lane_op(l).out);
            for (int j = 0; j < N / 8; ++j)
                for (int i = 0; i < 4; ++i) d[4 * j + i] = float(D[size_t((l / 4 + 8 * (i >> 1)) * N + 8 * j + 2 * (l % 4) + (i & 1))]);
        }
        // The operands are read by the warpgroup's tensor cores, an agent of
        // their own, until a wgmma wait retires this group; what they read
        // must be ordered before the wgmma's issue by this warp.
        if (b_.shadow) {
            const bugs::Accessor cores{b_.shadow->agents().tensor_cores(w_.id), 0, w_.wgmma_commits + 1, 0, &w_.hb, site_};
            for (uint32_t r : rows) shadow_access(cores, r, 16, false, *t0_);
        }
        record_rows16(rows);
        // Asynchronous: the sub-partition's tensor pipe takes this warp's
        // 16 x N x 16 multiply-adds at a quarter of the SM's rate; the result
        // is ready `latency` after the pipe finishes. The warp goes on.
        uint64_t& pipe = b_.tensor_free[w_.id % 4];
        const uint64_t per_partition = uint64_t(std::max(4, cost_.wgmma_fma_per_cycle / 4));
        const uint64_t cycles = (uint64_t(16) * uint64_t(N) * 16 + per_partition - 1) / per_partition;
        pipe = std::max(t_, pipe) + cycles;
        w_.wgmma_open = std::max(w_.wgmma_open, pipe + uint64_t(cost_.wgmma_latency));
        w_.clock = t_ + cost_.issue_cycles;
    }

    void wgmma_wait() {
        const size_t keep = op0_->arg;
        while (w_.wgmma_groups.size() > keep) {
            // Committed groups have epochs up to wgmma_commits, the oldest first.
            const uint32_t epoch = w_.wgmma_commits - uint32_t(w_.wgmma_groups.size()) + 1;
            wait_until(w_.wgmma_groups.front(), Stall::long_scoreboard);
            w_.wgmma_groups.erase(w_.wgmma_groups.begin());
            // The group's operand reads are over: ordered before what follows.
            if (b_.shadow) {
                uint32_t& known = w_.hb[size_t(b_.shadow->agents().tensor_cores(w_.id))];
                known = std::max(known, epoch);
            }
        }
        w_.clock = t_ + cost_.issue_cycles;
    }

    // setmaxnreg: 24..256 in steps of 8, .inc never lowers and .dec never
    // raises the limit, and the warps of a warpgroup ask the same counts in the same order.
    void setmaxnreg() {
        const uint32_t n = op0_->arg;
        const bool inc = op0_->flag & 1;
        const char* name = inc ? "setmaxnreg.inc" : "setmaxnreg.dec";
        if (n < 24 || n > 256 || n % 8 != 0)
            fault(*t0_, std::string(name) + " " + std::to_string(n) + ": the count must be 24..256 and a multiple of 8",
                  "pass a multiple of 8 between 24 and 256");
        check_full_warpgroup(name);
        if (!w_.maxnreg.empty()) {
            const uint32_t prev = w_.maxnreg.back().first;
            if ((inc && n < prev) || (!inc && n > prev))
                fault(*t0_, std::string(name) + " " + std::to_string(n) + " after a limit of " + std::to_string(prev) + " would " +
                                (inc ? "lower" : "raise") + " it",
                      inc ? "use decrease_registers to give registers up" : "use increase_registers to take registers");
        }
        const size_t nth = w_.maxnreg.size();
        const int first = w_.id / 4 * 4;
        for (int i = first; i < first + 4; ++i) {
            const Warp& o = b_.warps[size_t(i)];
            if (i == w_.id || o.maxnreg.size() <= nth) continue;
            if (o.maxnreg[nth] != std::make_pair(n, inc))
                fault(*t0_, std::string(name) + " " + std::to_string(n) + " is this warp's setmaxnreg number " + std::to_string(nth + 1) +
                                ", but warp " + std::to_string(i) + " of its warpgroup asked " +
                                (o.maxnreg[nth].second ? "setmaxnreg.inc " : "setmaxnreg.dec ") + std::to_string(o.maxnreg[nth].first) + " there",
                      "every warp of a warpgroup must reallocate registers the same way (call it in warpgroup-uniform code)");
        }
        w_.maxnreg.emplace_back(n, inc);
        w_.clock = t_ + cost_.issue_cycles;
    }

    // A record when the first lane's registers or its live declarations
    // changed: a tile can die and another of the same size take its place.
    void record_registers() {
        const uint16_t regs = uint16_t(t0_->regs);
        if (regs == w_.last_regs && t0_->live == w_.last_live) return;
        w_.last_regs = regs;
        w_.last_live = t0_->live;
        RegRecord r{t_, uint16_t(w_.id), regs, {}};
        r.live.reserve(t0_->live.size());
        for (const Thread::Alloc& a : t0_->live) r.live.push_back({b_.out->decls(a.file, a.line), a.regs});
        trace().regs.push_back(std::move(r));
    }
};

// ---------------------------------------------------------------- scheduling

struct SiteKey {
    Op op; const char* file; int line; const char* kfile; int kline;
    bool operator==(const SiteKey&) const = default;
};
SiteKey site_of(const Thread& t) { return {t.pending->op, t.pending->file, t.pending->line, t.kfile, t.kline}; }

// Lanes a warp-synchronous instruction needs to be present: its member mask
// for shfl/syncwarp, every lane of the warp for the .aligned matrix
// instructions, and the lanes still running for a block barrier.
uint32_t required_lanes(const Warp& w, const LaneOp& op) {
    switch (op.op) {
    case Op::shfl: case Op::syncwarp: return op.mask & w.exists;
    case Op::mma: case Op::ldmatrix: case Op::stmatrix: return w.exists;
    case Op::wgmma: case Op::wgmma_fence: case Op::wgmma_commit: case Op::wgmma_wait: case Op::setmaxnreg: return w.exists;
    default: return w.live;
    }
}

class BlockRunner {
public:
    BlockRunner(Block& b, StackPool& stacks, const std::function<void()>& body) : b_(b), stacks_(stacks), body_(body) {}

    void run() {
        for (;;) {
            Warp* next = nullptr;
            for (Warp& w : b_.warps)
                if (w.state == WarpState::runnable && (!next || w.clock < next->clock)) next = &w;
            // Asynchronous completions due by the next warp's clock happen
            // first; with no warp runnable, the earliest one (it may release some).
            if (!b_.async.empty() && (!next || b_.async.begin()->first.first <= next->clock)) {
                auto node = b_.async.extract(b_.async.begin());
                node.mapped()();
                continue;
            }
            if (!next) {
                bool all_done = std::all_of(b_.warps.begin(), b_.warps.end(), [](const Warp& w) { return w.state == WarpState::done; });
                if (all_done) break;
                report_deadlock();
            }
            if (++executed_ > options().max_block_instructions) report_instruction_limit();
            step(*next);
        }
        check_transactions_settled();
        check_barriers_settled();
        uint64_t end = 0;
        for (Warp& w : b_.warps) end = std::max(end, w.clock);
        b_.out->trace.cycles = end;
    }

    // Unwinds any fiber still parked (after an error), with its thread current
    // so destructors of register tiles account correctly.
    void unwind() {
        for (Thread& t : b_.threads) {
            if (!t.fib) continue;
            g_cur = &t;
            fiber_switch::unwind(t.fib, t.stack);
            g_cur = nullptr;
        }
    }

private:
    Block& b_;
    StackPool& stacks_;
    const std::function<void()>& body_;
    uint64_t executed_ = 0;

    // After the block: bytes that landed on a barrier with no expect_tx to
    // count them leave its transaction count negative; the kernel waited on
    // the wrong phase (the arrival completed it before the copy landed).
    void check_transactions_settled() {
        std::vector<uint32_t> addrs;
        for (const auto& [addr, m] : b_.mbars)
            if (m.tx < 0) addrs.push_back(addr);
        if (addrs.empty()) return;
        std::sort(addrs.begin(), addrs.end());  // deterministic: the lowest address
        const MbarState& m = b_.mbars.at(addrs.front());
        std::ostringstream s;
        s << line_of(m.copy_file, m.copy_line) << ": error: kernel " << b_.kernel << ", " << block_name(b_.threads.front().ids.block)
          << ": bulk copies completing on mbarrier " << hex(addrs.front()) << " delivered " << -m.tx
          << " bytes that no expect_tx counted, so its phases completed without waiting for them (the data may have been read before it landed)."
          << "\n  fix: expect each phase's bytes (tk::tma::expect<Tiles...>, arrive.expect_tx) before or with the phase's arrival";
        throw SimError(ErrorKind::fault, s.str(), m.copy_file, m.copy_line);
    }

    // After the block: a barrier some warps arrived at (bar.arrive) that never
    // released -- its count is more than the threads that use it.
    void check_barriers_settled() {
        if (!b_.checks.sync) return;
        for (int id = 0; id < 16; ++id) {
            const BarrierState& bar = b_.bars[id];
            if (bar.arrived == 0) continue;
            std::ostringstream s;
            s << line_of(bar.first_file, bar.first_line) << ": error: synchronisation misuse in kernel " << b_.kernel << ", "
              << block_name(b_.threads.front().ids.block) << ": barrier " << id << " expects " << bar.expected << " threads, but only "
              << bar.arrived << " arrived (" << warp_list(bar.arrived_warps) << ") before the block ended, so it never released"
              << ".\n  fix: give the barrier the number of threads that really arrive at it, and make each of them arrive";
            throw SimError(ErrorKind::sync_misuse, s.str(), bar.first_file, bar.first_line);
        }
    }

    [[noreturn]] void report_instruction_limit() {
        std::ostringstream s;
        const Thread& any = b_.threads.front();
        s << "error: kernel " << b_.kernel << ", " << block_name(any.ids.block) << " has executed " << options().max_block_instructions << " warp instructions without finishing:";
        const char* file = "";
        int line = 0;
        for (const Warp& w : b_.warps) {
            s << "\n  warp " << w.id << ": ";
            if (w.state == WarpState::done) s << "finished";
            else if (w.last_op == Op::count_) s << "has not executed an instruction";
            else {
                s << "last executed " << op_name(w.last_op) << " (" << line_of(w.last_file, w.last_line) << ")";
                if (!line) { file = w.last_file; line = w.last_line; }
            }
        }
        s << "\n  fix: look for a loop that never ends -- for example spinning on test_wait for a phase nothing completes "
             "(use wait(), which the simulator can prove stuck); if the kernel really is this long, raise "
             "tklab::sim::options().max_block_instructions";
        throw SimError(ErrorKind::instruction_limit, s.str(), file, line);
    }

    void resume(Thread& t) {
        if (!t.fib && !t.exited) {
            t.fib = ctx::fiber(std::allocator_arg, PooledStack{&stacks_, &t.stack}, [this, &t](ctx::fiber&& sched) {
                fiber_switch::entered();
                t.sched = std::move(sched);
                try {
                    body_();
                } catch (const ctx::detail::forced_unwind&) {
                    fiber_switch::leaving();
                    throw;
                } catch (...) {
                    t.error = std::current_exception();
                }
                t.exited = true;
                fiber_switch::leaving();
                return std::move(t.sched);
            });
        }
        g_cur = &t;
        kernel_crash::RunningFiber running(t.stack, t.sched);
        t.fib = fiber_switch::enter(std::move(t.fib), t.stack);
        g_cur = nullptr;
        if (running.crash.signal) crashed(t, running.crash);
        if (t.error) rethrow_from(t);
        t.parked_op_seq = t.op_seq;
    }

    // The kernel line a thread is at: the tile op it began after its last
    // instruction (maybe still open), else that instruction's kernel line.
    static std::pair<const char*, int> kernel_line(const Thread& t) {
        if (t.op_seq != t.parked_op_seq && t.op_line > 0) return {t.op_file, t.op_line};
        return {t.kfile, t.kline};
    }

    [[noreturn]] void rethrow_from(Thread& t) {
        std::exception_ptr e = t.error;
        t.error = nullptr;
        const auto [file, line] = kernel_line(t);
        try {
            std::rethrow_exception(e);
        } catch (const SimError&) {
            throw;
        } catch (const kernel_crash::KernelTrap& trap) {
            throw kernel_crash::trap_error(trap, where(t));
        } catch (const std::exception& ex) {
            throw kernel_crash::exception_error(typeid(ex).name(), ex.what(), where(t), file, line);
        } catch (...) {
            throw kernel_crash::exception_error({}, {}, where(t), file, line);
        }
    }

    // A signal on the thread's fiber (kernel_crash.h) left it for good: its
    // stack holds a dead handler's frame, so the fiber is never resumed or
    // unwound (its handle is dropped unreleased) and its stack never goes back
    // to the pool (a few pages leak per crash).
    [[noreturn]] void crashed(Thread& t, const kernel_crash::Crash& c) {
        new (&t.fib) ctx::fiber{};
        const auto [file, line] = kernel_line(t);
        throw kernel_crash::crash_error(c, where(t), file, line, options().stack_bytes);
    }

    void step(Warp& w) {
        for (uint32_t m = w.live; m; m &= m - 1) {
            Thread& t = *w.lanes[std::countr_zero(m)];
            if (!t.pending) resume(t);
            if (t.exited) w.live &= ~(1u << t.lane);
        }
        if (!w.live) {
            w.state = WarpState::done;
            return;
        }
        // Group the parked lanes by call site.
        uint32_t group_mask[32];
        int group_lane[32];
        int groups = 0;
        for (uint32_t m = w.live; m; m &= m - 1) {
            int l = std::countr_zero(m);
            SiteKey k = site_of(*w.lanes[l]);
            int g = 0;
            while (g < groups && !(site_of(*w.lanes[group_lane[g]]) == k)) ++g;
            if (g == groups) { group_lane[g] = l; group_mask[g] = 0; ++groups; }
            group_mask[g] |= 1u << l;
        }
        // Converged lanes run together. Divergent groups run one at a time, the
        // earliest kernel line first (a stand-in for the lowest PC) so lanes that
        // took a branch catch up with the rest; a warp-synchronous instruction
        // waits until every lane it names is there.
        int order[32];
        for (int g = 0; g < groups; ++g) order[g] = g;
        std::sort(order, order + groups, [&](int a, int c) {
            const Thread& x = *w.lanes[group_lane[a]];
            const Thread& y = *w.lanes[group_lane[c]];
            if (x.kline != y.kline) return x.kline < y.kline;
            if (x.pending->line != y.pending->line) return x.pending->line < y.pending->line;
            return group_lane[a] < group_lane[c];
        });
        // Lanes about to block on an mbarrier wait go last: the lanes still
        // running may be the ones that complete the phase (a lane-0 arrive
        // after the loop's wait, say), as they would on the GPU.
        int deferred = -1;
        for (int i = 0; i < groups; ++i) {
            int g = order[i];
            const LaneOp& op = *w.lanes[group_lane[g]]->pending;
            if (groups > 1 && deferred < 0 && op.op == Op::mbar_wait && would_block(op)) {
                deferred = g;
                continue;
            }
            if (is_warp_sync(op.op)) {
                uint32_t need = required_lanes(w, op);
                if (need & ~w.live) report_divergence(w, groups, group_mask, group_lane, true);
                if ((need & group_mask[g]) != need) continue;
                Executor(b_, w, need).run();  // need is within this group (checked above)
                return;
            }
            Executor(b_, w, group_mask[g]).run();
            return;
        }
        if (deferred >= 0) {
            Executor(b_, w, group_mask[deferred]).run();
            return;
        }
        report_divergence(w, groups, group_mask, group_lane, false);
    }

    // An mbarrier wait whose phase has not completed (it would park the warp).
    bool would_block(const LaneOp& op) const {
        auto it = b_.mbars.find(op.addr);
        return it != b_.mbars.end() && (it->second.phase & 1) == (op.arg & 1);
    }

    [[noreturn]] void report_divergence(Warp& w, int groups, const uint32_t* mask, const int* lane, bool needs_exited) {
        std::ostringstream s;
        const Thread& t0 = *w.lanes[lane[0]];
        s << line_of(t0.kfile, t0.kline) << ": error: warp " << w.id << " of " << block_name(t0.ids.block) << " is split across warp-synchronous instructions:";
        for (int g = 0; g < groups; ++g) {
            const Thread& t = *w.lanes[lane[g]];
            s << "\n  lanes " << hex(mask[g]) << " at " << op_name(t.pending->op) << " (" << line_of(t.kfile, t.kline) << ")";
        }
        if (needs_exited) s << "\n  and it needs lanes " << hex(w.exists & ~w.live) << ", which have exited";
        s << "\n  fix: every lane must reach the same mma/ldmatrix/shfl/bar instruction together (move it out of the divergent branch)";
        throw SimError(ErrorKind::divergence, s.str(), t0.kfile, t0.kline);
    }

    // Warps as a list: "warps 0-3, 6".
    static std::string warp_list(uint64_t mask) {
        std::ostringstream s;
        int n = 0;
        for (int w = 0; w < 64; ++w) {
            if (!(mask >> w & 1)) continue;
            int e = w;
            while (e + 1 < 64 && (mask >> (e + 1) & 1)) ++e;
            s << (n++ ? ", " : "") << w;
            if (e > w) s << "-" << e;
            w = e;
        }
        return (std::popcount(mask) == 1 ? "warp " : "warps ") + s.str();
    }

    // What a waiting warp waits on, in a few words.
    std::string waiting_on(const Warp& w) const {
        if (w.state == WarpState::at_barrier) return "bar.sync " + std::to_string(w.wait_bar) + " (" + line_of(w.wait_file, w.wait_line) + ")";
        if (w.state == WarpState::at_mbarrier)
            return "mbarrier " + hex(w.wait_addr) + " phase parity " + std::to_string(w.wait_parity) + " (" + line_of(w.wait_file, w.wait_line) + ")";
        return w.state == WarpState::done ? "exited" : "runnable";
    }

    // When no warp can run: every waiting warp, what it waits on and who
    // could end the wait (the wait-for picture), a cycle among them if there
    // is one, and whether the wait is a misuse no schedule could satisfy.
    [[noreturn]] void report_deadlock() {
        const int n = int(b_.warps.size());
        uint64_t done = 0;
        for (const Warp& w : b_.warps)
            if (w.state == WarpState::done) done |= uint64_t(1) << w.id;
        const uint64_t all = n >= 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1;
        std::vector<uint64_t> waits_for(size_t(n), 0);  // warps that could end each warp's wait
        std::ostringstream s, misuse;
        const char* file = "";
        int line = 0;
        const char* misuse_file = "";
        int misuse_line = 0;
        std::string misuse_fix;
        const Thread& any = b_.threads.front();
        for (const Warp& w : b_.warps) {
            if (w.state == WarpState::done) continue;
            s << "\n  warp " << w.id << ": waits " << (w.state == WarpState::at_barrier ? "at " : "on ") << waiting_on(w);
            if (!line) { file = w.wait_file; line = w.wait_line; }
            if (w.state == WarpState::at_barrier) {
                const BarrierState& bar = b_.bars[w.wait_bar];
                const uint64_t arrived = bar.arrived_warps;
                const uint64_t to_come = all & ~arrived & ~done;
                waits_for[size_t(w.id)] = to_come;
                s << ", " << bar.arrived << " of " << bar.expected << " threads arrived (" << warp_list(arrived) << ")";
                if (to_come) s << "; still to come: " << warp_list(to_come);
                if (done & ~arrived) s << "; " << warp_list(done & ~arrived) << " exited without arriving";
                const int could = bar.arrived + 32 * std::popcount(to_come);
                if (misuse.tellp() == 0 && could < bar.expected) {
                    misuse << "barrier " << w.wait_bar << " waits for " << bar.expected << " threads, but only " << bar.arrived << " arrived";
                    if (to_come) misuse << " and at most " << 32 * std::popcount(to_come) << " more could (" << warp_list(to_come) << ")";
                    if (done & ~arrived) misuse << "; " << warp_list(done & ~arrived) << " exited without reaching it";
                    misuse << (bar.expected == int(b_.threads.size()) && (done & ~arrived) ? ": a block barrier reached by only part of the block"
                                                                                            : ": its thread count is more than the threads that use it");
                    misuse_file = w.wait_file;
                    misuse_line = w.wait_line;
                    misuse_fix = bar.expected == int(b_.threads.size())
                                     ? "make every warp reach the barrier: no __syncthreads() after an early return or inside a branch some warps skip"
                                     : "give the named barrier the number of threads that really arrive at it (a multiple of 32)";
                }
            } else if (w.state == WarpState::at_mbarrier) {
                auto it = b_.mbars.find(w.wait_addr);
                if (it == b_.mbars.end()) continue;
                const MbarState& m = it->second;
                uint64_t waiters = 0;
                for (const Warp& o : b_.warps)
                    if (o.state == WarpState::at_mbarrier && o.wait_addr == w.wait_addr) waiters |= uint64_t(1) << o.id;
                const uint64_t others = all & ~done & ~waiters;  // warps that could still arrive
                waits_for[size_t(w.id)] = m.arrivers ? (uint64_t(m.arrivers) & ~done) : others;
                s << ", " << (m.expected - m.pending) << " of " << m.expected << " arrivals";
                if (m.tx > 0)
                    s << ", " << m.tx << " expected transaction bytes outstanding that no bulk copy in flight will deliver"
                      << " (an expect_tx counted more than the copies issued on it)";
                else if (m.tx < 0)
                    s << ", " << -m.tx << " bytes landed that no expect_tx counted (last copy: " << line_of(m.copy_file, m.copy_line) << ")";
                if (m.arrivers) s << "; arrivals came from " << warp_list(m.arrivers) << " before";
                else s << "; nothing has arrived on it yet";
                if (misuse.tellp() == 0 && !others && m.in_flight == 0) {
                    misuse << "warps wait on phase " << (m.phase + ((m.phase & 1) == w.wait_parity ? 0 : 1)) << " (parity " << w.wait_parity
                           << ") of mbarrier " << hex(w.wait_addr) << " (initialised at " << line_of(m.init_file, m.init_line) << " for "
                           << m.expected << " arrivals per phase), which can never complete: it needs " << m.pending << " more arrival"
                           << (m.pending == 1 ? "" : "s") << (m.tx > 0 ? " and " + std::to_string(m.tx) + " more bytes" : "")
                           << ", and every warp left is waiting on it (" << warp_list(waiters) << ")";
                    if (done) misuse << " or has exited (" << warp_list(done) << ")";
                    misuse_file = w.wait_file;
                    misuse_line = w.wait_line;
                    misuse_fix = "check the phase parity each wait uses (it flips with every completed phase), that the arrival count at "
                                 "init matches the arrivals per phase, and that the arrivals happen before the wait";
                }
            }
        }
        for (const Warp& w : b_.warps)
            if (w.state == WarpState::done) s << "\n  warp " << w.id << ": has exited";
        // A cycle in the wait-for graph: follow the first warp each waits for.
        std::string cycle;
        for (int start = 0; start < n && cycle.empty(); ++start) {
            std::vector<int> path;
            std::vector<int> seen(size_t(n), -1);
            int cur = start;
            while (cur >= 0 && seen[size_t(cur)] < 0 && waits_for[size_t(cur)]) {
                seen[size_t(cur)] = int(path.size());
                path.push_back(cur);
                cur = std::countr_zero(waits_for[size_t(cur)] & ~(uint64_t(1) << cur)) < 64
                          ? std::countr_zero(waits_for[size_t(cur)] & ~(uint64_t(1) << cur)) : -1;
            }
            if (cur >= 0 && seen[size_t(cur)] >= 0) {
                std::ostringstream c;
                for (size_t i = size_t(seen[size_t(cur)]); i < path.size(); ++i)
                    c << "warp " << path[i] << " -> " << waiting_on(b_.warps[size_t(path[i])]) << " -> ";
                c << "warp " << cur;
                cycle = c.str();
            }
        }
        std::ostringstream out;
        if (b_.checks.sync && misuse.tellp() != 0) {
            out << line_of(misuse_file, misuse_line) << ": error: synchronisation misuse in kernel " << b_.kernel << ", "
                << block_name(any.ids.block) << ": " << misuse.str() << ".\n  wait-for:" << s.str() << "\n  fix: " << misuse_fix;
            throw SimError(ErrorKind::sync_misuse, out.str(), misuse_file, misuse_line);
        }
        out << "error: deadlock in kernel " << b_.kernel << ", " << block_name(any.ids.block)
            << ": every warp is waiting and none can proceed.\n  wait-for (who waits on what, and who could end the wait):" << s.str();
        if (!cycle.empty()) out << "\n  cycle: " << cycle;
        out << "\n  fix: make every warp that a barrier counts reach it (no bar.sync inside a branch some warps skip), "
               "make the arrival count match the arrivals, and break the cycle: a warp must not wait for a warp that waits for it";
        throw SimError(ErrorKind::deadlock, out.str(), file, line);
    }
};

// ---------------------------------------------------------------- launch

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

void run_block(const std::string& kernel, uint32_t linear, Dim3 grid, Dim3 block_dim, size_t smem_bytes,
               const std::function<void()>& body, const CostModel& cost, StackPool& stacks, AlignedBuffer& smem, bugs::SharedShadow& shadow,
               BlockResult& out) {
    Block b;
    b.cost = &cost;
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
    // (reused block after block); each warp starts in its first epoch.
    b.checks = options().checks;
    if (b.checks.races || b.checks.uninit) {
        shadow.begin_block(smem_bytes, int(nwarps), b.checks.races, b.checks.uninit);
        b.shadow = &shadow;
        for (Warp& w : b.warps) {
            w.hb.assign(size_t(shadow.agents().count()), 0u);
            w.hb[size_t(w.id)] = 1;
        }
    }
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
    BlockRunner runner(b, stacks, body);
    kernel_crash::guard_host_thread();  // a kernel's crash on this host thread becomes its SimError
    try {
        runner.run();
    } catch (...) {
        end_open_regions(b);  // before unwinding: the unwound lanes leave them open
        runner.unwind();
        throw;
    }
    end_open_regions(b);
    out.trace.warp_peak_regs.resize(nwarps);
    for (const Thread& t : b.threads) {
        uint16_t& peak = out.trace.warp_peak_regs[t.warp->id];
        peak = std::max<uint16_t>(peak, uint16_t(t.peak_regs));
        if (t.peak_regs > out.trace.peak_regs) {
            out.trace.peak_regs = t.peak_regs;
            out.trace.peak_regs_loc = out.locs(t.peak_file, t.peak_line);
            out.trace.peak_live.clear();
            for (const Thread::Alloc& a : t.peak_live) out.trace.peak_live.push_back({out.locs(a.file, a.line), a.regs});
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

} // namespace

// ---------------------------------------------------------------- kernel-facing API

void issue(LaneOp& op) {
    Thread* t = g_cur;
    if (!t) throw SimError(ErrorKind::usage, std::string("instruction ") + op_name(op.op) + " called outside a simulated kernel (" +
                                                 line_of(op.file, op.line) + "); launch the kernel with tk::launch");
    t->pending = &op;
    if (t->op_depth > 0) { t->kfile = t->op_file; t->kline = t->op_line; }
    else { t->kfile = op.file; t->kline = op.line; }
    t->sched = fiber_switch::yield(std::move(t->sched));
}

const ThreadIds& current_ids() {
    if (!g_cur) throw SimError(ErrorKind::usage, "threadIdx/blockIdx/blockDim/gridDim read outside a simulated kernel");
    return g_cur->ids;
}

bool in_kernel() { return g_cur != nullptr; }

// The simulated GPU's SM count, from the (cached) cost model runs use.
int multiprocessors() { return options().sms > 0 ? options().sms : cost_model(options().arch).sms; }

char* dynamic_smem() {
    if (!g_cur) throw SimError(ErrorKind::usage, "dynamic shared memory requested outside a simulated kernel");
    return g_cur->warp->block->smem;
}

uint32_t smem_addr(const void* p, const char* file, int line) {
    Thread* t = g_cur;
    if (!t) throw SimError(ErrorKind::usage, "shared address taken outside a simulated kernel");
    const Block& b = *t->warp->block;
    const char* c = static_cast<const char*>(p);
    if (c < b.smem || c > b.smem + b.smem_bytes) {
        t->kfile = t->op_depth > 0 ? t->op_file : file;
        t->kline = t->op_depth > 0 ? t->op_line : line;
        fault(*t, "a shared-memory instruction was given a pointer that is not into the block's shared memory",
              "take shared tiles and vectors from tk::shared_allocator; global data goes through global-memory ops");
    }
    return uint32_t(c - b.smem);
}

void reg_alloc(int regs, const char* file, int line) {
    Thread* t = g_cur;
    if (!t) return;
    t->regs += regs;
    t->live.push_back({file, line, regs});
    if (t->regs > t->peak_regs) {
        t->peak_regs = t->regs; t->peak_file = file; t->peak_line = line;
        t->peak_live = t->live;
    }
}
void reg_free(int regs) {
    Thread* t = g_cur;
    if (!t) return;
    t->regs -= regs;
    // Automatic objects die in reverse order, so the newest allocation of this
    // size is the one going (exact for tiles on the stack).
    for (size_t i = t->live.size(); i-- > 0;)
        if (t->live[i].regs == regs) { t->live.erase(t->live.begin() + long(i)); break; }
}

bool snapshots_wanted() {
    const Thread* t = g_cur;
    return t && t->warp->block->snapshots;
}

void snapshot(const SnapshotPart& part) {
    Thread* t = g_cur;
    if (!t || !t->warp->block->snapshots) return;
    Block& b = *t->warp->block;
    Warp& w = *t->warp;
    BlockTrace& bt = b.out->trace;
    auto& pending = b.pending_snapshots[size_t(w.id)];
    const uint32_t nth = t->snapshots++;
    // The warp's nth snapshot: the first lane to reach it creates it.
    auto it = std::find_if(pending.begin(), pending.end(), [&](const Block::PendingSnapshot& p) { return p.nth == nth; });
    if (it == pending.end()) {
        SnapshotRecord r;
        r.cycle = w.clock;
        r.warp = uint16_t(w.id);
        r.loc = b.out->locs(part.file, part.line);
        r.label = part.label;
        r.shared = part.shared;
        r.rows = part.rows;
        r.cols = part.cols;
        r.values.assign(size_t(part.rows) * size_t(part.cols), std::numeric_limits<float>::quiet_NaN());
        bt.snapshots.push_back(std::move(r));
        pending.push_back({nth, bt.snapshots.size() - 1});
        it = pending.end() - 1;
    }
    SnapshotRecord& r = bt.snapshots[it->index];
    if (!r.shared || r.lanes_seen == 0) part.fill(part.tile, t->lane, r.values.data());
    r.lanes_seen |= 1u << t->lane;
    if ((r.lanes_seen & w.live) == w.live) pending.erase(it);  // every live lane has given its part
}

int64_t region_begin(const char* name, const char* file, int line) {
    Thread* t = g_cur;
    if (!t) return -1;
    Block& b = *t->warp->block;
    Warp& w = *t->warp;
    BlockTrace& bt = b.out->trace;
    const uint32_t pass = t->region_passes[{name, line}]++;
    auto& pending = b.pending_regions[size_t(w.id)];
    const Block::RegionKey key{name, line, pass};
    auto it = pending.find(key);
    if (it == pending.end()) {  // the warp's first lane here: the region begins now
        RegionRecord r;
        r.begin = r.end = w.clock;
        r.warp = uint16_t(w.id);
        r.name = uint16_t(b.out->region_names(name, 0));
        r.loc = b.out->region_locs(file, line);
        r.depth = uint8_t(std::min(t->region_depth, 255));
        bt.regions.push_back(r);
        it = pending.emplace(key, bt.regions.size() - 1).first;
    }
    const size_t index = it->second;
    RegionRecord& r = bt.regions[index];
    r.entered |= 1u << t->lane;
    if ((r.entered & w.live) == w.live) pending.erase(it);  // every live lane is in
    ++t->region_depth;
    return int64_t(index);
}

void region_end(int64_t record, bool unwinding) {
    Thread* t = g_cur;
    if (!t || record < 0) return;
    --t->region_depth;
    if (unwinding) return;  // a fault or an exception: the region stays open
    BlockTrace& bt = t->warp->block->out->trace;
    if (size_t(record) >= bt.regions.size()) return;
    RegionRecord& r = bt.regions[size_t(record)];
    r.end = std::max(r.end, t->warp->clock);  // the warp's last lane to leave ends it
    r.left |= 1u << t->lane;
    r.closed = r.left == r.entered;
}

op_scope::op_scope(const char* name, const char* file, int line) {
    Thread* t = g_cur;
    if (!t) return;
    if (t->op_depth++ == 0) { t->op_name = name; t->op_file = file; t->op_line = line; ++t->op_seq; }
}
op_scope::~op_scope() {
    if (Thread* t = g_cur) --t->op_depth;
}

// ---------------------------------------------------------------- launch

namespace {
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

// Folds blocks, in block order, into run-wide ids (deterministic whatever
// thread ran them) and the run's statistics.
class Merger {
public:
    explicit Merger(RunResult& r) : r_(r) {
        r_.locations = {Location{}};
        r_.op_names = {std::string{}};
    }

    void add(BlockResult& br) {
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
            st.stall_cycles[size_t(e.stall)] += e.stall_cycles;
        }
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
            switch (bt.events[s.event].op) {
            case Op::ld_shared: tot = &st.ld_shared; break;
            case Op::st_shared: tot = &st.st_shared; break;
            case Op::ldmatrix: tot = &st.ldmatrix; break;
            case Op::stmatrix: tot = &st.stmatrix; break;
            default: continue;
            }
            tot->instructions++;
            tot->wavefronts += s.banks.wavefronts;
            tot->ideal += s.banks.ideal;
            tot->max_way = std::max<int>(tot->max_way, s.banks.max_way);
        }
        st.setmaxnreg_registers = std::max(st.setmaxnreg_registers, bt.setmaxnreg_registers);
        if (bt.peak_regs > st.peak_regs) {
            st.peak_regs = bt.peak_regs;
            st.peak_regs_loc = bt.peak_regs_loc;
            st.peak_live = bt.peak_live;
        }
        st.max_block_cycles = std::max(st.max_block_cycles, bt.cycles);
        st.sum_block_cycles += bt.cycles;
        st.blocks_run++;
    }

    // Occupancy from threads, registers (rounded to the allocation unit of 8) and shared memory.
    void finish(const CostModel& cost, unsigned threads_per_block, uint64_t nblocks) {
        Stats& st = r_.stats;
        const int regs = (cost.base_registers_per_thread + st.peak_regs + 7) / 8 * 8;
        struct Limit { int blocks; const char* why; };
        Limit limits[] = {
            {cost.max_blocks_per_sm, "blocks"},
            {cost.max_threads_per_sm / int(std::max(1u, threads_per_block)), "threads"},
            // A block that reallocates registers (setmaxnreg) holds what its warps asked for.
            {cost.registers_per_sm / std::max(1, st.setmaxnreg_registers ? st.setmaxnreg_registers : regs * int(threads_per_block)),
             "registers"},
            {r_.smem_bytes ? int(cost.shared_bytes_per_sm / r_.smem_bytes) : INT32_MAX, "shared memory"},
        };
        const Limit* low = std::min_element(std::begin(limits), std::end(limits),
                                            [](const Limit& a, const Limit& b) { return a.blocks < b.blocks; });
        st.blocks_per_sm = std::max(low->blocks, 0);
        st.occupancy_limit = low->why;
        if (st.blocks_per_sm > 0) {
            const uint64_t slots = uint64_t(st.blocks_per_sm) * cost.sms;
            const uint64_t waves = (nblocks + slots - 1) / slots;
            st.est_kernel_cycles = waves * st.max_block_cycles;
        }
    }

private:
    // Run-wide location ids for a block's table, adding the ones not seen yet.
    std::vector<uint32_t> run_ids(const Interner& locs) {
        std::vector<uint32_t> map(locs.list.size());
        for (size_t i = 1; i < locs.list.size(); ++i) {
            auto key = std::make_pair(std::string(locs.list[i].first), locs.list[i].second);
            auto [it, fresh] = loc_ids_.try_emplace(key, uint32_t(r_.locations.size()));
            if (fresh) r_.locations.push_back({key.first, key.second});
            map[i] = it->second;
        }
        return map;
    }

    RunResult& r_;
    std::map<std::pair<std::string, int>, uint32_t> loc_ids_;
    std::map<std::string, uint16_t> name_ids_;
};

// Blocks resident on the whole GPU at once, by threads and shared memory
// (registers are known only after the run): the default timeline set.
uint64_t first_wave(const CostModel& cost, unsigned threads, size_t smem_bytes, uint64_t nblocks) {
    int per_sm = std::min(cost.max_blocks_per_sm, cost.max_threads_per_sm / int(std::max(1u, threads)));
    if (smem_bytes) per_sm = std::min<int>(per_sm, int(cost.shared_bytes_per_sm / smem_bytes));
    return std::min<uint64_t>(nblocks, uint64_t(std::max(per_sm, 1)) * uint64_t(cost.sms));
}
} // namespace

void set_observer(Observer* o) { g_observer = o; }
Observer* observer() { return g_observer; }

const RunResult& last_run() { return g_last; }

const RunResult& launch(const std::string& kernel, Dim3 grid, Dim3 block, size_t smem_bytes, const std::function<void()>& body) {
    if (g_cur) throw SimError(ErrorKind::usage, "kernel " + kernel + " launched from inside a simulated kernel; launch from host code");
    const unsigned nthreads = block.x * block.y * block.z;
    const uint64_t nblocks = uint64_t(grid.x) * grid.y * grid.z;
    if (nthreads == 0 || nthreads > 1024 || nblocks == 0)
        throw SimError(ErrorKind::usage, "kernel " + kernel + ": launch shape has " + std::to_string(nthreads) +
                                             " threads per block and " + std::to_string(nblocks) +
                                             " blocks; a block holds 1..1024 threads and the grid at least one block");
    const CostModel& cost = cost_model(options().arch);
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
    g_last.first_wave_blocks = first_wave(cost, nthreads, smem_bytes, nblocks);
    Observer* obs = g_observer;
    if (obs) obs->launch_begin(g_last, cost);
    const bool keep = options().keep_blocks;

    Merger merger(g_last);
    std::vector<BlockResult> results(nblocks);
    std::atomic<uint64_t> next{0};
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
    auto worker = [&] {
        StackPool stacks(options().stack_bytes);
        AlignedBuffer smem;
        bugs::SharedShadow shadow;  // the bug finders' view of shared memory, reused block after block
        for (;;) {
            uint64_t i = next.fetch_add(1);
            // Blocks after a failed one are skipped; earlier ones still run, so the
            // error reported is always the lowest-numbered failing block's.
            if (i >= nblocks || i > first_error.load()) break;
            results[i].trace.timeline = !obs || obs->wants_timeline(i);
            try {
                run_block(kernel, uint32_t(i), Dim3{grid.x, grid.y, grid.z}, block, smem_bytes, body, cost, stacks, smem, shadow, results[i]);
            } catch (...) {
                results[i].error = std::current_exception();
                uint64_t cur = first_error.load();
                while (i < cur && !first_error.compare_exchange_weak(cur, i)) {}
            }
            results[i].finished.store(true);
            emit_ready();
        }
    };
    const int nt = int(std::min<uint64_t>(uint64_t(host_threads()), nblocks));
    if (nt <= 1) worker();
    else {
        std::vector<std::thread> pool;
        for (int i = 0; i < nt; ++i) pool.emplace_back(worker);
        for (auto& th : pool) th.join();
    }
    emit_ready();

    merger.finish(cost, nthreads, nblocks);
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

namespace tklab::sim {

size_t dynamic_smem_bytes() {
    if (!g_cur) throw SimError(ErrorKind::usage, "dynamic shared memory size asked outside a simulated kernel");
    return g_cur->warp->block->smem_bytes;
}

void check_failed(const char* file, int line, const char* what, const char* fix) {
    Thread* t = g_cur;
    if (!t) throw SimError(ErrorKind::usage, line_of(file, line) + ": error: " + what + ".\n  fix: " + fix, file, line);
    t->kfile = t->op_depth > 0 ? t->op_file : file;
    t->kline = t->op_depth > 0 ? t->op_line : line;
    fault(*t, what, fix);
}

} // namespace tklab::sim
