#!/usr/bin/env python3
"""Re-scores the simulator against the GPU columns of a committed timing report.

When no GPU is lent to record new traces, scripts/fidelity/timing.sh cannot
run; the committed report (results/fidelity_timing_h200.txt) still holds
what the GPU measured for every launch: its kernel time, its stall reasons
(those of 1% or more) and its hot lines' top reasons. This compares a new
simulator run of the same launches (JSON traces, scripts/fidelity/rescore.sh)
against those, as timing.sh would: kernel-time error, the distance between
the stall distributions (half the sum of the differences, each scaled to
100%) and whether the top reason agrees on each hot line. Reasons under 1%
on both sides are missing from the report, so distances can differ from
timing.sh's by a point or so.

  scripts/fidelity/rescore.py REPORT TRACE_DIR    (TRACE_DIR/NAME__VARIANT__one|many.json)
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ratios import print_ratios  # noqa: E402  (scripts/fidelity/ratios.py)


def read_report(path):
    cases, cur = {}, None
    for line in open(path):
        m = re.match(r"== (\S+) (\S+), (one|many) wave", line)
        if m:
            cur = {"stalls": {}, "hot": [], "in_stalls": False}
            cases[m.groups()] = cur
            continue
        if cur is None:
            continue
        m = re.search(r"kernel time\s+simulator ([\d.]+) us\s+GPU ([\d.]+) us", line)
        if m:
            cur["gpu_us"] = float(m.group(2))
            continue
        if "stall reason" in line:
            cur["in_stalls"] = True
            continue
        if "the two distributions" in line or "hot lines" in line:
            cur["in_stalls"] = False
        m = re.match(r"\s{6}(\w+)\s+(not modelled|[\d.]+%)\s+([\d.]+)%\s*$", line)
        if m and cur["in_stalls"]:
            cur["stalls"][m.group(1)] = float(m.group(3)) / 100
            continue
        m = re.match(r"\s+([\d.]+)%\s+(\S+):(\d+)\s+GPU (\S+)\s+simulator", line)
        if m:
            cur["hot"].append((float(m.group(1)), m.group(2), int(m.group(3)), m.group(4)))
    return cases


def hardware(name):
    return "long_scoreboard" if name == "mbarrier" else name


def read_trace(path):
    t = json.load(open(path))
    header, records = t["header"], t["records"]
    summary = next(r for r in records if r["type"] == "summary")
    files = {int(r["id"]): r["path"] for r in records if r["type"] == "file"}
    locations = {}
    for r in records:
        if r["type"] == "locations":
            for i, (f, line) in enumerate(zip(r["file"], r["line"])):
                locations[int(r["first"]) + i] = (files.get(int(f), ""), line)
    return header, summary, locations


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    cases = read_report(sys.argv[1])
    errors, distances, agree, hot, missing = [], [], 0, 0, []
    times, order = {}, {}  # (wave, program, variant) -> (simulator us, GPU us); program -> variants, report order
    print(f"{'launch':34s} {'sim us':>8s} {'GPU us':>8s} {'error':>6s} {'apart':>6s}  hot lines agreeing")
    for (name, variant, wave), c in cases.items():
        path = os.path.join(sys.argv[2], f"{name}__{variant}__{wave}.json")
        if not os.path.exists(path) or "gpu_us" not in c:
            missing.append(f"{name} {variant} {wave}")
            continue
        header, s, locations = read_trace(path)
        arch, names = header["arch"], header["stalls"]
        sim_us = s["est_kernel_cycles"] / (s.get("clock_mhz") or arch["clock_mhz"])
        error = sim_us / c["gpu_us"] - 1
        errors.append(abs(error))
        times[(wave, name, variant)] = (sim_us, c["gpu_us"])
        if variant not in order.setdefault(name, []):
            order[name].append(variant)
        issue = arch.get("issue_cycles", 1)
        sim = {"selected": s["warp_instructions"] * issue / s["warp_cycles"]}
        for k, v in enumerate(s["stall_cycles"]):
            if k and v:
                sim[hardware(names[k])] = sim.get(hardware(names[k]), 0) + v / s["warp_cycles"]
        sim_sum, gpu_sum = sum(sim.values()), sum(c["stalls"].values())
        apart = sum(abs(sim.get(r, 0) / sim_sum - c["stalls"].get(r, 0) / gpu_sum) for r in set(sim) | set(c["stalls"])) / 2
        distances.append(apart)
        lines = {}
        for ls in s["line_stalls"]:
            if ls["loc"] not in locations:
                continue
            m = lines.setdefault(locations[ls["loc"]], {})
            if ls.get("instructions"):
                m["selected"] = m.get("selected", 0) + ls["instructions"] * issue
            for k, v in enumerate(ls["cycles"]):
                if k and v:
                    m[hardware(names[k])] = m.get(hardware(names[k]), 0) + v
        ok = 0
        for _, where, line, gpu_reason in c["hot"]:
            tail = where[3:] if where.startswith("...") else where  # the report shortens long paths
            found = [v for (f, l), v in lines.items() if l == line and f.endswith(tail) and v]
            ok += bool(found) and max(found[0].items(), key=lambda kv: kv[1])[0] == gpu_reason
        agree += ok
        hot += len(c["hot"])
        print(f"{name + ' ' + variant + ' ' + wave:34s} {sim_us:8.2f} {c['gpu_us']:8.2f} {error * 100:+5.0f}% {apart * 100:5.0f}%  {ok} of {len(c['hot'])}")
    within, total = print_ratios(times, order)
    if missing:
        print("not re-scored (no trace): " + ", ".join(missing))
    if errors:
        print(f"Kernel time: mean absolute error {100 * sum(errors) / len(errors):.1f}%, worst {100 * max(errors):.1f}%, over {len(errors)} launches; "
              f"stall distributions {100 * sum(distances) / len(distances):.1f}% apart on average; top reason agrees on {agree} of {hot} hot lines; "
              f"variant ratios within 15% of the GPU's: {within} of {total}")


if __name__ == "__main__":
    main()
