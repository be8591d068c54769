#!/usr/bin/env bash
# The counting CPU allocator's cost: the lesson's default sweep run with the counter on and off,
# alternated (default six runs each), and per point the median samples/sec of each and their
# ratio. A report, never a pass/fail: it exits 0 whatever the figures are.
# Usage: scripts/bench/memory-counter-overhead.sh [RUNS] [extra sweep options, e.g. --threads 1]
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-6}
shift || true
scripts/setup.sh >/dev/null
scripts/build.sh >/dev/null
cli=build/app/cli/accumlab-cli
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for i in $(seq 1 "$runs"); do
    for counter in on off; do
        "$cli" --memory-counter "$counter" --out-dir "$tmp/$counter-$i" "$@" >/dev/null
    done
done
/usr/bin/python3 - "$tmp" "$runs" <<'PY'
import json, statistics, sys
tmp, runs = sys.argv[1], int(sys.argv[2])
def sps(counter):
    per = {}
    for i in range(1, runs + 1):
        with open(f"{tmp}/{counter}-{i}/accum-curve.json") as f:
            for p in json.load(f)["points"]:
                per.setdefault(p["accum_steps"], []).append(p["samples_per_sec_median"])
    return {k: statistics.median(v) for k, v in per.items()}
on, off = sps("on"), sps("off")
print(f"median samples/sec over {runs} runs each, counter on vs off")
print(f"{'accum':>6} {'on':>12} {'off':>12} {'on/off':>8}")
for k in sorted(on):
    print(f"{k:>6} {on[k]:>12.0f} {off[k]:>12.0f} {on[k] / off[k]:>8.3f}")
ratios = [on[k] / off[k] for k in on]
print(f"geometric mean on/off: {statistics.geometric_mean(ratios):.3f}")
PY
