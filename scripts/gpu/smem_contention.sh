#!/usr/bin/env bash
# On the GPU machine: are the demo GEMM's extra shared-memory wavefronts at
# large sizes the kernel's own, or other traffic's? Builds
# bench/gpu/smem_l1_contention.cu and reads, with Nsight Compute, the shared
# loads' instructions, wavefronts and "bank conflicts" in three modes: shared
# reads alone, beside global loads cached in L1, beside L2-only global loads.
# Prints a table (ideal = 4 wavefronts per 16-byte-per-lane load).
#   scripts/gpu/smem_contention.sh [OUTPUT_FILE]
set -euo pipefail
cd "$(dirname "$0")/../.."
case "${1:-}" in -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
out=${1:-/dev/stdout}
bin=$(mktemp -d)/smem_l1_contention
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o "$bin" bench/gpu/smem_l1_contention.cu
metrics=smsp__inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,smsp__inst_executed_op_ldsm.sum,smsp__inst_executed_op_shared_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
{
  echo "shared-memory wavefronts beside global traffic — $(date -u +%Y-%m-%d) — $gpu — ncu $(ncu --version | tail -1)"
  printf "%-34s %12s %12s %12s %12s %8s\n" mode "instructions" wavefronts ideal "conflicts" "extra %"
  # "MODE SMEM_KB OFFSET_KB": beside global traffic or not; small blocks (8 an SM) and the demo GEMM's 33 KB (6 an SM).
  for run in "0 4 0" "1 4 0" "2 4 0" "0 33 0" "0 33 16" "0 33 29" "1 33 16" "3 4 0" "3 33 16" "4 4 0" "4 33 16"; do
    read -r mode kb off <<<"$run"
    csv=$(ncu --metrics "$metrics" --csv --print-units base "$bin" $run 2>/dev/null | grep -E '"(smsp|l1tex)__')
    val() { echo "$csv" | grep "\"$1\"" | awk -F'","' '{gsub(/[",]/,"",$NF); print $NF}'; }
    if [ "$mode" = 4 ]; then
      inst=$(val smsp__inst_executed_op_shared_st.sum)
      wave=$(val l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum)
      conf=$(val l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum)
    else
      inst=$(( $(val smsp__inst_executed_op_shared_ld.sum) + $(val smsp__inst_executed_op_ldsm.sum) ))
      wave=$(val l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum)
      conf=$(val l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum)
    fi
    name=("shared reads alone" "beside ld.global.ca (L1)" "beside ld.global.cg (L2)" "ldmatrix.x4 alone" "shared stores alone")
    ideal=$((4 * inst))
    printf "%-34s %12s %12s %12s %12s %8s\n" "${name[$mode]}, ${kb} KB @${off}" "$inst" "$wave" "$ideal" "$conf" \
      "$(awk -v w="$wave" -v i="$ideal" 'BEGIN { if (w > 0) printf "%.1f", 100 * (w - i) / w; else print "?" }')"
  done
} | tee "$out"
