#!/usr/bin/env python3
"""What the load/store unit's queue probe (bench/calibrate/lsu_queue.cu,
scripts/gpu/calibrate.sh --only lsu_queue) says about the SM's queue of global
loads and stores: the stores' cycles per 128-byte line at the unit, and the
queue depth in instructions whose model best fits the probe's issue times.
scripts/dev/arch_from_calibration.py writes them into the cost model
(lsu.st_cycles_per_line, lsu.queue_depth) with fit() below.
  scripts/dev/lsu_queue_fit.py results/calibration_lsu_queue_h200.json [LOAD_CYCLES_PER_LINE]
LOAD_CYCLES_PER_LINE is the unit's time a line for loads (the cost model's
lsu.cycles_per_line, 1.0)."""
import json
import sys

N = (1, 4, 8, 12, 16, 24, 32, 48, 64)
CONFIGS = {"1w": (1, 1), "2w_1smsp": (1, 2), "1w_per_smsp": (4, 1), "2w_per_smsp": (4, 2)}  # (sub-partitions, warps on each)
FIG = "lsu.{kind}_issue_cycles_{n}x32lines_{config}"


def issue_cycles(n, sps, warps, depth, unit, gap):
    """The model's issue time of n back-to-back 32-line global instructions
    per warp, `warps` warps on each of `sps` sub-partitions: each warp issues
    one every `gap` cycles, a sub-partition one a cycle; the SM's load/store
    unit takes them in turn, `unit` cycles each; while `depth` of them are not
    yet through it, no warp issues another."""
    ws = [(s, k) for s in range(sps) for k in range(warps)]
    ready = {w: 0 for w in ws}
    issued = {w: 0 for w in ws}
    through, done, free, cyc = [], {}, 0, 0
    while len(done) < len(ws):
        for s in range(sps):
            through = [t for t in through if t > cyc]
            cand = [w for w in ws if w[0] == s and issued[w] < n and ready[w] <= cyc]
            if cand and len(through) < depth:
                w = cand[cyc % len(cand)]
                free = max(cyc, free) + unit
                through.append(free)
                issued[w] += 1
                ready[w] = cyc + gap
                if issued[w] == n:
                    done[w] = cyc + 1
        cyc += 1
    return max(done.values())


def fit(figs, load_per_line=1.0):
    """The queue's figures from the probe's {name: value}: a dict of
    load_per_line and store_per_line (measured past the knee), gap (one warp's
    cycles between issues below it), depth and its fit's rms (cycles)."""
    f = lambda kind, n, c: figs[FIG.format(kind=kind, n=n, config=c)]
    # All 8 warps issuing, past the knee: the unit's steady time per instruction.
    store_per_line = (f("st", 64, "2w_per_smsp") - f("st", 48, "2w_per_smsp")) / 16 / 8 / 32
    load_measured = (f("ld", 64, "2w_per_smsp") - f("ld", 48, "2w_per_smsp")) / 16 / 8 / 32
    gap = (f("ld", 16, "1w") - f("ld", 1, "1w")) / 15  # one warp's cycles between issues, below the knee
    fits = []
    for depth in range(4, 49):
        err = 0
        for kind, unit in (("ld", 32 * load_per_line), ("st", 32 * store_per_line)):
            for c, (sps, warps) in CONFIGS.items():
                base = issue_cycles(1, sps, warps, depth, unit, gap)
                err += sum((issue_cycles(n, sps, warps, depth, unit, gap) - base - (f(kind, n, c) - f(kind, 1, c))) ** 2 for n in N)
        fits.append((err, depth))
    err, depth = min(fits)
    return {"load_per_line": load_measured, "store_per_line": store_per_line, "gap": gap, "depth": depth,
            "rms": (err / (2 * len(CONFIGS) * len(N))) ** 0.5}


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    figs = {f["name"]: f["value"] for f in json.load(open(sys.argv[1]))["figures"]}
    r = fit(figs, float(sys.argv[2]) if len(sys.argv) == 3 else 1.0)
    print(f"loads: {r['load_per_line']:.2f} cycles a line at the unit (8 warps issuing, past the knee)")
    print(f"stores: {r['store_per_line']:.2f} cycles a line at the unit (8 warps issuing, past the knee)")
    print(f"a warp issues a global instruction every {r['gap']:.1f} cycles below the knee")
    print(f"queue depth: {r['depth']} instructions, SM-wide (least squares over loads and stores, 4 configs x {len(N)} bursts; "
          f"rms {r['rms']:.0f} cycles)")


if __name__ == "__main__":
    main()
