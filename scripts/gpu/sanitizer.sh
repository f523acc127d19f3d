#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: runs every planted bug (tests/planted_bugs/)
# under each of compute-sanitizer's tools and prints which tool found which
# bug, beside the simulator's finders (tests/sim/test_bug_finders.cpp asserts
# that the simulator finds every one, at its lines). Bugs that deadlock never
# return on a GPU; they are listed, not run.
#   scripts/gpu/sanitizer.sh [OUTPUT_FILE]
set -uo pipefail
cd "$(dirname "$0")/../.."
# Under the tool a kernel runs many times slower: tk::launch's hung-kernel limit (tk/host/gpu_wait.h) goes up.
export TKLAB_GPU_TIMEOUT=${TKLAB_GPU_TIMEOUT:-600}
out=${1:-/dev/stdout}
prefix=()
if ls .deps/*.deb >/dev/null 2>&1; then
  mkdir -p .deps/root
  for f in .deps/*.deb; do dpkg -x "$f" .deps/root; done
  prefix=(-DCMAKE_PREFIX_PATH="$PWD/.deps/root/usr")
fi
log=$(mktemp)
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DTKLAB_CUDA=ON -DTKLAB_BUILD_SIM=OFF \
      -DTKLAB_CUDA_ARCHS=90a "${prefix[@]}" >"$log" 2>&1 || { cat "$log"; exit 1; }
cmake --build build-gpu --target planted_bugs_gpu >>"$log" 2>&1 || { tail -40 "$log"; exit 1; }
bin=./build-gpu/tests/planted_bugs_gpu
cs=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
{
  echo "planted bugs under compute-sanitizer ($("$cs" --version | grep -o 'Version [^ ]*' | head -1)) on ${gpu:-unknown GPU}"
  echo "found = the tool reported an error; - = it ran clean; hangs = waits forever on a GPU by construction (a deadlock), so not run there"
  printf "%-32s %-9s %-8s %-9s %-10s %-10s %-10s %s\n" bug kind tklab memcheck racecheck initcheck synccheck "plain run"
  "$bin" --list | while read -r name kind hangs _; do
    row=()
    if [ "$hangs" = hangs ]; then
      row=(hangs hangs hangs hangs hangs)
    else
      for tool in memcheck racecheck initcheck synccheck; do
        timeout 300 "$cs" --tool "$tool" --error-exitcode 9 "$bin" "$name" >"$log.$name.$tool" 2>&1
        rc=$?
        if [ $rc -eq 9 ] || grep -qE "ERROR SUMMARY: [1-9]|RACECHECK SUMMARY: [1-9]" "$log.$name.$tool"; then row+=(found)
        elif [ $rc -eq 124 ]; then row+=(timeout)
        else row+=(-); fi
      done
      plain=$("$bin" "$name" 2>&1 | tail -1 | sed "s/^$name: //")
      row+=("$plain")
    fi
    printf "%-32s %-9s %-8s %-9s %-10s %-10s %-10s %s\n" "$name" "$kind" found "${row[0]}" "${row[1]}" "${row[2]}" "${row[3]}" "${row[4]}"
  done
} | tee "$out"
