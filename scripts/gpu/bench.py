#!/usr/bin/env python3
"""tklab's kernels against what a user would otherwise call, in one run, on one GPU.

    python3 scripts/gpu/bench.py OUTPUT_FILE [--build-dir build-gpu] [--only gemm,attention,...]
    python3 scripts/gpu/bench.py --self-test        # the output parsing, on captured text; no GPU needed

Run on the GPU machine after scripts/gpu/run.sh has built build-gpu/ (if
build-gpu/tklab_gpu is missing, this builds it the same way). It needs PyTorch
with CUDA. It prints a table and writes it, with the GPU's name and driver at
the top, to OUTPUT_FILE (to commit under results/).

Parts (--only picks some; the copy runs whenever layernorm or rotary does):
  copy       torch dst.copy_(src) of 2 GiB: the device's memory bandwidth, GB/s = 2 * bytes / time
  gemm       tklab gemm_hopper (M, N, K) vs torch.matmul bf16 (cuBLAS) at 4096^3 and 8192^3; target >= 95%
  attention  tklab attention (variants noncausal, causal; B, H, N, D) vs
             torch scaled_dot_product_attention with each backend forced (flash, cuDNN, memory-efficient)
             at B=16, H=16, N in (1024, 2048, 4096), D in (64, 128); FLOPs = 4 B H N^2 D (halved when causal);
             targets: faster than flash, >= 90% of cuDNN
  layernorm  tklab layernorm (fused residual add + layernorm) vs torch eager and torch.compile;
             target >= 90% of the copy bandwidth
  rotary     tklab rotary (rotate half) vs torch eager and torch.compile; target >= 90% of the copy bandwidth

tklab times are what `tklab_gpu run NAME --size ... --no-check` prints ("... ms per run", the
program's own timing loop: back-to-back launches between CUDA events). torch times come from
CUDA events around back-to-back calls after warm-ups: at least 20 calls and 100 ms. A rate on
a reference row counts the same work as the tklab row (FLOPs, or the bytes the fused operation
must move), so rates compare as inverse times. A program tklab_gpu does not list prints
"not built" in its rows.
"""
import argparse
import datetime
import math
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PARTS = ("copy", "gemm", "attention", "layernorm", "rotary")

GEMM_SIZES = (4096, 8192)
ATTN_B, ATTN_H = 16, 16
ATTN_N = (1024, 2048, 4096)
ATTN_D = (64, 128)
LAYERNORM_SHAPES = ((262144, 1024), (131072, 2048))        # (rows, D): 2 GiB moved each
ROTARY_SHAPES = ((16, 32, 4096, 128), (16, 64, 4096, 64))  # (B, H, N, D): 1 GiB moved each
COPY_BYTES = 2 << 30
LAYERNORM_EPS = 1e-5
TKLAB_TIMEOUT_S = 900


# ---- tklab_gpu's output --------------------------------------------------------------------

def parse_list(text):
    """`tklab_gpu list` -> {name: [variants]} (kernels and lessons alike)."""
    programs, name = {}, None
    for line in text.splitlines():
        m = re.match(r"^  (\S+)\s", line)
        if m:
            name = m.group(1)
            programs[name] = []
            continue
        m = re.match(r"^\s+variants (\S+);", line)
        if m and name:
            programs[name] = m.group(1).split("|")
    return programs


def parse_run(text):
    """`tklab_gpu run ...` -> {variant: ms per run} for the variants that printed a GPU time."""
    times, variant = {}, None
    for line in text.splitlines():
        m = re.match(r"^== (\S+) ==\s*$", line)
        if m:
            variant = m.group(1)
            continue
        m = re.match(r"^\s+GPU time\s+([0-9.eE+-]+) ms per run", line)
        if m and variant:
            times[variant] = float(m.group(1))
    return times


def size_arg(dims):
    """{"M": 4096, ...} -> "M=4096,..." (tklab's --size NAME=VALUE form)."""
    return ",".join(f"{k}={v}" for k, v in dims.items())


class Tklab:
    """Runs tklab_gpu and reads its times; remembers which programs are built."""

    def __init__(self, binary):
        self.binary = binary
        out = subprocess.run([binary, "list"], capture_output=True, text=True, env=dict(os.environ, NO_COLOR="1"))
        if out.returncode != 0:
            raise SystemExit(f"bench: `{binary} list` failed (exit {out.returncode}):\n{out.stderr}")
        self.programs = parse_list(out.stdout)

    def time_ms(self, name, variant, dims):
        """(ms, None) or (None, why not)."""
        if name not in self.programs:
            return None, "not built"
        if variant not in self.programs[name]:
            return None, f"no variant {variant}"
        cmd = [self.binary, "run", name, "--variant", variant, "--size", size_arg(dims), "--no-check", "--color", "never"]
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=TKLAB_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return None, f"timed out after {TKLAB_TIMEOUT_S} s"
        ms = parse_run(out.stdout).get(variant)
        if out.returncode != 0 or ms is None:
            why = (out.stderr.strip().splitlines() or out.stdout.strip().splitlines() or ["no output"])[-1]
            log(f"  `{' '.join(cmd)}` exited {out.returncode}:\n" + indent(out.stdout + out.stderr))
            return None, ("failed: " if out.returncode != 0 else "no GPU time: ") + why[:60]
        return ms, None


# ---- the table -----------------------------------------------------------------------------

class Row:
    """One comparison: a tklab measurement beside one reference."""

    def __init__(self, kernel, shape, work, unit, tk_ms, tk_note, ref, ref_ms, ref_note, target=None, ref_rate=None):
        self.kernel, self.shape, self.work, self.unit = kernel, shape, work, unit
        self.tk_ms, self.tk_note, self.ref, self.ref_ms, self.ref_note = tk_ms, tk_note, ref, ref_ms, ref_note
        self.target = target      # (min ratio, strict) or None
        self.ref_rate_override = ref_rate  # the copy row: a rate that is not this work over a time

    def rate(self, ms):
        if ms is None or ms <= 0:
            return None
        scale = 1e12 if self.unit == "TFLOP/s" else 1e9
        return self.work / (ms * 1e-3) / scale

    @property
    def tk_rate(self):
        return self.rate(self.tk_ms)

    @property
    def ref_rate(self):
        return self.ref_rate_override if self.ref_rate_override is not None else self.rate(self.ref_ms)

    @property
    def ratio(self):
        a, b = self.tk_rate, self.ref_rate
        return a / b if a is not None and b else None

    def verdict(self):
        if self.target is None:
            return ""
        need, strict = self.target
        want = (">" if strict else ">=") + f" {need:.2f}"
        r = self.ratio
        if r is None:
            return want + " ?"
        return want + (" met" if (r > need if strict else r >= need) else " MISSED")

    def cells(self):
        def ms(v, note):
            return f"{v:.4f}" if v is not None else (note or "-")

        def rate(v):
            return f"{v:.1f} {self.unit}" if v is not None else "-"

        ref_ms = ms(self.ref_ms, self.ref_note) if self.ref_rate_override is None else "-"
        return [self.kernel, self.shape, ms(self.tk_ms, self.tk_note), rate(self.tk_rate), self.ref, ref_ms,
                rate(self.ref_rate), f"{self.ratio:.3f}" if self.ratio is not None else "-", self.verdict()]


HEADER = ["kernel", "shape", "tklab ms", "tklab rate", "reference", "ref ms", "ref rate", "tklab/ref", "target"]


def format_table(rows):
    cells = [HEADER] + [r.cells() for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(HEADER))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip() for line in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def indent(text):
    return "\n".join("    " + l for l in text.rstrip().splitlines())


# ---- torch (imported only on the GPU machine) ----------------------------------------------

def need_torch():
    try:
        import torch
    except Exception as e:  # ImportError, or a broken CUDA install
        raise SystemExit(f"bench: PyTorch is needed (run this on the GPU machine): import torch failed: {e}")
    if not torch.cuda.is_available():
        raise SystemExit("bench: PyTorch sees no CUDA GPU (torch.cuda.is_available() is False); run this on the GPU machine")
    return torch


def cuda_ms(torch, fn, min_iters=20, min_ms=100.0, warmup=3):
    """Mean time of fn() over back-to-back calls between CUDA events: at least min_iters calls and min_ms."""
    for _ in range(warmup):
        fn()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    def run(n):
        start.record()
        for _ in range(n):
            fn()
        stop.record()
        stop.synchronize()
        return start.elapsed_time(stop)

    once = max(run(3) / 3, 1e-4)
    iters = max(min_iters, math.ceil(min_ms / once))
    return run(iters) / iters


def try_ms(torch, fn):
    """(ms, None) or (None, why not): a backend that cannot run this shape says so in its row."""
    try:
        return cuda_ms(torch, fn), None
    except Exception as e:
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        log(f"  {type(e).__name__}: {str(e).strip()[:2000]}")
        return None, "unavailable: " + first[:50]


def free(torch):
    torch.cuda.synchronize()
    torch.cuda.empty_cache()  # the next tklab_gpu process needs the memory


def bench_copy(torch):
    src = torch.empty(COPY_BYTES, dtype=torch.uint8, device="cuda").random_(0, 255)
    dst = torch.empty_like(src)
    ms = cuda_ms(torch, lambda: dst.copy_(src))
    del src, dst
    free(torch)
    return 2 * COPY_BYTES / (ms * 1e-3) / 1e9, ms


def bench_gemm(torch, tk, rows):
    for n in GEMM_SIZES:
        flops = 2.0 * n * n * n
        tk_ms, tk_note = tk.time_ms("gemm_hopper", tk.programs.get("gemm_hopper", ["default"])[0], {"M": n, "N": n, "K": n})
        a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
        c = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
        ref_ms, ref_note = try_ms(torch, lambda: torch.matmul(a, b, out=c))
        rows.append(Row("gemm_hopper", f"M=N=K={n}", flops, "TFLOP/s", tk_ms, tk_note, "torch.matmul (cuBLAS)", ref_ms, ref_note,
                        target=(0.95, False)))
        print(format_table(rows[-1:]).splitlines()[-1], flush=True)
        del a, b, c
        free(torch)


def bench_attention(torch, tk, rows):
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    backends = [("sdpa flash", SDPBackend.FLASH_ATTENTION, (1.0, True)),
                ("sdpa cuDNN", SDPBackend.CUDNN_ATTENTION, (0.90, False)),
                ("sdpa mem-efficient", SDPBackend.EFFICIENT_ATTENTION, None)]
    for d in ATTN_D:
        for n in ATTN_N:
            for variant in ("noncausal", "causal"):
                causal = variant == "causal"
                flops = 4.0 * ATTN_B * ATTN_H * n * n * d / (2 if causal else 1)
                tk_ms, tk_note = tk.time_ms("attention", variant, {"B": ATTN_B, "H": ATTN_H, "N": n, "D": d})
                q, k, v = (torch.randn(ATTN_B, ATTN_H, n, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
                for name, backend, target in backends:
                    def call(backend=backend):
                        with sdpa_kernel(backend):
                            return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                    ref_ms, ref_note = try_ms(torch, call)
                    rows.append(Row(f"attention {variant}", f"B={ATTN_B} H={ATTN_H} N={n} D={d}", flops, "TFLOP/s", tk_ms, tk_note,
                                    name, ref_ms, ref_note, target=target))
                    print(format_table(rows[-1:]).splitlines()[-1], flush=True)
                del q, k, v
                free(torch)


def compiled_or_none(torch, fn):
    try:
        return torch.compile(fn, dynamic=False), None
    except Exception as e:
        return None, "torch.compile failed: " + str(e).splitlines()[0][:40]


def bench_layernorm(torch, tk, rows, copy_gbs):
    import torch.nn.functional as F

    def fused(x, res, w, b):
        r = x + res
        return r, F.layer_norm(r, (r.shape[-1],), w, b, LAYERNORM_EPS)

    compiled, compile_note = compiled_or_none(torch, fused)
    for n_rows, d in LAYERNORM_SHAPES:
        moved = 4.0 * 2 * n_rows * d + 2.0 * 2 * d
        shape = f"rows={n_rows} D={d}"
        tk_ms, tk_note = tk.time_ms("layernorm", "default", {"rows": n_rows, "D": d})
        x, res = (torch.rand(n_rows, d, device="cuda", dtype=torch.bfloat16) * 2 - 1 for _ in range(2))
        w, b = (torch.rand(d, device="cuda", dtype=torch.bfloat16) * 2 - 1 for _ in range(2))
        ref = [("torch eager", *try_ms(torch, lambda: fused(x, res, w, b)))]
        if compiled is not None:
            ref.append(("torch.compile", *try_ms(torch, lambda: compiled(x, res, w, b))))
        else:
            ref.append(("torch.compile", None, compile_note))
        for name, ms, note in ref:
            rows.append(Row("layernorm", shape, moved, "GB/s", tk_ms, tk_note, name, ms, note))
        rows.append(Row("layernorm", shape, moved, "GB/s", tk_ms, tk_note, "device copy bandwidth", None, None,
                        target=(0.90, False), ref_rate=copy_gbs))
        print("\n".join(format_table(rows[-3:]).splitlines()[2:]), flush=True)
        del x, res, w, b
        free(torch)


def bench_rotary(torch, tk, rows, copy_gbs):
    def rope(x, cos, sin):  # cos, sin: (N, D) fp32, each table repeated over both halves
        x1, x2 = x.chunk(2, dim=-1)
        return (x * cos + torch.cat((-x2, x1), dim=-1) * sin).to(x.dtype)

    compiled, compile_note = compiled_or_none(torch, rope)
    for b, h, n, d in ROTARY_SHAPES:
        moved = 2.0 * 2 * b * h * n * d + 2.0 * 4 * n * (d // 2)
        shape = f"B={b} H={h} N={n} D={d}"
        tk_ms, tk_note = tk.time_ms("rotary", "default", {"B": b, "H": h, "N": n, "D": d})
        x = torch.rand(b, h, n, d, device="cuda", dtype=torch.bfloat16) * 2 - 1
        inv = 10000.0 ** (-torch.arange(0, d, 2, device="cuda", dtype=torch.float64) / d)
        angles = torch.arange(n, device="cuda", dtype=torch.float64)[:, None] * inv[None, :]
        cos = torch.cat((angles.cos(), angles.cos()), dim=-1).float()
        sin = torch.cat((angles.sin(), angles.sin()), dim=-1).float()
        ref = [("torch eager", *try_ms(torch, lambda: rope(x, cos, sin)))]
        if compiled is not None:
            ref.append(("torch.compile", *try_ms(torch, lambda: compiled(x, cos, sin))))
        else:
            ref.append(("torch.compile", None, compile_note))
        for name, ms, note in ref:
            rows.append(Row("rotary", shape, moved, "GB/s", tk_ms, tk_note, name, ms, note))
        rows.append(Row("rotary", shape, moved, "GB/s", tk_ms, tk_note, "device copy bandwidth", None, None,
                        target=(0.90, False), ref_rate=copy_gbs))
        print("\n".join(format_table(rows[-3:]).splitlines()[2:]), flush=True)
        del x, cos, sin
        free(torch)


# ---- building and the machine --------------------------------------------------------------

def ensure_built(build_dir):
    binary = os.path.join(build_dir, "tklab_gpu")
    if os.path.exists(binary):
        return binary
    log(f"bench: {binary} is missing; building it (as scripts/gpu/run.sh does)")
    prefix = []
    deps = os.path.join(ROOT, ".deps")
    debs = [f for f in os.listdir(deps)] if os.path.isdir(deps) else []
    if any(f.endswith(".deb") for f in debs):
        root = os.path.join(deps, "root")
        os.makedirs(root, exist_ok=True)
        for f in debs:
            if f.endswith(".deb"):
                subprocess.run(["dpkg", "-x", os.path.join(deps, f), root], check=True)
        prefix = [f"-DCMAKE_PREFIX_PATH={root}/usr"]
    for cmd in (["cmake", "-S", ROOT, "-B", build_dir, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release", "-DTKLAB_CUDA=ON",
                 "-DTKLAB_BUILD_SIM=OFF", "-DTKLAB_CUDA_ARCHS=90a", *prefix],
                ["cmake", "--build", build_dir, "--target", "tklab_gpu", "-j", str(os.cpu_count() or 4)]):
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode != 0:
            raise SystemExit(f"bench: `{' '.join(cmd)}` failed:\n{(out.stdout + out.stderr)[-4000:]}")
    return binary


def machine_lines(torch):
    smi = shutil.which("nvidia-smi")
    gpu = "unknown (no nvidia-smi)"
    if smi:
        out = subprocess.run([smi, "--query-gpu=name,driver_version", "--format=csv,noheader"], capture_output=True, text=True)
        first = out.stdout.strip().splitlines()[:1]
        if first:
            name, _, driver = first[0].partition(",")
            gpu = f"{name.strip()}, driver {driver.strip()}"
    props = torch.cuda.get_device_properties(0)
    return [f"GPU: {gpu}",
            f"     {props.multi_processor_count} SMs, {props.total_memory / 2**30:.0f} GiB; "
            f"torch {torch.__version__}, CUDA {torch.version.cuda}, cuDNN {torch.backends.cudnn.version()}",
            f"date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}"]


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], epilog="See the top of this file for what each part measures.")
    ap.add_argument("output", nargs="?", help="file to write the table to")
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build-gpu"))
    ap.add_argument("--only", default=",".join(PARTS), help="comma-separated parts: " + ", ".join(PARTS))
    ap.add_argument("--self-test", action="store_true", help="check the output parsing on captured text and exit")
    a = ap.parse_args(argv)
    if a.self_test:
        return self_test()
    if not a.output:
        ap.error("give the OUTPUT_FILE to write the table to")
    parts = [p for p in a.only.split(",") if p]
    for p in parts:
        if p not in PARTS:
            ap.error(f"--only: no part '{p}'; the parts are " + ", ".join(PARTS))
    torch = need_torch()
    tk = Tklab(ensure_built(os.path.abspath(a.build_dir)))

    head = ["tklab benchmarks: tklab's kernels against the libraries a user would otherwise call, in one run"]
    head += machine_lines(torch)
    for line in head:
        print(line, flush=True)
    rows = []
    copy_gbs = None
    if {"copy", "layernorm", "rotary"} & set(parts):
        copy_gbs, copy_ms = bench_copy(torch)
        head.append(f"device memory bandwidth: {copy_gbs:.1f} GB/s (torch dst.copy_(src) of {COPY_BYTES >> 30} GiB: "
                    f"{copy_ms:.3f} ms; GB/s = 2 * bytes / time)")
        print(head[-1], flush=True)
    print(format_table([]), flush=True)
    if "gemm" in parts:
        bench_gemm(torch, tk, rows)
    if "attention" in parts:
        bench_attention(torch, tk, rows)
    if "layernorm" in parts:
        bench_layernorm(torch, tk, rows, copy_gbs)
    if "rotary" in parts:
        bench_rotary(torch, tk, rows, copy_gbs)

    targets = [r for r in rows if r.target is not None]
    met = sum(1 for r in targets if r.verdict().endswith(" met"))
    notes = ["",
             "Rates on a reference row count the tklab row's work (FLOPs; for layernorm and rotary the bytes the fused",
             "operation must move), so tklab/ref is the reference's time over tklab's. 'device copy bandwidth' rows",
             "compare with the copy above. tklab times: `tklab_gpu run NAME --size ... --no-check`.",
             f"targets met: {met} of {len(targets)}"]
    text = "\n".join(head + ["", format_table(rows)] + notes) + "\n"
    print("\n" + text, end="", flush=True)
    with open(a.output, "w") as f:
        f.write(text)
    log(f"bench: wrote {a.output}")
    return 0


# ---- the self-test: no GPU, no torch -------------------------------------------------------

LIST_SAMPLE = """kernels:
  gemm           bf16 GEMM, 64x64 block tiles, 4 warps, cp.async double buffering, ldmatrix + mma.sync
                 variants swizzled|unswizzled; sizes M=256 N=256 K=256 (multiples of 64)
  layernorm      fused residual add + layernorm, bf16, one warp per row in 16-byte pieces, fp32 statistics, persistent grid
                 variants default; sizes rows=256 D=1024 (multiples of 16)
  attention      attention forward
                 variants noncausal|causal; sizes B=1 H=2 N=128 D=64 (multiples of 1)
lessons:
  lesson01       Lesson 1, tiles and warps: OUT = X + the lane holding each element (R x 64, one 16x64 strip per warp)
                 variants exercise|solution; sizes R=256 C=64 (multiples of 16)
"""

RUN_SAMPLE = """tklab_gpu: some warning on stderr mixed in

== swizzled ==
  check       C max relative error vs float64 reference: 1.20e-03  ok
  GPU time    1.2345 ms per run, 111.3 TFLOP/s

== unswizzled ==
  GPU time    2.5e-01 ms per run, 549.8 TFLOP/s, 12.0 GB/s
"""


def self_test():
    progs = parse_list(LIST_SAMPLE)
    assert progs == {"gemm": ["swizzled", "unswizzled"], "layernorm": ["default"], "attention": ["noncausal", "causal"],
                     "lesson01": ["exercise", "solution"]}, progs
    times = parse_run(RUN_SAMPLE)
    assert times == {"swizzled": 1.2345, "unswizzled": 0.25}, times
    assert parse_run("== default ==\n  check  out ok\n") == {}
    assert size_arg({"M": 4096, "N": 8, "K": 16}) == "M=4096,N=8,K=16"
    # Rates, ratios and verdicts.
    r = Row("gemm_hopper", "M=N=K=4096", 2.0 * 4096 ** 3, "TFLOP/s", 0.2, None, "cuBLAS", 0.19, None, target=(0.95, False))
    assert abs(r.tk_rate - 2.0 * 4096 ** 3 / 0.2e-3 / 1e12) < 1e-9
    assert abs(r.ratio - 0.95) < 1e-12 and r.verdict() == ">= 0.95 met", (r.ratio, r.verdict())
    r = Row("attention causal", "s", 1e12, "TFLOP/s", 2.0, None, "sdpa flash", 2.0, None, target=(1.0, True))
    assert r.verdict() == "> 1.00 MISSED"
    r = Row("layernorm", "s", 3e9, "GB/s", 1.0, None, "device copy bandwidth", None, None, target=(0.9, False), ref_rate=3200.0)
    assert abs(r.tk_rate - 3000.0) < 1e-9 and r.verdict() == ">= 0.90 met" and r.cells()[5] == "-"
    missing = Row("attention noncausal", "s", 1e12, "TFLOP/s", None, "not built", "sdpa cuDNN", 1.0, None, target=(0.9, False))
    cells = missing.cells()
    assert cells[2] == "not built" and cells[3] == "-" and cells[7] == "-" and missing.verdict() == ">= 0.90 ?"
    table = format_table([missing, r])
    assert table.splitlines()[0].startswith("kernel") and "not built" in table and len(table.splitlines()) == 4
    # A fake tklab_gpu: the rows of a program it does not list say "not built" instead of failing.
    tk = Tklab.__new__(Tklab)
    tk.binary, tk.programs = "/nonexistent/tklab_gpu", progs
    assert tk.time_ms("gemm_hopper", "default", {"M": 1}) == (None, "not built")
    assert tk.time_ms("attention", "sliding", {"B": 1}) == (None, "no variant sliding")
    print("bench.py self-test: ok")
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
