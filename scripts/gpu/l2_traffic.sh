#!/usr/bin/env bash
# L2's traffic and clock for launches the simulator finds bound by L2's
# bandwidth, under Nsight Compute with the GPU's clocks left alone: sectors
# read and written at L2 (and L1's lookups there), DRAM bytes, the kernel's
# duration, and the SM's, L2's and DRAM's clocks. Whether L2 keeps a clock
# of its own when a tensor launch lowers the SMs' (the cost model's
# bandwidths are bytes per SM cycle, measured at 1980 MHz) is the question
# it answers first.
#   scripts/gpu/l2_traffic.sh ["PROGRAM VARIANT SIZE" ...]   (on the GPU machine: build-gpu/tklab_gpu)
set -uo pipefail
case "${1:-}" in -h|--help) sed -n '2,/^set -uo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;; esac
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH
gpu=./build-gpu/tklab_gpu
[ -x "$gpu" ] || { echo "l2_traffic: $gpu not built (scripts/gpu/run.sh builds it)" >&2; exit 1; }
command -v ncu >/dev/null || { echo "l2_traffic: no ncu (Nsight Compute) on this machine" >&2; exit 1; }
metrics=lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_sectors_srcunit_tex_lookup_hit.sum,lts__t_sectors_srcunit_tex_lookup_miss.sum
metrics+=,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum
metrics+=,sm__cycles_elapsed.avg.per_second,lts__cycles_elapsed.avg.per_second,dram__cycles_elapsed.avg.per_second
launches=("$@")
[ ${#launches[@]} -eq 0 ] && launches=("lesson05 solution M=3072,N=2816,K=256" "lesson05 solution M=3072,N=2816,K=64"
                                       "gemm_hopper bulk_store M=4096,N=4096,K=256" "lesson07 solution M=3072,N=2816,K=256"
                                       "lesson04_gemm solution M=3072,N=2816,K=128")
for spec in "${launches[@]}"; do
  read -r name variant size <<<"$spec"
  echo "== $name $variant $size"
  # CSV: ..., "Kernel Name", ..., "Metric Name", "Metric Unit", "Metric Value"; the program's own kernels only.
  timeout 300 ncu --clock-control none --metrics "$metrics" --csv "$gpu" run "$name" --variant "$variant" --size "$size" --no-check 2>/dev/null |
    grep '^"' | awk -F'","' 'n++ && NF > 3 { gsub(/"/, "", $NF); printf "  %-32.32s %-50s %-12s %s\n", $5, $(NF-2), $(NF-1), $NF }' ||
    echo "  l2_traffic: ncu failed for $spec"
done
