#!/usr/bin/env bash
# The README's run command: installs what is missing, builds, and runs the lesson's main job.
# Extra arguments go to the program.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh >/dev/null
if [[ -x build/app/gui/accumlab ]]; then
  exec build/app/gui/accumlab "$@"   # opens the window; with no display it runs the lesson in the terminal
fi
exec build/app/cli/accumlab-cli "$@"
