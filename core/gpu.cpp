// CUDA peak memory and the out-of-memory demo. Compiled everywhere; the CUDA calls only
// where ACCUMLAB_WITH_CUDA is defined (the build found a LibTorch with CUDA).
#include "core/gpu.h"

#include "core/device.h"
#include "core/engine.h"

#include <torch/torch.h>

#include <memory>

#ifdef ACCUMLAB_WITH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#include <cuda_runtime_api.h>
#endif

namespace accumlab {

namespace {

bool isCuda(const std::string &device) { return device.rfind("cuda", 0) == 0; }

#ifdef ACCUMLAB_WITH_CUDA
int deviceIndex(const std::string &device) { return torch::Device(device).has_index() ? torch::Device(device).index() : 0; }
#endif

// The caching allocator's allocated bytes on a CUDA `device`, after a synchronize: the peak
// since the last reset, or what is allocated now. Empty elsewhere.
std::optional<int64_t> allocatedBytes(const std::string &device, bool peak)
{
#ifdef ACCUMLAB_WITH_CUDA
    if (isCuda(device)) {
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
#ifdef ACCUMLAB_WITH_CUDA
    if (isCuda(device)) {
        torch::cuda::synchronize();
        c10::cuda::CUDACachingAllocator::resetPeakStats(deviceIndex(device));
    }
#else
    (void)device;
#endif
}

std::optional<int64_t> peakMemoryBytes(const std::string &device) { return allocatedBytes(device, /*peak=*/true); }

std::optional<int64_t> currentMemoryBytes(const std::string &device) { return allocatedBytes(device, /*peak=*/false); }

OomDemoResult runOomDemo(const OomDemoConfig &config)
{
    if (!cudaAvailable())
        throw ConfigError("the out-of-memory demo needs a CUDA device, and none is available on this machine");
#ifndef ACCUMLAB_WITH_CUDA
    throw ConfigError("this build has no CUDA support; rebuild against a LibTorch with CUDA for the out-of-memory demo");
#else
    OomDemoResult r;
    r.device = "cuda:0";
    const int index = 0;
    const auto shape = shapeOf(config.preset);
    r.effectiveBatch = config.microBatch * config.accumSteps;

    size_t freeBytes = 0, totalBytes = 0;
    cudaMemGetInfo(&freeBytes, &totalBytes);
    r.totalDeviceBytes = static_cast<int64_t>(totalBytes);

    // Every phase runs the engine's own window (core/engine.cpp): one engine per phase, from
    // the same seed, so what fails and what fits is the loop the sweep and the lesson run.
    AccumConfig c;
    c.shape = shape;
    c.dtype = config.dtype;
    c.device = DeviceRequest::Cuda;
    c.seed = config.seed;
    c.optimizer = OptimizerConfig{OptimizerKind::Sgd, 0.01};
    const auto engineFor = [&](int64_t micro, int64_t accumSteps) {
        AccumConfig e = c;
        e.microBatch = micro;
        e.accumSteps = accumSteps;
        return std::make_unique<AccumEngine>(e);
    };

    // 1. Measure what one micro-batch window needs, uncapped (its second window: the first
    //    also creates the buffers that stay).
    {
        auto micro = engineFor(config.microBatch, 1);
        micro->step();
        resetPeakMemory(r.device);
        micro->step();
        r.microPeakBytes = *peakMemoryBytes(r.device);
    }

    // 2. Cap the allocator at twice the micro-batch's peak: the full batch needs about
    //    accum_steps times the activations and cannot fit when accum_steps > 2.
    c10::cuda::CUDACachingAllocator::emptyCache();
    r.capBytes = 2 * r.microPeakBytes;
    c10::cuda::CUDACachingAllocator::setMemoryFraction(static_cast<double>(r.capBytes) / static_cast<double>(totalBytes), index);
    // The cap is lifted however the demo ends (an error other than out of memory included).
    struct Uncap {
        int index;
        ~Uncap() { c10::cuda::CUDACachingAllocator::setMemoryFraction(1.0, index); }
    } uncap{index};
    try {
        auto full = engineFor(r.effectiveBatch, 1);
        full->step();
    } catch (const c10::Error &e) {
        const std::string what = e.what();
        if (what.find("out of memory") == std::string::npos)
            throw;
        r.fullBatchOutOfMemory = true;
        r.fullBatchError = what.substr(0, what.find('\n'));
    }

    // 3. The same effective batch by accumulation, under the same cap.
    c10::cuda::CUDACachingAllocator::emptyCache();
    resetPeakMemory(r.device);
    {
        auto accumulated = engineFor(config.microBatch, config.accumSteps);
        r.accumulationLoss = accumulated->step().loss;
        torch::cuda::synchronize();
        r.accumulationSucceeded = true;
        r.accumulationPeakBytes = *peakMemoryBytes(r.device);
    }
    return r;
#endif
}

} // namespace accumlab
