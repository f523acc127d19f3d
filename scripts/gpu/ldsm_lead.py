#!/usr/bin/env python3
"""How far ahead of its first reader ptxas issues each LDSM (ldmatrix).

Reads `cuobjdump -sass` output (files named on the command line, or stdin)
and, for every kernel that has both LDSM and HMMA, follows each LDSM's
destination registers to the first HMMA that reads them as its A or B
operand, in the listing's order, counting the HMMAs in between. ptxas
interleaves the loads with the mma that read them (LDSM, LDSM, 4 HMMA,
LDSM, 2 HMMA, ...) instead of issuing a tile's loads first; the simulator
issues them in the tile ops' order, and an mma that waits only for its own
operands needs this distance (sim/README.md, "Two compiler effects were
tried").

  scripts/gpu/ldsm_lead.py FILE.sass...      per kernel, then all together
"""
import re
import statistics
import sys
from collections import defaultdict

INSN = re.compile(r"/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)\s*([^;]*);")
FUNC = re.compile(r"Function\s*:\s*(\S+)")
REG = re.compile(r"\bR(\d+)\b")


def regs(operand, count):
    m = REG.search(operand)
    if not m or operand.strip().startswith("RZ"):
        return set()
    r = int(m.group(1))
    return set(range(r, r + count))


def ldsm_width(opcode):
    # LDSM.16.M88.4 / LDSM.16.MT88.4: four matrices, a register each; .2 two; none one.
    last = opcode.split(".")[-1]
    return int(last) if last in ("2", "4") else 1


def kernel_leads(insns):
    """For each LDSM with a reader: HMMAs between it and its first reader."""
    leads = []
    for i, (op, args) in enumerate(insns):
        if not op.startswith("LDSM"):
            continue
        dst = regs(args.split(",")[0], ldsm_width(op))
        if not dst:
            continue
        hmma = 0
        for op2, args2 in insns[i + 1:]:
            parts = [p.strip() for p in args2.split(",")]
            if op2.startswith("HMMA") and len(parts) >= 3:
                if dst & (regs(parts[1], 4) | regs(parts[2], 2)):
                    leads.append(hmma)
                    break
                hmma += 1
            if op2.startswith("LDSM") and dst & regs(parts[0], ldsm_width(op2)):
                break  # overwritten before any HMMA read it
            if op2 in ("EXIT", "BRA", "BAR.SYNC", "BAR.SYNC.DEFER_BLOCKING") or op2.startswith("BAR"):
                break  # the loop's end or a barrier: follow no further
    return leads


def main():
    text = "".join(open(f).read() for f in sys.argv[1:]) if len(sys.argv) > 1 else sys.stdin.read()
    kernels = defaultdict(list)
    name = None
    for line in text.splitlines():
        m = FUNC.search(line)
        if m:
            name = m.group(1)
            continue
        m = INSN.search(line)
        if m and name:
            kernels[name].append((m.group(1), m.group(2)))
    print(f"{'kernel':60s} {'LDSM':>5s} {'read':>5s} {'median':>6s} {'mean':>5s}  HMMAs between an LDSM and its first reader")
    every = []
    for name, insns in sorted(kernels.items()):
        if not any(op.startswith("HMMA") for op, _ in insns) or not any(op.startswith("LDSM") for op, _ in insns):
            continue
        leads = kernel_leads(insns)
        n_ldsm = sum(op.startswith("LDSM") for op, _ in insns)
        if not leads:
            continue
        every += leads
        short = name if len(name) <= 60 else name[:57] + "..."
        print(f"{short:60s} {n_ldsm:5d} {len(leads):5d} {statistics.median(leads):6.1f} {statistics.mean(leads):5.1f}")
    if every:
        hist = defaultdict(int)
        for x in every:
            hist[min(x, 16)] += 1
        print(f"all: {len(every)} LDSM with a reader, median {statistics.median(every):.1f}, mean {statistics.mean(every):.2f} HMMAs between")
        print("distribution (HMMAs between: LDSMs): " + ", ".join(f"{k}{'+' if k == 16 else ''}: {hist[k]}" for k in sorted(hist)))


if __name__ == "__main__":
    main()
