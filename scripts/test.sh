#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, runs the whole test suite
# (Qt Test suites, the portable GoogleTest suite, the desktop files' validation), builds and
# runs it again against LibTorch 2.x with CUDA from a pinned PyTorch wheel
# (scripts/torch2-check.sh), fuzzes the accum-curve reader for a bounded time
# (ACCUMLAB_FUZZ_SECONDS, default 60), runs the whole suite again under AddressSanitizer +
# UndefinedBehaviorSanitizer and the worker-thread tests under ThreadSanitizer, then the
# clean-room stage: the set-up, build, a quick suite, the main job and the .deb on fresh
# Debian 12 roots (scripts/cleanroom.sh; needs root).
# Each stage prints its time. Quick local runs: ACCUMLAB_SKIP_TORCH2=1 leaves out LibTorch 2.x,
# ACCUMLAB_SKIP_SANITIZERS=1 both sanitizer stages, ACCUMLAB_SKIP_CLEANROOM=1 the clean room.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
stage=$SECONDS
timed() {
  echo "[test] $1: $((SECONDS - stage)) s"
  stage=$SECONDS
}
scripts/setup.sh
timed "set-up"
scripts/build.sh
timed "build"
ctest --test-dir build --output-on-failure --timeout 600 -j"$(nproc 2>/dev/null || echo 2)"
timed "suite"
if [[ "${ACCUMLAB_SKIP_TORCH2:-}" != 1 ]]; then
  scripts/torch2-check.sh
  timed "LibTorch 2.x"
fi
scripts/fuzz.sh "${ACCUMLAB_FUZZ_SECONDS:-60}"
timed "fuzz"
if [[ "${ACCUMLAB_SKIP_SANITIZERS:-}" != 1 ]]; then
  scripts/sanitize.sh asan
  timed "ASan + UBSan"
  scripts/sanitize.sh tsan
  timed "TSan"
fi
if [[ "${ACCUMLAB_SKIP_CLEANROOM:-}" != 1 ]]; then
  scripts/cleanroom.sh
  timed "clean room"
fi
echo "[test] all stages passed in $((SECONDS - start)) s"
