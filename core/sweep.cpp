// The throughput sweep.
#include "core/sweep.h"

#include "core/device.h"
#include "core/divergence.h"
#include "core/engine.h"
#include "core/memory/gpu.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>

namespace accumlab {

const char *const kTimedRegion =
    "num_steps effective steps after the warm-up, run in blocks interleaved across the points "
    "(samples_per_sec_blocks, one figure a block): per step the window's data generation, every micro-batch's "
    "forward and backward, the gradient syncs, the grad-norm read and the optimizer step; model construction "
    "and warm-up steps are excluded; on CUDA the device is synchronized before each clock read and "
    "peak_mem_bytes is what the point's engine holds after its warm-up plus the caching allocator's largest "
    "rise above that in one of its blocks";

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v)
{
    if (v.empty())
        return 0.0;
    std::sort(v.begin(), v.end());
    const size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

} // namespace

double SweepCostModel::predicted(double accumSteps, size_t block) const
{
    const double n = accumSteps;
    const double ms = n * tMicroMs.at(block) + tWindowMs.at(block);
    return ms > 0.0 ? 1000.0 * n * samplesPerMicroBatch / ms : 0.0;
}

double SweepCostModel::predictedMedian(double accumSteps) const
{
    std::vector<double> each;
    for (size_t b = 0; b < blocks(); ++b)
        each.push_back(predicted(accumSteps, b));
    return quantile(each, 0.5);
}

SweepCostModel costModelOf(const std::vector<SweepPoint> &points)
{
    SweepCostModel m;
    if (points.empty() || points.front().accumSteps <= 0)
        return m;
    m.samplesPerMicroBatch = static_cast<double>(points.front().effectiveBatch) / static_cast<double>(points.front().accumSteps);
    size_t blocks = std::numeric_limits<size_t>::max();
    for (const auto &p : points)
        blocks = std::min({blocks, p.blockMicroMs.size(), p.blockWindowMs.size()});
    m.tMicroMs.assign(blocks, 0.0);
    m.tWindowMs.assign(blocks, 0.0);
    const auto count = static_cast<double>(points.size());
    for (size_t b = 0; b < blocks; ++b)
        for (const auto &p : points) {
            m.tMicroMs[b] += p.blockMicroMs[b] / count;
            m.tWindowMs[b] += p.blockWindowMs[b] / count;
        }
    return m;
}

std::string divergenceSentence(const SweepPoint &p)
{
    return "diverged at step " + std::to_string(p.divergedAtStep) + " of effective batch " +
           std::to_string(p.effectiveBatch) + " (" + (p.divergedReason.empty() ? "diverged" : p.divergedReason) + ")";
}

double SweepResult::plateauSamplesPerSec() const
{
    double best = 0.0;
    for (const auto &p : points)
        best = std::max(best, p.samplesPerSec);
    return best;
}

namespace {

// One point of a running sweep: its engine and what its timed blocks have gathered so far.
struct PointRun {
    std::unique_ptr<AccumEngine> engine;
    SweepPoint p;
    bool stopped = false;     // diverged (in the warm-up or a block): no further blocks
    DivergenceWatch watch;    // the one divergence rule (core/divergence.h), over the point's windows
    int64_t syncBefore = 0, microBefore = 0;
    // The sync is shared by every point's engine: its collectives are summed over this
    // point's own blocks.
    SyncStats collectives;
    std::vector<double> stepMs;
    double loggedSum = 0.0;
    std::optional<int64_t> residentBytes; // CUDA: what the engine holds after its warm-up
    std::optional<int64_t> transientPeak; // CUDA: the largest rise above the resident bytes in a block
};

// Whether the point's window `r` is where it diverged, as core/divergence.h judges it.
bool diverges(PointRun &run, const StepResult &r)
{
    run.watch.observe(windowOutcome(r, run.engine->config()));
    return run.watch.diverged();
}

void warmUp(PointRun &run, const SweepConfig &config, const CancelToken *cancel)
{
    AccumEngine &engine = *run.engine;
    SweepPoint &p = run.p;
    // Divergence is looked for from the first step, warm-up included: a point whose warm-up
    // already diverged is reported there, with no timed steps.
    for (int64_t i = 0; i < config.warmupSteps; ++i) {
        if (diverges(run, engine.step(nullptr, cancel))) {
            run.stopped = true;
            p.diverged = true;
            p.divergedAtStep = i + 1;
            p.divergedReason = toString(run.watch.reason());
            p.avgLoss = p.finalLoss = p.avgLoggedLoss = std::numeric_limits<double>::quiet_NaN();
            p.optimizerStateStep = engine.optimizerStateStep();
            return;
        }
    }
    run.syncBefore = engine.syncCalls();
    run.microBefore = engine.microBatches();
    run.stepMs.reserve(config.stepsAt(p.accumSteps));
    p.losses.reserve(config.stepsAt(p.accumSteps));
}

void runBlock(PointRun &run, const SweepConfig &config, int64_t steps, EngineObserver *observer,
              const CancelToken *cancel)
{
    AccumEngine &engine = *run.engine;
    SweepPoint &p = run.p;
    synchronizeDevice(p.device);
    const std::optional<int64_t> before = currentMemoryBytes(p.device);
    resetPeakMemory(p.device);
    const SyncStats collectivesBefore = engine.syncStats();
    const double windowWorkBefore = engine.windowWorkSeconds();
    const int64_t microBatchesBefore = engine.microBatches();
    const auto start = Clock::now();
    int64_t done = 0;
    for (int64_t i = 0; i < steps; ++i) {
        const auto t0 = Clock::now();
        const StepResult r = engine.step(observer, cancel);
        synchronizeDevice(p.device);
        run.stepMs.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        ++done;
        p.losses.push_back(r.loss);
        run.loggedSum += r.loggedLoss;
        if (diverges(run, r)) {
            run.stopped = true;
            p.diverged = true;
            p.divergedAtStep = config.warmupSteps + static_cast<int64_t>(p.losses.size());
            p.divergedReason = toString(run.watch.reason());
            break;
        }
    }
    const double wall = std::chrono::duration<double>(Clock::now() - start).count();
    run.collectives = run.collectives + (engine.syncStats() - collectivesBefore);
    p.wallS += wall;
    if (!run.stopped && wall > 0.0) {
        p.blockSamplesPerSec.push_back(static_cast<double>(done * p.effectiveBatch) / wall);
        if (config.phaseTiming) {
            const double windowS = engine.windowWorkSeconds() - windowWorkBefore;
            const auto micros = static_cast<double>(engine.microBatches() - microBatchesBefore);
            p.blockMicroMs.push_back(1000.0 * (wall - windowS) / micros);
            p.blockWindowMs.push_back(1000.0 * windowS / static_cast<double>(done));
        }
    }
    if (const auto peak = peakMemoryBytes(p.device); peak && before)
        run.transientPeak = std::max(run.transientPeak.value_or(0), *peak - *before);
}

// The timing figures of what `run`'s blocks have timed so far: its steps, samples/sec over
// their wall time and the median step.
void summariseTiming(const PointRun &run, SweepPoint &p)
{
    p.steps = static_cast<int64_t>(run.stepMs.size());
    p.samplesPerSec = p.wallS > 0.0 ? static_cast<double>(p.steps * p.effectiveBatch) / p.wallS : 0.0;
    p.medianStepMs = median(run.stepMs);
}

// The point as its blocks so far measured it (EngineObserver::onSweepBlockDone), without its
// losses: the steps streamed those.
SweepPoint soFar(const PointRun &run)
{
    SweepPoint p = run.p;
    p.losses.clear();
    summariseTiming(run, p);
    return p;
}

void finish(PointRun &run)
{
    AccumEngine &engine = *run.engine;
    SweepPoint &p = run.p;
    if (p.diverged && p.divergedAtStep <= p.warmupSteps)
        return; // reported by warmUp, nothing was timed
    if (run.residentBytes && run.transientPeak)
        p.peakMemBytes = *run.residentBytes + *run.transientPeak;
    p.held = engine.heldBytes();
    p.syncCalls = engine.syncCalls() - run.syncBefore;
    p.microBatches = engine.microBatches() - run.microBefore;
    p.allreduceCalls = run.collectives.collectives;
    p.allreduceBytes = run.collectives.bytes;
    p.allreduceMs = run.collectives.ms;
    p.optimizerStateStep = engine.optimizerStateStep();
    p.float16Path = engine.float16Path();
    if (engine.config().lossScaler.enabled) {
        const LossScalerState s = engine.lossScalerState();
        p.lossScaling = true;
        p.lossScale = s.scale;
        p.skippedWindows = s.skippedWindows;
        p.unscaleCalls = s.unscaleCalls;
    }
    summariseTiming(run, p);
    double sum = 0.0;
    for (double l : p.losses)
        sum += l;
    p.avgLoss = p.losses.empty() ? 0.0 : sum / static_cast<double>(p.losses.size());
    p.avgLoggedLoss = p.losses.empty() ? 0.0 : run.loggedSum / static_cast<double>(p.losses.size());
    p.finalLoss = p.losses.empty() ? 0.0 : p.losses.back();
}

} // namespace

SweepResult runSweep(const SweepConfig &config, EngineObserver *observer, const CancelToken *cancel,
                     std::shared_ptr<GradSync> sync)
{
    validate(config);
    applyThreads(threadsFor(config, !isCudaName(resolveDevice(config.base.device)), environmentNamesThreads()));
    std::vector<PointRun> runs(config.accumGrid.size());
    for (size_t i = 0; i < runs.size(); ++i) {
        PointRun &run = runs[i];
        AccumConfig c = config.base;
        c.accumSteps = config.accumGrid[i];
        const std::optional<int64_t> before = currentMemoryBytes(resolveDevice(c.device));
        run.engine = std::make_unique<AccumEngine>(c, sync);
        run.engine->setPhaseTiming(config.phaseTiming);
        SweepPoint &p = run.p;
        p.accumSteps = c.accumSteps;
        p.microBatch = c.microBatch;
        p.worldSize = c.worldSize;
        p.effectiveBatch = c.effectiveBatch();
        p.warmupSteps = config.warmupSteps;
        p.device = run.engine->deviceName();
        p.dtype = toString(c.dtype);
        p.threads = currentThreads();
        warmUp(run, config, cancel);
        if (const auto after = currentMemoryBytes(p.device); after && before)
            run.residentBytes = *after - *before;
    }
    // Block b of every point, then block b + 1: each point's steps split as evenly as the
    // blocks allow (every point has at least numSteps, so at least blocks() of them).
    const int64_t blocks = config.blocks();
    for (int64_t b = 0; b < blocks; ++b) {
        for (size_t i = 0; i < runs.size(); ++i) {
            PointRun &run = runs[i];
            const int64_t total = config.stepsAt(run.p.accumSteps);
            const int64_t steps = total / blocks + (b < total % blocks ? 1 : 0);
            if (observer && b == 0)
                observer->onSweepPointStarted(static_cast<int64_t>(i), run.p.accumSteps);
            if (!run.stopped) {
                if (observer)
                    observer->onSweepBlock(static_cast<int64_t>(i), b);
                runBlock(run, config, steps, observer, cancel);
                if (observer && b < blocks - 1 && !run.stopped)
                    observer->onSweepBlockDone(static_cast<int64_t>(i), soFar(run));
            }
            if (b == blocks - 1) {
                finish(run);
                if (observer)
                    observer->onSweepPoint(run.p);
            }
        }
    }
    SweepResult result;
    result.config = config;
    for (auto &run : runs)
        result.points.push_back(std::move(run.p));
    return result;
}

void useLabTiming(SweepConfig &config)
{
    config.equalWork = true;
    config.repeats = kLabSweepBlocks;
    config.phaseTiming = !isCudaName(resolveDevice(config.base.device));
}

SweepPoint runSweepPoint(const SweepConfig &config, int64_t accumSteps, EngineObserver *observer,
                         const CancelToken *cancel, std::shared_ptr<GradSync> sync)
{
    SweepConfig one = config;
    one.accumGrid = {accumSteps};
    return runSweep(one, observer, cancel, std::move(sync)).points.front();
}

} // namespace accumlab
