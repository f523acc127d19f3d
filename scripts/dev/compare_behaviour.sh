#!/usr/bin/env bash
# Shows that two builds of tklab behave the same (issue 22, "What must not
# change"): the same command lines run with both, their outputs and traces
# compared byte for byte after normalising only what differs between two
# runs of one binary; then bench/sim_speed of both, interleaved.
# The work is done by compare_behaviour.py beside this script (python3,
# standard library only); its comments list every case and normalisation.
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: scripts/dev/compare_behaviour.sh [OPTIONS] BEFORE_BUILD_DIR AFTER_BUILD_DIR [OUT_DIR]

Runs the same tklab command lines with BEFORE_BUILD_DIR/tklab and
AFTER_BUILD_DIR/tklab and compares what they print (stdout, stderr, exit
status) and every file they write (traces, Chrome exports, lesson progress),
case by case:

  - the CLI golden test cases of tests/CMakeLists.txt (tklab_cli_test), with
    their exact arguments, in file order (the viewer's only when both builds
    have tklab_view);
  - every command's --help;
  - every kernel and lesson program in `tklab list`, each variant at its
    default size (seed 7, JSON trace), then all variants at a small size
    (CBOR trace, --timeline-blocks all --all-lanes --snapshots --threads 2);
    `tklab report` and `tklab export --chrome` of every trace;
  - failures: each lesson exercise with --checks none|races|uninit|sync,
    bad option values;
  - `tklab lesson`: list, check, run (its trace reported) and hint of every
    lesson, solution and exercise, each part, another seed.

Outputs are normalised first, only where two runs of one binary differ
(wall-clock seconds in traces and messages, a JSON trace's size that moves
with them, the viewer's load time) or where the builds' folders differ
(absolute paths), then compared as bytes. One line per case, then
"compare: N same, M different".

Then times AFTER/bench/sim_speed against BEFORE/bench/sim_speed (sizes 256 512,
as CI runs it), interleaved before/after, and reports the medians and the
ratio; after must be within 5% of before.

OUT_DIR (default /tmp/compare-out) gets before/ and after/ (what each build
wrote; _captured/ holds each case's command, stdout, stderr and exit status)
and before.normalised/, after.normalised/ (what was compared:
`diff -r` them to see every difference).

Options:
  --no-bench            skip the sim_speed timing
  --bench-only          only the sim_speed timing
  --bench-reps N        sim_speed runs of each build (default 5)
  --bench-sizes "A B"   sim_speed's sizes (default "256 512")
  --only REGEX          only the cases whose name matches (e.g. '^cli/')
  --no-normalise        compare the raw bytes (shows why the normalisations
                        are needed: run with BEFORE = AFTER)
  --without N1,N3       leave out some normalisations (N1 wall_seconds in
                        traces, N2 seconds on stderr, N3 a JSON trace's size
                        on stderr, N4 the viewer's load_seconds, N5 absolute
                        paths, N5b joined report lines; see the .py)
  --mask-source-text    also mask the source files a trace embeds (their text
                        and hash), for a change that edits comments of kernel,
                        lesson or tk/ files; off by default
  --quiet               print only the DIFFERENT lines and the summaries
  --compare-only        run nothing: compare again what OUT_DIR holds from an
                        earlier run (after editing a file there, say)
  -h, --help            this text

Exit status: 0 all same (and sim_speed within 5%), 1 some case differs,
2 a usage error, 3 all same but sim_speed after is more than 5% slower.
USAGE
}

args=()
for a in "$@"; do
  case "$a" in
    -h|--help) usage; exit 0 ;;
    *) args+=("$a") ;;
  esac
done

# Positional arguments (options may come anywhere; --only, --bench-reps,
# --bench-sizes and --without take a value).
pos=()
skip=0
for a in "${args[@]+"${args[@]}"}"; do
  if (( skip )); then skip=0; continue; fi
  case "$a" in
    --only|--bench-reps|--bench-sizes|--without) skip=1 ;;
    --no-bench|--bench-only|--no-normalise|--mask-source-text|--quiet|--compare-only) ;;
    --*) echo "compare_behaviour.sh: unknown option $a (see --help)" >&2; exit 2 ;;
    *) pos+=("$a") ;;
  esac
done
if (( ${#pos[@]} < 2 || ${#pos[@]} > 3 )); then
  usage >&2
  exit 2
fi
bench=1
for a in "${args[@]}"; do [[ "$a" == --no-bench ]] && bench=0; done
for d in "${pos[0]}" "${pos[1]}"; do
  if [[ ! -d "$d" ]]; then
    echo "compare_behaviour.sh: $d is not a folder (a build folder holding tklab is wanted)" >&2
    exit 2
  fi
  if [[ ! -x "$d/tklab" ]]; then
    echo "compare_behaviour.sh: $d has no tklab binary ($d/tklab); build it first (cmake --build $d --target tklab)" >&2
    exit 2
  fi
  if (( bench )) && [[ ! -x "$d/bench/sim_speed" ]]; then
    echo "compare_behaviour.sh: $d has no bench/sim_speed; build it (cmake --build $d --target sim_speed) or pass --no-bench" >&2
    exit 2
  fi
done
command -v python3 >/dev/null || { echo "compare_behaviour.sh: python3 is needed" >&2; exit 2; }
exec python3 "$(dirname "${BASH_SOURCE[0]}")/compare_behaviour.py" "${args[@]}"
