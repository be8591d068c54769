#!/usr/bin/env bash
# How the cost grows with micro-batch and model width (a table; never fails on a timing).
# Arguments go to scripts/bench/scale.py (e.g. --threads 2 --hidden 128,1024).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh >/dev/null
exec /usr/bin/python3 scripts/bench/scale.py --cli build/app/cli/accumlab-cli "$@"
