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

struct NumberStyle;

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
    double updateScaleBound = 0.0; // |updateScale - 1| allowed: k |reorderedUpdateScale - 1|, at least
                                   // 4 eps, plus updateScaleSensitivity and 4 updateScaleNoise
    double updateScaleNoise = 0.0; // the standard deviation that d_acc - updateScale d_full gives
                                   // the scale, its elements taken as independent
    double updateScaleSensitivity = 0.0; // what the optimizer's per-element sensitivity (the parameter
                                         // bound's r) lets gradient noise move the scale: AdamW near eps
    double maxAbsGrad = 0.0;    // max |g_full| over all tensors
    double maxAbsParam = 0.0;   // max |theta_full| after the step
    double gradBoundDtype = 0.0;  // k * eps(dtype) * max|g|
    // The parameters after the first step are bounded element by element (equivalence.cpp,
    // checkParams): |p_full - p_acc| <= base + lr0 * r, r the optimizer's response to the
    // element's gradient difference (|dg| for SGD and momentum, |dg| / (min |g| + eps) for
    // AdamW's first step g / (|g| + eps)); base is the fixed tolerance, or
    // k * eps(dtype) * (max|theta| + lr0) for the dtype-aware verdict.
    double firstStepLr = 0.0;      // lr0: the rate of the first update (schedule step 0)
    double paramExcessFixed = 0.0; // max over elements of |dp| / bound with the fixed base: < 1 holds
    double paramExcessDtype = 0.0; // the same with the dtype-aware base: <= 1 holds
    double paramBoundFixed = 0.0;  // the bound at the fixed verdict's worst element
    double paramBoundDtype = 0.0;  // the bound at the dtype-aware verdict's worst element
    // The applied verdict's worst element: "fc1.weight[37]", its |dp| and the two gradients
    // the sides stepped with there.
    std::string worstParam;
    double worstParamDiff = 0.0;
    double worstParamGradFull = 0.0;
    double worstParamGradAcc = 0.0;
    bool holdsFixed = false;      // grads under the lesson's 1e-4, params within their fixed bound
    bool holdsDtypeAware = false; // both diffs within the dtype-aware bounds
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
    double appliedParamTolerance() const; // the bound at the applied verdict's worst element
    double appliedParamExcess() const;
    // The sentence for causeCode() ("" when it holds), from the content
    // (resources/content/equivalence.json) with the fields above: in English (what the CLI
    // prints), or for a reader's language and digits (the window's equivalence panel).
    std::string cause() const;
    std::string cause(const NumberStyle &style) const;
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
