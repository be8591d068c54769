#!/usr/bin/env bash
# GPU check, on a machine with CUDA and a PyTorch wheel but no Qt and no network: builds core +
# CLI + the portable suite against the wheel's LibTorch (configured as scripts/torch2-check.sh
# does, through scripts/lib/torch-wheel.sh), runs the portable suite (its CUDA tests run there),
# then the equivalence check on CUDA (float32, bfloat16), a sweep of the wide preset and of the
# lesson preset with peak_mem_bytes, the wide preset's step in bfloat16 at micro-batch 256 and
# 512 against the measured bfloat16 matmul peak (scripts/bench/roofline.py), the out-of-memory
# demo, and a two-rank NCCL sweep where there are two GPUs. Writes everything to the output
# folder. Meant to finish in under 8 minutes on 16 cores, the build included.
# Usage: scripts/gpu-check.sh [--dry-run] [output-folder]
#   --dry-run    everything up to the first CUDA call: the same build and suite, then each CUDA
#                command run on the CPU with tiny sizes (the same flags otherwise), and the OOM
#                demo's refusal without CUDA; proves the script builds and runs before a lease
#                is spent
#   ACCUMLAB_DEPS=folder   nlohmann_json and CLI11 headers and GoogleTest's sources (made by
#                          scripts/gpu-deps.sh; default .gpu-deps); ACCUMLAB_DEPS=system takes
#                          this machine's Debian packages instead (CI's dry run, whose compiler
#                          cache then serves the units the LibTorch 2.x stage compiled)
#   PYTHON=python3         the Python whose torch supplies LibTorch
# Two ranks on one GPU would share its memory and make the all-reduce a local copy, so the
# NCCL run needs two GPUs; with one it is skipped and says so.
set -euo pipefail
cd "$(dirname "$0")/.."
dry=0
if [[ ${1:-} == --dry-run ]]; then
  dry=1
  shift
fi
out=${1:-outputs/gpu}
deps=${ACCUMLAB_DEPS:-.gpu-deps}
python=${PYTHON:-python3}
build=${ACCUMLAB_GPU_BUILD:-build-gpu}
mkdir -p "$out"
start=$SECONDS
log() { echo "[gpu-check $(date +%H:%M:%S) +$((SECONDS - start))s] $*"; }
if [[ $deps == system ]]; then
  deps_args=(-DACCUMLAB_GTEST_SOURCE_DIR=/usr/src/googletest)
else
  [[ -d $deps/include && -d $deps/googletest ]] || { echo "gpu-check: $deps lacks include/ or googletest/; run scripts/gpu-deps.sh here first" >&2; exit 2; }
  deps_args=(-DCMAKE_INCLUDE_PATH="$(realpath "$deps")/include" -DACCUMLAB_GTEST_SOURCE_DIR="$(realpath "$deps")/googletest")
fi

source scripts/lib/torch-wheel.sh
torch_wheel_info "$python"
log "torch $TORCH_WHEEL_VERSION (CUDA $TORCH_WHEEL_CUDA) at $TORCH_WHEEL_PREFIX"
nvidia-smi --query-gpu=name,memory.total,driver_version,compute_cap --format=csv,noheader 2>/dev/null | tee "$out/gpu.txt" ||
  log "nvidia-smi: no GPU here"
gpus=$( (nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null || true) | wc -l)

log "configure + build (core, CLI, portable suite; no Qt)"
mapfile -t wheel_args < <(torch_wheel_cmake_args)
# Ninja and ccache where the machine has them (scripts/lib/build-env.sh), the defaults otherwise.
source scripts/lib/build-env.sh
mapfile -t env_args < <(build_env_cmake_args "$build")
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DACCUMLAB_BUILD_GUI=OFF \
  "${wheel_args[@]}" "${env_args[@]}" "${deps_args[@]}" >"$out/cmake.log" 2>&1 \
  || { tail -30 "$out/cmake.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" >"$out/build.log" 2>&1 || { grep -m20 -A5 -E "error" "$out/build.log"; exit 1; }
cli=$build/app/cli/accumlab-cli

log "the portable suite (core + CLI; its CUDA tests run where a device is)"
ctest --test-dir "$build" --output-on-failure --timeout 300 -j"$(nproc)" >"$out/ctest.txt" 2>&1 ||
  { tail -40 "$out/ctest.txt"; log "the portable suite failed (see $out/ctest.txt)"; ((!dry)) || exit 1; }
grep -E '^[0-9]+% tests passed|Skipped' "$out/ctest.txt" | head -8 || true

# Each CUDA command, as run for real; the dry run puts it on the CPU with tiny sizes.
device=cuda
wide_steps=30 lesson_steps=100 wide_grid=1,2,4,8,16,32 wide_micro=64
roof_dtype=bfloat16 roof_micros="256 512" roof_steps=20 roof_size=8192
if ((dry)); then
  device=cpu wide_steps=1 lesson_steps=2 wide_grid=1,2 wide_micro=2
  roof_dtype=float32 roof_micros=2 roof_steps=1 roof_size=256
  log "dry run: the CUDA commands below run on the CPU with tiny sizes"
fi

log "equivalence on $device (float32, bfloat16)"
"$cli" equivalence --device "$device" >"$out/equivalence-f32.json" || log "float32 equivalence does not hold"
"$cli" equivalence --device "$device" --dtype bfloat16 >"$out/equivalence-bf16.json" || log "bfloat16 equivalence does not hold"
grep -E '"holds"|max_grad_diff' "$out/equivalence-f32.json" | tr -d ' ' | paste -sd' '

log "sweep: wide preset on $device"
"$cli" --device "$device" --model wide --micro-batch "$wide_micro" --accum-grid "$wide_grid" --num-steps "$wide_steps" \
  --out-dir "$out/sweep-wide" | tail -8 | tee "$out/sweep-wide.txt"
log "sweep: lesson preset on $device"
"$cli" --device "$device" --accum-grid 1,2,4,8,16 --num-steps "$lesson_steps" --out-dir "$out/sweep-lesson" | tail -7 |
  tee "$out/sweep-lesson.txt"
"$python" -c "import json,sys; p=json.load(open(sys.argv[1]))['points']; print('peak_mem_bytes:', [x.get('peak_mem_bytes') for x in p])" \
  "$out/sweep-wide/accum-curve.json"

log "the step against the $roof_dtype matmul roofline (wide preset, micro ${roof_micros// /, } on $device)"
roof_curves=()
for m in $roof_micros; do
  "$cli" --device "$device" --model wide --dtype "$roof_dtype" --micro-batch "$m" --accum-grid 4 \
    --num-steps "$roof_steps" --out-dir "$out/roofline-$m" >/dev/null
  roof_curves+=("$out/roofline-$m/accum-curve.json")
done
"$python" scripts/bench/roofline.py --device "$device" --dtype "$roof_dtype" --size "$roof_size" "${roof_curves[@]}" |
  tee "$out/roofline.txt"

log "out-of-memory demo on the CPU (the counting allocator's budget): fails after 32 samples"
"$cli" oom-demo --device cpu | tee "$out/oom-demo-cpu.txt"
log "out-of-memory demo on CUDA"
if ((dry)); then
  code=0
  "$cli" oom-demo --device cuda --model wide --fails-after 256 --effective-batch 4096 --json >"$out/oom-demo.json" 2>"$out/oom-demo.err" || code=$?
  [[ $code == 2 ]] && grep -q "CUDA" "$out/oom-demo.err" ||
    { cat "$out/oom-demo.err"; echo "gpu-check: without CUDA the OOM demo should refuse with exit 2, got $code" >&2; exit 1; }
  log "without CUDA it refuses, as it should: $(cat "$out/oom-demo.err")"
else
  # With the caching allocator's history (core's CudaMemoryHistory, LibTorch 2.11 or later): the
  # timeline and the snapshot for PyTorch's memory visualiser, on the GPU for the first time.
  "$cli" oom-demo --device cuda --model wide --fails-after 256 --effective-batch 4096 --json \
    --timeline "$out/memory-timeline-cuda.json" --snapshot "$out/memory-snapshot-cuda.pickle" >"$out/oom-demo.json" ||
    log "the OOM demo did not show the contrast"
  cat "$out/oom-demo.json"
  "$python" - "$out/memory-timeline-cuda.json" <<'PY' || log "no CUDA timeline was recorded"
import json, sys
d = json.load(open(sys.argv[1]))
for run in d["runs"]:
    print("timeline %s: %d events, peak %d bytes, refused at %s" % (run["label"], len(run["events"]["delta_bytes"]), run["peak_bytes"], run["refused_event"]))
PY
  log "trade-off sweep and finder on CUDA (wide, effective 4096, fails after 256)"
  "$cli" tradeoff --device cuda --model wide --fails-after 256 --effective-batch 4096 --out-dir "$out/tradeoff" |
    tee "$out/tradeoff.txt" || log "the trade-off sweep failed"
  "$cli" find-micro-batch --device cuda --model wide --fails-after 256 --effective-batch 4096 | tee "$out/finder.txt" ||
    log "the finder failed"
fi

if ((gpus >= 2 && !dry)); then
  log "two ranks over NCCL (one GPU each)"
  "$cli" --device cuda --world-size 2 --accum-grid 1,2,4,8 --num-steps 50 --out-dir "$out/sweep-nccl" | tail -6 |
    tee "$out/sweep-nccl.txt"
else
  log "two ranks over NCCL: skipped, $gpus GPU(s) here (two ranks need a GPU each)"
fi
log "done in $((SECONDS - start)) s; figures in $out"
