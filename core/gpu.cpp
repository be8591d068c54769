// CUDA peak memory and the out-of-memory demo. Compiled everywhere; the CUDA calls only
// where ACCUMLAB_WITH_CUDA is defined (the build found a LibTorch with CUDA).
#include "core/gpu.h"

#include "core/data.h"
#include "core/device.h"
#include "core/model.h"
#include "core/optimizer.h"

#ifdef ACCUMLAB_WITH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#include <cuda_runtime_api.h>
#endif

namespace accumlab {

namespace {

bool isCuda(const std::string &device) { return device.rfind("cuda", 0) == 0; }

#ifdef ACCUMLAB_WITH_CUDA
int deviceIndex(const std::string &device) { return torch::Device(device).has_index() ? torch::Device(device).index() : 0; }

// One window of the lesson's loop on `model`: forward+backward of `accumSteps` micro-batches
// of `micro` samples (loss / N), then one optimizer step. Returns the mean unscaled loss.
double trainWindow(Mlp &model, FusedOptimizer &opt, DataStream &data, int64_t micro, int64_t accumSteps)
{
    opt.zeroGrad();
    auto [x, y] = data.next(micro * accumSteps); // x: (micro * accum, in)
    double loss = 0.0;
    for (int64_t i = 0; i < accumSteps; ++i) {
        auto raw = torch::cross_entropy_loss(model->forward(x.narrow(0, i * micro, micro)), y.narrow(0, i * micro, micro));
        (raw / static_cast<double>(accumSteps)).backward();
        loss += raw.item<double>() / static_cast<double>(accumSteps);
    }
    opt.step();
    torch::cuda::synchronize();
    return loss;
}
#endif

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

std::optional<int64_t> peakMemoryBytes(const std::string &device)
{
#ifdef ACCUMLAB_WITH_CUDA
    if (isCuda(device)) {
        torch::cuda::synchronize();
        const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(deviceIndex(device));
        // StatType::AGGREGATE, the first entry: the enum lives in c10::cuda::CUDACachingAllocator
        // in LibTorch 1.13 and in c10::CachingAllocator in 2.x, its value is 0 in both.
        constexpr size_t kAggregate = 0;
        return stats.allocated_bytes[kAggregate].peak;
    }
#else
    (void)device;
#endif
    return std::nullopt;
}

std::optional<int64_t> currentMemoryBytes(const std::string &device)
{
#ifdef ACCUMLAB_WITH_CUDA
    if (isCuda(device)) {
        torch::cuda::synchronize();
        const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(deviceIndex(device));
        constexpr size_t kAggregate = 0; // as in peakMemoryBytes
        return stats.allocated_bytes[kAggregate].current;
    }
#else
    (void)device;
#endif
    return std::nullopt;
}

OomDemoResult runOomDemo(const OomDemoConfig &config)
{
    if (!cudaAvailable())
        throw ConfigError("the out-of-memory demo needs a CUDA device, and none is available on this machine");
#ifndef ACCUMLAB_WITH_CUDA
    throw ConfigError("this build has no CUDA support; rebuild against a LibTorch with CUDA for the out-of-memory demo");
#else
    OomDemoResult r;
    r.device = "cuda:0";
    const torch::Device device(r.device);
    const int index = 0;
    const auto shape = shapeOf(config.preset);
    const auto dtype = toTorch(config.dtype);
    r.effectiveBatch = config.microBatch * config.accumSteps;

    size_t freeBytes = 0, totalBytes = 0;
    cudaMemGetInfo(&freeBytes, &totalBytes);
    r.totalDeviceBytes = static_cast<int64_t>(totalBytes);

    Mlp model = makeModel(shape, config.seed, dtype, device);
    FusedOptimizer opt(model->parameters(), OptimizerConfig{OptimizerKind::Sgd, 0.01});
    DataStream data(shape, LabelKind::Teacher, config.seed, dtype, device);

    // 1. Measure what one micro-batch window needs, uncapped.
    trainWindow(model, opt, data, config.microBatch, 1);
    resetPeakMemory(r.device);
    trainWindow(model, opt, data, config.microBatch, 1);
    r.microPeakBytes = *peakMemoryBytes(r.device);

    // 2. Cap the allocator at twice the micro-batch's peak: the full batch needs about
    //    accum_steps times the activations and cannot fit when accum_steps > 2.
    c10::cuda::CUDACachingAllocator::emptyCache();
    r.capBytes = 2 * r.microPeakBytes;
    c10::cuda::CUDACachingAllocator::setMemoryFraction(static_cast<double>(r.capBytes) / static_cast<double>(totalBytes), index);
    try {
        trainWindow(model, opt, data, r.effectiveBatch, 1);
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
    r.accumulationLoss = trainWindow(model, opt, data, config.microBatch, config.accumSteps);
    r.accumulationSucceeded = true;
    r.accumulationPeakBytes = *peakMemoryBytes(r.device);
    c10::cuda::CUDACachingAllocator::setMemoryFraction(1.0, index);
    return r;
#endif
}

} // namespace accumlab
