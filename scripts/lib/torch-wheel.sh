# Sourced by scripts/torch2-check.sh and scripts/gpu-check.sh: how to point CMake at the
# LibTorch inside a PyTorch wheel. One place for it, so the GPU machine configures exactly as
# the rehearsal here does.
#
# torch_wheel_info PYTHON     sets TORCH_WHEEL_VERSION, TORCH_WHEEL_CUDA, TORCH_WHEEL_PREFIX
#                             (torch.utils.cmake_prefix_path) and TORCH_WHEEL_LIB
# torch_wheel_cmake_args      prints the CMake arguments, one a line:
#   - CMAKE_PREFIX_PATH at the wheel's CMake packages;
#   - TORCH_LIBRARY and c10_LIBRARY at the wheel's own: its TorchConfig finds them by name, so a
#     system LibTorch (Debian's libtorch-dev in /usr/lib) would otherwise win;
#   - CUDAToolkit_ROOT where nvcc is, when it is;
#   - TORCH_CUDA_ARCH_LIST (a cache variable, so a re-configure keeps it): the GPU's compute
#     capability where nvidia-smi answers, else 9.0 (the H200), or the environment's value.
#     LibTorch's CMake would otherwise detect it by compiling a CUDA program in a C++ dialect
#     that CMake 3.25 cannot give nvcc 13, and fail.

torch_wheel_info() {
  local python=$1 info
  info=$("$python" -W ignore -c 'import torch; print(torch.__version__, torch.version.cuda, torch.utils.cmake_prefix_path)' 2>/dev/null) ||
    { echo "no torch importable by $python" >&2; return 1; }
  read -r TORCH_WHEEL_VERSION TORCH_WHEEL_CUDA TORCH_WHEEL_PREFIX <<<"$info"
  TORCH_WHEEL_LIB=$(dirname "$(dirname "$TORCH_WHEEL_PREFIX")")/lib
}

torch_wheel_cmake_args() {
  echo "-DCMAKE_PREFIX_PATH=$TORCH_WHEEL_PREFIX"
  echo "-DTORCH_LIBRARY=$TORCH_WHEEL_LIB/libtorch.so"
  echo "-Dc10_LIBRARY=$TORCH_WHEEL_LIB/libc10.so"
  local nvcc
  nvcc=$(command -v nvcc || true)
  [[ -z $nvcc && -x /usr/local/cuda/bin/nvcc ]] && nvcc=/usr/local/cuda/bin/nvcc
  if [[ -n $nvcc ]]; then
    echo "-DCUDAToolkit_ROOT=$(dirname "$(dirname "$(readlink -f "$nvcc")")")"
  fi
  echo "-DTORCH_CUDA_ARCH_LIST=$(torch_cuda_arch_list)"
}

torch_cuda_arch_list() {
  local cap
  cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' ' || true)
  echo "${TORCH_CUDA_ARCH_LIST:-${cap:-9.0}}"
}
