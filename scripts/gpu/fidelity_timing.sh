#!/usr/bin/env bash
# On a machine with an NVIDIA GPU, after build-gpu/ is built (scripts/gpu/run.sh):
# runs every launch of scripts/fidelity/timing_cases.txt on the GPU with kernel
# timing (the checked run and 5 warm ones), tk::region markers and PC stall
# sampling on, writing one GPU trace each into DIR as
# PROGRAM__VARIANT__one.cbor and PROGRAM__VARIANT__many.cbor.
# scripts/fidelity/timing.sh then runs the same launches in the simulator, on
# any machine, and compares them.
# PC sampling takes one sample per SM every 2^STALL_PERIOD cycles (default 9:
# 8 times CUPTI's usual rate, so that a one-wave launch of a few microseconds
# still has thousands of samples and its hot lines' top reasons are not noise).
#   scripts/gpu/fidelity_timing.sh DIR [one|many|both]
set -uo pipefail
cd "$(dirname "$0")/../.."
dir=${1:?usage: scripts/gpu/fidelity_timing.sh DIR [one|many|both]}
which=${2:-both}
case "$which" in one|many|both) ;; *) echo "fidelity_timing: the second argument is one, many or both, not '$which'" >&2; exit 2 ;; esac
period=${STALL_PERIOD:-9}
mkdir -p "$dir"
gpu=./build-gpu/tklab_gpu
[ -x "$gpu" ] || { echo "fidelity_timing: $gpu not built (run scripts/gpu/run.sh first)" >&2; exit 1; }
cases=$(grep -v '^#' scripts/fidelity/timing_cases.txt | grep -c .)
rc=0; i=0
while read -r name variant one many; do
  [ -z "$name" ] && continue
  i=$((i + 1))
  for tag in one many; do
    [ "$which" != both ] && [ "$which" != "$tag" ] && continue
    size=$one; [ "$tag" = many ] && size=$many
    # The float64 CPU reference takes minutes at the big sizes; the one-wave run is checked.
    check=(); [ "$tag" = many ] && check=(--no-check)
    out="$dir/${name}__${variant}__${tag}.cbor"
    start=$(date +%s)
    if "$gpu" run "$name" --variant "$variant" --size "$size" "${check[@]}" --profile timing,regions,stalls --repeat 5 --stall-period "$period" \
         --trace "$out" >"$out.log" 2>&1; then
      echo "fidelity_timing: [$i/$cases] $name $variant $tag ($size): ok in $(( $(date +%s) - start )) s"
    else
      echo "fidelity_timing: [$i/$cases] $name $variant $tag ($size): FAILED"; tail -5 "$out.log"; rc=1
    fi
  done
done < <(grep -v '^#' scripts/fidelity/timing_cases.txt)
exit $rc
