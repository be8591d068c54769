#!/usr/bin/env bash
# The wide model against the BLAS it runs on: for each build (Debian's LibTorch 1.13 with
# OpenBLAS in build/, the wheel's LibTorch 2.x with oneMKL in build-torch2/ where built) and
# one and two threads, the wide preset's sweep point at micro-batch 64 and 256 (accum 4, float32)
# and, in the same run, that LibTorch's matmul peak (scripts/bench/roofline.py on the Python
# whose torch shares the build's BLAS: Debian's python3-torch, the wheel). Prints the tables;
# a measurement, not a test.
# Usage: scripts/bench/wide-vs-peak.sh [num-steps (default 4)]
set -euo pipefail
cd "$(dirname "$0")/../.."
steps=${1:-4}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
builds=("build:/usr/bin/python3")
[[ -x build-torch2/app/cli/accumlab-cli && -x .venv-torch2/bin/python ]] && builds+=("build-torch2:.venv-torch2/bin/python")
for b in "${builds[@]}"; do
  dir=${b%%:*} python=${b#*:}
  for threads in 1 2; do
    curves=()
    for micro in 64 256; do
      "$dir/app/cli/accumlab-cli" --model wide --micro-batch "$micro" --accum-grid 4 --num-steps "$steps" \
        --warmup-steps 1 --repeats 3 --threads "$threads" --out-dir "$tmp/$dir-$threads-$micro" >/dev/null
      curves+=("$tmp/$dir-$threads-$micro/accum-curve.json")
    done
    echo "== $dir, $threads thread(s)"
    "$python" scripts/bench/roofline.py --device cpu --dtype float32 --size 2048 --iters 5 --threads "$threads" \
      "${curves[@]}" | sed "s|$tmp/||"
  done
done
