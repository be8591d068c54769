#!/usr/bin/env bash
# Configures and builds AccumLab (Release) into build/.
# Usage: scripts/build.sh [--all] [cmake arguments...]
#   without --all: the two programs and the libraries they need (what scripts/run.sh runs)
#   --all:         everything, the test executables included (scripts/test.sh)
# Ninja and ccache, as scripts/lib/build-env.sh sets them up.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=(--target accumlab-cli)
if [[ ${1:-} == --all ]]; then
  targets=()
  shift
fi
source scripts/lib/build-env.sh
mapfile -t env_args < <(build_env_cmake_args build)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${env_args[@]}" "$@"
if ((${#targets[@]})) && grep -q '^ACCUMLAB_BUILD_GUI:BOOL=ON' build/CMakeCache.txt; then
  targets+=(accumlab)
fi
cmake --build build -j"$(nproc 2>/dev/null || echo 2)" "${targets[@]}"
