// Memory, measured: the lesson's "your accelerator fails after 32 samples" made real on every
// device. A budget (bytes above what is allocated when a run starts, or "fails after N
// samples", measured) is held by the CPU's counting allocator (core/memory/cpu_memory.h) or by the
// CUDA caching allocator's memory fraction; what goes beyond fails with LibTorch's own
// out-of-memory error. Three things run the engine's window under it:
//   the out-of-memory demo: the full effective batch in one pass fails, the same samples by
//     accumulation fit, and the one verdict (core/equivalence.h, its float64 twin) says whether
//     that loop's step is the full batch's;
//   the trade-off sweep (accum-tradeoff.v1): a fixed effective batch over a grid of
//     micro-batches, time per optimizer step and measured peak per point, the points beyond
//     the budget failing;
//   the micro-batch finder: every micro-batch that divides the effective batch, measured under
//     the budget, for the largest that fits (memory need not grow with the micro-batch);
//     accum_steps = effective / (micro x world).
// The public surface holds no torch types.
#pragma once

#include "core/config.h"
#include "core/engine.h"
#include "core/equivalence.h"
#include "core/memory/memory_timeline.h"

#include <cstdint>
#include <optional>
#include <utility>
#include <string>
#include <vector>

namespace accumlab {

class CancelToken;

// A run's memory as measured on its device: the peak over its windows, counted from before its
// engine was built (the weights, buffers and samples it holds are in it).
struct WindowMemory {
    HeldBytes held;         // what the engine holds between windows, from its tensors
    int64_t peakBytes = 0;  // measured: the most allocated at once during the windows
    // Above what the engine holds: one micro-batch's activations and the step's temporaries.
    int64_t transientBytes() const { return peakBytes > held.total() ? peakBytes - held.total() : 0; }
    // The transient split, measured on a recorded window (the counting CPU allocator's phases;
    // empty on a device whose history has none): the most one micro-batch's forward and backward
    // add, and the most the optimizer step adds, each above the floor of its moment.
    struct Transient {
        int64_t activations = 0;
        int64_t stepTemporaries = 0;
        // The step's temporaries, not the activations, set the peak: then the peak does not grow
        // with the micro-batch (AdamW's moments and their temporaries, the size of the weights).
        bool stepSetsPeak() const { return stepTemporaries >= activations; }
    };
    std::optional<Transient> transient;
};
// The split of `timeline`'s window; empty where its events carry no phases.
std::optional<WindowMemory::Transient> transientOf(const MemoryTimeline &timeline);

// What each run measures or is budgeted for: the model, its dtype and device, the optimizer.
// microBatch and accumSteps are set per run; worldSize only divides the effective batch (one
// process stands for one rank: a rank holds its share).
// The lesson's "your accelerator fails after 32 samples": the memory demo's default budget.
constexpr int64_t kLessonFailsAfterSamples = 32;

struct MemoryLabConfig {
    AccumConfig base;
    int64_t effectiveBatch = 512;
    std::optional<int64_t> budgetBytes; // the budget in bytes
    int64_t failsAfterSamples = 0; // > 0: the budget measured so that this micro-batch fits and the next does not
};
// Bad input in one sentence (ConfigError): a budget of zero or below, beyond the machine's
// memory or under the model's own weights; an effective batch the world size does not divide.
void validate(const MemoryLabConfig &);

// The micro-batches that divide the effective batch's share of one rank, ascending.
std::vector<int64_t> dividingMicroBatches(int64_t effectiveBatch, int64_t worldSize);
// The memory this machine has for the device: physical RAM on the CPU, the GPU's on CUDA.
int64_t deviceMemoryBytes(const std::string &device);
// The measured peak of `windows` windows of `config`, run without a budget.
WindowMemory measureWindows(const AccumConfig &config, int64_t windows = 2);
// The budget in bytes that lab.failsAfterSamples (n) stands for (lab.budgetBytes when that is
// set): halfway between the largest measured peak of the micro-batches up to n and the
// smallest of those above it that divide the effective batch, so that n fits and the next does
// not. Throws ConfigError (memory/fails-after-not-separable) where no larger micro-batch peaks
// higher: the optimizer step's temporaries, not the activations, set the peaks there.
int64_t resolveBudget(const MemoryLabConfig &lab);

// One budgeted run: `windows` windows of `config` under `budgetBytes` (0: none).
struct BudgetedRun {
    bool outOfMemory = false;
    std::string error; // LibTorch's message, first line
    WindowMemory memory;
    std::vector<double> stepMs; // wall time of each window
    double loss = 0.0;          // the last window's loss
};
// `split`: one more window, recorded after the timed ones, measures WindowMemory::transient
// (on the CPU, where no other recording runs).
BudgetedRun runUnderBudget(const AccumConfig &config, int64_t budgetBytes, int64_t windows,
                           const CancelToken *cancel = nullptr, bool split = false);

struct OomDemoResult {
    std::string device;
    int64_t deviceBytes = 0;      // what the machine has (RAM, or the GPU's memory)
    int64_t budgetBytes = 0;      // the budget the demo held
    int64_t failsAfterSamples = 0; // set when the budget was given that way
    int64_t microBatch = 0;
    int64_t accumSteps = 0;
    int64_t effectiveBatch = 0;
    WindowMemory fullBatch;       // the full effective batch in one pass, measured without the cap
    bool fullBatchOutOfMemory = false; // under the budget it failed with an out-of-memory error
    std::string fullBatchError;
    bool accumulationSucceeded = false;
    std::string accumulationError;
    WindowMemory accumulation;    // the same effective batch by accumulation, under the budget
    double accumulationLoss = 0.0;
    double maxParamDiff = 0.0;    // after the step: accumulation against the uncapped full batch
    double paramTolerance = 0.0;  // the lesson's 1e-4: a yardstick shown with its own label, never the verdict
    // The verdict on the demo's loop (its settings, micro x accum against the full batch), as
    // every surface asks it: runEquivalence's float64 twin. Run when the accumulation fitted.
    std::optional<EquivalenceResult> equivalence;
    // The allocator's events of one window of each (CPU runs): the uncapped full batch's hill,
    // drawn against the budget it crosses, and the accumulation's N small hills under it.
    MemoryTimeline fullBatchTimeline;
    MemoryTimeline accumulationTimeline;
    // The accumulated step is the full batch's: the verdict holds (or a planted bug had no effect).
    bool sameStep() const { return accumulationSucceeded && equivalence && equivalence->verdict() != Verdict::Fails; }
    bool contrastShown() const { return fullBatchOutOfMemory && sameStep(); }
    // How far through its recorded window the full batch's live bytes first exceed the budget,
    // in percent of its events; empty when they never do (or nothing was recorded).
    std::optional<double> fullBatchCrossingPercent() const;
};
// lab.base.microBatch is the micro-batch (with failsAfterSamples 0 and budgetBytes 0 it is
// also the "fails after" size); accumSteps = effective / (micro x world).
OomDemoResult runOomDemo(const MemoryLabConfig &lab, const CancelToken *cancel = nullptr);
// The demo's two timelines as one memory-timeline.v1 document: the device, the budget, and
// the runs (the full batch first), with the event at which the full batch crosses the budget.
nlohmann::json memoryTimelineJson(const OomDemoResult &r);

struct TradeoffPoint {
    int64_t microBatch = 0;
    int64_t accumSteps = 0;
    int64_t effectiveBatch = 0;
    bool outOfMemory = false;
    std::string error;
    int64_t steps = 0;          // timed optimizer steps (0 when out of memory)
    double stepMsMedian = 0.0;  // time per optimizer step
    double samplesPerSec = 0.0; // effective batch / median step time
    std::optional<int64_t> peakMemBytes; // measured; empty when the device does not measure
    WindowMemory memory;
};
struct TradeoffConfig {
    MemoryLabConfig lab;            // no budget and failsAfter 0: no budget wall
    std::vector<int64_t> microGrid; // empty: every power of two dividing the effective batch
    int64_t numSteps = 5;           // timed optimizer steps per point
    int64_t warmupSteps = 1;
};
void validate(const TradeoffConfig &);
struct TradeoffResult {
    TradeoffConfig config;
    std::string device;
    int threads = 0;
    int64_t budgetBytes = 0; // resolved; 0 when none
    std::vector<TradeoffPoint> points;
    // The micro-batches (ascending) whose measured peak the optimizer step's temporaries set, not
    // their activations: where the line is flat for that reason. Empty where none or unmeasured.
    std::vector<int64_t> stepSetPeakAt() const;
};
// Observer: called after each point.
using TradeoffProgress = void (*)(void *context, const TradeoffPoint &point, int64_t index, int64_t count);
TradeoffResult runTradeoff(const TradeoffConfig &config, const CancelToken *cancel = nullptr,
                           TradeoffProgress progress = nullptr, void *context = nullptr);

struct MicroBatchFinding {
    int64_t budgetBytes = 0;
    int64_t microBatch = 0;   // the largest that fits; 0 when not even 1 does
    int64_t accumSteps = 0;
    int64_t effectiveBatch = 0;
    int64_t worldSize = 1;
    std::vector<std::pair<int64_t, bool>> tried; // in order: micro-batch, whether it fitted
};
MicroBatchFinding findMicroBatch(const MemoryLabConfig &lab, const CancelToken *cancel = nullptr);

} // namespace accumlab
