#!/usr/bin/env bash
# Remakes the README's pictures of the visualizer with its headless mode:
# the demo GEMM unswizzled and swizzled at the same ldmatrix, both side by
# side, and the registers, tile values and barriers of the swizzled one.
# Runs under Xvfb when there is no display.
#   visualizer/make_screenshots.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build}
out=visualizer/screenshots
mkdir -p "$out" "$bin/screenshots"
"$bin/tklab" run gemm --size 128 --variant unswizzled --all-lanes --trace "$bin/screenshots/unswizzled.cbor" >/dev/null
"$bin/tklab" run gemm --size 128 --variant swizzled --all-lanes --snapshots --trace "$bin/screenshots/swizzled.cbor" >/dev/null
shot() {
  local png=$1; shift
  local cmd=("$bin/tklab" view "$@" --size 1600x1000 --screenshot "$out/$png")
  if [ -n "${DISPLAY:-}" ]; then "${cmd[@]}"; else xvfb-run -a -f "$bin/.xauth" -s "-screen 0 1600x1000x24" "${cmd[@]}"; fi
}
# Both stopped at warp 1's first ldmatrix of A (line 63): 8-way, then conflict-free.
smem=(--panels transport,timeline,source,shared-memory --script "warp 1; break-line gemm_kernel.cuh:63; run")
shot unswizzled.png "$bin/screenshots/unswizzled.cbor" "${smem[@]}"
shot swizzled.png "$bin/screenshots/swizzled.cbor" "${smem[@]}"
shot compare.png "$bin/screenshots/unswizzled.cbor" "$bin/screenshots/swizzled.cbor" \
     --panels timeline,transport,compare,statistics --script "seek 3000"
shot registers_tiles.png "$bin/screenshots/swizzled.cbor" --panels transport,timeline,registers,tile,barriers \
     --script "warp 0; seek 2200; snapshot acc after the main loop"
ls -la "$out"
