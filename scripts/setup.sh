#!/usr/bin/env bash
# Installs what is missing (Debian 12 / Ubuntu 24.04 or newer), builds tklab,
# and runs the flagship demo in the simulator.
#   scripts/setup.sh            GPU targets too when nvcc is found
#   TKLAB_CUDA=OFF scripts/setup.sh   simulator only
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake ninja-build catch2 nlohmann-json3-dev libboost-context-dev libcli11-dev
          # the fuzzers (fuzz/): clang and its libFuzzer and sanitizer runtimes
          clang libclang-rt-dev
          # the visualizer: Dear ImGui, GLFW, OpenGL (Mesa), stb for PNG, a font;
          # Xvfb for its headless screenshots and tests
          libimgui-dev libglfw3-dev libstb-dev libgl-dev libgl1-mesa-dri fonts-dejavu-core xvfb xauth)
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
