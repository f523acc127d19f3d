#!/usr/bin/env bash
# On the GPU machine, after build-gpu/ is built (scripts/gpu/run.sh): every
# launch of scripts/fidelity/timing_cases.txt (one wave and many) under Nsight
# Compute, for what the simulator's memory model needs to know about L1:
# global-load sectors and those that hit L1 (ld.global and cp.async), L2's hit
# rate, DRAM bytes, and the shared-memory carveout the driver chose.
# METRICS=a,b,... measures those instead (names ncu does not know on this GPU
# are left out, and said so); CASES=REGEX runs only the cases whose
# "program variant" line matches. CLOCK_CONTROL=none lets the GPU pick its
# clock as it does outside the profiler (ncu otherwise locks it to base), for
# measuring the clock a launch runs at (sm__cycles_elapsed.avg.per_second).
# WARM=N measures the run's launch after N warm ones (tklab_gpu --repeat N,
# ncu --launch-skip N) with ncu's cache control off, as CUPTI times the
# fidelity launches: L2 and the instruction cache as the runs before left them.
#   scripts/gpu/l1_hits.sh [OUTPUT_FILE]
set -uo pipefail
cd "$(dirname "$0")/../.."
# Under the tool a kernel runs many times slower: tk::launch's hung-kernel limit (tk/host/gpu_wait.h) goes up.
export TKLAB_GPU_TIMEOUT=${TKLAB_GPU_TIMEOUT:-600}
case "${1:-}" in -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
out=${1:-/dev/stdout}
gpu_bin=./build-gpu/tklab_gpu
[ -x "$gpu_bin" ] || { echo "l1_hits: $gpu_bin not built (scripts/gpu/run.sh)" >&2; exit 1; }
# The first launch of each run (-c 1): the GPU's time under the profiler, global-load
# sectors looked up in L1 and those that hit, L2's sector hit rate, DRAM bytes read,
# and the shared-memory carveout (config size) the driver picked.
metrics="gpu__time_duration.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,launch__shared_mem_config_size"
if [ -n "${METRICS:-}" ]; then
  known=$(ncu --query-metrics 2>/dev/null | awk 'NR > 2 { print $1 }')
  metrics=""
  for m in ${METRICS//,/ }; do
    if grep -qx "${m%%.*}" <<<"$known" || grep -qx "$m" <<<"$known"; then metrics="$metrics${metrics:+,}$m"
    else echo "l1_hits: ncu does not know $m on this GPU; left out" >&2; fi
  done
fi
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
{
  echo "# L1 and L2 under the fidelity launches — $(date -u +%Y-%m-%d) — $gpu — ncu $(ncu --version | tail -1) — clock control ${CLOCK_CONTROL:-base}${WARM:+ — the launch after $WARM warm ones, cache control none}"
  echo "# columns: program variant size launch kernel ${metrics//,/ }"
  echo "# (L1's hit rate for ld.global = lookup_hit / op_ld sectors; cp.async.cg and TMA copies do not look up L1)"
  while read -r name variant one many; do
    [ -z "$name" ] && continue
    [ -n "${CASES:-}" ] && ! grep -Eq "${CASES}" <<<"$name $variant" && continue
    for tag in one many; do
      size=$one; [ "$tag" = many ] && size=$many
      warm=(); run_warm=()
      [ -n "${WARM:-}" ] && warm=(--launch-skip "$WARM" --cache-control none) && run_warm=(--repeat "$WARM")
      ncu -c 1 "${warm[@]}" --clock-control "${CLOCK_CONTROL:-base}" --metrics "$metrics" --csv --print-units base "$gpu_bin" run "$name" --variant "$variant" --size "$size" --no-check "${run_warm[@]}" </dev/null 2>/dev/null |
        python3 scripts/gpu/ncu_table.py "$metrics" "$name $variant $tag "
    done
  done < <(grep -v '^#' scripts/fidelity/timing_cases.txt)
} | tee "$out"
