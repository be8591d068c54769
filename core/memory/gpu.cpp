// Measured memory per device and the CUDA cap. Compiled everywhere; the CUDA calls only
// where ACCUMLAB_WITH_CUDA is defined (the build found a LibTorch with CUDA).
#include "core/memory/gpu.h"

#include "core/memory/cpu_memory.h"
#include "core/device.h"

#include <torch/torch.h>

#include <algorithm>

#ifdef ACCUMLAB_WITH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#include <cuda_runtime_api.h>
#endif

namespace accumlab {

namespace {

bool isCpu(const std::string &device) { return device == "cpu"; }

#ifdef ACCUMLAB_WITH_CUDA
int deviceIndex(const std::string &device) { return torch::Device(device).has_index() ? torch::Device(device).index() : 0; }
#endif

// The allocated bytes on `device`: on CUDA the caching allocator's, after a synchronize; on
// the CPU the counting allocator's. The peak since the last reset, or what is allocated now.
// Empty where nothing is measured (the counter kept off).
std::optional<int64_t> allocatedBytes(const std::string &device, bool peak)
{
    if (isCpu(device)) {
        installCpuMemoryCounter();
        if (!cpuMemoryCounted())
            return std::nullopt;
        return peak ? cpuPeakBytes() : cpuLiveBytes();
    }
#ifdef ACCUMLAB_WITH_CUDA
    if (isCudaName(device)) {
        torch::cuda::synchronize();
        const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(deviceIndex(device));
        // StatType::AGGREGATE, the first entry: the enum lives in c10::cuda::CUDACachingAllocator
        // in LibTorch 1.13 and in c10::CachingAllocator in 2.x, its value is 0 in both.
        constexpr size_t kAggregate = 0;
        const auto &allocated = stats.allocated_bytes[kAggregate];
        return peak ? allocated.peak : allocated.current;
    }
#else
    (void)device;
    (void)peak;
#endif
    return std::nullopt;
}

} // namespace

bool builtWithCuda()
{
#ifdef ACCUMLAB_WITH_CUDA
    return true;
#else
    return false;
#endif
}

void resetPeakMemory(const std::string &device)
{
    if (isCpu(device)) {
        installCpuMemoryCounter();
        resetCpuPeakBytes();
        return;
    }
#ifdef ACCUMLAB_WITH_CUDA
    if (isCudaName(device)) {
        torch::cuda::synchronize();
        c10::cuda::CUDACachingAllocator::resetPeakStats(deviceIndex(device));
    }
#else
    (void)device;
#endif
}

std::optional<int64_t> peakMemoryBytes(const std::string &device) { return allocatedBytes(device, /*peak=*/true); }

std::optional<int64_t> currentMemoryBytes(const std::string &device) { return allocatedBytes(device, /*peak=*/false); }

void capCudaMemory(const std::string &device, std::optional<int64_t> bytes, int64_t baselineBytes)
{
#ifdef ACCUMLAB_WITH_CUDA
    if (!cudaAvailable())
        throw ConfigError("device/memory-budget-without-device", {});
    const int index = deviceIndex(device);
    c10::cuda::CUDACachingAllocator::emptyCache();
    if (!bytes) {
        c10::cuda::CUDACachingAllocator::setMemoryFraction(1.0, index);
        return;
    }
    const double total = static_cast<double>(cudaTotalBytes(device));
    c10::cuda::CUDACachingAllocator::setMemoryFraction(
        std::min(1.0, static_cast<double>(baselineBytes + *bytes) / total), index);
#else
    (void)device;
    (void)bytes;
    (void)baselineBytes;
    throw ConfigError("device/memory-budget-without-cuda-build", {});
#endif
}

int64_t cudaTotalBytes(const std::string &device)
{
#ifdef ACCUMLAB_WITH_CUDA
    if (isCudaName(device) && cudaAvailable()) {
        size_t freeBytes = 0, totalBytes = 0;
        torch::Device d(device);
        const int previous = [] { int i = 0; cudaGetDevice(&i); return i; }();
        cudaSetDevice(d.has_index() ? d.index() : 0);
        cudaMemGetInfo(&freeBytes, &totalBytes);
        cudaSetDevice(previous);
        return static_cast<int64_t>(totalBytes);
    }
#else
    (void)device;
#endif
    return 0;
}

} // namespace accumlab
