#!/usr/bin/env bash
# Run HERE (a machine with Debian's package registry), before scripts/gpu/run.sh
# is sent to a GPU machine that has none: downloads the Debian packages the GPU
# build needs into .deps/ (ignored by git), to be carried along.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .deps
(cd .deps && apt-get download catch2 libcli11-dev nlohmann-json3-dev >/dev/null)
ls -l .deps
