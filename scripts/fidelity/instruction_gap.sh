#!/usr/bin/env bash
# The instructions the GPU executes beside those the simulator models: for
# each launch measured by scripts/gpu/sass_counts.sh (its output in FILE), runs
# the same launch in the simulator and prints the warp instructions per warp of
# both, their ratio, the simulator's count with the address arithmetic it
# charges around tile ops' memory instructions (as time, from the cost model's
# "overhead") and that count's ratio, and the GPU's local-memory loads and
# stores per warp.
#   scripts/fidelity/instruction_gap.sh FILE [BUILD_DIR] > results/instruction_gap_h100.txt
set -uo pipefail
cd "$(dirname "$0")/../.."
file=${1:?usage: scripts/fidelity/instruction_gap.sh SASS_COUNTS_FILE [BUILD_DIR]}
build=${2:-build}
tklab="$build/tklab"
[ -x "$tklab" ] || { echo "instruction_gap: $tklab not built (scripts/setup.sh builds it)" >&2; exit 1; }
printf "%-14s %-13s %12s %12s %7s %12s %7s %14s\n" program variant "GPU (SASS)" simulator ratio "+ overhead" ratio "GPU local ld/st"
while read -r _ name variant _ warps _ per_warp _ local _; do
  size=$(awk -v n="$name" -v v="$variant" '$1 == n && $2 == v { print $3 }' scripts/fidelity/timing_cases.txt)
  [ -n "$size" ] || continue
  out=$(NO_COLOR=1 "$tklab" run "$name" --variant "$variant" --size "$size" --no-check --checks none --timeline-blocks none 2>/dev/null)
  inst=$(echo "$out" | awk '/warp instructions/ { print $3; exit }' | tr -d ,)
  extra=$(echo "$out" | sed -n 's/.*warp instructions.*(+ about \([0-9,]*\) of address arithmetic.*/\1/p' | head -1 | tr -d ,)
  grid=$(echo "$out" | sed -n 's/.*grid \([0-9]*\)x\([0-9]*\)x\([0-9]*\)  block \([0-9]*\)x\([0-9]*\)x\([0-9]*\).*/\1 \2 \3 \4 \5 \6/p' | head -1)
  sim_warps=$(echo "$grid" | awk '{ print $1 * $2 * $3 * int(($4 * $5 * $6 + 31) / 32) }')
  awk -v n="$name" -v v="$variant" -v g="$per_warp" -v i="$inst" -v x="${extra:-0}" -v w="$sim_warps" -v l="$local" \
    'BEGIN { s = i / w; t = (i + x) / w; printf "%-14s %-13s %12.0f %12.0f %6.1fx %12.0f %6.1fx %14.0f\n", n, v, g, s, g / s, t, g / t, l }'
done < <(grep '^sass: ' "$file" | grep -v FAILED)
