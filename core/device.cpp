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

int applyThreads(int n)
{
    if (n > 0 && at::get_num_threads() != n)
        at::set_num_threads(n);
    return at::get_num_threads();
}

int currentThreads() { return at::get_num_threads(); }

std::string torchVersion() { return TORCH_VERSION; }

} // namespace accumlab
