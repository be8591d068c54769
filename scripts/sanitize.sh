#!/usr/bin/env bash
# The test suite under sanitizers, each in its own build folder:
#   asan  the whole CTest suite built with AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/)
#   tsan  the worker-thread tests (the controller, the window and its faults, the experiment
#         panel, the language switch, autorun) built with ThreadSanitizer (build-tsan/); any
#         report that is not suppressed fails the test
# Usage: scripts/sanitize.sh [asan|tsan|tsan-build|tsan-test|all]   (default: all; tsan is
#        tsan-build then tsan-test, which scripts/test.sh runs apart to fuzz beside the tests)
# Only AccumLab's code is instrumented; LibTorch and Qt are Debian's builds. What is suppressed
# inside them, and why, is written beside each entry in tests/sanitizers/.
set -euo pipefail
cd "$(dirname "$0")/.."
which=${1:-all}
jobs=$(nproc 2>/dev/null || echo 2)
supp=$PWD/tests/sanitizers
# -O1 keeps the instrumented code fast enough; -g1 (line tables) is all a report's stack needs.
flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1")
# Every test whose window or panel starts the engine's worker thread.
tsan_tests=(tst_handover tst_enginecontroller tst_mainwindow tst_mainwindow_faults tst_experimentpanel tst_language tst_autorun)
log() { echo "[sanitize $(date +%H:%M:%S)] $*"; }
source scripts/lib/build-env.sh

if [[ $which == asan || $which == all ]]; then
  log "AddressSanitizer + UndefinedBehaviorSanitizer: build"
  mapfile -t env_args < <(build_env_cmake_args build-asan)
  cmake -S . -B build-asan "${flags[@]}" "${env_args[@]}" -DACCUMLAB_SANITIZE=address,undefined >/dev/null
  cmake --build build-asan -j"$jobs"
  log "AddressSanitizer + UndefinedBehaviorSanitizer: the whole suite"
  ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_init_order=1:detect_stack_use_after_return=0" \
  LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0" \
  UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$supp/ubsan.supp" \
    ctest --test-dir build-asan --output-on-failure --timeout 900 -j"$jobs"
fi

if [[ $which == tsan || $which == tsan-build || $which == all ]]; then
  log "ThreadSanitizer: build (${tsan_tests[*]})"
  mapfile -t env_args < <(build_env_cmake_args build-tsan)
  cmake -S . -B build-tsan "${flags[@]}" "${env_args[@]}" -DACCUMLAB_SANITIZE=thread >/dev/null
  cmake --build build-tsan -j"$jobs" --target accumlab-cli accumlab "${tsan_tests[@]}"
fi
if [[ $which == tsan || $which == tsan-test || $which == all ]]; then
  # One test at a time: each runs the window's thread beside the engine's, under TSan's
  # slowdown (scripts/test.sh fuzzes on the other core meanwhile).
  log "ThreadSanitizer: the worker-thread tests"
  regex="^($(IFS='|'; echo "${tsan_tests[*]}"))\$"
  # halt_on_error=0 + exitcode=66: every report is printed, then the process exits 66, which
  # fails its test (the accumlab and accumlab-cli processes the tests start inherit this too).
  # ignore_noninstrumented_modules=1: memcpy, free and the like called from inside Qt, GLib and
  # LibTorch, which are not instrumented, are not counted as accesses; their own loads and
  # stores are invisible anyway, so without it a buffer Qt frees or copies after an atomic
  # reference count (QString, QList) or a tensor LibTorch's threads fill is reported as racing.
  # Their locks and thread starts and joins are still tracked. history_size=7: the longest
  # access history, so both stacks of a report (and of a suppressed one) can be restored.
  TSAN_OPTIONS="suppressions=$supp/tsan.supp:halt_on_error=0:exitcode=66:second_deadlock_stack=1:ignore_noninstrumented_modules=1:history_size=7:print_suppressions=0" \
    ctest --test-dir build-tsan --output-on-failure --timeout 900 -R "$regex"
fi
log "done"
