// Device and thread settings.
#include "core/device.h"

#include <torch/torch.h>

namespace accumlab {

bool cudaAvailable() { return torch::cuda::is_available(); }

std::string resolveDevice(DeviceRequest request)
{
    switch (request) {
    case DeviceRequest::Cpu: return "cpu";
    case DeviceRequest::Cuda:
        if (!cudaAvailable())
            throw ConfigError("CUDA was requested but no CUDA device is available on this machine");
        return "cuda:0";
    case DeviceRequest::Auto: return cudaAvailable() ? "cuda:0" : "cpu";
    }
    return "cpu";
}

// OpenBLAS keeps its own thread pool, which at::set_num_threads does not reach; with more BLAS
// threads than asked for, its spinning workers slow a one-thread run by 10x on a busy machine
// (measured: hidden 512, micro 4). Weak: absent when LibTorch uses another BLAS.
extern "C" void openblas_set_num_threads(int) __attribute__((weak));

int applyThreads(int n)
{
    if (n > 0 && at::get_num_threads() != n)
        at::set_num_threads(n);
    if (n > 0 && openblas_set_num_threads)
        openblas_set_num_threads(n);
    return at::get_num_threads();
}

int currentThreads() { return at::get_num_threads(); }

std::string torchVersion() { return TORCH_VERSION; }

} // namespace accumlab
