#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, runs the whole test suite
# (Qt Test suites, the portable GoogleTest suite, the desktop files' validation), builds and
# runs a suite against LibTorch 2.x with CUDA from a pinned PyTorch wheel
# (scripts/torch2-check.sh) and the GPU check's dry run on the CPU (scripts/gpu-check.sh
# --dry-run), runs the whole suite again under AddressSanitizer +
# UndefinedBehaviorSanitizer and the worker-thread tests under ThreadSanitizer, with the fuzzer
# on the accum-curve reader beside those (ACCUMLAB_FUZZ_SECONDS, default 60), then the
# clean-room stage: the set-up, build, a quick suite, the main job and the .deb on fresh
# Debian 12 roots (scripts/cleanroom.sh; needs root).
# Every build goes through ccache (scripts/lib/build-env.sh): the LibTorch 2.x build and the
# clean room's recompile only what this run's Release build has not already compiled.
# Each stage prints its time; the run ends with the table of stages and the total, and past
# 60 minutes a warning that names the slowest stages (a guard, not a gate).
# The run needs about 20 GB of free disk at its peak; it says so before it starts when there is
# less, and under CI (CI=true, or ACCUMLAB_PRUNE_STAGES=1) it removes each finished stage's own
# build folder (the wheel's, the GPU dry run's, the sanitizers') once the stage has passed, so
# the peak stays near the largest stage rather than their sum.
# Quick local runs: ACCUMLAB_SKIP_TORCH2=1 leaves out LibTorch 2.x,
# ACCUMLAB_SKIP_SANITIZERS=1 both sanitizer stages, ACCUMLAB_SKIP_CLEANROOM=1 the clean room.
set -euo pipefail
cd "$(dirname "$0")/.."
warn_after=3600
start=$SECONDS
stage=$SECONDS
stages=()
timed() {
  local took=$((SECONDS - stage))
  echo "[test] $1: $took s"
  stages+=("$took"$'\t'"$1")
  stage=$SECONDS
}
summary() {
  local total=$((SECONDS - start))
  echo "[test] stage times (s):"
  printf '%s\n' "${stages[@]}" | awk -F'\t' '{ printf "[test]   %-14s %6d\n", $2, $1 }'
  echo "[test] total: $total s ($((total / 60)) min $((total % 60)) s)"
  if ((total > warn_after)); then
    echo "[test] WARNING: the run took over $((warn_after / 60)) minutes (CI stops a run at 90); the slowest stages:"
    printf '%s\n' "${stages[@]}" | sort -rn | head -3 | awk -F'\t' '{ printf "[test]   %s: %d s\n", $2, $1 }'
  fi
}
jobs=$(nproc 2>/dev/null || echo 2)
need_kb=$((20 * 1024 * 1024))
free_kb=$(df -Pk . | awk 'NR == 2 { print $4 }')
if [[ -n "$free_kb" ]] && ((free_kb < need_kb)); then
  echo "[test] WARNING: $((free_kb / 1024 / 1024)) GB free on this disk; a whole run needs about 20 GB at its peak" >&2
fi
prune=${ACCUMLAB_PRUNE_STAGES:-}
[[ -z "$prune" && "${CI:-}" == true ]] && prune=1
pruned() { # FOLDER...: a finished stage's build folders, removed under CI
  [[ "$prune" == 1 ]] || return 0
  rm -rf -- "$@"
}
torch2_pid= cleanroom_pid= fuzz_pid=
# A run that fails early still lets the background set-ups (below) finish: the clean room's
# holds mounts until it does.
finish_background() {
  local pid
  for pid in $torch2_pid $cleanroom_pid $fuzz_pid; do
    wait "$pid" 2>/dev/null || true
  done
}
trap 'finish_background; summary' EXIT

# What the test stages add to the build's packages: the wheel's virtual environment, the clean
# room's debootstrap (installed here, before two of them start in the background), and Debian's
# PyTorch, which runs the code panel's loop against the engine (tests/pytorch/check_loop_code.py).
ACCUMLAB_SETUP_EXTRA="python3-venv debootstrap python3-torch ${ACCUMLAB_SETUP_EXTRA:-}" scripts/setup.sh
timed "set-up"

# Two set-ups that wait on the network and the disk more than on the processor start in the
# background while the Release build compiles: the PyTorch wheel's download and install, and
# the clean room's Debian root with its packages. Their stages below wait for them; their logs
# are in build-ci/.
mkdir -p build-ci
background() { # NAME COMMAND...: sets bg_pid (a child of this shell, so `wait` can reap it)
  local name=$1
  shift
  "$@" >"build-ci/$name.log" 2>&1 &
  bg_pid=$!
}
wait_for() {
  local name=$1 pid=$2
  wait "$pid" || { echo "[test] $name failed (build-ci/$name.log):" >&2; tail -40 "build-ci/$name.log" >&2; exit 1; }
  cat "build-ci/$name.log"
}
if [[ "${ACCUMLAB_SKIP_TORCH2:-}" != 1 ]]; then
  background torch2-install scripts/torch2-check.sh --install-only
  torch2_pid=$bg_pid
fi
if [[ "${ACCUMLAB_SKIP_CLEANROOM:-}" != 1 ]]; then
  background cleanroom-prepare scripts/cleanroom.sh prepare
  cleanroom_pid=$bg_pid
fi

scripts/build.sh --all
timed "build"
ctest --test-dir build --output-on-failure --timeout 600 -j"$jobs"
timed "suite"
if [[ "${ACCUMLAB_SKIP_TORCH2:-}" != 1 ]]; then
  wait_for torch2-install "$torch2_pid"
  scripts/torch2-check.sh
  timed "LibTorch 2.x"
  # The GPU check's dry run: its Qt-free build of core, the CLI and the portable suite against
  # the wheel (the compiler cache holds the units the stage above compiled), then each of its
  # CUDA commands on the CPU with tiny sizes, so that a lent GPU's minutes are not spent on a
  # script that does not run.
  ACCUMLAB_DEPS=system PYTHON=.venv-torch2/bin/python scripts/gpu-check.sh --dry-run build-ci/gpu-dry-run
  timed "GPU dry run"
  pruned build-gpu build-torch2
fi
fuzz_seconds=${ACCUMLAB_FUZZ_SECONDS:-60}
if [[ "${ACCUMLAB_SKIP_SANITIZERS:-}" != 1 ]]; then
  scripts/sanitize.sh asan
  timed "ASan + UBSan"
  pruned build-asan
  scripts/sanitize.sh tsan-build
  timed "TSan build"
  # The ThreadSanitizer tests run one at a time, about one core's work: the fuzzer (one
  # process, one core) runs beside them instead of in a stage of its own.
  background fuzz scripts/fuzz.sh "$fuzz_seconds"
  fuzz_pid=$bg_pid
  scripts/sanitize.sh tsan-test
  wait_for fuzz "$fuzz_pid"
  fuzz_pid=
  timed "TSan + fuzz"
  pruned build-tsan
else
  scripts/fuzz.sh "$fuzz_seconds"
  timed "fuzz"
fi
if [[ "${ACCUMLAB_SKIP_CLEANROOM:-}" != 1 ]]; then
  wait_for cleanroom-prepare "$cleanroom_pid"
  scripts/cleanroom.sh finish
  timed "clean room"
fi
echo "[test] all stages passed in $((SECONDS - start)) s"
