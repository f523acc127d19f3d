#!/usr/bin/env bash
# Installs what is missing (Debian 12 / Ubuntu 24.04 or newer), builds tklab,
# and runs the flagship demo in the simulator.
#   scripts/setup.sh            GPU targets too when nvcc is found
#   TKLAB_CUDA=OFF scripts/setup.sh   simulator only
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake ninja-build catch2 nlohmann-json3-dev libboost-context-dev libcli11-dev)
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
bindir=build; [ "$preset" = sim-only ] && bindir=build-sim
echo "==> the flagship demo, in the simulator: tklab run gemm --variant unswizzled --trace $bindir/gemm.cbor"
"$bindir/tklab" run gemm --size 256 --variant unswizzled --trace "$bindir/gemm.cbor"
echo "==> next: $bindir/tklab run gemm --variant swizzled   (the fix), and $bindir/tklab --help"
