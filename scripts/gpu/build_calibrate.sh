#!/usr/bin/env bash
# Builds the calibration microbenchmarks (bench/calibrate/*.cu, plain nvcc for
# sm_90a, the sources compiled in parallel) into DIR/calibrate; on a failure
# prints the compiler's logs and exits 1. scripts/gpu/calibrate.sh and
# scripts/gpu/alu_instructions.sh build them this way.
#   scripts/gpu/build_calibrate.sh DIR
set -uo pipefail
cd "$(dirname "$0")/../.."
dir=${1:?usage: scripts/gpu/build_calibrate.sh DIR}
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
mkdir -p "$dir"
pids=()
for src in bench/calibrate/*.cu; do
  "$nvcc" -std=c++20 -O3 --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a -I. -c "$src" -o "$dir/$(basename "$src" .cu).o" \
    >"$dir/$(basename "$src" .cu).log" 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || { cat "$dir"/*.log >&2; exit 1; }; done
"$nvcc" -gencode=arch=compute_90a,code=sm_90a "$dir"/*.o -o "$dir/calibrate" || exit 1
