#!/usr/bin/env bash
# The flagship experiment, sweep-flattening, run back to back (default ten times): prints each
# run's timing verdicts and a tally, so a reader sees whether the verdicts stay put on this
# machine. A report, never a pass/fail: it exits 0 whatever the verdicts are.
# Usage: scripts/bench/flagship-stability.sh [RUNS] [extra experiment options, e.g. --threads 1]
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-10}
shift || true
scripts/setup.sh >/dev/null
scripts/build.sh >/dev/null
cli=build/app/cli/accumlab-cli
declare -A tally
for i in $(seq 1 "$runs"); do
    json=$("$cli" experiment sweep-flattening --json "$@" || true)
    line=$(printf '%s' "$json" | /usr/bin/python3 -c '
import json, sys
r = json.load(sys.stdin)
print(" ".join("%s=%s" % (c["id"], c["outcome"].replace(" ", "-")) for c in r["claims"] if c["timing"]))')
    echo "run $i: $line"
    for kv in $line; do
        tally[$kv]=$(( ${tally[$kv]:-0} + 1 ))
    done
done
echo "over $runs runs:"
for kv in $(printf '%s\n' "${!tally[@]}" | sort); do
    echo "  $kv: ${tally[$kv]}"
done
