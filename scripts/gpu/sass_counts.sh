#!/usr/bin/env bash
# On a machine with an NVIDIA GPU and Nsight Compute (ncu), after build-gpu/ is
# built: for each launch of scripts/fidelity/timing_cases.txt at its one-wave
# size, the SASS instructions the GPU executed per warp, and of them the
# local-memory loads and stores (register tiles the compiler put in local
# memory, or spills). Prints one line per program:
#   sass: PROGRAM VARIANT warps W instructions_per_warp I local_per_warp L elapsed_cycles C
# scripts/fidelity/instruction_gap.sh sets them beside the instructions the
# simulator models.
#   scripts/gpu/sass_counts.sh > FILE
set -uo pipefail
cd "$(dirname "$0")/../.."
gpu=./build-gpu/tklab_gpu
[ -x "$gpu" ] || { echo "sass_counts: $gpu not built (run scripts/gpu/run.sh first)" >&2; exit 1; }
command -v ncu >/dev/null || { echo "sass_counts: needs Nsight Compute's ncu" >&2; exit 1; }
metrics=smsp__inst_executed.sum,smsp__sass_inst_executed_op_local_ld.sum,smsp__sass_inst_executed_op_local_st.sum,sm__warps_launched.sum,sm__cycles_elapsed.max
while read -r name variant one many; do
  [ -z "$name" ] && continue
  csv=$(ncu --launch-count 1 --metrics "$metrics" --csv "$gpu" run "$name" --variant "$variant" --size "$one" --no-check 2>/dev/null | grep '^"')
  get() { echo "$csv" | awk -F'","' -v m="$1" '$0 ~ m { v = $NF; gsub(/[",]/, "", v); print v; exit }'; }
  inst=$(get smsp__inst_executed.sum); ld=$(get op_local_ld); st=$(get op_local_st); warps=$(get sm__warps_launched); cyc=$(get sm__cycles_elapsed)
  if [ -z "$inst" ] || [ -z "$warps" ] || [ "$warps" = 0 ]; then echo "sass: $name $variant FAILED"; continue; fi
  awk -v n="$name" -v v="$variant" -v w="$warps" -v i="$inst" -v l="$ld" -v s="$st" -v c="$cyc" \
    'BEGIN { printf "sass: %s %s warps %d instructions_per_warp %.1f local_per_warp %.1f elapsed_cycles %d\n", n, v, w, i / w, (l + s) / w, c }'
done < <(grep -v '^#' scripts/fidelity/timing_cases.txt)
