#!/usr/bin/env python3
"""Estimates the constant cache's miss (the cost model's constant.miss_cycles)
from the GPU's PC samples, where no calibration run has measured it.

A launch's first blocks on each SM wait for its parameters (sim/README.md,
"The constant cache"): Nsight's imc_miss, which the H100 samples at up to 25% of
warp time in one-wave launches. For each one-wave launch of a committed
timing report whose kernel has no tk::region markers (a marker reads a
__constant__ of its own, a second miss), this compares the GPU's imc_miss
share with the simulator's, run with a trial miss (TRACE_DIR from
constant_miss.sh): the miss that gives the GPU's share is about
trial x GPU share / simulator share. Prints each launch's and their median,
the estimate.

  scripts/fidelity/constant_miss.py REPORT TRACE_DIR TRIAL_CYCLES
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rescore import hardware, read_report, read_trace  # noqa: E402  (scripts/fidelity/rescore.py)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    report, traces, trial = sys.argv[1], sys.argv[2], float(sys.argv[3])
    regions = set()  # launches whose report has a region table: their kernels have markers
    cur = None
    for line in open(report):
        if line.startswith("== "):
            cur = tuple(line[3:].split(",")[0].split())
        elif cur and line.strip().startswith("region") and "simulator" in line:
            regions.add(cur)
    implied = []
    print(f"{'launch':30s} {'GPU':>6s} {'sim':>6s} {'implied':>8s}")
    for (name, variant, wave), c in read_report(report).items():
        path = os.path.join(traces, f"{name}__{variant}__{wave}.json")
        if wave != "one" or (name, variant) in regions or not os.path.exists(path):
            continue
        header, s, _ = read_trace(path)
        names, issue = header["stalls"], header["arch"].get("issue_cycles", 1)
        sim = {"selected": s["warp_instructions"] * issue / s["warp_cycles"]}
        for k, v in enumerate(s["stall_cycles"]):
            if k and v:
                sim[hardware(names[k])] = sim.get(hardware(names[k]), 0) + v / s["warp_cycles"]
        gpu = c["stalls"].get("imc_miss", 0) / sum(c["stalls"].values())
        share = sim.get("imc_miss", 0) / sum(sim.values())
        if share <= 0:
            continue
        implied.append(trial * gpu / share)
        print(f"{name + ' ' + variant:30s} {100 * gpu:5.1f}% {100 * share:5.1f}% {implied[-1]:8.0f}")
    if not implied:
        sys.exit("constant_miss: no one-wave launch without region markers had simulator traces with imc_miss")
    print(f"constant.miss_cycles: median {statistics.median(implied):.0f} cycles over {len(implied)} one-wave launches "
          f"(from {min(implied):.0f} to {max(implied):.0f}), with a trial miss of {trial:.0f}")


if __name__ == "__main__":
    main()
