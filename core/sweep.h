// The throughput sweep: fixed micro-batch, a grid of accumulation steps, a fresh model per
// point from the same seed, warm-up steps untimed, then num_steps timed effective steps.
#pragma once

#include "core/config.h"
#include "core/observer.h"

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
    std::optional<int64_t> peakMemBytes; // CUDA: peak bytes allocated during the timed steps
    int64_t microBatches = 0;  // timed micro-batches
    int64_t optimizerStateStep = 0;
    int64_t warmupSteps = 0;
    double wallS = 0.0;        // wall time of the timed region
    double finalLoss = 0.0;
    double avgLoggedLoss = std::numeric_limits<double>::quiet_NaN(); // mean of the steps' logged
                                // loss (StepResult::loggedLoss); NaN when a file did not carry it
    std::vector<double> losses; // per timed step, unscaled
    bool diverged = false;      // the loss or the gradient norm went to NaN or Inf; the point stopped there
    int64_t divergedAtStep = -1; // 1-based optimizer step of the point, warm-up steps counted first
    std::string device;
    std::string dtype;
    int threads = 0;
};

// "diverged at step k of effective batch B (...)": the report of a diverged point.
std::string divergenceSentence(const SweepPoint &);

struct SweepResult {
    SweepConfig config;
    std::vector<SweepPoint> points;
    double plateauSamplesPerSec() const; // the best point's samples/sec
};

// What the timed region of every point contains (written into the JSON).
extern const char *const kTimedRegion;

class GradSync;

// Runs the sweep point by point; observer->onSweepPoint after each. Throws Cancelled.
// With config.base.worldSize > 1, `sync` is this rank's process group (joinProcessGroup) and
// every rank runs the same sweep; each point's model is synced through it.
SweepResult runSweep(const SweepConfig &config, EngineObserver *observer = nullptr,
                     const CancelToken *cancel = nullptr, std::shared_ptr<GradSync> sync = nullptr);

// Runs one point of a sweep (the unit the GUI and the benchmark reuse).
SweepPoint runSweepPoint(const SweepConfig &config, int64_t accumSteps,
                         EngineObserver *observer = nullptr, const CancelToken *cancel = nullptr,
                         std::shared_ptr<GradSync> sync = nullptr);

} // namespace accumlab
