#!/usr/bin/env bash
# Kernel time against the number of waves and of k-steps: lesson 7's ring,
# lesson 4's GEMM and lesson 5's double buffer at sizes from one wave to 16
# blocks an SM and from 1 to 16 k-steps, on the GPU (its CUPTI mean over 8
# runs, the first included) and in the simulator, one table. Where the
# simulator's error is in a block's fixed cost (start, prologue, store) or
# in its k-steps shows in how each column grows.
#   scripts/gpu/waves_sweep.sh --gpu OUT_DIR          (on the GPU machine: build-gpu/tklab_gpu)
#   scripts/gpu/waves_sweep.sh --table OUT_DIR BUILD  (here: the simulator's column beside the GPU's)
# (results/waves_sweep_h100.txt is its table.)
set -uo pipefail
case "${1:-}" in -h|--help|"") sed -n '2,/^set -uo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;; esac
cd "$(dirname "$0")/../.."
mode=$1 dir=${2:?an output directory}
launches() {
  cat <<'LIST'
lesson07 solution M=768,N=704,K=256
lesson07 solution M=1536,N=1408,K=256
lesson07 solution M=3072,N=1408,K=256
lesson07 solution M=3072,N=2816,K=256
lesson07 solution M=3072,N=2816,K=64
lesson07 solution M=3072,N=2816,K=128
lesson07 solution M=3072,N=2816,K=1024
lesson07 one_stage M=768,N=704,K=256
lesson07 one_stage M=3072,N=2816,K=256
lesson04_gemm solution M=768,N=704,K=128
lesson04_gemm solution M=1536,N=1408,K=128
lesson04_gemm solution M=3072,N=2816,K=128
lesson04_gemm solution M=3072,N=2816,K=512
lesson05 solution M=3072,N=2816,K=256
lesson05 solution M=3072,N=2816,K=64
LIST
}
tag_of() { echo "${1}__${2}__${3//[,=]/_}"; }
case "$mode" in
  --gpu)
    gpu=./build-gpu/tklab_gpu
    [ -x "$gpu" ] || { echo "waves_sweep: $gpu not built (scripts/gpu/run.sh builds it)" >&2; exit 1; }
    mkdir -p "$dir"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader > "$dir/gpu.txt" 2>&1
    launches | while read -r name variant size; do
      tag=$(tag_of "$name" "$variant" "$size")
      "$gpu" run "$name" --variant "$variant" --size "$size" --no-check --profile timing --repeat 7 --trace "$dir/$tag.cbor" > "$dir/$tag.log" 2>&1 ||
        { echo "waves_sweep: $tag failed:"; tail -3 "$dir/$tag.log"; }
      echo "waves_sweep: $tag $(grep -m1 -E 'ran [0-9]+ times' "$dir/$tag.log" | sed 's/^ *//')"
    done ;;
  --table)
    build=${3:?a build directory of the simulator}
    tool=$build/tklab
    [ -x "$tool" ] || { echo "waves_sweep: $tool not built" >&2; exit 1; }
    registers="the simulator's estimate"; [ -n "${TKLAB_COMPILER_FIGURES:-}" ] && registers="ptxas's ($TKLAB_COMPILER_FIGURES)"
    echo "tklab waves sweep — GPU: $(cut -d, -f1 "$dir/gpu.txt" 2>/dev/null | head -1) (CUPTI mean of 8 runs, scripts/gpu/waves_sweep.sh --gpu); simulator: $(git rev-parse --short HEAD), cost model h100, registers $registers"
    printf "%-14s %-10s %-22s %7s %9s %9s %7s\n" program variant size blocks "sim us" "GPU us" error
    launches | while read -r name variant size; do
      tag=$(tag_of "$name" "$variant" "$size")
      gpu_us=$(sed -n 's/.*ran [0-9]* times, mean \([0-9.]*\) us.*/\1/p' "$dir/$tag.log" 2>/dev/null | head -1)
      out=$(NO_COLOR=1 "$tool" run "$name" --variant "$variant" --size "$size" --no-check --checks none --timeline-blocks none --arch h100 2>&1)
      sim_us=$(echo "$out" | sed -n 's/.*estimated time *\([0-9.]*\) us.*/\1/p' | head -1)
      blocks=$(echo "$out" | sed -n 's/.*blocks *\([0-9]*\) of [0-9]* in the grid.*/\1/p' | head -1)
      err=$([ -n "$gpu_us" ] && [ -n "$sim_us" ] && python3 -c "print(f'{$sim_us / $gpu_us - 1:+.0%}')" || echo "-")
      printf "%-14s %-10s %-22s %7s %9s %9s %7s\n" "$name" "$variant" "$size" "$blocks" "${sim_us:--}" "${gpu_us:--}" "$err"
    done ;;
  *) echo "waves_sweep: the first argument is --gpu or --table (see --help)" >&2; exit 2 ;;
esac
