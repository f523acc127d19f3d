// The instruction table (sim/instructions.h): one row per Op, in Op's order.
#include "sim/instructions.h"

namespace tklab::sim {
namespace {

using F = Family;
using M = Meet;
using S = SmemTotal;
using A = TraceAux;
constexpr bool waits = true;  // reads_loaded_registers

constexpr Instruction kTable[] = {
    // op                     name                           family             meet            loads   totals        aux
    {Op::ld_shared,         "ld.shared",                   F::shared_memory,  M::arrived,     false,  S::ld_shared, A::bytes},
    {Op::st_shared,         "st.shared",                   F::shared_memory,  M::arrived,     waits,  S::st_shared, A::bytes},
    {Op::ldmatrix,          "ldmatrix",                    F::shared_memory,  M::whole_warp,  false,  S::ldmatrix,  A::matrices},
    {Op::stmatrix,          "stmatrix",                    F::shared_memory,  M::whole_warp,  waits,  S::stmatrix,  A::matrices},
    {Op::mma,               "mma.sync",                    F::math,           M::whole_warp,  waits,  S::none,      A::none},
    {Op::shfl,              "shfl.sync",                   F::math,           M::member_mask, waits,  S::none,      A::shfl_mode},
    {Op::bar_sync,          "bar.sync",                    F::barriers,       M::running,     false,  S::none,      A::none},
    {Op::bar_arrive,        "bar.arrive",                  F::barriers,       M::running,     false,  S::none,      A::none},
    {Op::syncwarp,          "bar.warp.sync",               F::barriers,       M::member_mask, false,  S::none,      A::none},
    {Op::cp_async,          "cp.async",                    F::global_memory,  M::arrived,     false,  S::none,      A::bytes},
    {Op::cp_async_commit,   "cp.async.commit_group",       F::global_memory,  M::arrived,     false,  S::none,      A::none},
    {Op::cp_async_wait,     "cp.async.wait_group",         F::global_memory,  M::arrived,     false,  S::none,      A::none},
    {Op::mbar_init,         "mbarrier.init",               F::barriers,       M::arrived,     false,  S::none,      A::none},
    {Op::mbar_arrive,       "mbarrier.arrive",             F::barriers,       M::arrived,     false,  S::none,      A::none},
    {Op::mbar_test_wait,    "mbarrier.test_wait",          F::barriers,       M::arrived,     false,  S::none,      A::none},
    {Op::mbar_wait,         "mbarrier.wait",               F::barriers,       M::arrived,     false,  S::none,      A::none},
    {Op::ld_global,         "ld.global",                   F::global_memory,  M::arrived,     false,  S::none,      A::bytes},
    {Op::st_global,         "st.global",                   F::global_memory,  M::arrived,     waits,  S::none,      A::bytes},
    {Op::mbar_expect_tx,    "mbarrier.expect_tx",          F::barriers,       M::arrived,     false,  S::none,      A::none},
    {Op::tma_load,          "cp.async.bulk.tensor.load",   F::bulk_copy,      M::arrived,     false,  S::none,      A::none},
    {Op::tma_store,         "cp.async.bulk.tensor.store",  F::bulk_copy,      M::arrived,     false,  S::none,      A::none},
    {Op::bulk_commit,       "cp.async.bulk.commit_group",  F::bulk_copy,      M::arrived,     false,  S::none,      A::none},
    {Op::bulk_wait,         "cp.async.bulk.wait_group",    F::bulk_copy,      M::arrived,     false,  S::none,      A::none},
    {Op::fence_proxy_async, "fence.proxy.async",           F::bulk_copy,      M::arrived,     false,  S::none,      A::none},
    {Op::wgmma,             "wgmma.mma_async",             F::wgmma,          M::whole_warp,  waits,  S::none,      A::accumulate},
    {Op::wgmma_fence,       "wgmma.fence",                 F::wgmma,          M::whole_warp,  false,  S::none,      A::none},
    {Op::wgmma_commit,      "wgmma.commit_group",          F::wgmma,          M::whole_warp,  false,  S::none,      A::none},
    {Op::wgmma_wait,        "wgmma.wait_group",            F::wgmma,          M::whole_warp,  false,  S::none,      A::none},
    {Op::setmaxnreg,        "setmaxnreg",                  F::wgmma,          M::whole_warp,  false,  S::none,      A::none},
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

const char* op_name(Op op) { return size_t(op) < size_t(Op::count_) ? kTable[size_t(op)].name : "?"; }

} // namespace tklab::sim
