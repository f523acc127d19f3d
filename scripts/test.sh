#!/usr/bin/env bash
# Runs the whole test suite (builds first if needed). GPU tests run when the
# GPU targets are built and a GPU is present; otherwise CTest lists them as skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=default
[ "${TKLAB_CUDA:-AUTO}" = "OFF" ] && preset=sim-only
[ -f "$( [ $preset = sim-only ] && echo build-sim || echo build)/CMakeCache.txt" ] || cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
ctest --preset "$preset" -j "$(nproc)" "$@"
