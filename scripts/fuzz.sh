#!/usr/bin/env bash
# Fuzzes the accum-curve.v1 reader (core/io/curve_io.cpp, what the desktop app's importer trusts)
# with libFuzzer + AddressSanitizer + UndefinedBehaviorSanitizer for a bounded time, starting
# from the committed seed corpus (tests/fuzz/corpus: ours, the lesson's, broken ones).
# Inputs that reach new code are kept in build-fuzz/corpus; a crash or a broken invariant leaves
# its input in build-fuzz/artifacts/ and fails the script.
# Usage: scripts/fuzz.sh [seconds]   (default: 60)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
source scripts/lib/build-env.sh
mapfile -t env_args < <(build_env_cmake_args build-fuzz)
cmake -S tests/fuzz -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo "${env_args[@]}" >/dev/null
cmake --build build-fuzz -j"$(nproc 2>/dev/null || echo 2)"
mkdir -p build-fuzz/corpus build-fuzz/artifacts
status=0
build-fuzz/fuzz_curve_json -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -dict=tests/fuzz/curve.dict -artifact_prefix=build-fuzz/artifacts/ \
  build-fuzz/corpus tests/fuzz/corpus >build-fuzz/fuzz.log 2>&1 || status=$?
# The log without the per-input progress lines: seeds, the final stats, any finding.
grep -Ev '^(#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)|[[:space:]]+NEW_FUNC|")' build-fuzz/fuzz.log || true
if ((status != 0)) || compgen -G "build-fuzz/artifacts/*" >/dev/null; then
  echo "fuzz: the fuzzer failed (exit $status); inputs in build-fuzz/artifacts/:" >&2
  ls -l build-fuzz/artifacts/ >&2
  exit 1
fi
echo "fuzz: no finding in ${seconds}s; corpus $(ls build-fuzz/corpus | wc -l) kept + $(ls tests/fuzz/corpus | wc -l) seed inputs"
