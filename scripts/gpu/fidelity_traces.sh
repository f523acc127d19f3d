#!/usr/bin/env bash
# On a machine with an NVIDIA GPU, after scripts/gpu/run.sh has built
# build-gpu/: runs every kernel variant and every lesson solution once at its
# default size with the hardware counters on (CUPTI's Range Profiler), and
# writes one GPU trace each into DIR (NAME__VARIANT.cbor). scripts/fidelity.sh
# then runs the same programs in the simulator, on any machine (the simulator
# is deterministic: its counts are the same on every CPU), and prints both.
#   scripts/gpu/fidelity_traces.sh DIR
set -uo pipefail
cd "$(dirname "$0")/../.."
dir=${1:?usage: scripts/gpu/fidelity_traces.sh DIR}
mkdir -p "$dir"
gpu=./build-gpu/tklab_gpu
[ -x "$gpu" ] || { echo "fidelity_traces: $gpu not built (run scripts/gpu/run.sh first)" >&2; exit 1; }
rc=0
# Every kernel's variants, and every lesson's solution and extra variants (not the exercise: it is the student's).
"$gpu" list | awk '/^kernels:/{k=1;l=0;next} /^lessons:/{l=1;k=0;next}
  (k||l) && /^  [a-z]/{name=$1}
  (k||l) && /variants /{sub(/;.*/,""); sub(/.*variants /,""); n=split($0,v,"|");
    for(i=1;i<=n;i++) if(!(l && v[i]=="exercise")) print name, v[i]}' |
while read -r name variant; do
  out="$dir/${name}__${variant}.cbor"
  if "$gpu" run "$name" --variant "$variant" --profile counters --trace "$out" >"$out.log" 2>&1; then
    echo "fidelity_traces: $name $variant: ok"
  else
    echo "fidelity_traces: $name $variant: FAILED"; tail -5 "$out.log"; rc=1
  fi
done
exit $rc
