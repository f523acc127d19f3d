#!/usr/bin/env bash
# On a machine with an NVIDIA Hopper GPU (H100/H200): builds the calibration
# microbenchmarks (bench/calibrate/*.cu, plain nvcc for sm_90a), runs them,
# and writes one JSON document with every figure the simulator's cost model
# uses, measured in SM cycles on this GPU: for each, its value, unit and how
# it was measured, with the GPU's name, driver, nvcc's version, the SM clock
# during the run (%clock64 over a %globaltimer interval) and the date. Then
# prints a table: figure, measured, the value sim/arch/ARCH.json uses now,
# and their ratio; the table is also written beside the JSON (same name, .txt).
#   scripts/gpu/calibrate.sh [OUTPUT_JSON] [--arch NAME] [--only FAMILIES] [--bin PATH]
# OUTPUT_JSON   default results/calibration_h100.json
# --arch NAME   the cost model to compare with, sim/arch/NAME.json (default h100)
# --only F,...  run some families only: issue, shared, mio_depth, tensor, async, global, frontend, alu,
#               stores, lsu_queue, overhead (needs ncu; also times each probe)
# --bin PATH    run an already built binary instead of building (the CMake
#               build makes build/bench/calibrate when it has CUDA)
# Needs nvcc and python3 (and ncu for the launch overhead); takes about a
# minute. Then scripts/dev/arch_from_calibration.py OUTPUT_JSON sim/arch/ARCH.json
# writes the measured figures into the cost model (sim/arch/README.md).
set -uo pipefail
cd "$(dirname "$0")/../.."
out=results/calibration_h100.json
arch=h100
only=""
bin=""
while [ $# -gt 0 ]; do
  case "$1" in
    --arch) arch=$2; shift ;;
    --only) only=$2; shift ;;
    --bin) bin=$2; shift ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "calibrate.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) out=$1 ;;
  esac
  shift
done
model=sim/arch/$arch.json
[ -f "$model" ] || { echo "calibrate.sh: no cost model $model" >&2; exit 2; }
command -v nvidia-smi >/dev/null || { echo "calibrate.sh: no nvidia-smi: this needs a machine with an NVIDIA GPU" >&2; exit 2; }
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
work=$(mktemp -d)
if [ -z "$bin" ]; then
  echo "==> building bench/calibrate (nvcc, sm_90a)"
  scripts/gpu/build_calibrate.sh "$work" || exit 1
  bin=$work/calibrate
fi
echo "==> running $bin"
args=("$work/raw.json"); [ -n "$only" ] && args+=(--only "$only")
"$bin" "${args[@]}" || { echo "calibrate.sh: the microbenchmarks failed" >&2; exit 1; }
# The launch overhead: Nsight Compute's sm__cycles_elapsed.max of an empty
# one-block kernel, the median of 10 launches (only ncu sees a launch from
# outside its blocks).
if command -v ncu >/dev/null && { [ -z "$only" ] || [[ "$only" == *launch* ]]; }; then
  echo "==> launch overhead (ncu, empty kernel)"
  empty=$(ncu --kernel-name empty_kernel --metrics sm__cycles_elapsed.max --csv "$bin" --empty-kernel 2>/dev/null |
          awk -F'","' '/sm__cycles_elapsed.max/ { v = $NF; gsub(/[",]/, "", v); print v }' | sort -n | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }')
  [ -n "$empty" ] && EMPTY_CYCLES=$empty python3 - "$work/raw.json" <<'PY'
import json, os, sys
p = sys.argv[1]; raw = json.load(open(p))
raw["figures"].append({"name": "launch.empty_kernel_cycles", "value": float(os.environ["EMPTY_CYCLES"]), "unit": "cycles",
                       "method": "ncu sm__cycles_elapsed.max of an empty kernel of one 128-thread block, median of 10 launches",
                       "plausible": [500, 20000]})
json.dump(raw, open(p, "w"))
PY
fi

# The instructions around each tile op (bench/calibrate/overhead_probes.h):
# Nsight Compute's smsp__inst_executed of each probe at two call counts; the
# difference per call and per warp is what one call costs in SASS.
if command -v ncu >/dev/null && { [ -z "$only" ] || [[ "$only" == *overhead* ]]; }; then
  echo "==> instructions around each tile op (ncu, bench/calibrate/overhead_probes.h)"
  for iters in 8 40; do
    ncu --kernel-name regex:probe --metrics smsp__inst_executed.sum,sm__warps_launched.sum --csv "$bin" --overhead-probes $iters \
      >"$work/overhead_$iters.csv" 2>"$work/overhead_$iters.err" || { cat "$work/overhead_$iters.err" >&2; }
  done
  "$bin" --overhead-timing >"$work/overhead_timing.txt" 2>&1 || cat "$work/overhead_timing.txt" >&2
  python3 - "$work/raw.json" "$work/overhead_8.csv" "$work/overhead_40.csv" "$work/overhead_timing.txt" <<'PY'
import csv, json, re, sys
raw_path, lo_path, hi_path, timing_path = sys.argv[1:]
def counts(path):
    """Per probe (in launch order): instructions per warp."""
    rows = [r for r in csv.reader(l for l in open(path) if l.startswith('"'))]
    head, rows = rows[0], rows[1:]
    ki, mi, vi = head.index("Kernel Name"), head.index("Metric Name"), head.index("Metric Value")
    idi = head.index("ID")
    per = {}
    for r in rows:
        per.setdefault(int(r[idi]), {"kernel": r[ki]})[r[mi]] = float(r[vi].replace(",", ""))
    return [per[k] for k in sorted(per)]
lo, hi = counts(lo_path), counts(hi_path)
raw = json.load(open(raw_path))
# The probes' names and modelled counts, as the binary prints them (overhead_probes.h).
line = next((l for l in open(hi_path) if l.startswith("probes:")), None)
if not line: sys.exit("calibrate.sh: the probes' run printed no 'probes:' line")
pairs = [p.split("=") for p in line.split()[1:]]
names, modelled = [p[0] for p in pairs], [int(p[1]) for p in pairs]
if len(lo) != len(names) or len(hi) != len(names):
    sys.exit(f"calibrate.sh: ncu counted {len(lo)} and {len(hi)} probe launches, expected {len(names)}")
for n, m, a, b in zip(names, modelled, lo, hi):
    w = b["sm__warps_launched.sum"]
    per_call = (b["smsp__inst_executed.sum"] - a["smsp__inst_executed.sum"]) / w / 32.0
    raw["figures"].append({"name": f"overhead.{n}_sass_per_call", "value": per_call, "unit": "instructions",
                           "method": f"ncu smsp__inst_executed of one 4-warp block calling the op 40 and 8 times "
                                     f"(bench/calibrate/overhead_probes.h), difference per call per warp; the simulator models {m} per call",
                           "modelled": m, "plausible": [m, 40 * m]})
    print(f"  overhead.{n}_sass_per_call {per_call:10.1f} instructions (the simulator models {m})")
# The same probes' time: cycles per call of the slowest warp, one warp per sub-partition.
for line in open(timing_path):
    if not line.startswith("timing: "): continue
    _, n, v = line.split()
    raw["figures"].append({"name": f"overhead.{n}_cycles_per_call", "value": float(v), "unit": "cycles",
                           "method": "%clock64 around the probe's loop, 40 calls less 8, one 4-warp block (one warp per sub-partition), "
                                     "slowest warp, median of 5 launches (bench/calibrate/overhead_probes.h)",
                           "plausible": [1, 100000]})
    print(f"  overhead.{n}_cycles_per_call {float(v):10.1f} cycles")
json.dump(raw, open(raw_path, "w"))
PY
fi

gpu_line=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
nvcc_version=$("$nvcc" --version | grep -o 'release [0-9.]*, V[0-9.]*' | head -1)
mkdir -p "$(dirname "$out")"
GPU_LINE="$gpu_line" NVCC_VERSION="$nvcc_version" python3 - "$work/raw.json" "$model" "$out" "${out%.json}.txt" <<'PY'
import json, os, re, sys, datetime
raw_path, model_path, out_path, table_path = sys.argv[1:]
raw = json.load(open(raw_path))
M = json.load(open(model_path))
name, _, driver = os.environ.get("GPU_LINE", "").partition(",")
sh, cpw = M["shared"]["latency"], M["shared"]["cycles_per_wavefront"]
fma = M["wgmma"]["fma_per_cycle"]
tma_box = 8192  # bytes of the box the TMA figures move

def model(fig):
    """The value the cost model implies for this figure now, and from which fields."""
    n = fig
    if n == "sm_clock_mhz": return M["clock_mhz"], "clock_mhz"
    if n.startswith("issue."): return 1.0 / M["issue_cycles"], "1 / issue_cycles"
    m = re.match(r"shared\.ld_latency_(\d+)B", n)
    if m:
        wf = int(m.group(1)) // 4
        return sh + wf * cpw, f"shared.latency + {wf} wavefront(s)"
    m = re.match(r"shared\.st_ld_roundtrip_(\d+)B", n)
    if m:
        wf = int(m.group(1)) // 4
        return sh + 2 * wf * cpw, f"shared.latency + {2*wf} wavefronts (store, then load)"
    if "cycles_per_wavefront" in n: return cpw, "shared.cycles_per_wavefront"
    if n == "stmatrix.x4_cycles_per_instruction": return 4 * cpw, "4 x shared.cycles_per_wavefront"
    m = re.match(r"ldmatrix\.latency_x(\d)", n)
    if m: return M["ldmatrix"]["latency"] + int(m.group(1)) * cpw, f"ldmatrix.latency + {m.group(1)} wavefront(s)"
    if n == "shfl.latency": return M["shfl"]["latency"], "shfl.latency"
    if n.startswith("global.latency_dram"): return M["global"]["dram_latency"], "global.dram_latency"
    if n.startswith("global.latency_l1"): return None, "not modelled (no L1)"
    if n.startswith("global.latency"): return M["global"]["latency"], "global.latency"
    if n == "cp_async.latency_dram": return M["cp_async"]["dram_latency"], "cp_async.dram_latency"
    if n.startswith("cp_async.latency"): return M["cp_async"]["latency"], "cp_async.latency"
    if n == "mma_m16n8k16.latency": return M["mma_m16n8k16"]["latency"], "mma_m16n8k16.latency"
    if n.startswith("mma_m16n8k16.pipe_cycles"): return M["mma_m16n8k16"]["pipe_cycles"], "mma_m16n8k16.pipe_cycles"
    m = re.match(r"wgmma\.m64n(\d+)k16_(cycles|fma_per_cycle|latency)", n)
    if m:
        N, what = int(m.group(1)), m.group(2)
        occ = 64 * N * 16 / fma
        if what == "cycles": return occ, "64*N*16 / wgmma.fma_per_cycle"
        if what == "fma_per_cycle": return fma, "wgmma.fma_per_cycle"
        return occ + M["wgmma"]["latency"], "64*N*16 / wgmma.fma_per_cycle + wgmma.latency"
    if n == "tma.load_latency_dram":
        return tma_box / M["tma"]["bytes_per_cycle"] + M["tma"]["dram_latency"], "8 KiB / tma.bytes_per_cycle + tma.dram_latency"
    if n.startswith("tma.load_latency"):
        return tma_box / M["tma"]["bytes_per_cycle"] + M["tma"]["latency"], "8 KiB / tma.bytes_per_cycle + tma.latency"
    if n.startswith("tma.") and "bytes_per_cycle" in n: return M["tma"]["bytes_per_cycle"], "tma.bytes_per_cycle"
    if n.startswith("barrier.bar_sync"): return M["barrier"]["latency"], "barrier.latency"
    if n == "mbarrier.arrive_wait_roundtrip": return 2 * M["mbarrier"]["latency"], "2 x mbarrier.latency (arrive, wait)"
    if n == "launch.empty_kernel_cycles": return M["launch"]["overhead_cycles"], "launch.overhead_cycles"
    if n.startswith("constant.") and "constant" in M: return M["constant"]["miss_cycles"], "constant.miss_cycles (estimated from PC samples)"
    if n.startswith("global.") and n.endswith("_fragments"):
        mem = M["memory"]
        if "2048MiB" in n: return mem["dram_write_bytes_per_cycle_per_sm"], "memory.dram_write_bytes_per_cycle_per_sm (bytes, whatever the sectors)"
        return mem["l2_write_bytes_per_cycle_per_sm"], "memory.l2_write_bytes_per_cycle_per_sm (bytes, whatever the sectors)"
    return None, "not modelled"

figs = []
for f in raw["figures"]:
    v, src = model(f["name"])
    f = dict(f)
    f["model_now"] = {"value": v, "from": src} if v is not None else None
    figs.append(f)
clock = next((f["value"] for f in raw["figures"] if f["name"] == "sm_clock_mhz"), None)
doc = {
    "what": "Calibration microbenchmarks of the simulator's cost model (issue 23, item 1): bench/calibrate/, run by scripts/gpu/calibrate.sh. "
            "scripts/dev/arch_from_calibration.py writes them into sim/arch/; model_now is what sim/arch/" + os.path.basename(model_path) +
            " implied when this ran.",
    "gpu": name.strip() or raw["gpu"],
    "driver": driver.strip(),
    "nvcc": os.environ.get("NVCC_VERSION", ""),
    "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
    "sms": raw["sms"], "l2_bytes": raw["l2_bytes"], "dram_peak_GBps": raw.get("dram_peak_GBps"),
    "sm_clock_mhz": {"start": raw["sm_clock_mhz_start"], "end": raw["sm_clock_mhz_end"], "mean": clock,
                     "how": "%clock64 over 50 ms of %globaltimer, one thread, at the start and the end of the run"},
    "warnings": raw["warnings"],
    "compared_with": model_path,
    "figures": figs,
}
with open(out_path, "w") as fh:
    json.dump(doc, fh, indent=2)
    fh.write("\n")

lines = [f"tklab calibration — {doc['date']} — {doc['gpu']}, driver {doc['driver']}, {doc['sms']} SMs — nvcc {doc['nvcc']}",
         f"SM clock during the run: {raw['sm_clock_mhz_start']:.0f} MHz at the start, {raw['sm_clock_mhz_end']:.0f} MHz at the end "
         f"(%clock64 over %globaltimer); {doc['warnings']} sanity warning(s)",
         f"'now' is what {model_path} implies for the same measurement; ratio = measured / now", ""]
w = max(len(f["name"]) for f in figs)
lines.append(f"{'figure':<{w}}  {'measured':>10}  {'unit':<16}  {'now':>8}  {'ratio':>6}")
for f in figs:
    mn = f["model_now"]
    now = f"{mn['value']:.4g}" if mn else "-"
    v = f["value"]
    ratio = f"{v / mn['value']:.2f}" if v is not None and mn and mn["value"] else "-"
    meas = f"{v:>10.4g}" if v is not None else f"{'failed':>10}"
    lines.append(f"{f['name']:<{w}}  {meas}  {f['unit']:<16}  {now:>8}  {ratio:>6}")
text = "\n".join(lines) + "\n"
open(table_path, "w").write(text)
print(text, end="")
print(f"written: {out_path}, {table_path}")
PY
