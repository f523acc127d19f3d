#!/usr/bin/env bash
# Remakes the trace_loader fuzzer's seeds (fuzz/corpus/trace_loader) from
# small simulator runs and a committed GPU trace, shrunk by seed_shrink (no
# source texts, one block, one-row snapshots).
#   fuzz/make_seeds.sh TKLAB SEED_SHRINK
# e.g. fuzz/make_seeds.sh build/tklab build-fuzz/seed_shrink
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 TKLAB SEED_SHRINK (the tklab program and fuzz/project's seed_shrink)" >&2; exit 2; }
tklab=$(realpath "$1"); shrink=$(realpath "$2")
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/fuzz/corpus/trace_loader
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
# A lesson with a block timeline (events, shared memory, barriers, registers)
# and tile snapshots, a GEMM without timelines (its summary names conflict and
# barrier sites), and a GPU trace with hardware counters.
"$tklab" run lesson01 --variant solution --size R=16 --snapshots --trace lesson01.cbor >/dev/null 2>&1
"$tklab" run gemm --size 64 --timeline-blocks none --trace gemm_none.cbor >/dev/null 2>&1
rm -f "$out"/*
"$shrink" lesson01.cbor "$out/lesson01_snapshots.cbor" 1
"$shrink" gemm_none.cbor "$out/gemm_no_timeline.json"
"$shrink" "$root/tests/cli/data/lesson04_unpadded_h100_counters.cbor" "$out/gpu_counters.cbor"
ls -l "$out"
