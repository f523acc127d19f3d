#!/usr/bin/env bash
# Installs what is missing (Debian 12 / Ubuntu 24.04 or newer), builds tklab,
# and runs the flagship demo in the simulator.
#   scripts/setup.sh                  GPU targets too when nvcc is found
#   TKLAB_CUDA=OFF scripts/setup.sh   simulator only
#   scripts/setup.sh --workshop       a student's laptop: installs what the lessons
#                                     need, builds `tklab` alone (simulator only) and
#                                     runs lesson 1 at once; `cmake --build build`
#                                     then builds the rest (the visualizer, the tests)
set -euo pipefail
cd "$(dirname "$0")/.."

workshop=0
for arg in "$@"; do
  case "$arg" in
    --workshop) workshop=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup.sh: unknown option '$arg' (see --help)" >&2; exit 2 ;;
  esac
done

packages=(build-essential cmake ninja-build catch2 nlohmann-json3-dev libboost-context-dev libcli11-dev
          # the visualizer: Dear ImGui, GLFW, OpenGL (Mesa), stb for PNG, a font
          libimgui-dev libglfw3-dev libstb-dev libgl-dev libgl1-mesa-dri fonts-dejavu-core)
# The fuzzers (fuzz/): clang and its libFuzzer and sanitizer runtimes; Xvfb for
# the visualizer's headless screenshots and tests. A workshop laptop needs none.
((workshop)) || packages+=(clang libclang-rt-dev xvfb xauth)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "==> installing: ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "error: need root or sudo to install ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi

preset=default
[ "${TKLAB_CUDA:-AUTO}" = "OFF" ] && preset=sim-only
if ((workshop)); then
  # The lessons run in the simulator: no CUDA, and `tklab` first (what
  # `tklab lesson run` rebuilds); the rest can build while lesson 1 is read.
  echo "==> configuring (preset sim-only)"
  cmake --preset sim-only >/dev/null
  echo "==> building tklab (a few minutes the first time)"
  cmake --build --preset sim-only --target tklab
  echo "==> lesson 1: build/tklab lesson run 1 --no-view"
  build/tklab lesson run 1 --no-view || true  # the exercise's holes make its check fail: that is the start
  echo "==> next: read lessons/01_tiles/README.md and edit lessons/01_tiles/exercise.cuh;"
  echo "    cmake --build build   builds the visualizer (and the tests) for \`build/tklab lesson run 1\` to open it"
  exit 0
fi
echo "==> configuring (preset $preset)"
cmake --preset "$preset" >/dev/null
echo "==> building (this takes a few minutes the first time; GPU targets add more)"
cmake --build --preset "$preset"
bindir=build  # one build folder whatever the CUDA setting: every doc says build/tklab
echo "==> the flagship demo, in the simulator: tklab run gemm --variant unswizzled --trace $bindir/gemm.cbor"
"$bindir/tklab" run gemm --size 256 --variant unswizzled --trace "$bindir/gemm.cbor"
if [ -x "$bindir/tklab_view" ]; then
  # The same trace in the visualizer, drawn off-screen: proof the window works here.
  view=("$bindir/tklab" view "$bindir/gemm.cbor" --screenshot "$bindir/gemm.png" --script "break-conflict 4; run")
  # xvfb-run with an auth file of ours (-f): its own temporary folder sometimes fails to go, exiting 5.
  if [ -n "${DISPLAY:-}" ]; then "${view[@]}"; else xvfb-run -a -f "$bindir/.xauth" -s "-screen 0 1600x1000x24" "${view[@]}"; fi
  echo "==> step through it yourself: $bindir/tklab view $bindir/gemm.cbor   (a picture of it: $bindir/gemm.png)"
fi
echo "==> next: $bindir/tklab run gemm --variant swizzled   (the fix), and $bindir/tklab --help"
