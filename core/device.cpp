// Device and thread settings.
#include "core/device.h"

#include <ATen/Version.h>
#include <cstdlib>
#include <torch/torch.h>

namespace accumlab {

namespace {
int g_cudaDeviceIndex = 0; // set once, before any work, by a rank (setCudaDeviceIndex)
}

bool cudaAvailable() { return torch::cuda::is_available(); }

bool isCudaName(const std::string &device) { return device.rfind("cuda", 0) == 0; }

void synchronizeDevice(const std::string &device)
{
    if (isCudaName(device))
        torch::cuda::synchronize();
}

std::string resolveDevice(DeviceRequest request)
{
    const std::string cuda = "cuda:" + std::to_string(g_cudaDeviceIndex);
    switch (request) {
    case DeviceRequest::Cpu: return "cpu";
    case DeviceRequest::Cuda:
        if (!cudaAvailable())
            throw ConfigError("device/cuda-unavailable", {});
        return cuda;
    case DeviceRequest::Auto: return cudaAvailable() ? cuda : "cpu";
    }
    return "cpu";
}

void setCudaDeviceIndex(int index)
{
    const int count = cudaAvailable() ? static_cast<int>(torch::cuda::device_count()) : 0;
    if (index < 0 || index >= count)
        throw ConfigError("device/local-rank-without-gpu",
                          TextArgs{{{"index", double(index)}, {"count", double(count)}}, {}});
    g_cudaDeviceIndex = index;
}

// OpenBLAS keeps its own thread pool, which at::set_num_threads does not reach; with more BLAS
// threads than asked for, its spinning workers slow a one-thread run by 10x on a busy machine
// (measured: hidden 512, micro 4). Weak: absent when LibTorch uses another BLAS. (OpenBLAS's
// OpenMP build, which the apps load, follows the calling thread's OpenMP count instead.)
extern "C" void openblas_set_num_threads(int) __attribute__((weak));
extern "C" int openblas_get_num_threads() __attribute__((weak));

int applyThreads(int n)
{
    // What LibTorch and OpenBLAS chose on their own, read before the first change.
    static const int torchDefault = at::get_num_threads();
    static const int blasDefault = openblas_get_num_threads ? openblas_get_num_threads() : 0;
    const int torchThreads = n > 0 ? n : torchDefault;
    const int blasThreads = n > 0 ? n : blasDefault;
    // OpenBLAS first: its OpenMP build's setter also sets the calling thread's OpenMP count,
    // which LibTorch's call then leaves at LibTorch's.
    if (blasThreads > 0 && openblas_set_num_threads)
        openblas_set_num_threads(blasThreads);
    if (at::get_num_threads() != torchThreads)
        at::set_num_threads(torchThreads);
    return at::get_num_threads();
}

bool environmentNamesThreads()
{
    for (const char *name : {"OMP_NUM_THREADS", "MKL_NUM_THREADS"})
        if (const char *v = std::getenv(name); v && *v)
            return true;
    return false;
}

int currentThreads() { return at::get_num_threads(); }

// OpenBLAS describes itself; weak like openblas_set_num_threads above.
extern "C" char *openblas_get_config() __attribute__((weak));
extern "C" int openblas_get_parallel() __attribute__((weak));

std::string blasName()
{
    if (openblas_get_config) {
        std::string name = openblas_get_config();
        if (openblas_get_parallel) {
            const int parallel = openblas_get_parallel(); // 0 sequential, 1 pthreads, 2 OpenMP
            name += parallel == 2 ? " (OpenMP threads)" : parallel == 1 ? " (its own pthreads)" : " (one thread)";
        }
        return name;
    }
    const std::string config = at::show_config();
    const std::string key = "BLAS_INFO=";
    const auto pos = config.find(key);
    if (pos == std::string::npos)
        return "unknown";
    const auto start = pos + key.size();
    return config.substr(start, config.find_first_of(", \n", start) - start);
}

std::string torchVersion() { return TORCH_VERSION; }

std::string firstLine(const std::exception &e)
{
    const auto *c10 = dynamic_cast<const c10::Error *>(&e);
    std::string s = c10 ? c10->what_without_backtrace() : e.what();
    const auto nl = s.find('\n');
    if (nl != std::string::npos)
        s.resize(nl);
    return s;
}

} // namespace accumlab
