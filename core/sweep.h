// The throughput sweep: fixed micro-batch, a grid of accumulation steps, a fresh model per
// point from the same seed, warm-up steps untimed, then num_steps timed effective steps in
// blocks interleaved across the points, so each point reports a median and a spread.
#pragma once

#include "core/config.h"
#include "core/memory/memory.h"
#include "core/observer.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace accumlab {

// One point of accum-curve.v1. The first eight fields are the lesson's, by name.
struct SweepPoint {
    int64_t effectiveBatch = 0;
    int64_t accumSteps = 0;
    int64_t microBatch = 0;
    double avgLoss = 0.0;
    double samplesPerSec = 0.0;
    double medianStepMs = 0.0;
    int64_t syncCalls = 0;     // sync points executed during the timed steps
    int64_t steps = 0;         // timed optimizer steps
    // AccumLab's additions.
    int64_t worldSize = 1;
    int64_t allreduceCalls = 0; // collectives issued during the timed steps (0 with one rank)
    int64_t allreduceBytes = 0; // bytes all-reduced during the timed steps
    double allreduceMs = 0.0;   // wall time spent in those collectives
    std::optional<int64_t> peakMemBytes; // what the engine holds after its warm-up plus the largest rise in a block
    std::optional<HeldBytes> held;       // of that, the weights, gradient buffers, optimizer state, samples
    int64_t microBatches = 0;  // timed micro-batches
    int64_t optimizerStateStep = 0;
    int64_t warmupSteps = 0;
    double wallS = 0.0;        // wall time of the timed region
    double finalLoss = 0.0;
    double avgLoggedLoss = std::numeric_limits<double>::quiet_NaN(); // mean of the steps' logged
                                // loss (StepResult::loggedLoss); NaN when a file did not carry it
    std::vector<double> losses; // per timed step, unscaled
    // samples/sec of each timed block (SweepConfig::repeats, interleaved across the grid), in
    // the order they ran; samplesPerSec above is the whole timed region's.
    std::vector<double> blockSamplesPerSec;
    // With SweepConfig::phaseTiming, per block in the same order: t_window, a window's own work
    // (AccumEngine::windowWorkSeconds: zeroing, sync, unscale, clip, the norms' read, the step),
    // and t_micro, the rest of the block's wall time per micro-batch (drawing its samples, its
    // forward and backward, the loop). A block's wall time is steps x (accum_steps x t_micro +
    // t_window). Not written to accum-curve.v1.
    std::vector<double> blockMicroMs;
    std::vector<double> blockWindowMs;
    double blockMedian() const; // median of the blocks (samplesPerSec when there are none)
    double blockMin() const;    // the spread: the slowest and the fastest block
    double blockMax() const;
    // The q-quantile of the blocks (0 <= q <= 1, linear between order statistics): the
    // timing verdicts judge the middle half, blockQuantile(0.25) to blockQuantile(0.75).
    double blockQuantile(double q) const;
    bool diverged = false;      // core/divergence.h's verdict on the point's windows; the point stopped there
    int64_t divergedAtStep = -1; // 1-based optimizer step of the point, warm-up steps counted first
    std::string divergedReason; // why, as core/divergence.h's stable codes ("loss-exploded", ...); empty when unknown
    std::string device;
    std::string dtype;
    int threads = 0;
    // float16 (dtype "float16"): the path that ran, "float16" or "float16-emulated"; empty in
    // other dtypes and in files without it.
    std::string float16Path;
    // The loss scaler, when the point ran with one: its state after the point's last window
    // (warm-up windows counted): the scale, the windows skipped for an Inf/NaN, unscale_() calls.
    bool lossScaling = false;
    double lossScale = 0.0;
    int64_t skippedWindows = 0;
    int64_t unscaleCalls = 0;
};

// Inline, so that the torch-free reader (and its fuzz target, built from core/io/curve_io.cpp
// alone) has them too.
// The q-quantile of `v` (0 <= q <= 1, linear between order statistics); 0 when it is empty.
inline double quantile(std::vector<double> v, double q)
{
    if (v.empty())
        return 0.0;
    std::sort(v.begin(), v.end());
    const double at = std::clamp(q, 0.0, 1.0) * static_cast<double>(v.size() - 1);
    const auto below = static_cast<size_t>(std::floor(at));
    const size_t above = std::min(below + 1, v.size() - 1);
    return v[below] + (at - static_cast<double>(below)) * (v[above] - v[below]);
}
inline double SweepPoint::blockQuantile(double q) const
{
    return blockSamplesPerSec.empty() ? samplesPerSec : quantile(blockSamplesPerSec, q);
}
inline double SweepPoint::blockMedian() const { return blockQuantile(0.5); }
inline double SweepPoint::blockMin() const { return blockQuantile(0.0); }
inline double SweepPoint::blockMax() const { return blockQuantile(1.0); }

// "diverged at step k of effective batch B (...)": the report of a diverged point.
std::string divergenceSentence(const SweepPoint &);

struct SweepResult {
    SweepConfig config;
    std::vector<SweepPoint> points;
    double plateauSamplesPerSec() const; // the best point's samples/sec
};

// The throughput model that the sweep-flattening experiment judges and the window draws: a step
// of N micro-batches costs N t_micro + t_window (each micro-batch's work, and the window's own:
// zeroing, sync, the step), so samples/sec(N) = N s / (N t_micro + t_window), with s the samples
// of one micro-batch on all ranks (effective batch / N). The costs come from the points' phase
// timing (SweepPoint::blockMicroMs, blockWindowMs): block b's are the means over the points of
// their block b, since every point runs the same micro-batch and the same window work; their
// spread over the blocks is the prediction's.
struct SweepCostModel {
    double samplesPerMicroBatch = 0.0;
    std::vector<double> tMicroMs, tWindowMs; // per block
    size_t blocks() const { return tMicroMs.size(); }
    // samples/sec at N = accumSteps (a whole number on the sweep's grid, any N >= 1 between
    // its points for the curve drawn through them), from block `block`'s costs.
    double predicted(double accumSteps, size_t block) const;
    double predictedMedian(double accumSteps) const; // over the blocks
};
// No blocks where there are no points or a point has no phase timing (SweepConfig::phaseTiming).
SweepCostModel costModelOf(const std::vector<SweepPoint> &points);

// What the timed region of every point contains (written into the JSON).
extern const char *const kTimedRegion;

class GradSync;

// Runs the sweep: every point's engine is built and warmed up, then the timed steps run in
// config.blocks() rounds, each round one block of every point in grid order.
// observer->onSweepPointStarted before a point's first block, onSweepBlock before each of its
// blocks (its steps' onStep follow), onSweepPoint after its last block. Throws Cancelled.
// With config.base.worldSize > 1, `sync` is this rank's process group (joinProcessGroup) and
// every rank runs the same sweep; each point's model is synced through it.
SweepResult runSweep(const SweepConfig &config, EngineObserver *observer = nullptr,
                     const CancelToken *cancel = nullptr, std::shared_ptr<GradSync> sync = nullptr);

// The window's sweep (Run sweep, and `accumlab` without a display): a laptop must show the
// lesson's shape there, where a handful of short blocks at N = 1 showed the machine's noise. So
// every point does the same work (equalWork: numSteps is what the grid's largest accum_steps
// runs), in kLabSweepBlocks interleaved blocks, each of which also measures the cost model's two
// costs on the CPU (phaseTiming; on a GPU they would synchronize around every window's work).
// The chart draws a point from its first block on (onSweepBlockDone), so the points appear one
// by one in the first round and settle over the others.
constexpr int64_t kLabSweepBlocks = 10;
void useLabTiming(SweepConfig &config);

// Runs one point of a sweep (a sweep of a one-entry grid).
SweepPoint runSweepPoint(const SweepConfig &config, int64_t accumSteps,
                         EngineObserver *observer = nullptr, const CancelToken *cancel = nullptr,
                         std::shared_ptr<GradSync> sync = nullptr);

} // namespace accumlab
