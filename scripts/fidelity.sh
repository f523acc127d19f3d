#!/usr/bin/env bash
# The fidelity report: for each GPU trace in DIR (written on a GPU machine by
# scripts/gpu/fidelity_traces.sh, hardware counters on), runs the same program,
# variant, size and seed in the simulator here and prints the simulator's
# shared-memory instructions, wavefronts and bank conflicts beside the
# hardware's (`tklab fidelity`). Needs a built simulator (scripts/setup.sh).
#   scripts/fidelity.sh DIR [BUILD_DIR]   > results/fidelity_h100.txt
set -uo pipefail
cd "$(dirname "$0")/.."
dir=${1:?usage: scripts/fidelity.sh DIR_OF_GPU_TRACES [BUILD_DIR]}
build=${2:-build}
tklab="$build/tklab"
[ -x "$tklab" ] || { echo "fidelity: $tklab not built (scripts/setup.sh builds it)" >&2; exit 1; }
shopt -s nullglob
traces=("$dir"/*__*.cbor)
[ ${#traces[@]} -gt 0 ] || { echo "fidelity: no NAME__VARIANT.cbor traces in $dir" >&2; exit 1; }
sim_dir=$(mktemp -d)
trap 'rm -rf "$sim_dir"' EXIT
equal=0; total=0; i=0
for gpu_trace in "${traces[@]}"; do
  i=$((i + 1))
  base=$(basename "$gpu_trace" .cbor)
  name=${base%%__*}; variant=${base#*__}
  echo "fidelity: [$i/${#traces[@]}] $name $variant in the simulator" >&2
  sim_trace="$sim_dir/$base.cbor"
  if ! NO_COLOR=1 "$tklab" run "$name" --variant "$variant" --timeline-blocks none --trace "$sim_trace" >/dev/null 2>"$sim_dir/$base.err"; then
    echo "$name $variant: the simulator run failed:"; tail -3 "$sim_dir/$base.err"; continue
  fi
  NO_COLOR=1 "$tklab" fidelity "$sim_trace" "$gpu_trace" | tee "$sim_dir/$base.txt"
  read -r e t < <(sed -n '1s/.*: \([0-9]*\) of \([0-9]*\) figures equal/\1 \2/p' "$sim_dir/$base.txt")
  equal=$((equal + ${e:-0})); total=$((total + ${t:-0}))
  echo
done
echo "All programs: $equal of $total figures equal."
