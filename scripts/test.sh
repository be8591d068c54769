#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, runs the whole test suite,
# fuzzes the accum-curve reader for a bounded time (ACCUMLAB_FUZZ_SECONDS, default 60), then
# runs the whole suite again under AddressSanitizer + UndefinedBehaviorSanitizer and the
# worker-thread tests under ThreadSanitizer (ACCUMLAB_SKIP_SANITIZERS=1 leaves both out of a
# quick local run).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
ctest --test-dir build --output-on-failure --timeout 600
scripts/fuzz.sh "${ACCUMLAB_FUZZ_SECONDS:-60}"
if [[ "${ACCUMLAB_SKIP_SANITIZERS:-}" != 1 ]]; then
  scripts/sanitize.sh asan
  scripts/sanitize.sh tsan
fi
