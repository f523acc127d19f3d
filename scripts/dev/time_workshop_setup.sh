#!/usr/bin/env bash
# Times the workshop's first step as a student meets it: on a fresh Debian 12
# machine of ours (a debootstrap root with what such a machine comes with: g++,
# cmake, git), from a clone of this repository's HEAD to lesson 1's report,
# `scripts/setup.sh --workshop` doing the rest (packages, the build of
# `tklab`, lesson 1's run). Needs root, debootstrap and Debian's mirror.
# Writes the phases' times (seconds from the clone's start) to OUTPUT.
#   scripts/dev/time_workshop_setup.sh [OUTPUT]   (default results/workshop_setup.txt)
set -euo pipefail
cd "$(dirname "$0")/../.."
case "${1:-}" in -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
out=${1:-results/workshop_setup.txt}
[ "$(id -u)" -eq 0 ] || { echo "time_workshop_setup: needs root (debootstrap, chroot)" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "time_workshop_setup: needs debootstrap (apt-get install debootstrap)" >&2; exit 1; }
work=$(mktemp -d /var/tmp/tklab-workshop.XXXXXX)
root=$work/root
cleanup() { for m in src dev/pts dev proc; do umount "$root/$m" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
echo "==> a fresh Debian 12 root in $work (not timed)"
debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >"$work/debootstrap.log"
cp /etc/resolv.conf "$root/etc/"
mount -t proc proc "$root/proc"; mount --bind /dev "$root/dev"; mount -t devpts devpts "$root/dev/pts"
chroot "$root" bash -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq g++ cmake git make ca-certificates' \
  >"$work/base.log" 2>&1
chroot "$root" git config --global --add safe.directory '*'
mkdir -p "$root/src"; mount --bind "$PWD" "$root/src"
echo "==> timed: git clone, then scripts/setup.sh --workshop"
start=$(date +%s.%N)
stamp() { awk -v s="$start" -v n="$(date +%s.%N)" 'BEGIN { printf "%.0f", n - s }'; }
install_done="" build_done=""
while IFS= read -r line; do
  case "$line" in
    "==> configuring"*) install_done=$(stamp) ;;
    "==> lesson 1:"*) build_done=$(stamp) ;;
  esac
done < <(chroot "$root" bash -c 'cd /root && git clone -q /src tklab && cd tklab && scripts/setup.sh --workshop' 2>&1 | tee "$work/setup.log")
total=$(stamp)
grep -q "lesson1_exercise.cbor" "$work/setup.log" || { echo "time_workshop_setup: lesson 1 did not run; the log:" >&2; tail -30 "$work/setup.log" >&2; exit 1; }
{
  echo "# scripts/dev/time_workshop_setup.sh — $(date -u +%Y-%m-%d) — $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
  echo "# a fresh Debian 12 root with g++, cmake and git; seconds from the clone's start"
  echo "packages installed: $install_done s"
  echo "tklab built: $build_done s"
  echo "lesson 1's report: $total s"
} | tee "$out"
