#!/usr/bin/env bash
# On a machine with the whole CUDA toolkit (cuobjdump; the GPU machine has it):
# disassembles the sm_90a cubins a TKLAB_CUDA=ON build compiles for its
# compiler figures (BUILD/compiler_figures/**/*.cubin, or a folder of copies)
# and measures how many HMMAs ptxas puts between each LDSM and the first HMMA
# that reads it (scripts/gpu/ldsm_lead.py).
#   scripts/gpu/ldsm_lead.sh [CUBIN_DIR] > results/ldsm_lead_sm90a.txt
set -euo pipefail
case "${1:-}" in -h|--help) sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;; esac
cd "$(dirname "$0")/../.."
dir=${1:-build/compiler_figures}
command -v cuobjdump >/dev/null || PATH=$PATH:/usr/local/cuda/bin
command -v cuobjdump >/dev/null || { echo "ldsm_lead: cuobjdump not found (the CUDA toolkit's bin/)" >&2; exit 1; }
mapfile -t cubins < <(find "$dir" -name '*.cubin' | sort)
((${#cubins[@]})) || { echo "ldsm_lead: no .cubin under $dir (build with nvcc: TKLAB_CUDA=ON)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# (each lesson's cubin is lesson.cu.cubin: name the listings by their whole path)
for f in "${cubins[@]}"; do cuobjdump -sass "$f" > "$tmp/$(echo "${f#"$dir"/}" | tr / _).sass"; done
echo "tklab LDSM lead — $(date +%F) — $(cuobjdump --version | tail -1) — ${#cubins[@]} cubins (sm_90a) from $dir"
report=$(find "$dir" -name '*.txt' | head -1)
[ -n "$report" ] && echo "compiled by: $(grep -m1 'compiler figures: nvcc' "$report" | sed 's/.*figures: //')"
python3 scripts/gpu/ldsm_lead.py "$tmp"/*.sass
