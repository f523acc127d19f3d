#!/usr/bin/env bash
# On the GPU machine: the SASS instructions each element of the calibration's
# register-arithmetic probes takes (bench/calibrate/alu.cu, alu_bench), and
# where their warps wait per instruction issued, from Nsight Compute: the table
# results/alu_instructions_NAME.txt that scripts/dev/arch_from_calibration.py
# turns into the cost model's alu.KIND.instructions (sim/arch/README.md,
# "Register arithmetic").
#   scripts/gpu/alu_instructions.sh [OUTPUT_FILE] [--bin PATH_TO_CALIBRATE]
# Builds bench/calibrate (scripts/gpu/build_calibrate.sh) unless
# --bin names a built one. Needs nvcc, ncu and python3; about a minute.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=/dev/stdout bin=""
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --bin) bin=${2:?--bin needs a path}; shift ;;
    -*) echo "alu_instructions: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) out=$1 ;;
  esac
  shift
done
command -v ncu >/dev/null || { echo "alu_instructions: no ncu (Nsight Compute) on this machine" >&2; exit 2; }
work=$(mktemp -d)
if [ -z "$bin" ]; then
  echo "alu_instructions: building bench/calibrate (nvcc, sm_90a)" >&2
  scripts/gpu/build_calibrate.sh "$work" || exit 1
  bin=$work/calibrate
fi
reasons=selected,wait,short_scoreboard,math_pipe_throttle,not_selected
metrics=smsp__inst_executed.sum,sm__warps_launched.sum
for r in ${reasons//,/ }; do metrics="$metrics,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio"; done
echo "alu_instructions: the alu probes under ncu" >&2
ncu --kernel-name regex:alu_bench --metrics "$metrics" --csv "$bin" "$work/raw.json" --only alu 2>/dev/null | grep '^"' >"$work/ncu.csv"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
GPU="$gpu" REASONS="$reasons" python3 - "$work/ncu.csv" >"$out" <<'EOF'
import collections, csv, datetime, os, statistics, sys
rows = list(csv.reader(open(sys.argv[1])))
if len(rows) < 2:
    sys.exit("alu_instructions: ncu measured no alu_bench launch")
head = rows[0]
ki, bi, mi, vi, ii = (head.index(k) for k in ("Kernel Name", "Block Size", "Metric Name", "Metric Value", "ID"))
launches = collections.defaultdict(dict)
for r in rows[1:]:
    launches[(r[ii], r[ki], r[bi])][r[mi]] = float(r[vi].replace(",", ""))
# bench/calibrate/alu.cu's kinds, in its order (alu_bench<KIND>), and its 64 iterations of 32 elements a lane.
names = ["add", "mul_scalar", "max", "exp", "exp2", "log", "div", "sub_row", "row_max", "row_sum", "convert_bf16"]
iters, elements = 64, 32
reasons = os.environ["REASONS"].split(",")
cases = collections.defaultdict(list)
for (_, kernel, block), m in launches.items():
    kind = int(kernel.split("alu_bench<")[1].split(">")[0])
    warps = int(block.strip("()").split(",")[0]) // 32
    cases[(names[kind], warps)].append([m["smsp__inst_executed.sum"] / m["sm__warps_launched.sum"] / iters / elements] +
                                       [m[f"smsp__average_warps_issue_stalled_{r}_per_issue_active.ratio"] for r in reasons])
print("# SASS instructions per element of the calibration's register-arithmetic probes (bench/calibrate/alu.cu, alu_bench), and")
print(f"# where their warps wait, per instruction issued: Nsight Compute on an {os.environ['GPU']}, {datetime.date.today()},")
print("# scripts/gpu/alu_instructions.sh: ncu --kernel-name regex:alu_bench --metrics smsp__inst_executed.sum,sm__warps_launched.sum,")
print("#   smsp__average_warps_issue_stalled_{" + ",".join(reasons) + "}_per_issue_active.ratio")
print("#   over `calibrate --only alu` (5 launches per case; medians). inst/elem: instructions / warps / 64 iterations / 32 elements.")
print("# Each probe's loop adds a helper op as the alu figures do (exp, exp2: a multiply; log, row_max, row_sum: an add; convert: a")
print("# round trip), and its loop control: add's 1.10 is one FADD and a tenth of loop per element.")
print("# warps: 4 = one per sub-partition (alone), 16 = four per sub-partition (sharing the issue slot).")
print(f"{'kind':14s}{'warps':>6s}{'inst/elem':>10s}{'selected':>10s}{'wait':>7s}{'short_sb':>9s}{'math_pipe':>10s}{'not_sel':>8s}")
for key in sorted(cases, key=lambda k: (names.index(k[0]), k[1])):
    med = [statistics.median(x[j] for x in cases[key]) for j in range(1 + len(reasons))]
    print(f"{key[0]:14s}{key[1]:6d}{med[0]:10.2f}" + "".join(f"{v:{w}.2f}" for v, w in zip(med[1:], (10, 7, 9, 10, 8))))
EOF
