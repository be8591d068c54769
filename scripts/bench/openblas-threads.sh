#!/usr/bin/env bash
# OpenBLAS's OpenMP build (what the apps load, top-level CMakeLists.txt) against the system's
# pthread build, on the same accumlab-cli binary: LD_LIBRARY_PATH puts the pthread build's
# folder ahead of the program's RUNPATH. Each round runs both (which goes first alternates from
# round to round) on the lesson's sweep and a hidden-512 model (micro-batch 16), at one and two
# threads; the table gives each build's median samples/sec and the median [min-max] of the
# per-round ratio OpenMP / pthread. Every run must name the build it was meant to load (the
# curve's environment.blas). A measurement, not a test.
# Usage: scripts/bench/openblas-threads.sh [rounds (default 4)]
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-4}
cli=build/app/cli/accumlab-cli
pthread_dir=/usr/lib/$(gcc -print-multiarch)/openblas-pthread
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() { # run BUILD THREADS NAME ARGS... -> one line: name threads build samples/sec per point
  local build=$1 threads=$2 name=$3
  shift 3
  local lib=""
  [[ $build == pthread ]] && lib=$pthread_dir
  rm -rf "$tmp/out"
  LD_LIBRARY_PATH=$lib "$cli" --labels random --threads "$threads" --out-dir "$tmp/out" "$@" >/dev/null
  /usr/bin/python3 - "$tmp/out/accum-curve.json" "$name" "$threads" "$build" <<'EOF'
import json, sys
curve = json.load(open(sys.argv[1]))
blas = curve["environment"]["blas"]
want = "(OpenMP threads)" if sys.argv[4] == "openmp" else "(its own pthreads)"
if want not in blas:
    sys.exit(f"the {sys.argv[4]} run loaded another BLAS: {blas}")
rates = " ".join(f"{p['effective_batch']}:{p['samples_per_sec']:.0f}" for p in curve["points"])
print(sys.argv[2], sys.argv[3], sys.argv[4], rates)
EOF
}
for ((r = 1; r <= rounds; r++)); do
  for threads in 1 2; do
    builds=(pthread openmp)
    ((r % 2)) || builds=(openmp pthread) # the order alternates from round to round
    for build in "${builds[@]}"; do
      run "$build" "$threads" lesson --accum-grid 1,4,16,64 --num-steps 400
      run "$build" "$threads" hidden-512 --hidden 512 --micro-batch 16 --accum-grid 1,4,16 --num-steps 100
    done
  done
  echo "round $r of $rounds done" >&2
done > "$tmp/runs.txt"
/usr/bin/python3 - "$tmp/runs.txt" <<'EOF'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    name, threads, build, *points = line.split()
    for p in points:
        eff, rate = p.split(":")
        runs.setdefault((name, int(threads), int(eff)), {}).setdefault(build, []).append(float(rate))
print("| model | threads | effective batch | pthread samples/sec | OpenMP samples/sec | OpenMP / pthread |")
print("|---|---|---|---|---|---|")
for (name, threads, eff), by in sorted(runs.items()):
    ratios = [o / p for p, o in zip(by["pthread"], by["openmp"])]
    print(f"| {name} | {threads} | {eff} | {statistics.median(by['pthread']):,.0f} | {statistics.median(by['openmp']):,.0f} | "
          f"{statistics.median(ratios):.2f} [{min(ratios):.2f}-{max(ratios):.2f}] |")
EOF
