#!/usr/bin/env bash
# On the GPU machine: shared-memory wavefronts of a warp's atomic, for each
# op of tk/arch/atomic.h and each lane pattern of
# bench/gpu/smem_atomic_patterns.h, read with Nsight Compute. Writes the
# table the simulator's bank rule for atomics is tested against
# (results/smem_atomics_h100.txt, tests/sim/test_atomic_banks_measured.cpp).
#   scripts/gpu/smem_atomics.sh [OUTPUT_FILE]
set -euo pipefail
cd "$(dirname "$0")/../.."
case "${1:-}" in -h|--help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
out=${1:-/dev/stdout}
bin=$(mktemp -d)/smem_atomics
nvcc -O3 -std=c++20 --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a -I. -o "$bin" bench/gpu/smem_atomics.cu
# Whichever of these the installed Nsight Compute knows (names vary between versions).
wanted="smsp__inst_executed_op_shared_atom smsp__sass_inst_executed_op_shared_atom l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom smsp__inst_executed_op_shared_red l1tex__data_pipe_lsu_wavefronts_mem_shared_op_red smsp__inst_executed_op_shared_st l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st"
known=$(ncu --query-metrics 2>/dev/null | awk '{print $1}')
metrics=""
for m in $wanted; do grep -qx "$m" <<<"$known" && metrics="$metrics${metrics:+,}$m.sum"; done
[ -n "$metrics" ] || { echo "smem_atomics: this ncu knows none of: $wanted" >&2; exit 1; }
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
{
  echo "# shared-memory atomics: wavefronts per warp instruction — $(date -u +%Y-%m-%d) — $gpu — ncu $(ncu --version | tail -1)"
  echo "# 132 blocks x 4 warps x 256 atomics per launch; launch = op * 8 + pattern (bench/gpu/smem_atomic_patterns.h)"
  echo "# SASS of each op (cuobjdump): $(cuobjdump -sass "$bin" | grep -oE 'ATOMS[A-Z0-9.]*' | sort | uniq -c | awk '{printf "%s%s x%s", (NR>1?", ":""), $2, $1}')"
  echo "# columns: op pattern then, per launch: ${metrics//,/ }"
  ncu --metrics "$metrics" --csv --print-units base "$bin" 2>/dev/null | python3 scripts/gpu/ncu_table.py "$metrics"
} | tee "$out"
