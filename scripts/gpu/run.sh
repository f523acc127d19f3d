#!/usr/bin/env bash
# On a machine with an NVIDIA GPU (H100/H200): builds the GPU targets, runs the
# GPU tests, the demo GEMM benchmark, every lesson's solution and the Hopper
# kernels against torch (scripts/gpu/bench.py), and prints a short table. The
# output is meant to be committed (with the machine named) under results/.
#   scripts/gpu/run.sh [OUTPUT_FILE] [--no-bench]
# --no-bench leaves bench.py out (about half the time; the device tool allows
# 10 minutes a command): run it on its own, as `python3 scripts/gpu/bench.py FILE`.
# Needs nvcc, cmake and ninja; Catch2 and CLI11 come from .deps/ (scripts/gpu/fetch_deps.sh)
# when the machine has no package registry.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=/tmp/tklab-gpu-results.txt
bench=1
for arg in "$@"; do
  case "$arg" in
    --no-bench) bench=0 ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run.sh: unknown option $arg (see --help)" >&2; exit 2 ;;
    *) out=$arg ;;
  esac
done
log=$(mktemp)
prefix=()
if ls .deps/*.deb >/dev/null 2>&1; then
  mkdir -p .deps/root
  for f in .deps/*.deb; do dpkg -x "$f" .deps/root; done
  prefix=(-DCMAKE_PREFIX_PATH="$PWD/.deps/root/usr")
fi
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
echo "==> configuring and building the GPU targets (sm_90a) on: ${gpu:-unknown GPU}"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DTKLAB_CUDA=ON -DTKLAB_BUILD_SIM=OFF \
      -DTKLAB_CUDA_ARCHS=90a "${prefix[@]}" >"$log" 2>&1 || { cat "$log"; exit 1; }
cmake --build build-gpu -j "$(nproc)" >>"$log" 2>&1 || { tail -50 "$log"; exit 1; }

echo "==> GPU tests"
trace_dir=$(dirname "$out")
# Kept beside the results: the tests print what they measured (counters, samples).
./build-gpu/tests/tklab_gpu_tests 2>&1 | tee "$trace_dir/gpu_tests.txt" | tee -a "$log" | tail -3
tests_rc=${PIPESTATUS[0]}
tests_line=$(grep -E "All tests passed|test cases:" "$log" | tail -1)

echo "==> demo GEMM"
declare -A res
for n in 256 4096 8192; do
  # The float64 CPU reference is single-threaded: seconds at 256^3, minutes at
  # 4096^3 on some hosts (over 200 s on an H100 machine's CPU). The kernels'
  # correctness is the GPU tests' and the 256^3 check's job; big sizes are timed.
  check=(); [ "$n" -gt 256 ] && check=(--no-check)
  ./build-gpu/tklab_gpu run gemm --size "$n" --variant all "${check[@]}" >"$log.g$n" 2>&1
  res[$n]=$?
  cat "$log.g$n"
done
echo "==> every lesson's reference solution, checked on the GPU"
lessons_rc=0
lesson_lines=""
for l in $(./build-gpu/tklab_gpu list | awk '/^lessons:/{f=1;next} /^[a-z]/{f=0} f && /^  [a-z]/{print $1}'); do
  if ./build-gpu/tklab_gpu run "$l" --variant solution >"$log.$l" 2>&1; then verdict=passed; else verdict=FAILED; lessons_rc=1; fi
  cat "$log.$l"
  err=$(grep -o 'reference: [0-9.e+-]*' "$log.$l" | awk '{print $2}')
  lesson_lines+="$(printf '%-14s solution  %-8s max error %s' "$l" "$verdict" "${err:-?}")"$'\n'
done

echo "==> the profiler: CUPTI kernel records and intra-kernel regions of the demo GEMM, and what each costs"
./build-gpu/tklab_gpu run gemm --size 4096 --variant swizzled --no-check --profile timing,regions \
    --trace "$trace_dir/gemm_4096_gpu.cbor" >"$log.prof" 2>&1
prof_rc=$?
cat "$log.prof"
./build-gpu/tklab_gpu run gemm --size 4096 --variant swizzled --no-check --profile counters,stalls \
    --trace "$trace_dir/gemm_4096_counters_stalls.cbor" >"$log.hw" 2>&1
hw_rc=$?
cat "$log.hw"
echo "==> lesson 9's GPU traces: the solution's regions at the default size and at 4096 x 4096 x 512"
./build-gpu/tklab_gpu run lesson09 --variant solution --profile timing,regions --trace "$trace_dir/lesson09_h100.cbor" \
    >"$log.l9" 2>&1 || prof_rc=1
cat "$log.l9"
./build-gpu/tklab_gpu run lesson09 --variant solution --size M=4096,N=4096,K=512 --no-check --profile timing,regions \
    --trace "$trace_dir/lesson09_h100_4096.cbor" >"$log.l9b" 2>&1 || prof_rc=1
cat "$log.l9b"
echo "==> hardware counters of every kernel and lesson solution, for the fidelity report (scripts/fidelity.sh)"
fid_dir=$(mktemp -d)
scripts/gpu/fidelity_traces.sh "$fid_dir/fidelity" || hw_rc=1
tar -C "$fid_dir" -czf "$trace_dir/fidelity_traces.tgz" fidelity
./build-gpu/bench/cupti_overhead >"$log.cupti" 2>&1; cat "$log.cupti"
./build-gpu/bench/region_overhead >"$log.regions" 2>&1; cat "$log.regions"
scripts/gpu/region_cost.sh "$log.region_cost"; cat "$log.region_cost"  # markers compiled in, not recording

echo "==> the Hopper kernels against torch (cuBLAS, SDPA backends, torch.compile), in one run: scripts/gpu/bench.py"
bench_rc=0
if [ "$bench" -eq 1 ]; then
  python3 scripts/gpu/bench.py "$trace_dir/bench.txt" --build-dir build-gpu >"$log.bench" 2>&1
  bench_rc=$?
  cat "$log.bench"
else
  echo "  left out (--no-bench)"
fi

torch_line=$(python3 - <<'PY' 2>/dev/null
import torch
for n in (4096, 8192):
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16); b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    for _ in range(3): a @ b
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    for _ in range(20): a @ b
    e.record(); torch.cuda.synchronize()
    ms = s.elapsed_time(e) / 20
    print(f"torch.matmul (cuBLAS) bf16 {n}^3: {ms:.4f} ms, {2*n**3/ms/1e9:.1f} TFLOP/s")
PY
)

{
  echo "tklab GPU run — $(date -u +%Y-%m-%d) — ${gpu:-unknown GPU} — nvcc $(nvcc --version | grep -o 'release [0-9.]*')"
  echo
  echo "GPU tests: ${tests_line:-no summary} (exit $tests_rc)"
  echo
  printf "%-8s %-11s %-10s %-12s %-10s\n" size variant check ms TFLOP/s
  for n in 256 4096 8192; do
    for v in unswizzled swizzled; do
      blk=$(sed -n "/== $v ==/,/==/p" "$log.g$n")
      err=$(echo "$blk" | grep -o 'reference: [0-9.e+-]*' | awk '{print $2}')
      ms=$(echo "$blk" | grep -o '[0-9.]* ms per run' | awk '{print $1}')
      tf=$(echo "$blk" | grep -o '[0-9.]* TFLOP/s' | awk '{print $1}')
      printf "%-8s %-11s %-10s %-12s %-10s\n" "$n" "$v" "${err:-skipped}" "${ms:-?}" "${tf:-?}"
    done
  done
  echo
  echo "${torch_line:-torch not available}"
  echo
  echo "Lessons (reference solutions, default size):"
  printf "%s" "${lesson_lines:-none}"
  echo
  echo "Profiler (demo GEMM 4096^3 swizzled, --profile timing,regions; exit $prof_rc):"
  grep -E "regions +[0-9]+ recorded|GPU kernels|gemm_kernel" "$log.prof" | head -3
  grep -E "without|with |overhead|set-up|target" "$log.cupti" | sed 's/^/  CUPTI:   /'
  grep -E "without|with |overhead|target" "$log.regions" | sed 's/^/  regions: /'
  echo "  markers not recording against compiled out (scripts/gpu/region_cost.sh):"
  grep -v '^#' "$log.region_cost" 2>/dev/null | sed 's/^/    /'
  echo
  echo "Hardware counters and stall sampling (demo GEMM 4096^3 swizzled, --profile counters,stalls; exit $hw_rc):"
  sed -n '/^Hardware counters/,/^$/p;/^Stall sampling/,/^$/p' "$log.hw" | head -30
  echo
  echo "Lesson 9's H100 traces (the solution's regions):"
  sed -n '/^Regions/,/^$/p' "$log.l9" "$log.l9b"
  echo
  echo "The Hopper kernels against torch (scripts/gpu/bench.py; exit $bench_rc):"
  if [ "$bench" -eq 1 ]; then cat "$trace_dir/bench.txt" 2>/dev/null || echo "  no results"
  else echo "  left out here (--no-bench); bench.py was run on its own"; fi
} | tee "$out"
[ "$tests_rc" -eq 0 ] && [ "$lessons_rc" -eq 0 ] && [ "$bench_rc" -eq 0 ] && [ "$prof_rc" -eq 0 ] && [ "$hw_rc" -eq 0 ] && [ "${res[256]}" -eq 0 ] && [ "${res[4096]}" -eq 0 ] && [ "${res[8192]}" -eq 0 ]
