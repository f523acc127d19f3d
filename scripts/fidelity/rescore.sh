#!/usr/bin/env bash
# When no GPU is lent: runs every launch of scripts/fidelity/timing_cases.txt
# in the simulator (as scripts/fidelity/timing.sh does, seed 1; JOBS at once,
# default the core count) and re-scores it against the GPU columns of a
# committed report (scripts/fidelity/rescore.py). Occupancy uses ptxas's
# registers where the build has them (or TKLAB_COMPILER_FIGURES names another
# build's compiler_figures/), as timing.sh: give it what the report's second
# line says, or occupancy may differ.
#   scripts/fidelity/rescore.sh BUILD_DIR [REPORT] [ARCH]
# REPORT defaults to results/fidelity_timing_h200.txt, ARCH to h200.
set -euo pipefail
case "${1:-}" in -h|--help) sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;; esac
cd "$(dirname "$0")/../.."
build=${1:?usage: scripts/fidelity/rescore.sh BUILD_DIR [REPORT] [ARCH]}
report=${2:-results/fidelity_timing_h200.txt}
arch=${3:-h200}
tool=$build/tklab
[ -x "$tool" ] || { echo "rescore: $tool not built" >&2; exit 1; }
[ -f "$report" ] || { echo "rescore: no report $report" >&2; exit 1; }
export TKLAB_COMPILER_FIGURES=${TKLAB_COMPILER_FIGURES-$build/compiler_figures}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
grep -v '^#' scripts/fidelity/timing_cases.txt | awk 'NF == 4 {print $1, $2, "one", $3; print $1, $2, "many", $4}' > "$dir/launches"
echo "rescore: $(wc -l < "$dir/launches") launches in the simulator..." >&2
# One launch: NAME VARIANT WAVE SIZE -> DIR/NAME__VARIANT__WAVE.json
run_one() {
  TKLAB_SIM_THREADS=1 "$tool" run "$1" --variant "$2" --size "$4" --no-check --checks none --timeline-blocks none --arch "$arch" \
    --trace "$dir/$1__$2__$3.json" > "$dir/$1__$2__$3.log" 2>&1 || { echo "rescore: $1 $2 $3 failed:" >&2; tail -5 "$dir/$1__$2__$3.log" >&2; }
  echo "rescore: $1 $2 $3 done" >&2
}
export -f run_one
export tool arch dir
xargs -P "${JOBS:-$(nproc)}" -L 1 bash -c 'run_one "$@"' _ < "$dir/launches"
figures=$TKLAB_COMPILER_FIGURES
if [ -n "$figures" ] && [ -d "$figures" ]; then registers="ptxas's (compiler figures)"; else registers="the simulator's estimate"; fi
echo "tklab timing fidelity, re-scored — $(date -u +%F) — simulator $(git rev-parse --short HEAD) on $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)," \
     "cost model $arch, registers $registers — against the GPU columns of $report"
python3 scripts/fidelity/rescore.py "$report" "$dir"
