#!/usr/bin/env bash
# The visualizer's figures on a one-million-event trace (the 1024^3 demo GEMM,
# every block's timeline): load time, and frame times with the timeline fully
# zoomed out, under Xvfb with Mesa's software renderer (what CI has).
# Targets: load <= 2 s, frame <= 16 ms.   bench/view_frame_time.sh [BUILD_DIR]
set -euo pipefail
bin=${1:-build}
trace=$bin/bench_1M.cbor
if [ ! -f "$trace" ]; then
  echo "making $trace (1024^3 GEMM, all blocks' timelines)..."
  "$bin/tklab" run gemm --size 1024 --variant unswizzled --timeline-blocks all --trace "$trace" >/dev/null
fi
view() { xvfb-run -a -s "-screen 0 1600x1000x24" "$bin/tklab_view" "$trace" --size 1600x1000 "$@" 2>&1 |
           grep -E "^loaded|wrote" | grep -v wrote || true; }
echo "== all panels, timeline zoomed out, cursor mid-run"
view --screenshot "$bin/bench_1M.png" --frames 30 --script "seek 6000"
echo "== timeline and transport only"
view --screenshot "$bin/bench_1M_timeline.png" --frames 30 --panels timeline,transport --script "seek 6000"
