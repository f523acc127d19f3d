#!/usr/bin/env bash
# The registers table (issue 24): for every kernel, lesson solution and
# variant, ptxas's registers and local memory (the build's compiler figures,
# sim/compiler_figures.h) beside the simulator's estimate without nvcc, and the
# estimate's error. Needs ptxas's figures from a build with nvcc (TKLAB_CUDA=AUTO
# or ON); no GPU.
#   scripts/registers/table.sh [BUILD_DIR [FIGURES_DIR]] > results/registers_sm90a.txt
# FIGURES_DIR (default BUILD_DIR/compiler_figures) lets a simulator-only build
# use another build's figures: configure one with -DTKLAB_CUDA=ON and build
# just `ninja tklab_compiler_figures_reports` (nvcc only, a minute or two).
set -euo pipefail
build=${1:-build}
figures=${2:-$build/compiler_figures}
tool=$build/tklab
if [[ ! -x $tool ]]; then
  echo "error: $tool not found; build first (scripts/setup.sh), or name the build folder: $0 BUILD_DIR" >&2
  exit 2
fi
if [[ ! -d $figures ]]; then
  echo "error: no compiler figures in $figures: $build was built without nvcc; configure a build with -DTKLAB_CUDA=ON on a machine with the CUDA toolkit (ninja tklab_compiler_figures_reports is enough) and name its folder: $0 $build OTHER_BUILD/compiler_figures" >&2
  exit 2
fi
cases=$(dirname "$0")/cases.txt

printf '# ptxas (sm_90a) against the simulator'"'"'s register estimate; %s\n' "$("$tool" --version 2>/dev/null | head -1 || echo tklab)"
printf '# local memory: stack frame bytes / spill stores / spill loads per thread (ptxas)\n'
printf '# estimate = base + the larger of tiles (from when each holds more than one value; less a quarter of the mma operands filled from shared memory) and loaded (registers loads filled before anything read them) + addresses (the hottest loop'"'"'s global-memory instructions), or, when more, a straight run'"'"'s addresses computed ahead (at most 32); sim/README.md, "Registers"\n'
printf '# error: of the estimate, held to the 255 registers a thread can have (past them the compiler spills)\n'
printf '%-14s %-20s %-34s %6s %11s %6s %6s %9s %9s %7s\n' program variant kernel ptxas local tiles loaded addresses estimate error
n=0; sum=0; worst=0; worst_row=""
while read -r prog variant size; do
  [[ -z ${prog:-} || $prog == \#* ]] && continue
  args=(run "$prog" --variant "$variant" --checks none)
  [[ -n ${size:-} && $size != - ]] && args+=(--size "$size")
  echo "  $prog $variant ${size:-}" >&2
  out=$(TKLAB_COMPILER_FIGURES="$figures" "$tool" "${args[@]}" 2>&1) || { echo "error: tklab ${args[*]} failed:" >&2; echo "$out" >&2; exit 1; }
  # One row per launch: its kernel, ptxas's figures and the estimate.
  while IFS='|' read -r kernel regs tiles est local loaded addr; do
    [[ -z $regs ]] && { echo "error: no compiler figures for $prog $variant kernel $kernel (is it in a named namespace?)" >&2; exit 1; }
    err=$(awk -v e="$est" -v p="$regs" 'BEGIN { if (e > 255) e = 255; printf "%+.0f%%", 100 * (e - p) / p }')
    abs=$(awk -v e="$est" -v p="$regs" 'BEGIN { if (e > 255) e = 255; d = 100 * (e - p) / p; printf "%.2f", d < 0 ? -d : d }')
    printf '%-14s %-20s %-34s %6s %11s %6s %6s %9s %9s %7s\n' "$prog" "$variant$([[ $size != - ]] && echo " $size")" "${kernel:0:34}" "$regs" "$local" "$tiles" "$loaded" "$addr" "$est" "$err"
    n=$((n + 1)); sum=$(awk -v s="$sum" -v a="$abs" 'BEGIN { print s + a }')
    if awk -v a="$abs" -v w="$worst" 'BEGIN { exit !(a > w) }'; then worst=$abs; worst_row="$prog $variant"; fi
  done < <(awk '
    /^Launch [0-9]+: / { if (k != "") print k "|" r "|" t "|" e "|" l "|" ld "|" a; k = $3; r = ""; t = "0"; e = ""; l = "0/0/0"; ld = 0; a = 0; parts = 0 }
    /ptxas .* for sm_90a: [0-9]+ registers per thread/ { for (i = 1; i <= NF; ++i) if ($i == "registers" && $(i-1) ~ /^[0-9]+$/) r = $(i-1) }
    /^  peak [0-9]+ registers per thread held by tiles/ { t = $2 }
    /without nvcc the simulator would estimate/ { for (i = 1; i <= NF; ++i) if ($i == "estimate") { e = $(i+1); sub(":", "", e) }
      parts = 1; next }
    parts { for (i = 1; i <= NF; ++i) { if ($i == "loaded,") ld = $(i-1); if ($i == "loop" && $(i+1) == "addresses") a = $(i-1) }
      parts = 0 }
    /^  local memory: / { s = 0; st = 0; ld = 0
      for (i = 1; i <= NF; ++i) { if ($(i+1) == "B" && $(i+2) == "stack") s = $i; if ($(i+1) == "B" && $(i+2) == "spilled,") st = $i; if ($(i+1) == "B" && $(i+2) == "reloaded") ld = $i }
      l = s "/" st "/" ld }
    END { if (k != "") print k "|" r "|" t "|" e "|" l "|" ld "|" a }' <<< "$out")
done < "$cases"
awk -v n="$n" -v s="$sum" -v w="$worst" -v wr="$worst_row" 'BEGIN {
  printf "summary: %d launches; the estimate without nvcc is %.1f%% off ptxas on average, worst %.0f%% (%s)\n", n, s / n, w, wr }'
