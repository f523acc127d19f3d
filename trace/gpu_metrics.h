// The CUPTI metrics a GPU trace's `gpu_counters` records hold (profiler/gpu
// collects them, the report and the fidelity comparison read them), with
// their rollup. Names verified on an H100 with `ncu --query-metrics --chip
// gh100`. The hardware counts LDS and LDSM wavefronts in one counter (op_ld),
// STS and STSM in another (op_st). Instructions per kind are counted when at
// least one thread was predicated on (`_pred_on_any`): ptxas pads each
// LDGSTS (cp.async) with never-executed `@!PT LDS RZ, [RZ]` instructions,
// which the plain counters count and the simulator (rightly) does not.
#pragma once

namespace tklab::trace::gpu_metrics {

inline constexpr const char* kInstructions = "smsp__inst_executed.sum";  // warp instructions, all kinds
inline constexpr const char* kLdsInstructions = "smsp__inst_executed_op_shared_ld_pred_on_any.sum";     // LDS
inline constexpr const char* kLdsmInstructions = "smsp__inst_executed_op_ldsm_pred_on_any.sum";         // LDSM (ldmatrix)
inline constexpr const char* kStsInstructions = "smsp__inst_executed_op_shared_st_pred_on_any.sum";     // STS
inline constexpr const char* kStsmInstructions = "smsp__inst_executed_op_shared_stsm_pred_on_any.sum";  // STSM (stmatrix)
inline constexpr const char* kLdgstsInstructions = "smsp__inst_executed_op_ldgsts_pred_on_any.sum";     // LDGSTS (cp.async)
inline constexpr const char* kLoadWavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";     // LDS + LDSM
inline constexpr const char* kStoreWavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum";    // STS + STSM
inline constexpr const char* kLoadConflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
inline constexpr const char* kStoreConflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";
inline constexpr const char* kSharedWavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum";  // every kind, LDGSTS too

} // namespace tklab::trace::gpu_metrics
