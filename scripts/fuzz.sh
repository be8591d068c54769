#!/usr/bin/env bash
# Fuzzes the file readers the programs trust with what a user hands them, with libFuzzer +
# AddressSanitizer + UndefinedBehaviorSanitizer for a bounded time, each from its committed seed
# corpus:
#   fuzz_curve_json     the accum-curve.v1 reader (core/io/curve_io.cpp, the desktop app's importer;
#                       tests/fuzz/corpus: ours, the lesson's, broken ones)
#   fuzz_settings_json  the settings record's reader (core/io/settings_io.cpp, accumlab-cli
#                       --settings FILE; tests/fuzz/settings-corpus)
# The seconds are shared between them (the curve reader takes the larger half), so CI's fuzzing
# time stays what it was. Inputs that reach new code are kept in build-fuzz/corpus-TARGET; a crash
# or a broken invariant leaves its input in build-fuzz/artifacts/ and fails the script.
# Usage: scripts/fuzz.sh [seconds]   (default: 60)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
source scripts/lib/build-env.sh
mapfile -t env_args < <(build_env_cmake_args build-fuzz)
cmake -S tests/fuzz -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo "${env_args[@]}" >/dev/null
cmake --build build-fuzz -j"$(nproc 2>/dev/null || echo 2)"
mkdir -p build-fuzz/artifacts
# The corpus kept before both targets had one of their own.
if [[ -d build-fuzz/corpus && ! -d build-fuzz/corpus-curve ]]; then
  mv build-fuzz/corpus build-fuzz/corpus-curve
fi
status=0
# fuzz TARGET CORPUS-NAME SECONDS DICT SEEDS
fuzz() {
  local target=$1 name=$2 time=$3 dict=$4 seeds=$5 rc=0
  mkdir -p "build-fuzz/corpus-$name"
  "build-fuzz/$target" -max_total_time="$time" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -dict="$dict" -artifact_prefix="build-fuzz/artifacts/$name-" \
    "build-fuzz/corpus-$name" "$seeds" >"build-fuzz/fuzz-$name.log" 2>&1 || rc=$?
  # The log without the per-input progress lines: seeds, the final stats, any finding.
  echo "== $target ($time s)"
  grep -Ev '^(#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)|[[:space:]]+NEW_FUNC|")' "build-fuzz/fuzz-$name.log" || true
  if ((rc != 0)); then
    echo "fuzz: $target failed (exit $rc)" >&2
    status=1
  fi
  echo "fuzz: $target: corpus $(ls "build-fuzz/corpus-$name" | wc -l) kept + $(ls "$seeds" | wc -l) seed inputs"
}
settings_seconds=$((seconds / 2))
((settings_seconds >= 1)) || settings_seconds=1
curve_seconds=$((seconds - settings_seconds))
((curve_seconds >= 1)) || curve_seconds=1
fuzz fuzz_curve_json curve "$curve_seconds" tests/fuzz/curve.dict tests/fuzz/corpus
fuzz fuzz_settings_json settings "$settings_seconds" tests/fuzz/settings.dict tests/fuzz/settings-corpus
if ((status != 0)) || compgen -G "build-fuzz/artifacts/*" >/dev/null; then
  echo "fuzz: a fuzzer failed; inputs in build-fuzz/artifacts/:" >&2
  ls -l build-fuzz/artifacts/ >&2
  exit 1
fi
echo "fuzz: no finding in ${seconds}s"
