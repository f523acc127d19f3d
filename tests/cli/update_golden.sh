#!/usr/bin/env bash
# Rewrites the golden outputs of the command-line tests from the current
# build; review `git diff tests/cli/golden` before committing.
set -euo pipefail
cd "$(dirname "$0")/../.."
preset=${1:-default}
cmake --build --preset "$preset" --target tklab
TKLAB_UPDATE_GOLDEN=1 ctest --preset "$preset" -L cli
