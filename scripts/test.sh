#!/usr/bin/env bash
# Runs the whole test suite (builds first if needed). GPU tests run when the
# GPU targets are built and a GPU is present; otherwise CTest lists them as skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=default
[ "${TKLAB_CUDA:-AUTO}" = "OFF" ] && preset=sim-only
# Both presets build into build/; configuring again applies this run's TKLAB_CUDA.
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
ctest --preset "$preset" -j "$(nproc)" "$@"
