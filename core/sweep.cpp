// The throughput sweep.
#include "core/sweep.h"

#include "core/device.h"
#include "core/engine.h"
#include "core/gpu.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <limits>

namespace accumlab {

const char *const kTimedRegion =
    "num_steps effective steps after the warm-up: per step the window's data generation, every micro-batch's "
    "forward and backward, the gradient syncs, the grad-norm read and the optimizer step; model construction "
    "and warm-up steps are excluded; on CUDA the device is synchronized before each clock read and "
    "peak_mem_bytes is the caching allocator's peak over the timed steps";

namespace {

using Clock = std::chrono::steady_clock;

void synchronize(const std::string &device)
{
    if (device.rfind("cuda", 0) == 0)
        torch::cuda::synchronize();
}

double median(std::vector<double> v)
{
    if (v.empty())
        return 0.0;
    std::sort(v.begin(), v.end());
    const size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

} // namespace

std::string divergenceSentence(const SweepPoint &p)
{
    return "diverged at step " + std::to_string(p.divergedAtStep) + " of effective batch " +
           std::to_string(p.effectiveBatch) + " (the loss or the gradient norm became NaN or Inf)";
}

double SweepResult::plateauSamplesPerSec() const
{
    double best = 0.0;
    for (const auto &p : points)
        best = std::max(best, p.samplesPerSec);
    return best;
}

SweepPoint runSweepPoint(const SweepConfig &config, int64_t accumSteps, EngineObserver *observer,
                         const CancelToken *cancel, std::shared_ptr<GradSync> sync)
{
    AccumConfig c = config.base;
    c.accumSteps = accumSteps;
    AccumEngine engine(c, std::move(sync));

    SweepPoint p;
    p.accumSteps = accumSteps;
    p.microBatch = c.microBatch;
    p.worldSize = c.worldSize;
    p.effectiveBatch = c.effectiveBatch();
    p.warmupSteps = config.warmupSteps;
    p.device = engine.deviceName();
    p.dtype = toString(c.dtype);
    p.threads = currentThreads();

    // Divergence is looked for from the first step, warm-up included: a point whose warm-up
    // already went to NaN is reported there, with no timed steps.
    for (int64_t i = 0; i < config.warmupSteps; ++i) {
        if (!engine.step(nullptr, cancel).finite) {
            p.diverged = true;
            p.divergedAtStep = i + 1;
            p.avgLoss = p.finalLoss = p.avgLoggedLoss = std::numeric_limits<double>::quiet_NaN();
            p.optimizerStateStep = engine.optimizerStateStep();
            return p;
        }
    }
    const int64_t syncBefore = engine.syncCalls();
    const int64_t microBefore = engine.microBatches();
    const SyncStats collectivesBefore = engine.syncStats();

    std::vector<double> stepMs;
    stepMs.reserve(config.numSteps);
    p.losses.reserve(config.numSteps);
    double loggedSum = 0.0;
    synchronize(p.device);
    resetPeakMemory(p.device);
    const auto start = Clock::now();
    for (int64_t i = 0; i < config.numSteps; ++i) {
        const auto t0 = Clock::now();
        const StepResult r = engine.step(observer, cancel);
        synchronize(p.device);
        stepMs.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        p.losses.push_back(r.loss);
        loggedSum += r.loggedLoss;
        if (!r.finite) {
            p.diverged = true;
            p.divergedAtStep = config.warmupSteps + i + 1;
            break;
        }
    }
    p.wallS = std::chrono::duration<double>(Clock::now() - start).count();
    p.peakMemBytes = peakMemoryBytes(p.device);

    p.steps = static_cast<int64_t>(stepMs.size());
    p.syncCalls = engine.syncCalls() - syncBefore;
    p.microBatches = engine.microBatches() - microBefore;
    const SyncStats collectives = engine.syncStats() - collectivesBefore;
    p.allreduceCalls = collectives.collectives;
    p.allreduceBytes = collectives.bytes;
    p.allreduceMs = collectives.ms;
    p.optimizerStateStep = engine.optimizerStateStep();
    p.samplesPerSec = p.wallS > 0.0 ? static_cast<double>(p.steps * p.effectiveBatch) / p.wallS : 0.0;
    p.medianStepMs = median(stepMs);
    double sum = 0.0;
    for (double l : p.losses)
        sum += l;
    p.avgLoss = p.losses.empty() ? 0.0 : sum / static_cast<double>(p.losses.size());
    p.avgLoggedLoss = p.losses.empty() ? 0.0 : loggedSum / static_cast<double>(p.losses.size());
    p.finalLoss = p.losses.empty() ? 0.0 : p.losses.back();
    return p;
}

SweepResult runSweep(const SweepConfig &config, EngineObserver *observer, const CancelToken *cancel,
                     std::shared_ptr<GradSync> sync)
{
    validate(config);
    applyThreads(config.threads);
    SweepResult result;
    result.config = config;
    for (size_t i = 0; i < config.accumGrid.size(); ++i) {
        if (observer)
            observer->onSweepPointStarted(static_cast<int64_t>(i), config.accumGrid[i]);
        result.points.push_back(runSweepPoint(config, config.accumGrid[i], observer, cancel, sync));
        if (observer)
            observer->onSweepPoint(result.points.back());
    }
    return result;
}

} // namespace accumlab
