#!/usr/bin/env bash
# The register estimate's straight run against ptxas (issue 24): compiles
# straight_run_probe.cu for sm_90a with `ptxas -v` and prints, for each probe
# kernel (a warp storing a tile of zeros: one tile op call, R x C / 64 global
# stores a lane, no tile registers), ptxas's registers beside the estimate
# the simulator gives it: the larger of the cost model's base and
# registers_run_base + registers_per_run_address x stores, at most full
# occupancy's registers a thread (sim/merge.cpp run_address_registers).
# Needs nvcc, no GPU.
#   scripts/registers/straight_run.sh [ARCH_JSON] > results/registers_straight_run_sm90a.txt
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
arch=${1:-$root/sim/arch/h200.json}
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [[ ! -x $nvcc ]]; then
  echo "error: nvcc not found (looked on PATH and at /usr/local/cuda/bin/nvcc); install the CUDA toolkit or set NVCC=/path/to/nvcc" >&2
  exit 2
fi
if [[ ! -f $arch ]]; then
  echo "error: no cost model at $arch; name one: $0 sim/arch/h200.json" >&2
  exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "compiling the probes with $nvcc (a minute)" >&2
"$nvcc" -I"$root" -O3 -DNDEBUG -arch=sm_90a -cubin --expt-relaxed-constexpr -std=c++20 -Xptxas=-v \
  "$root/scripts/registers/straight_run_probe.cu" -o "$work/probe.cubin" > "$work/ptxas.txt" 2>&1 ||
  { cat "$work/ptxas.txt" >&2; echo "error: nvcc could not compile the probes (its messages are above)" >&2; exit 1; }
version=$("$nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')
python3 - "$work/ptxas.txt" "$arch" "$version" <<'PY'
import json, re, subprocess, sys
report, arch_path, version = sys.argv[1:]
arch = json.load(open(arch_path))
base = arch["base_registers_per_thread"]
run_base, per = arch["registers_run_base"], arch["registers_per_run_address"]
full = arch["registers_per_sm"] // arch["max_threads_per_sm"]
rows, entry = [], None
for line in open(report):
    m = re.search(r"Compiling entry function '(\w+)' for 'sm_90a'", line)
    if m: entry = m.group(1)
    m = re.search(r"Used (\d+) registers", line)
    if m and entry:
        name = subprocess.run(["c++filt", entry], capture_output=True, text=True).stdout.strip()
        t = re.search(r"zero_store<(\w+)(?:::\w+)?[^,]*, (\d+), (\d+)>", name.replace("__nv_bfloat16", "bf16"))
        rows.append((t.group(1), int(t.group(2)), int(t.group(3)), int(m.group(1))))
        entry = None
print(f"# ptxas (nvcc {version}, sm_90a) against the register estimate for a straight run of global stores")
print(f"# probes: scripts/registers/straight_run_probe.cu (a warp stores an R x C tile of zeros: no tile registers)")
print(f"# estimate = max(base {base}, min({run_base} + {per} x stores, {full} = full occupancy)); cost model {arch_path.split('/')[-1]}")
print(f"{'output':8} {'tile':>6} {'stores':>7} {'ptxas':>6} {'estimate':>9} {'error':>7}")
for out, r, c, regs in sorted(rows, key=lambda x: (x[0], x[1] * x[2])):
    stores = r * c // 64  # a float pair (or bf16 pair) a lane a store
    est = max(base, min(round(run_base + per * stores), full))
    print(f"{out:8} {f'{r}x{c}':>6} {stores:>7} {regs:>6} {est:>9} {100 * (est - regs) / regs:>+6.0f}%")
PY
