// The instruction table (sim/instructions.h): one row per Op, in Op's order.
#include "sim/instructions.h"

namespace tklab::sim {
namespace {

using F = Family;
using M = Meet;
using S = SmemTotal;
using A = TraceAux;
constexpr bool waits = true;  // reads_loaded_registers
constexpr bool smem = true;   // touches_shared

constexpr Instruction kTable[] = {
    // op                    name                           family             meet            loads   totals        aux            shared
    {Op::ld_shared,          "ld.shared",                   F::shared_memory,  M::arrived,     false,  S::ld_shared, A::bytes,      smem},
    {Op::st_shared,          "st.shared",                   F::shared_memory,  M::arrived,     waits,  S::st_shared, A::bytes,      smem},
    {Op::ldmatrix,           "ldmatrix",                    F::shared_memory,  M::whole_warp,  false,  S::ldmatrix,  A::matrices,   smem},
    {Op::stmatrix,           "stmatrix",                    F::shared_memory,  M::whole_warp,  waits,  S::stmatrix,  A::matrices,   smem},
    {Op::mma,                "mma.sync",                    F::math,           M::whole_warp,  waits,  S::none,      A::none,       false},
    {Op::shfl,               "shfl.sync",                   F::math,           M::member_mask, waits,  S::none,      A::shfl_mode,  false},
    {Op::bar_sync,           "bar.sync",                    F::barriers,       M::running,     false,  S::none,      A::none,       false},
    {Op::bar_arrive,         "bar.arrive",                  F::barriers,       M::running,     false,  S::none,      A::none,       false},
    {Op::syncwarp,           "bar.warp.sync",               F::barriers,       M::member_mask, false,  S::none,      A::none,       false},
    {Op::cp_async,           "cp.async",                    F::global_memory,  M::arrived,     false,  S::none,      A::bytes,      smem},
    {Op::cp_async_commit,    "cp.async.commit_group",       F::global_memory,  M::arrived,     false,  S::none,      A::none,       false},
    {Op::cp_async_wait,      "cp.async.wait_group",         F::global_memory,  M::arrived,     false,  S::none,      A::none,       false},
    {Op::mbar_init,          "mbarrier.init",               F::barriers,       M::arrived,     false,  S::none,      A::none,       smem},
    {Op::mbar_arrive,        "mbarrier.arrive",             F::barriers,       M::arrived,     false,  S::none,      A::none,       smem},
    {Op::mbar_test_wait,     "mbarrier.test_wait",          F::barriers,       M::arrived,     false,  S::none,      A::none,       smem},
    {Op::mbar_wait,          "mbarrier.wait",               F::barriers,       M::arrived,     false,  S::none,      A::none,       smem},
    {Op::ld_global,          "ld.global",                   F::global_memory,  M::arrived,     false,  S::none,      A::bytes,      false},
    {Op::st_global,          "st.global",                   F::global_memory,  M::arrived,     waits,  S::none,      A::bytes,      false},
    {Op::mbar_expect_tx,     "mbarrier.expect_tx",          F::barriers,       M::arrived,     false,  S::none,      A::none,       smem},
    {Op::tma_load,           "cp.async.bulk.tensor.load",   F::bulk_copy,      M::arrived,     false,  S::none,      A::none,       false},
    {Op::tma_store,          "cp.async.bulk.tensor.store",  F::bulk_copy,      M::arrived,     false,  S::none,      A::none,       smem},
    {Op::bulk_commit,        "cp.async.bulk.commit_group",  F::bulk_copy,      M::arrived,     false,  S::none,      A::none,       false},
    {Op::bulk_wait,          "cp.async.bulk.wait_group",    F::bulk_copy,      M::arrived,     false,  S::none,      A::none,       false},
    {Op::fence_proxy_async,  "fence.proxy.async",           F::bulk_copy,      M::arrived,     false,  S::none,      A::none,       false},
    {Op::wgmma,              "wgmma.mma_async",             F::wgmma,          M::whole_warp,  waits,  S::none,      A::accumulate, false},
    {Op::wgmma_fence,        "wgmma.fence",                 F::wgmma,          M::whole_warp,  false,  S::none,      A::none,       false},
    {Op::wgmma_commit,       "wgmma.commit_group",          F::wgmma,          M::whole_warp,  false,  S::none,      A::none,       false},
    {Op::wgmma_wait,         "wgmma.wait_group",            F::wgmma,          M::whole_warp,  false,  S::none,      A::none,       false},
    {Op::setmaxnreg,         "setmaxnreg",                  F::wgmma,          M::whole_warp,  false,  S::none,      A::none,       false},
    {Op::alu,                "alu",                         F::math,           M::arrived,     waits,  S::none,      A::none,       false},
    // Recorded by the scheduler, never executed: a warp whose stores are still draining when its lanes return.
    {Op::exit,               "exit",                        F::global_memory,  M::arrived,     false,  S::none,      A::none,       false},
    {Op::atom_shared,        "atom.shared",                 F::atomics,        M::arrived,     waits,  S::atom_shared, A::bytes,    smem},
    {Op::red_shared,         "red.shared",                  F::atomics,        M::arrived,     waits,  S::atom_shared, A::bytes,    smem},
    {Op::atom_global,        "atom.global",                 F::atomics,        M::arrived,     waits,  S::none,      A::bytes,      false},
    {Op::red_global,         "red.global",                  F::atomics,        M::arrived,     waits,  S::none,      A::bytes,      false},
};
static_assert(sizeof(kTable) / sizeof(kTable[0]) == size_t(Op::count_), "one row per Op");

constexpr bool in_op_order() {
    for (size_t i = 0; i < size_t(Op::count_); ++i)
        if (kTable[i].op != Op(i)) return false;
    return true;
}
static_assert(in_op_order(), "the rows follow Op's order");

} // namespace

const Instruction& instruction(Op op) { return kTable[size_t(op)]; }

const Instruction* instruction_named(std::string_view name) {
    for (const Instruction& i : kTable)
        if (name == i.name) return &i;
    return nullptr;
}

const char* atom_op_name(AtomOp op) {
    static constexpr const char* kNames[] = {"add", "min", "max", "exch", "cas", "and", "or", "xor"};
    return size_t(op) < sizeof(kNames) / sizeof(kNames[0]) ? kNames[size_t(op)] : "?";
}
const char* atom_type_name(AtomType t) {
    static constexpr const char* kNames[] = {"u32", "s32", "f32", "b32"};
    return size_t(t) < sizeof(kNames) / sizeof(kNames[0]) ? kNames[size_t(t)] : "?";
}

const char* op_name(Op op) { return size_t(op) < size_t(Op::count_) ? kTable[size_t(op)].name : "?"; }

} // namespace tklab::sim
