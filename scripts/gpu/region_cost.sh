#!/usr/bin/env bash
# On the GPU machine, after build-gpu/ is built (scripts/gpu/run.sh): what
# tk::region markers cost a kernel when nothing records them. Builds
# build-noreg/ with the markers compiled out (-DTK_NO_REGIONS), runs the
# same launches from both builds with kernel timing (the mean of 6 runs) and
# PC stall sampling, and prints per launch the two times, ptxas's registers
# and the hottest line with its top two stall reasons. lesson05 has no
# markers: the control (its two times differ by noise alone).
#   scripts/gpu/region_cost.sh [OUTPUT_FILE]
set -uo pipefail
cd "$(dirname "$0")/../.."
case "${1:-}" in -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
out=${1:-/dev/stdout}
[ -x build-gpu/tklab_gpu ] || { echo "region_cost: build-gpu/tklab_gpu not built (scripts/gpu/run.sh)" >&2; exit 1; }
prefix=$(sed -n 's/^CMAKE_PREFIX_PATH:[A-Z]*=//p' build-gpu/CMakeCache.txt)
echo "region_cost: building build-noreg (markers compiled out)" >&2
cmake -S . -B build-noreg -G Ninja -DCMAKE_BUILD_TYPE=Release -DTKLAB_CUDA=ON -DTKLAB_BUILD_SIM=OFF -DTKLAB_TESTS=OFF \
      -DTKLAB_CUDA_ARCHS=90a -DCMAKE_CUDA_FLAGS=-DTK_NO_REGIONS ${prefix:+-DCMAKE_PREFIX_PATH=$prefix} >/dev/null &&
  cmake --build build-noreg -j"$(nproc)" --target tklab_gpu >/dev/null ||
  { echo "region_cost: the build without markers failed" >&2; exit 1; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
{
echo "# tk::region markers, compiled in but not recording, against compiled out (-DTK_NO_REGIONS)"
echo "# $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(date -u +%Y-%m-%d), scripts/gpu/region_cost.sh"
printf '%-9s %-11s %-20s %10s %10s %6s %9s  %s\n' program variant size markers_us out_us diff registers "hottest line: markers | compiled out"
while read -r name variant size; do
  for b in gpu noreg; do
    ./build-$b/tklab_gpu run "$name" --variant "$variant" --size "$size" --no-check --profile timing,stalls --repeat 5 \
      --stall-period 9 >"$work/$b.txt" 2>&1 || { echo "region_cost: $name $b failed" >&2; tail -3 "$work/$b.txt" >&2; continue 2; }
  done
  mean() { sed -n 's/.*ran [0-9]* times, mean \([0-9.]*\) us.*/\1/p' "$1" | head -1; }
  regs() { sed -n 's/.* \([0-9]*\) registers\/thread.*/\1/p' "$1" | head -1; }
  hot() { grep -m1 -E '^ +[0-9.]+% ' "$1" | sed 's/^ *//; s/  */ /g; s/[a-z]*\/[a-z0-9_]*\///'; }
  a=$(mean "$work/gpu.txt"); o=$(mean "$work/noreg.txt")
  printf '%-9s %-11s %-20s %10s %10s %5s%% %4s/%-4s  %s | %s\n' "$name" "$variant" "$size" "$a" "$o" \
    "$(python3 -c "print(f'{100 * ($a - $o) / $o:+.0f}')" 2>/dev/null)" \
    "$(regs "$work/gpu.txt")" "$(regs "$work/noreg.txt")" "$(hot "$work/gpu.txt")" "$(hot "$work/noreg.txt")"
done <<'CASES'
gemm swizzled M=4096,N=4096,K=128
gemm swizzled M=768,N=704,K=1024
gemm unswizzled M=4096,N=4096,K=128
gemm unswizzled M=768,N=704,K=1024
lesson09 solution M=3072,N=2816,K=256
lesson09 solution M=768,N=704,K=512
lesson05 solution M=3072,N=2816,K=256
CASES
} >"$out"
