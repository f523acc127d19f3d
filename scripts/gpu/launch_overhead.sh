#!/usr/bin/env bash
# On a machine with an NVIDIA GPU, nvcc and PyTorch: the launch overhead as
# tklab's kernel timing sees it. Builds bench/launch_overhead/empty_kernels.cu
# into a shared library and times empty kernels of 1 to 4224 blocks with
# CUPTI's activity records (PyTorch's profiler), the records the GPU traces'
# kernel times come from. Writes results/launch_overhead_h100.json (or
# OUTPUT_JSON); sim/arch/h100.json's launch.overhead_cycles is its one-block
# figure, and launch.block_turnaround_cycles the later waves' gap between
# blocks. Takes a few seconds.
#   scripts/gpu/launch_overhead.sh [OUTPUT_JSON]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-results/launch_overhead_h100.json}
case "${1:-}" in -h|--help) sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;; esac
command -v nvidia-smi >/dev/null || { echo "launch_overhead.sh: no nvidia-smi: this needs a machine with an NVIDIA GPU" >&2; exit 2; }
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$nvcc" -O3 -shared -Xcompiler -fPIC -gencode=arch=compute_90a,code=sm_90a bench/launch_overhead/empty_kernels.cu -o "$work/libempty.so"
clock=$(python3 -c 'import json; print(json.load(open("sim/arch/h100.json"))["clock_mhz"])')
python3 scripts/gpu/launch_overhead.py "$work/libempty.so" "$clock" "$out"
