#!/usr/bin/env bash
# The memory a `tklab run` estimates before simulating, beside the peak it
# then reached, for every kernel and lesson at a size where the data is
# large. Usage: scripts/dev/memory_estimate.sh [BUILD_DIR] (default build).
# Prints one row per run; the estimate should be at or above the peak.
set -euo pipefail
build=${1:-build}
tklab=$build/tklab
[[ -x $tklab ]] || { echo "no $tklab: build first (cmake --build $build)" >&2; exit 1; }
runs=(
  "gemm --size 1024"
  "gemm_hopper --size M=1024,N=1024,K=512"
  "layernorm --size rows=16384,D=2048"
  "rotary --size B=4,H=16,N=1024,D=128"
  "attention --size B=1,H=2,N=1024,D=64"
  "lesson01 --variant solution --size R=262144,C=64"
  "lesson02 --variant solution --size R=65536,C=64"
  "lesson03 --variant solution --size M=512,N=512,K=256"
  "lesson04 --variant solution --size M=2048,N=2048"
  "lesson05 --variant solution --size M=512,N=512,K=512"
  "lesson06 --variant solution --size M=1024,N=1024,K=256"
  "lesson08 --variant solution --size N=1024,D=64"
  "lesson10 --variant solution --size M=1024,N=1024,K=256"
)
printf '%-58s %12s %12s %7s\n' run peak estimate ratio
for r in "${runs[@]}"; do
  # shellcheck disable=SC2086
  line=$("$tklab" run $r 2>&1 >/dev/null | grep 'memory peak' || true)
  [[ -n $line ]] || { printf '%-58s failed\n' "$r"; continue; }
  peak=$(sed -E 's/.*memory peak ([0-9.]+ [KMG]B|[0-9]+ bytes).*/\1/' <<<"$line")
  est=$(sed -E 's/.*\(estimated ([0-9.]+ [KMG]B|[0-9]+ bytes)\).*/\1/' <<<"$line")
  ratio=$(python3 -c "
u={'KB':2**10,'MB':2**20,'GB':2**30,'bytes':1}
f=lambda s:float(s.split()[0])*u[s.split()[1]]
print(f'{f(\"$est\")/f(\"$peak\"):.2f}')")
  printf '%-58s %12s %12s %7s\n' "$r" "$peak" "$est" "$ratio"
done
