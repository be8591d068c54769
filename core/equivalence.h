// The lesson's proof in code: one full batch in one pass against the same samples split
// into micro-batches with loss/N through the engine's own window, from two identical models,
// over two windows in a row. Reports gradient-buffer and
// parameter differences with the lesson's fixed bound and a dtype-aware bound beside it.
#pragma once

#include "core/config.h"
#include "core/observer.h"

#include <memory>
#include <string>
#include <vector>

namespace accumlab {

class GradSync;

struct LayerDiff {
    std::string name;       // parameter tensor, "fc1.weight"
    double gradDiff = 0.0;  // max |g_full - g_accum|
    double paramDiff = 0.0; // max |p_full - p_accum| after the step
    double maxAbsGrad = 0.0; // max |g_full|
};

// A second split compared against the first split (split vs split, not vs full batch).
struct SplitComparison {
    Split split;
    double maxGradDiff = 0.0;     // second split vs full batch
    double maxParamDiff = 0.0;
    double vsFirstGradDiff = 0.0; // second split vs first split
    double vsFirstParamDiff = 0.0;
};

// Why an equivalence check failed, in the order they are looked for: the models, the two
// teaching bugs, the planted classic bug, then what the verdict measured.
enum class EquivalenceCause {
    None,
    InitMismatch,
    NoDivision,
    StepEveryMicro,
    ZeroEveryMicro,
    NeverZero,
    DivideByNPlusOne,
    SkipLastMicro,
    CountMicroTwice,
    ScheduleEveryMicro,
    ClipEachMicro,
    GradDiffAboveTolerance,
    ParamDiffAboveTolerance,
    GradScaleOff,
    UpdateScaleOff,
    SecondWindow
};

struct EquivalenceResult {
    EquivalenceConfig config;
    std::string device;
    double maxGradDiff = 0.0;
    double maxParamDiff = 0.0;
    bool paramsInitMatch = false;
    double updateRatio = 0.0;   // ||theta_acc - theta0|| / ||theta_full - theta0||
    double gradRatio = 0.0;     // ||g_acc|| / ||g_full||
    double gradScale = 0.0;     // <g_acc, g_full> / <g_full, g_full>: the accumulated gradient's scale
    double gradScaleBound = 0.0; // |gradScale - 1| allowed by the dtype-aware verdict: eps(dtype)
    double updateScale = 0.0;   // <d_acc, d_full> / <d_full, d_full>, d = theta after the first step - theta_0
    double reorderedUpdateScale = 0.0; // the same for the full batch summed in reverse sample order
    double updateScaleBound = 0.0; // |updateScale - 1| allowed: k |reorderedUpdateScale - 1|, at least eps
    double maxAbsGrad = 0.0;    // max |g_full| over all tensors
    double maxAbsParam = 0.0;   // max |theta_full| after the step
    double gradBoundDtype = 0.0;  // k * eps(dtype) * max|g|
    double paramBoundDtype = 0.0; // eps(dtype) * max|theta| + lr-scaled gradient bound
    bool holdsFixed = false;      // both diffs under the lesson's 1e-4
    bool holdsDtypeAware = false; // both diffs under the dtype-aware bounds
    bool holds = false;           // the bound that applies: fixed for f32/f64, dtype-aware for bf16
    int64_t fullOptimizerStateStep = 0;
    int64_t accumOptimizerStateStep = 0;
    // The window that follows: what one window cannot show, such as buffers never zeroed.
    // Its buffers are compared with the full-batch gradient at the engine's own parameters;
    // part of every verdict.
    double secondWindowGradDiff = 0.0;
    double secondWindowGradBoundDtype = 0.0;
    int64_t secondWindowStateStep = 0;     // the engine's optimizer state step after two windows
    int64_t fullSecondWindowStateStep = 0; // the reference's
    std::vector<LayerDiff> layers;
    std::vector<SplitComparison> comparisons;

    // Why the check failed (None when it holds): one code, its figures in the fields above.
    EquivalenceCause causeCode() const;
    // The tolerances the verdict applied: dtype-aware in bfloat16, the fixed one otherwise.
    double appliedGradTolerance() const;
    double appliedParamTolerance() const;
    // The English sentence for causeCode() ("" when it holds); the window words it in its
    // own language from the same code and fields.
    std::string cause() const;
};

// Throws ConfigError for a split that does not divide; Cancelled when the token is set.
// With config.worldSize > 1, `sync` is this rank's process group (joinProcessGroup): every
// rank draws the same big batch, accumulates its own shard's micro-batches, all-reduces the
// gradient buffer once after the last one, and compares against the full batch computed
// locally (the same on every rank, so every rank reaches the same verdict).
EquivalenceResult runEquivalence(const EquivalenceConfig &config, const CancelToken *cancel = nullptr,
                                 std::shared_ptr<GradSync> sync = nullptr);

// The check of an engine's settings: one window of `c` against the full batch of every rank's
// samples (micro x accum x ranks), with its widths, ranks, optimizer, scaling, bugs, dtype,
// device, labels and seed. The one mapping from the lab's settings to the check, for the
// window's equivalence panel and the experiments alike.
EquivalenceConfig equivalenceConfigOf(const AccumConfig &c);

// For a viewer: the check over config.worldSize ranks run as threads of this process
// (core/thread_ranks.cpp), each rank's engine meeting the others in an in-process all-reduce;
// rank 0's result. With one rank, runEquivalence.
EquivalenceResult runEquivalenceOnThreads(const EquivalenceConfig &config, const CancelToken *cancel = nullptr);

} // namespace accumlab
