#!/usr/bin/env bash
# The README's run command: installs what is missing, builds, and runs the lesson's main job.
# Extra arguments go to the program (the lesson's flags: --no-write, --accum-grid, --num-steps,
# --micro-batch, --seed, --lr, ...; --help lists them). The set-up and the build report their
# progress on stderr, so stdout carries only the job's own output.
set -euo pipefail
cd "$(dirname "$0")/.."
{
  scripts/setup.sh
  if [[ ! -d build ]]; then
    echo "run: building AccumLab for the first time (about 5 minutes on 2 cores); later runs rebuild only what changed"
  fi
  scripts/build.sh
} 1>&2
if [[ -x build/app/gui/accumlab ]]; then
  exec build/app/gui/accumlab "$@"   # opens the window; with no display it runs the lesson in the terminal
fi
exec build/app/cli/accumlab-cli "$@"
