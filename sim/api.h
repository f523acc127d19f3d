// The simulator's kernel-facing API: what the instruction layer (tk/arch)
// calls in the host build. One lane fills a LaneOp and calls issue(); the
// lane's fiber parks until every lane of the warp at the same site has
// arrived, the warp instruction executes once for all of them, and issue()
// returns with the lane's results filled in.
#pragma once
#include <cstdint>
#include <cstddef>

namespace tklab::sim {

enum class Op : uint8_t {
    ld_shared, st_shared,          // bytes 1..16
    ldmatrix, stmatrix,            // matrices 1/2/4, transpose
    mma,                           // m16n8k16, bf16 or f16 in (mma_type), f32 accumulate
    shfl,                          // shfl_mode idx/up/down/xor, shfl_lane
    bar_sync, bar_arrive, syncwarp,
    cp_async, cp_async_commit, cp_async_wait,
    mbar_init, mbar_arrive, mbar_test_wait, mbar_wait,
    ld_global, st_global,
    // Hopper (sm_90)
    mbar_expect_tx,                // tx_bytes; arrive: also arrive (arrive.expect_tx)
    tma_load,                      // tensor map -> shared; addr: smem, gptr: TensorMap*, coord, mbarrier
    tma_store,                     // shared -> tensor map; addr: smem, gptr: TensorMap*, coord
    bulk_commit, bulk_wait,        // cp.async.bulk.commit_group / wait_group[.read] (pending, read_done)
    fence_proxy_async,             // fence.proxy.async.shared::cta
    wgmma,                         // wgmma_flags, n, accumulate
    wgmma_fence, wgmma_commit, wgmma_wait,  // wgmma_wait: pending
    setmaxnreg,                    // registers, increase
    alu,                           // n elements of the tile library's register arithmetic (alu_kind)
    exit,                          // the warp's end, recorded when it waits there for its global stores (drain)
    // Atomics (atom returns the old value, red does not): atom_op, atom_type, data[0] (data[1]: cas's new value)
    atom_shared, red_shared,       // addr: shared address
    atom_global, red_global,       // gptr: global address
    count_
};
const char* op_name(Op op);

enum class ShflMode : uint8_t { idx, up, down, bfly };
enum class MmaType : uint8_t { bf16, f16 };
// The tile library's per-element register arithmetic, priced per element by
// sim/arch/<name>.json's "alu" (measured: bench/calibrate/alu.cu).
enum class AluKind : uint8_t { simple, exp, exp2, log, div, convert, count_ };
// An atomic's operation and operand type (PTX atom/red .op and .type; exch
// and cas are .b32). Lanes of one warp instruction apply theirs in lane order.
enum class AtomOp : uint8_t { add, min, max, exch, cas, and_, or_, xor_ };
enum class AtomType : uint8_t { u32, s32, f32, b32 };
const char* atom_op_name(AtomOp op);
const char* atom_type_name(AtomType t);
// LaneOp::flag bits of a wgmma (m64nNk16, bf16 in, f32 accumulate).
enum WgmmaFlags : uint8_t { wgmma_a_in_registers = 1, wgmma_trans_a = 2, wgmma_trans_b = 4 };

// What a tensor map holds in the simulator: the fields cuTensorMapEncodeTiled
// takes, in our own form (the GPU's CUtensorMap is opaque). Built on the host
// by tk::make_tensor_map into the same 128 bytes the GPU's occupies.
struct TensorMap {
    static constexpr uint32_t magic_value = 0x544d4150;  // "TMAP"
    uint32_t magic = 0;
    uint32_t rank = 0;            // 1..5
    uint32_t elem_bytes = 0;      // 2 or 4
    uint32_t swizzle_bytes = 0;   // 0, 32, 64 or 128
    const void* global = nullptr;
    uint32_t dims[5] = {};        // elements, innermost first
    uint32_t box[5] = {};         // the box one copy moves, innermost first
    uint64_t strides[5] = {};     // bytes between consecutive indices of each dimension (strides[0] = elem_bytes)
};

// One lane's part of a warp instruction: a field per purpose, each saying
// which instructions use it (the others leave it as it is). Pointers refer to
// the lane's own registers (its fiber stack), which stay valid while the lane is parked.
inline constexpr uint32_t kNoTile = ~0u;  // LaneOp::tile of an instruction issued outside a tile op

struct LaneOp {
    Op op;
    uint8_t bytes = 0;            // bytes per lane: ld/st.shared, ld/st.global, cp.async, atom/red (4)
    uint8_t matrices = 0;         // ldmatrix, stmatrix: 8x8 matrices (1, 2 or 4)
    bool transpose = false;       // ldmatrix, stmatrix: .trans
    ShflMode shfl_mode = ShflMode::idx;  // shfl
    MmaType mma_type = MmaType::bf16;    // mma
    AluKind alu_kind = AluKind::simple;  // alu
    bool no_sources = false;      // alu: reads no registers (a fill), so waits for no load
    uint8_t wgmma_flags = 0;      // wgmma: WgmmaFlags
    bool accumulate = false;      // wgmma: D += A * B (scale-d 1), else D = A * B
    bool arrive = false;          // mbarrier.expect_tx: arrive.expect_tx (the bytes, then an arrival)
    bool read_done = false;       // cp.async.bulk.wait_group.read: wait until the sources are read, not the writes done
    bool increase = false;        // setmaxnreg: .inc (else .dec)
    bool no_allocate = false;     // ld.global: .L1::no_allocate (a miss leaves L1 as it was)
    AtomOp atom_op = AtomOp::add;         // atom, red: the operation
    AtomType atom_type = AtomType::u32;   // atom, red: the operand type
    uint32_t addr = 0;            // shared address: ld/st.shared, ldmatrix/stmatrix row, cp.async destination,
                                  //   mbarrier.*, a bulk tensor copy's box
    uint32_t tile = kNoTile;      // ldmatrix/stmatrix, cp.async from a tile op: the shared tile's base address
                                  //   (moving to another tile, a stage of a buffer, costs no address arithmetic)
    uint32_t barrier = 0;         // bar.sync, bar.arrive: barrier id (0..15)
    uint32_t mbarrier = 0;        // cp.async.bulk.tensor load: shared address of the mbarrier it completes on
    uint32_t count = 0;           // bar.sync, bar.arrive: threads (0: the whole block); mbarrier.init: arrivals per phase
    uint32_t parity = 0;          // mbarrier.test_wait, mbarrier.wait: the parity of the phase waited for
    uint32_t tx_bytes = 0;        // mbarrier.expect_tx: transaction bytes the phase expects
    uint32_t pending = 0;         // cp.async, bulk and wgmma wait_group: groups that may stay pending
    uint32_t shfl_lane = 0;       // shfl: source lane (idx), lane delta (up, down) or lane mask (bfly)
    uint32_t n = 0;               // wgmma: N (columns of B and D); alu: elements per lane
    uint32_t registers = 0;       // setmaxnreg: registers per thread
    uint32_t mask = 0xffffffffu;  // member mask (shfl, syncwarp)
    const void* gptr = nullptr;   // global address
    uint32_t data[4] = {};        // values in (stores, shfl) and out (loads); atom/red: data[0] the operand
                                  //   (cas: the compare value), data[1] cas's new value; atom: data[0] out, the old value
    const void* in[3] = {};       // mma: a, b, c fragments; wgmma: in[0] = A registers (4 x b32)
    const void* reg_tile[2] = {}; // from a tile op, the register sub-tiles (first lane's) an ldmatrix fills
                                  //   ([0]) or an mma reads (A, B): the mma waits for its own operands only
    void* out = nullptr;          // mma: d fragment; wgmma: N/2 floats
    uint64_t desc[2] = {};        // wgmma: matrix descriptors of A (unless in registers) and B
    int32_t coord[5] = {};        // tma_load / tma_store: box origin in elements, innermost first
    const char* file = "";        // instruction call site (tk header or kernel)
    int line = 0;
};

// Parks the calling lane until its warp instruction has executed.
void issue(LaneOp& op);
// A tk::arch intrinsic (ex2_approx) called by the current simulated thread,
// and the calls of one kind since the last take (which resets them): the
// tile op that ran the element function charges them (tk/arch/alu.h).
void note_intrinsic(AluKind kind);
uint32_t take_intrinsics(AluKind kind);

// Dynamic shared memory of the current block, and the 32-bit shared-window
// address of a pointer into it (a fault if it points elsewhere).
char* dynamic_smem();
uint32_t smem_addr(const void* p, const char* file, int line);

// Register accounting for register tiles and vectors (per thread); `tile`
// names a register tile, so that a load can say what filled it.
void reg_alloc(int regs, const char* file, int line, const void* tile = nullptr);
void reg_free(int regs, const void* tile = nullptr);
// A register tile filled from shared memory (ldmatrix): its declaration is an
// operand the compiler loads a part at a time, as the mma reads it (the
// register estimate counts a share of it: sim/README.md, "Registers").
void reg_from_shared(const void* tile);
// A register tile just filled with one constant (zero, one, fill): ptxas
// allocates nothing for it, using the zero register or an immediate where it
// is read, so it counts no registers until an op writes other values to it.
void reg_constant(const void* tile);

// Attribution of instructions to the kernel line that called a tile op.
struct op_scope {
    op_scope(const char* name, const char* file, int line);
    ~op_scope();
    op_scope(const op_scope&) = delete;
    op_scope& operator=(const op_scope&) = delete;
};

// tk::allow_uninitialized_reads: while one is alive in a thread, that
// thread's reads of bytes nothing wrote are counted as notes, not errors.
void allow_uninitialized_reads(bool on);

// Tile value snapshots (tk::snapshot). Each lane of the warp calls snapshot()
// with the same tile; `fill` writes what that lane holds into the row-major
// rows x cols matrix (for a shared tile, the first lane's call writes it all).
struct SnapshotPart {
    const char* label = "";
    bool shared = false;
    int rows = 0, cols = 0;
    const void* tile = nullptr;
    void (*fill)(const void* tile, int lane, float* values) = nullptr;
    const char* file = "";
    int line = 0;
};
bool snapshots_wanted();  // cheap: false unless asked for, in a kernel, in a timeline block
void snapshot(const SnapshotPart& part);

// Intra-kernel regions (tk::region). Every lane of the warp calls
// region_begin() when it constructs the marker and region_end() with what
// begin returned when it destroys it; the warp gets one RegionRecord, begun by
// its first lane to arrive (at the warp's clock then) and ended by its last
// lane to leave. Neither costs simulated cycles. `unwinding`: the lane leaves
// because an exception or a fault unwinds it, so the region stays open.
// Returns -1 outside a simulated kernel (region_end then does nothing).
int64_t region_begin(const char* name, const char* file, int line);
void region_end(int64_t record, bool unwinding);

// True while the calling host code runs inside a simulated kernel.
bool in_kernel();

// The simulated GPU's SM count (its cost model's), for persistent grids.
int multiprocessors();

} // namespace tklab::sim

namespace tklab::sim {
size_t dynamic_smem_bytes();
}
