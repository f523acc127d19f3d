#!/usr/bin/env python3
"""Nsight Compute's CSV (ncu --csv --print-units base) on stdin as one row per
launch: its ID, kernel name and each metric asked for, in the order given.
   ncu_table.py METRIC[,METRIC...] [LABEL]   (LABEL prefixes every row)"""
import csv
import sys

metrics = sys.argv[1].split(",")
label = sys.argv[2] if len(sys.argv) > 2 else ""
rows = {}
for r in csv.DictReader(line for line in sys.stdin if line.startswith('"')):
    launch = rows.setdefault(r["ID"], {"kernel": r["Kernel Name"]})
    launch[r["Metric Name"]] = r["Metric Value"].replace(",", "")
for launch_id, m in sorted(rows.items(), key=lambda kv: int(kv[0])):
    values = " ".join(m.get(k, "n/a") for k in metrics)
    kernel = m["kernel"].split("(")[0].replace("void ", "").replace(" ", "")[:40]
    print(f"{label}{launch_id} {kernel} {values}")
