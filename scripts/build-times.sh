#!/usr/bin/env bash
# Where a build's time went, from Ninja's log: the processor-seconds of each kind of step and
# the slowest steps. Reads the last build in each folder (Ninja keeps one entry per output).
# Usage: scripts/build-times.sh [build folder] [how many steps]   (default: build 15)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
top=${2:-15}
log=$dir/.ninja_log
[[ -f $log ]] || { echo "build-times: no $log (a Ninja build; scripts/build.sh makes one)" >&2; exit 1; }
steps=$(mktemp)
trap 'rm -f "$steps"' EXIT
# Ninja lists each output of a step; a step with several (AUTOMOC's) counts once, by its command hash.
awk -F'\t' -v steps="$steps" 'NR > 1 && !seen[$5]++ {
  t = ($2 - $1) / 1000; f = $4
  kind = "link or archive"
  if (f ~ /\.gch$/) kind = "precompiled header"
  else if (f ~ /mocs_compilation\.cpp\.o$/) kind = "moc unit"
  else if (f ~ /\.o$/) kind = "unit"
  else if (f ~ /autogen/) kind = "moc (autogen)"
  sum[kind] += t; n[kind]++; total += t
  printf "%9.1f s  %s\n", t, f > steps
} END {
  for (k in sum) printf "%9.1f s  %4d  %s\n", sum[k], n[k], k | "sort -rn"
  close("sort -rn")
  printf "%9.1f s        all steps (processor time; divide by the jobs for the wall)\n", total
}' "$log"
echo "slowest $top steps:"
sort -rn "$steps" | head -"$top"
