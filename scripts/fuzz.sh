#!/usr/bin/env bash
# A long fuzzing run of one target (fuzz/README.md), on every core but one.
#   scripts/fuzz.sh TARGET [MINUTES]      TARGET: trace_loader or cli_parser; MINUTES: 10 by default
# Builds the fuzzers alone with clang (fuzz/project, into build-fuzz/), keeps
# the corpus it grows in build-fuzz/corpus/TARGET between runs, and leaves
# what it finds in build-fuzz/findings/TARGET/.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:-}
minutes=${2:-10}
case "$target" in
  trace_loader|cli_parser) ;;
  *) echo "usage: $0 TARGET [MINUTES]   (TARGET: trace_loader or cli_parser)" >&2; exit 2 ;;
esac
[[ "$minutes" =~ ^[0-9]+$ ]] || { echo "$0: MINUTES must be a whole number, not '$minutes'" >&2; exit 2; }
cxx=${TKLAB_FUZZ_CXX:-clang++}
command -v "$cxx" >/dev/null || { echo "$0: $cxx not found; apt install clang libclang-rt-dev" >&2; exit 1; }

build=build-fuzz
[ -f $build/CMakeCache.txt ] || cmake -S fuzz/project -B $build -G Ninja -DCMAKE_CXX_COMPILER="$cxx" >/dev/null
cmake --build $build --target "$target"

corpus=$build/corpus/$target findings=$build/findings/$target
mkdir -p "$corpus" "$findings"
dict=(); [ -f "fuzz/$target.dict" ] && dict=(-dict="fuzz/$target.dict")
jobs=$(( $(nproc) > 1 ? $(nproc) - 1 : 1 ))
echo "==> $target for $minutes min on $jobs core(s); corpus $corpus, findings $findings"
status=0
# -fork runs the jobs in child processes and goes on past a finding, so one
# run can find several; -ignore_crashes keeps them all in $findings.
"$build/$target" -fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
  -max_total_time=$((minutes * 60)) -timeout=10 -rss_limit_mb=2048 -print_funcs=0 "${dict[@]}" \
  -artifact_prefix="$findings/" "$corpus" "fuzz/corpus/$target" || status=$?
shopt -s nullglob
found=("$findings"/*)
if ((${#found[@]})); then
  echo "==> ${#found[@]} finding(s) in $findings:"
  printf '    %s\n' "${found[@]}"
  echo "    Reproduce one: $build/$target FILE. Fix the cause, then copy FILE to fuzz/regressions/$target/"
  echo "    (the test suite replays it from then on) and delete it here."
  exit 1
fi
echo "==> nothing found"
exit $status
