#!/usr/bin/env bash
# AccumLab against LibTorch 2.x with CUDA: installs a pinned PyTorch wheel (the version the lent
# GPU machines carry) into the project's virtual environment .venv-torch2/ (ignored by git; pip
# keeps the download in its cache), configures build-torch2/ against the wheel's LibTorch with
# CUDA enabled, builds what compiles against LibTorch (target accumlab_torch2_suite: core, the
# CLI, the CUDA paths, the NCCL process group, the portable suite) and the desktop app against
# Debian's Qt (the wheel uses the same C++11 ABI), and runs the tests labelled torch2: the
# portable suite (core's tests, and the CLI's run against the wheel) and the two
# ui tests that run the app and its engine thread (tst_autorun, tst_enginecontroller); the other
# ui tests include no LibTorch header. Then the wheel's torch.cuda._memory_viz reads the memory
# snapshot the CLI writes (tests/pytorch/check_memory_snapshot.py), and the safetensors package
# and torch load the model file `train --export-model` writes (tests/pytorch/check_model_file.py;
# ACCUMLAB_SAFETENSORS_VERSION, default 0.8.0, pins the package), and the code panel's loop runs
# with the wheel's PyTorch against this build's engine (tests/pytorch/check_loop_code.py), and the
# wheel's torchrun starts this build's ranks and the Debian build's (tests/pytorch/check_torchrun.py). Through ccache
# (scripts/lib/build-env.sh) only the units that see LibTorch's headers compile again after the
# Release build: ui/ includes none.
# Usage: scripts/torch2-check.sh [extra ctest arguments]   (default: -L torch2)
#        scripts/torch2-check.sh --install-only   the wheel into .venv-torch2/ and nothing else
#        (scripts/test.sh runs it in the background while the Release build compiles)
#   ACCUMLAB_TORCH2_VERSION   the wheel's version (default 2.11.0, CUDA 13.0 on PyPI)
#   TORCH_CUDA_ARCH_LIST      GPU architectures for LibTorch's CMake (default: the GPU's, else
#                             9.0, the H200; scripts/lib/torch-wheel.sh says why it is set)
set -euo pipefail
cd "$(dirname "$0")/.."
version=${ACCUMLAB_TORCH2_VERSION:-2.11.0}
venv=$PWD/.venv-torch2
build=build-torch2
start=$SECONDS
log() { echo "[torch2 $(date +%H:%M:%S)] $*"; }

# pip checks every file it downloads against the hash PyPI lists for it. A file damaged on the
# way (seen once: the 366 MB cuDNN wheel arrived with another hash, and a second download matched)
# is fetched again, past pip's cache, which may hold the damaged copy; up to three tries.
pip_install() {
  local try cache=()
  for try in 1 2 3; do
    "$venv/bin/pip" install -q --disable-pip-version-check "${cache[@]}" "$@" && return 0
    log "pip install $* failed (try $try of 3)"
    cache=(--no-cache-dir)
  done
  return 1
}

ACCUMLAB_SETUP_EXTRA="python3-venv ${ACCUMLAB_SETUP_EXTRA:-}" scripts/setup.sh
[[ -x $venv/bin/python ]] || /usr/bin/python3 -m venv "$venv"
if ! "$venv/bin/python" -c "import sys, torch; sys.exit(torch.__version__.split('+')[0] != '$version')" 2>/dev/null; then
  log "installing torch==$version into $venv (about 3 GB with its CUDA libraries)"
  pip_install "torch==$version"
fi
# NumPy only quiets torch's import warning (and lets torch.compile's benchmarks run as users do).
"$venv/bin/python" -c "import numpy" 2>/dev/null || pip_install numpy
# safetensors: tests/pytorch/check_model_file.py loads the model file `train --export-model` writes.
"$venv/bin/python" -c "import safetensors" 2>/dev/null ||
  pip_install "safetensors==${ACCUMLAB_SAFETENSORS_VERSION:-0.8.0}"
if [[ ${1:-} == --install-only ]]; then
  log "torch==$version installed in $((SECONDS - start)) s"
  exit 0
fi
source scripts/lib/torch-wheel.sh
torch_wheel_info "$venv/bin/python"
torch_version=$TORCH_WHEEL_VERSION
log "torch $torch_version (CUDA $TORCH_WHEEL_CUDA) at $TORCH_WHEEL_PREFIX"

mkdir -p "$build"
log "configure $build"
mapfile -t wheel_args < <(torch_wheel_cmake_args)
source scripts/lib/build-env.sh
mapfile -t env_args < <(build_env_cmake_args "$build")
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release "${wheel_args[@]}" "${env_args[@]}" \
  >"$build/accumlab-configure.log" 2>&1 || { tail -40 "$build/accumlab-configure.log"; exit 1; }
grep -E 'Found Torch|CUDA detected|AccumLab' "$build/accumlab-configure.log" || true
log "build"
cmake --build "$build" -j"$(nproc)" --target accumlab_torch2_suite >"$build/accumlab-build.log" 2>&1 || { grep -E -m40 -B2 -A6 'error' "$build/accumlab-build.log"; exit 1; }
log "built in $((SECONDS - start)) s; the suite against LibTorch $torch_version"
# The wheel's CUDA libraries come from its nvidia-* packages, found through the wheel's RPATHs.
(($#)) || set -- -L torch2
ctest --test-dir "$build" --output-on-failure --timeout 600 -j"$(nproc)" "$@"
# PyTorch's own memory visualiser (torch.cuda._memory_viz, from the wheel) reads the demo's
# snapshot and replays AccumLab's peaks.
log "PyTorch's _memory_viz reads the out-of-memory demo's snapshot"
"$venv/bin/python" tests/pytorch/check_memory_snapshot.py "$build/app/cli/accumlab-cli"
log "safetensors and torch load the model file train --export-model writes"
"$venv/bin/python" tests/pytorch/check_model_file.py "$build/app/cli/accumlab-cli"
log "docs/ranks-and-checkpoints.md's continuation of a checkpoint, run with the wheel's PyTorch, ends on the uninterrupted run's params_sha256"
"$venv/bin/python" tests/pytorch/check_checkpoint.py "$build/app/cli/accumlab-cli" docs/ranks-and-checkpoints.md
log "the code panel's loop, run with the wheel's PyTorch, ends where this engine ends"
"$venv/bin/python" tests/pytorch/check_loop_code.py "$build/app/cli/accumlab-cli"
# torchrun is a process of its own: it starts this build's ranks and the Debian build's (build/,
# when scripts/build.sh made it) alike, on one node, on two, with restarts; srun's by hand.
log "torchrun and srun's variables start the ranks of both builds"
clis=("$build/app/cli/accumlab-cli")
[[ -x build/app/cli/accumlab-cli ]] && clis+=(build/app/cli/accumlab-cli)
"$venv/bin/python" tests/pytorch/check_torchrun.py "${clis[@]}"
log "passed in $((SECONDS - start)) s"
