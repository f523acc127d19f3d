"""The launch overhead as tklab's kernel timing sees it (scripts/gpu/launch_overhead.sh).

Times empty kernels of several grid sizes with CUPTI's activity records (through
PyTorch's profiler), the way the GPU traces time kernels, and writes each grid's
median duration in nanoseconds and in SM cycles at the cost model's clock.
  python3 launch_overhead.py LIBEMPTY.so CLOCK_MHZ OUTPUT_JSON
"""
import ctypes
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile

import torch
from torch.profiler import ProfilerActivity, profile

lib_path, clock_mhz, out_path = sys.argv[1], float(sys.argv[2]), sys.argv[3]
lib = ctypes.CDLL(lib_path)
torch.zeros(1, device="cuda")  # the primary context, shared with the library's launches
GRIDS = [1, 132, 264, 1056, 4224]
THREADS, TIMES = 128, 50
for g in GRIDS:  # warm: module load, first-launch costs
    assert lib.launch_empty(g, THREADS, 10) == 0
with profile(activities=[ProfilerActivity.CUDA], acc_events=True) as prof:
    for g in GRIDS:
        assert lib.launch_empty(g, THREADS, TIMES) == 0
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "trace.json")
    prof.export_chrome_trace(path)
    events = json.load(open(path))["traceEvents"]
kernels = sorted((e for e in events if e.get("cat") == "kernel" and "empty_kernel" in e.get("name", "")), key=lambda e: e["ts"])
if len(kernels) != len(GRIDS) * TIMES:
    sys.exit(f"launch_overhead: expected {len(GRIDS) * TIMES} kernel records, CUPTI gave {len(kernels)}")
gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()
figures = []
for i, g in enumerate(GRIDS):
    durs = [1000.0 * e["dur"] for e in kernels[i * TIMES:(i + 1) * TIMES]]  # chrome trace: microseconds
    ns = statistics.median(durs)
    figures.append({"name": f"launch.empty_kernel_cupti_cycles_{g}_blocks", "value": round(ns * clock_mhz / 1000.0), "unit": "cycles",
                    "ns": round(ns, 1), "min_ns": round(min(durs), 1), "max_ns": round(max(durs), 1),
                    "method": f"CUPTI kernel duration (PyTorch profiler) of an empty kernel of {g} blocks of {THREADS} threads, "
                              f"median of {TIMES} back-to-back launches, at the cost model's {clock_mhz:.0f} MHz"})
# Each block more adds about the same: a least-squares line through the medians.
xs, ys = GRIDS, [f["value"] for f in figures]
mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
figures.append({"name": "launch.dispatch_cycles_per_block", "value": round(slope, 3), "unit": "cycles",
                "method": "slope of a least-squares line through the medians above against their block counts"})
# A later wave's block: the SM's cycles between a block's end and the next
# block's start in its place (bench/launch_overhead/empty_kernels.cu,
# block_gaps: one block per SM spinning 20000 cycles, 8 waves), at two block sizes.
SPIN, WAVES = 20000, 8
for threads in (128, 512):
    gap = ctypes.c_double()
    assert lib.block_gaps(WAVES, threads, ctypes.c_longlong(SPIN), ctypes.byref(gap)) == 0
    figures.append({"name": f"launch.block_turnaround_cycles_{threads}_threads", "value": round(gap.value), "unit": "cycles",
                    "method": f"{WAVES} waves of one block of {threads} threads per SM (150 KB of shared memory each), each spinning "
                              f"{SPIN} cycles; median over every SM of the next block's first %clock64 less the last of the block before"})
doc = {"gpu": gpu, "torch": torch.__version__, "date": datetime.date.today().isoformat(), "figures": figures}
json.dump(doc, open(out_path, "w"), indent=1)
for f in figures:
    if "ns" in f:
        print(f"{f['name']:48} {f['value']:6} cycles  {f['ns']:8.1f} ns (min {f['min_ns']}, max {f['max_ns']})")
    else:
        print(f"{f['name']:48} {f['value']:6} cycles")
