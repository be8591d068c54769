#!/usr/bin/env bash
# Speed, side by side: accumlab-cli against an equivalent PyTorch script (Debian's python3-torch),
# alternating, same thread count. Prints figures and ratios; never fails on a timing.
# Arguments go to scripts/bench/compare_python.py (e.g. --rounds 5 --num-steps 400).
set -euo pipefail
cd "$(dirname "$0")/.."
ACCUMLAB_SETUP_EXTRA=python3-torch scripts/setup.sh
scripts/build.sh >/dev/null
exec /usr/bin/python3 scripts/bench/compare_python.py --cli build/app/cli/accumlab-cli "$@"
