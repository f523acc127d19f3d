#!/usr/bin/env python3
"""The ratios between a program's variants in a timing fidelity report
(scripts/fidelity/timing.sh's output): for each program with more than one
variant, at one wave and at many, each variant's kernel time over the first
variant's (scripts/fidelity/timing_cases.txt's order), in the simulator and on
the GPU, and how far the simulator's ratio is from the GPU's. Ends with how
many are within 15% (issue 23's target).
  scripts/fidelity/ratios.py results/fidelity_timing_h200.txt"""
import os
import sys


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        sys.exit(__doc__)
    path = sys.argv[1]
    if not os.path.exists(path):
        sys.exit(f"ratios: no report {path} (scripts/fidelity/timing.sh writes one)")
    rows, order = {}, {}
    in_summary = False
    for line in open(path):
        if line.startswith("Summary"):
            in_summary = True
            continue
        w = line.split()
        if not in_summary or len(w) < 8 or w[0] not in ("one", "many") or w[4] != "us":
            continue
        tag, program, variant = w[0], w[1], w[2]
        rows[(tag, program, variant)] = (float(w[3]), float(w[5]))
        order.setdefault(program, [])
        if variant not in order[program]:
            order[program].append(variant)
    if not rows:
        sys.exit(f"ratios: {path} has no summary rows")
    print_ratios(rows, order)


def print_ratios(rows, order):
    """Prints each variant's ratio to its program's first, simulator beside GPU.
    rows: (tag, program, variant) -> (simulator time, GPU time); order: program ->
    its variants, first first. Returns (within 15%, ratios)."""
    within = total = 0
    print(f"{'':5} {'program':14} {'variant / first':28} {'simulator':>9} {'GPU':>7} {'off':>6}")
    for tag in ("one", "many"):
        for program, variants in order.items():
            first = variants[0]
            for v in variants[1:]:
                if (tag, program, v) not in rows or (tag, program, first) not in rows:
                    continue
                (sa, ga), (sb, gb) = rows[(tag, program, v)], rows[(tag, program, first)]
                sim, gpu = sa / sb, ga / gb
                off = sim / gpu - 1
                total += 1
                within += abs(off) <= 0.15
                print(f"{tag:5} {program:14} {v + ' / ' + first:28} {sim:9.2f} {gpu:7.2f} {off * 100:+5.0f}%")
    print(f"Variant ratios: {within} of {total} within 15% of the GPU's.")
    return within, total


if __name__ == "__main__":
    main()
