// The memory lab: every run builds the engine under the budget, so that the model's weights,
// the window's samples, the optimizer's state and each micro-batch's activations are all
// charged to it, and a run that needs more fails inside LibTorch, where a real one would.
#include "core/memory/memory_lab.h"

#include "core/memory/cpu_memory.h"
#include "core/device.h"
#include "core/memory/gpu.h"
#include "core/memory/memory.h"
#include "core/memory/memory_timeline.h"

#include <torch/torch.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>

namespace accumlab {

namespace {

// The budget on `device` while alive, counted from `baseline` bytes allocated: the CPU's
// counting allocator, or the CUDA cap.
class ScopedBudget {
public:
    ScopedBudget(const std::string &device, std::optional<int64_t> bytes, int64_t baseline) : m_device(device)
    {
        if (!bytes)
            return;
        if (isCudaName(device)) {
            capCudaMemory(device, bytes, baseline);
            m_cudaCapped = true;
        } else {
            m_cpu.emplace(*bytes, baseline);
        }
    }
    ~ScopedBudget()
    {
        if (m_cudaCapped)
            capCudaMemory(m_device, std::nullopt);
    }
    ScopedBudget(const ScopedBudget &) = delete;
    ScopedBudget &operator=(const ScopedBudget &) = delete;

private:
    std::string m_device;
    std::optional<CpuMemoryBudget> m_cpu;
    bool m_cudaCapped = false;
};

AccumConfig runConfig(const MemoryLabConfig &lab, int64_t micro)
{
    AccumConfig c = lab.base;
    c.worldSize = 1; // one process stands for one rank and holds its share
    c.microBatch = micro;
    c.accumSteps = lab.effectiveBatch / lab.base.worldSize / micro;
    return c;
}

int64_t weightBytes(const AccumConfig &c) { return parameterCount(c.modelShape()) * bytesPerElement(c.dtype); }

// `timeline`: where the windows' allocations go, recorded from the counting CPU allocator, or on
// CUDA from the caching allocator's history where the build has it (CudaMemoryHistory; a CUDA
// run of another build records none).
// `split`: after the windows (timed, unrecorded), one more is recorded on the CPU for the
// transient's split (WindowMemory::transient); the engine has stepped once more then, so a kept
// engine never has one.
BudgetedRun runKept(const AccumConfig &config, std::optional<int64_t> budget, int64_t windows, const CancelToken *cancel,
                    std::unique_ptr<AccumEngine> *keep, MemoryTimeline *timeline = nullptr, bool split = false)
{
    using Clock = std::chrono::steady_clock;
    BudgetedRun run;
    const std::string device = resolveDevice(config.device);
    synchronizeDevice(device);
    const int64_t before = currentMemoryBytes(device).value_or(0);
    // The engine is built first, outside the budget: re-homing the parameters into the flat
    // buffers holds the weights twice for a moment, a start-up cost of this engine rather than
    // of training. What it keeps (weights, gradient buffers, samples) is charged to the budget,
    // which counts from `before`, and the peak is that of the windows.
    auto engine = std::make_unique<AccumEngine>(config);
    {
        synchronizeDevice(device);
        resetPeakMemory(device);
        ScopedBudget scope(device, budget, before);
        std::optional<MemoryTimelineRecording> recording;
        std::optional<CudaMemoryHistory> history;
        if (timeline && !isCudaName(device))
            recording.emplace(before);
        else if (timeline && CudaMemoryHistory::available())
            history.emplace(device, before);
        try {
            for (int64_t w = 0; w < windows; ++w) {
                const auto t0 = Clock::now();
                run.loss = engine->step(nullptr, cancel).loss;
                synchronizeDevice(device);
                run.stepMs.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
            }
        } catch (const c10::OutOfMemoryError &e) {
            run.outOfMemory = true;
            run.error = firstLine(e);
        }
        if (const auto peak = peakMemoryBytes(device))
            run.memory.peakBytes = *peak - before;
        if (split && !keep && !timeline && !run.outOfMemory && !isCudaName(device) && cpuMemoryCounted()) {
            try {
                MemoryTimelineRecording extra(before);
                engine->step(nullptr, cancel);
                run.memory.transient = transientOf(extra.finish());
            } catch (const std::logic_error &) {
                // another recording runs in this process (the lab's own window): no split here
            } catch (const c10::OutOfMemoryError &) {
                // the same window fitted before; should it not now, the split stays unmeasured
            }
        }
        if (!run.outOfMemory)
            run.memory.held = engine->heldBytes();
        std::optional<MemoryTimeline> recorded;
        if (recording)
            recorded = recording->finish();
        else if (history)
            recorded = history->finish();
        if (recorded) {
            *timeline = std::move(*recorded);
            timeline->microBatch = config.microBatch;
            timeline->accumSteps = config.accumSteps;
            timeline->floor = engine->heldBytes();
            timeline->budgetBytes = budget;
            run.memory.transient = transientOf(*timeline);
        }
    }
    if (keep && !run.outOfMemory)
        *keep = std::move(engine);
    return run;
}

} // namespace

std::optional<WindowMemory::Transient> transientOf(const MemoryTimeline &timeline)
{
    if (!timeline.phasesKnown())
        return std::nullopt;
    return WindowMemory::Transient{timeline.activationBytes(), timeline.stepTemporaryBytes()};
}

std::vector<int64_t> dividingMicroBatches(int64_t effectiveBatch, int64_t worldSize)
{
    std::vector<int64_t> out;
    if (worldSize < 1 || effectiveBatch < 1 || effectiveBatch % worldSize != 0)
        return out;
    const int64_t share = effectiveBatch / worldSize;
    for (int64_t m = 1; m <= share && m <= kMaxMicroBatch; ++m)
        if (share % m == 0)
            out.push_back(m);
    return out;
}

int64_t deviceMemoryBytes(const std::string &device)
{
    if (isCudaName(device))
        return cudaTotalBytes(device);
    return static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<int64_t>(sysconf(_SC_PAGE_SIZE));
}

void validate(const MemoryLabConfig &lab)
{
    AccumConfig probe = lab.base;
    probe.worldSize = 1;
    probe.accumSteps = 1;
    validate(probe);
    if (lab.base.worldSize < 1 || lab.base.worldSize > kMaxWorldSize)
        throw ConfigError("memory/world-size-range", TextArgs{{{"max", double(kMaxWorldSize)}}, {}});
    if (lab.effectiveBatch < 1 || lab.effectiveBatch > kMaxMicroBatch * lab.base.worldSize)
        throw ConfigError("memory/effective-batch-range",
                          TextArgs{{{"max", double(kMaxMicroBatch * lab.base.worldSize)}}, {}});
    if (lab.effectiveBatch % lab.base.worldSize != 0)
        throw ConfigError("memory/effective-batch-split",
                          TextArgs{{{"effective", double(lab.effectiveBatch)}, {"world", double(lab.base.worldSize)}}, {}});
    if (lab.budgetBytes && *lab.budgetBytes <= 0)
        throw ConfigError(*lab.budgetBytes == 0 ? "memory/budget-zero" : "memory/budget-negative", TextArgs{});
    if (lab.failsAfterSamples < 0)
        throw ConfigError("memory/fails-after-negative", TextArgs{});
    if (lab.budgetBytes && lab.failsAfterSamples > 0)
        throw ConfigError("memory/budget-and-fails-after", TextArgs{});
    const std::string device = resolveDevice(lab.base.device);
    if (lab.budgetBytes) {
        const int64_t machine = deviceMemoryBytes(device);
        if (machine > 0 && *lab.budgetBytes > machine)
            throw ConfigError(isCudaName(device) ? "memory/budget-over-gpu" : "memory/budget-over-memory",
                              TextArgs{{{"budget", static_cast<double>(*lab.budgetBytes)}, {"machine", static_cast<double>(machine)}}, {}});
        const int64_t weights = weightBytes(lab.base);
        if (*lab.budgetBytes <= weights)
            throw ConfigError("memory/budget-below-weights",
                              TextArgs{{{"budget", static_cast<double>(*lab.budgetBytes)}, {"weights", static_cast<double>(weights)}}, {}});
    }
    if (lab.failsAfterSamples > 0) {
        const int64_t share = lab.effectiveBatch / lab.base.worldSize;
        if (lab.failsAfterSamples > share) { // before "does not divide": 2^63 - 1 divides nothing
            TextArgs args;
            putInteger(args, "micro", lab.failsAfterSamples);
            putInteger(args, "share", share);
            throw ConfigError("memory/fails-after-range", args);
        }
        if (share % lab.failsAfterSamples != 0) {
            TextArgs args;
            putInteger(args, "micro", lab.failsAfterSamples);
            putInteger(args, "effective", lab.effectiveBatch);
            putInteger(args, "world", lab.base.worldSize);
            throw ConfigError(lab.base.worldSize > 1 ? "memory/micro-batch-not-dividing-ranks" : "memory/micro-batch-not-dividing",
                              args);
        }
    }
    if (!isCudaName(device) && !cpuMemoryCounted()) {
        installCpuMemoryCounter();
        if (!cpuMemoryCounted())
            throw ConfigError("memory/cpu-counter-off", TextArgs{});
    }
}

BudgetedRun runUnderBudget(const AccumConfig &config, int64_t budgetBytes, int64_t windows, const CancelToken *cancel,
                           bool split)
{
    return runKept(config, budgetBytes > 0 ? std::optional<int64_t>(budgetBytes) : std::nullopt, windows, cancel, nullptr,
                   nullptr, split);
}

WindowMemory measureWindows(const AccumConfig &config, int64_t windows)
{
    return runKept(config, std::nullopt, windows, nullptr, nullptr).memory;
}

int64_t resolveBudget(const MemoryLabConfig &lab)
{
    if (lab.budgetBytes)
        return *lab.budgetBytes;
    const int64_t n = lab.failsAfterSamples > 0 ? lab.failsAfterSamples : lab.base.microBatch;
    const std::vector<int64_t> c = dividingMicroBatches(lab.effectiveBatch, lab.base.worldSize);
    const auto peakAt = [&](int64_t micro) { return measureWindows(runConfig(lab, micro)).peakBytes; };
    // A window's peak, as a function of the micro-batch m at a fixed effective batch E: what the
    // engine holds, plus a little kept per micro-batch (E / m of them, falling with m), plus the
    // larger of one micro-batch's activations and the optimizer step's temporaries (rising
    // with m). Both parts are convex in m, so the peak is too: its largest value up to n is at
    // 1 or at n, and above n it falls at most until it starts to rise.
    const WindowMemory at = measureWindows(runConfig(lab, n));
    int64_t fitsPeak = at.peakBytes;
    if (n > c.front())
        fitsPeak = std::max(fitsPeak, peakAt(c.front()));
    const auto next = std::upper_bound(c.begin(), c.end(), n);
    if (next == c.end()) // n is the whole share: nothing larger to keep out
        return fitsPeak + std::max<int64_t>(1, at.transientBytes() / (4 * n));
    int64_t failsPeak = peakAt(*next), failsMicro = *next;
    for (auto it = next + 1; it != c.end(); ++it) {
        const int64_t p = peakAt(*it);
        if (p >= failsPeak)
            break;
        failsPeak = p;
        failsMicro = *it;
    }
    // Where the step's temporaries set the peaks (small micro-batches under AdamW), a larger
    // micro-batch needs no more than n does: no budget lets n samples through and stops the
    // next, and "fails after n" cannot be made true.
    if (failsPeak <= fitsPeak)
        throw ConfigError("memory/fails-after-not-separable",
                          TextArgs{{{"micro", double(n)},
                                    {"peak", double(fitsPeak)},
                                    {"next", double(failsMicro)},
                                    {"next_peak", double(failsPeak)}},
                                   {}});
    // Halfway: every micro-batch up to n fits, every larger one fails.
    return fitsPeak + (failsPeak - fitsPeak) / 2;
}

OomDemoResult runOomDemo(const MemoryLabConfig &lab, const CancelToken *cancel)
{
    validate(lab);
    OomDemoResult r;
    r.device = resolveDevice(lab.base.device);
    r.deviceBytes = deviceMemoryBytes(r.device);
    r.effectiveBatch = lab.effectiveBatch;
    r.microBatch = lab.failsAfterSamples > 0 ? lab.failsAfterSamples : lab.base.microBatch;
    const int64_t share = lab.effectiveBatch / lab.base.worldSize;
    if (share % r.microBatch != 0)
        throw ConfigError("memory/micro-batch-not-dividing",
                          TextArgs{{{"micro", double(r.microBatch)}, {"effective", double(lab.effectiveBatch)}}, {}});
    r.accumSteps = share / r.microBatch;
    if (r.accumSteps < 2)
        throw ConfigError("memory/demo-one-micro-batch", TextArgs{{{"micro", double(r.microBatch)}}, {}});
    r.failsAfterSamples = lab.budgetBytes ? 0 : r.microBatch;
    MemoryLabConfig resolved = lab;
    resolved.failsAfterSamples = r.failsAfterSamples;
    r.budgetBytes = resolveBudget(resolved);
    r.paramTolerance = EquivalenceConfig{}.fixedTolerance; // the lesson's 1e-4

    // 1. The full effective batch in one pass without the cap: what it needs, and the
    //    parameters its step gives (kept for the comparison).
    std::unique_ptr<AccumEngine> reference;
    const AccumConfig full = runConfig(lab, share);
    r.fullBatch = runKept(full, std::nullopt, 1, cancel, &reference, &r.fullBatchTimeline).memory;
    r.fullBatchTimeline.budgetBytes = r.budgetBytes; // the budget it is drawn against
    r.fullBatchTimeline.label = "full batch of " + std::to_string(share) + " in one pass";
    // 2. The same under the budget: an out-of-memory error raised inside LibTorch.
    const BudgetedRun capped = runKept(full, r.budgetBytes, 1, cancel, nullptr);
    r.fullBatchOutOfMemory = capped.outOfMemory;
    r.fullBatchError = capped.error;
    // 3. The same samples by accumulation, under the same budget.
    std::unique_ptr<AccumEngine> accumulated;
    const BudgetedRun acc =
        runKept(runConfig(lab, r.microBatch), r.budgetBytes, 1, cancel, &accumulated, &r.accumulationTimeline);
    r.accumulationTimeline.label = std::to_string(r.accumSteps) + " micro-batches of " + std::to_string(r.microBatch);
    r.accumulationSucceeded = !acc.outOfMemory;
    r.accumulationError = acc.error;
    r.accumulation = acc.memory;
    r.accumulationLoss = acc.loss;
    if (accumulated && reference)
        r.maxParamDiff = accumulated->maxAbsParamDiff(*reference);
    // 4. The verdict on that loop: the one every surface asks (its float64 twin decides).
    if (r.accumulationSucceeded)
        r.equivalence = runEquivalence(equivalenceConfigOf(runConfig(lab, r.microBatch)), cancel);
    return r;
}

std::optional<double> OomDemoResult::fullBatchCrossingPercent() const
{
    const auto i = fullBatchTimeline.firstAbove(budgetBytes);
    if (!i)
        return std::nullopt;
    return 100.0 * static_cast<double>(*i + 1) / static_cast<double>(fullBatchTimeline.events.size());
}

nlohmann::json memoryTimelineJson(const OomDemoResult &r)
{
    const auto crossing = r.fullBatchTimeline.firstAbove(r.budgetBytes);
    return {{"schema", kMemoryTimelineSchema},
            {"device", r.device},
            {"effective_batch", r.effectiveBatch},
            {"budget_bytes", r.budgetBytes},
            {"full_batch_crosses_budget_at_event", crossing ? nlohmann::json(*crossing) : nlohmann::json(nullptr)},
            {"runs", nlohmann::json::array({toJson(r.fullBatchTimeline), toJson(r.accumulationTimeline)})}};
}

void validate(const TradeoffConfig &c)
{
    validate(c.lab);
    if (c.numSteps < 1 || c.numSteps > 1000 || c.warmupSteps < 0 || c.warmupSteps > 1000)
        throw ConfigError("memory/tradeoff-steps-range", TextArgs{});
    const int64_t share = c.lab.effectiveBatch / c.lab.base.worldSize;
    for (int64_t m : c.microGrid) {
        if (m < 1 || m > share) {
            TextArgs args; // digit for digit: 2^63 - 1 once read as ...808
            putInteger(args, "micro", m);
            putInteger(args, "share", share);
            throw ConfigError("memory/tradeoff-micro-range", args);
        }
        if (share % m != 0)
            throw ConfigError(c.lab.base.worldSize > 1 ? "memory/tradeoff-micro-not-dividing-ranks"
                                                       : "memory/tradeoff-micro-not-dividing",
                              TextArgs{{{"micro", double(m)},
                                        {"effective", double(c.lab.effectiveBatch)},
                                        {"world", double(c.lab.base.worldSize)}},
                                       {}});
    }
}

TradeoffResult runTradeoff(const TradeoffConfig &config, const CancelToken *cancel, TradeoffProgress progress, void *context)
{
    validate(config);
    TradeoffResult result;
    result.config = config;
    const int64_t share = config.lab.effectiveBatch / config.lab.base.worldSize;
    if (result.config.microGrid.empty())
        for (int64_t m = 1; m <= share; m *= 2)
            if (share % m == 0)
                result.config.microGrid.push_back(m);
    result.device = resolveDevice(config.lab.base.device);
    result.threads = currentThreads();
    const bool budgeted = config.lab.budgetBytes || config.lab.failsAfterSamples > 0;
    result.budgetBytes = budgeted ? resolveBudget(config.lab) : 0;
    const auto &grid = result.config.microGrid;
    for (size_t i = 0; i < grid.size(); ++i) {
        const AccumConfig c = runConfig(config.lab, grid[i]);
        TradeoffPoint p;
        p.microBatch = c.microBatch;
        p.accumSteps = c.accumSteps;
        p.effectiveBatch = config.lab.effectiveBatch;
        const BudgetedRun run =
            runUnderBudget(c, result.budgetBytes, config.warmupSteps + config.numSteps, cancel, /*split=*/true);
        p.outOfMemory = run.outOfMemory;
        p.error = run.error;
        p.memory = run.memory;
        if (currentMemoryBytes(result.device))
            p.peakMemBytes = run.memory.peakBytes;
        if (!run.outOfMemory) {
            std::vector<double> timed(run.stepMs.begin() + config.warmupSteps, run.stepMs.end());
            p.steps = static_cast<int64_t>(timed.size());
            std::sort(timed.begin(), timed.end());
            const size_t n = timed.size();
            p.stepMsMedian = n % 2 ? timed[n / 2] : 0.5 * (timed[n / 2 - 1] + timed[n / 2]);
            p.samplesPerSec = p.stepMsMedian > 0.0 ? 1000.0 * static_cast<double>(share) / p.stepMsMedian : 0.0;
        }
        result.points.push_back(p);
        if (progress)
            progress(context, result.points.back(), static_cast<int64_t>(i), static_cast<int64_t>(grid.size()));
    }
    return result;
}

std::vector<int64_t> TradeoffResult::stepSetPeakAt() const
{
    std::vector<int64_t> out;
    for (const TradeoffPoint &p : points)
        if (!p.outOfMemory && p.memory.transient && p.memory.transient->stepSetsPeak())
            out.push_back(p.microBatch);
    return out;
}

MicroBatchFinding findMicroBatch(const MemoryLabConfig &lab, const CancelToken *cancel)
{
    validate(lab);
    if (!lab.budgetBytes && lab.failsAfterSamples <= 0)
        throw ConfigError("memory/finder-needs-budget", TextArgs{});
    MicroBatchFinding f;
    f.budgetBytes = resolveBudget(lab);
    f.effectiveBatch = lab.effectiveBatch;
    f.worldSize = lab.base.worldSize;
    // Every micro-batch that divides the effective batch is measured: memory need not grow with
    // the micro-batch (where the optimizer step's temporaries set the peak, a small micro-batch
    // can need more than a larger one: AdamW at effective 96 once fitted 48 and not 1), so no
    // candidate is skipped on the strength of another's result.
    for (const int64_t micro : dividingMicroBatches(lab.effectiveBatch, lab.base.worldSize)) {
        const bool ok = !runUnderBudget(runConfig(lab, micro), f.budgetBytes, 2, cancel).outOfMemory;
        f.tried.emplace_back(micro, ok);
        if (ok)
            f.microBatch = micro;
    }
    if (f.microBatch == 0)
        return f;
    f.accumSteps = lab.effectiveBatch / (f.microBatch * f.worldSize);
    return f;
}

} // namespace accumlab
