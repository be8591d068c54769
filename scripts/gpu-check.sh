#!/usr/bin/env bash
# GPU check, on a machine with CUDA and a PyTorch wheel but no Qt: builds core + CLI against
# the wheel's libtorch, then runs the equivalence check on CUDA, a sweep on the wide preset and
# the out-of-memory demo, writing JSON to the output folder. Meant to finish in under 8 minutes.
# Usage: scripts/gpu-check.sh [output-folder]
#   ACCUMLAB_DEPS=folder   headers for nlohmann_json and CLI11 (made by scripts/gpu-deps.sh; default .gpu-deps)
#   PYTHON=python3         the Python whose torch supplies libtorch
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-outputs/gpu}
deps=${ACCUMLAB_DEPS:-.gpu-deps}
python=${PYTHON:-python3}
mkdir -p "$out"
log() { echo "[gpu-check $(date +%H:%M:%S)] $*"; }

prefix=$("$python" -c 'import torch; print(torch.utils.cmake_prefix_path)')
log "torch $("$python" -c 'import torch; print(torch.__version__, torch.version.cuda)') at $prefix"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/gpu.txt" || true

log "configure + build (core + CLI, no Qt)"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DACCUMLAB_BUILD_GUI=OFF \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_INCLUDE_PATH="$(realpath "$deps")/include" \
  -DACCUMLAB_GTEST_SOURCE_DIR="$(realpath "$deps")/googletest" >"$out/cmake.log" 2>&1 \
  || { tail -30 "$out/cmake.log"; exit 1; }
cmake --build build-gpu -j"$(nproc)" >"$out/build.log" 2>&1 || { grep -m20 -E "error" "$out/build.log"; exit 1; }
cli=build-gpu/app/cli/accumlab-cli

log "the portable suite (core + CLI; its CUDA tests run here)"
ctest --test-dir build-gpu --output-on-failure --timeout 300 -j4 | tee "$out/ctest.txt" | tail -15 ||
  log "the portable suite failed (see $out/ctest.txt)"

log "equivalence on CUDA (float32, bfloat16)"
"$cli" equivalence --device cuda >"$out/equivalence-f32.json" || log "float32 equivalence does not hold"
"$cli" equivalence --device cuda --dtype bfloat16 >"$out/equivalence-bf16.json" || log "bfloat16 equivalence does not hold"

log "sweep: wide preset on CUDA"
"$cli" --device cuda --model wide --micro-batch 64 --accum-grid 1,2,4,8,16,32 --num-steps 30 \
  --out-dir "$out/sweep-wide" | tee "$out/sweep-wide.txt"
log "sweep: lesson preset on CUDA"
"$cli" --device cuda --accum-grid 1,2,4,8,16 --num-steps 100 --out-dir "$out/sweep-lesson" | tail -7 | tee "$out/sweep-lesson.txt"

log "out-of-memory demo"
"$cli" oom-demo --model wide --micro-batch 256 --accum-steps 16 >"$out/oom-demo.json" || log "the OOM demo did not show the contrast"
cat "$out/oom-demo.json"
log "done"
