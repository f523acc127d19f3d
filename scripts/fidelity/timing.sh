#!/usr/bin/env bash
# The timing fidelity report: for each launch of scripts/fidelity/timing_cases.txt
# whose GPU trace is in DIR (written on the GPU machine by
# scripts/gpu/fidelity_timing.sh), runs the same program, variant, size and seed
# in the simulator here and prints `tklab fidelity`'s timing tables: kernel
# time, regions' shares, stall reasons and hot lines, simulator beside GPU.
# Ends with the summary: mean and worst kernel-time error, how many hot lines'
# top stall reason agrees, and how far apart the two stall-reason
# distributions are (TimingLaunch::stall_distance).
# ARCH is the simulator's cost model (sim/arch/ARCH.json), the one measured on
# the GPU that recorded the traces: h100 (default) or h200. SIM_ARGS adds
# options to each simulator run (SIM_ARGS=--no-l1: the L1 model off). Occupancy
# uses ptxas's registers where the build has them (built with nvcc, or
# TKLAB_COMPILER_FIGURES naming such a build's compiler_figures/), as tklab run
# does; the report's second line says which.
#   scripts/fidelity/timing.sh DIR [BUILD_DIR [ARCH]] > results/fidelity_timing_ARCH.txt
set -uo pipefail
cd "$(dirname "$0")/../.."
dir=${1:?usage: scripts/fidelity/timing.sh DIR_OF_GPU_TRACES [BUILD_DIR]}
build=${2:-build}
arch=${3:-h100}
[ -f "sim/arch/$arch.json" ] || { echo "timing: no cost model sim/arch/$arch.json (h100 or h200)" >&2; exit 2; }
tklab="$build/tklab"
[ -x "$tklab" ] || { echo "timing: $tklab not built (scripts/setup.sh builds it)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cases=$(grep -v '^#' scripts/fidelity/timing_cases.txt | grep -c .)
first=$(ls "$dir"/*__*__one.cbor 2>/dev/null | head -1)
gpu_name=$([ -n "$first" ] && NO_COLOR=1 "$tklab" report "$first" 2>/dev/null | sed -n 's/.*cost model \(.*\)$/\1/p' | head -1)
echo "tklab timing fidelity report — $(date -u +%Y-%m-%d) — GPU: ${gpu_name:-unknown} (traces from scripts/gpu/fidelity_timing.sh)"
# Occupancy uses ptxas's registers where the build has them (a build with nvcc,
# or TKLAB_COMPILER_FIGURES naming another build's), else the estimate.
figures=${TKLAB_COMPILER_FIGURES-$build/compiler_figures}
if [ -n "$figures" ] && [ -d "$figures" ]; then registers="ptxas's (the build's compiler figures)"
else registers="the simulator's estimate (no compiler figures: a build without nvcc)"; fi
echo "Simulator: $(git rev-parse --short HEAD 2>/dev/null) on $(nproc) cores of $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1);" \
     "cost model sim/arch/$arch.json${SIM_ARGS:+, tklab run $SIM_ARGS}; registers $registers. Each launch: scripts/fidelity/timing_cases.txt, seed 1."
echo
i=0
while read -r name variant one many; do
  [ -z "$name" ] && continue
  i=$((i + 1))
  for tag in one many; do
    size=$one; [ "$tag" = many ] && size=$many
    gpu_trace="$dir/${name}__${variant}__${tag}.cbor"
    [ -f "$gpu_trace" ] || { echo "timing: no GPU trace $gpu_trace; skipped" >&2; continue; }
    echo "timing: [$i/$cases] $name $variant $tag ($size) in the simulator" >&2
    sim_trace="$work/${name}__${variant}__${tag}.cbor"
    # Bug finders off and no check: they change no simulated cycle, only the time it takes here.
    if ! NO_COLOR=1 "$tklab" run "$name" --variant "$variant" --size "$size" --no-check --checks none --timeline-blocks none --arch "$arch" ${SIM_ARGS:-} \
         --trace "$sim_trace" >/dev/null 2>"$work/err"; then
      echo "$name $variant $tag: the simulator run failed:"; tail -3 "$work/err"; continue
    fi
    echo "== $name $variant, $tag wave$([ "$tag" = many ] && echo s) ($size)"
    NO_COLOR=1 "$tklab" fidelity "$sim_trace" "$gpu_trace" | sed -n '/: timing$/,$p'
    NO_COLOR=1 "$tklab" fidelity --summary "$sim_trace" "$gpu_trace" | sed "s/^timing: /timing: $tag /" >>"$work/summary"
    echo
  done
done < <(grep -v '^#' scripts/fidelity/timing_cases.txt)
echo "Summary (simulator against the GPU's median warm kernel time; error = simulator / GPU - 1):"
awk '{ printf "  %-5s %-14s %-13s %10.2f us %10.2f us  %+7.0f%%  hot lines agree %s  stalls %s apart\n", $2, $3, $4, $8, $10, $12 * 100, $14,
         $18 == "none" ? "-" : sprintf("%.0f%%", 100 * $18) }' "$work/summary"
awk '{ e = $12 < 0 ? -$12 : $12; n++; s += e; if (e > w) { w = e; wn = $3 " " $4 " " $2 }
       split($14, h, "/"); a += h[1]; t += h[2]; split($16, m, "/"); mt += m[2]
       if ($18 != "none") { dn++; ds += $18; if ($18 > dw) { dw = $18; dwn = $3 " " $4 " " $2 } } }
     END { if (n) printf "Kernel time: mean absolute error %.0f%% over %d launches, worst %.0f%% (%s). Hot lines: top stall reason agrees on %d of %d (%.0f%%); on %d of the %d that hold simulator instructions (%.0f%%), the rest being plain code it does not issue.",
                         100 * s / n, n, 100 * w, wn, a, t, t ? 100 * a / t : 0, a, mt, mt ? 100 * a / mt : 0
           if (dn) printf " Stall reasons: the distributions %.0f%% apart on average, at most %.0f%% (%s).", 100 * ds / dn, 100 * dw, dwn
           if (n) printf "\n" }' "$work/summary"
