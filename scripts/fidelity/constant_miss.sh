#!/usr/bin/env bash
# Estimates the cost model's constant.miss_cycles from the PC samples of a
# committed timing report, where no GPU is lent to measure it
# (scripts/fidelity/constant_miss.py says how): runs every one-wave launch of
# scripts/fidelity/timing_cases.txt in the simulator with a trial miss of
# TRIAL cycles (default 500) and compares its imc_miss share with the GPU's.
# Occupancy uses ptxas's registers as rescore.sh does (TKLAB_COMPILER_FIGURES).
#   scripts/fidelity/constant_miss.sh BUILD_DIR [REPORT [ARCH [TRIAL]]]
# REPORT defaults to results/fidelity_timing_h100.txt, ARCH to h100.
set -euo pipefail
case "${1:-}" in -h|--help) sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;; esac
cd "$(dirname "$0")/../.."
build=${1:?usage: scripts/fidelity/constant_miss.sh BUILD_DIR [REPORT [ARCH [TRIAL]]]}
report=${2:-results/fidelity_timing_h100.txt}
arch=${3:-h100}
trial=${4:-500}
tool=$build/tklab
[ -x "$tool" ] || { echo "constant_miss: $tool not built" >&2; exit 1; }
[ -f "sim/arch/$arch.json" ] || { echo "constant_miss: no cost model sim/arch/$arch.json" >&2; exit 2; }
export TKLAB_COMPILER_FIGURES=${TKLAB_COMPILER_FIGURES-$build/compiler_figures}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "sim/arch/$arch.json" "$trial" "$dir/model.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m.setdefault("constant", {})["miss_cycles"] = int(sys.argv[2])
json.dump(m, open(sys.argv[3], "w"))
PY
n=0
while read -r name variant one _; do
  [ -z "$name" ] && continue
  n=$((n + 1))
  echo "constant_miss: [$n] $name $variant one ($one)" >&2
  TKLAB_SIM_THREADS=1 "$tool" run "$name" --variant "$variant" --size "$one" --no-check --checks none --timeline-blocks none \
    --arch "$dir/model.json" --trace "$dir/${name}__${variant}__one.json" > "$dir/log" 2>&1 || { echo "constant_miss: $name $variant failed:" >&2; tail -3 "$dir/log" >&2; }
done < <(grep -v '^#' scripts/fidelity/timing_cases.txt)
echo "# scripts/fidelity/constant_miss.sh — $(date -u +%F) — simulator $(git rev-parse --short HEAD 2>/dev/null), cost model $arch with a trial miss of $trial cycles, against the GPU columns of $report"
python3 scripts/fidelity/constant_miss.py "$report" "$dir" "$trial"
