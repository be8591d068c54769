// The lesson's proof in code: one full batch in one pass against the same samples split
// into micro-batches with loss/N through the engine's own window, from two identical models,
// over two windows in a row, and the one verdict every surface asks (exit codes, the window's
// panel and colours, the main job, both exports, the experiments).
//
// The verdict is derived, not tuned: a float64 twin of both runs (the same initial parameters,
// the same samples, the same settings, a planted bug included) decides whether the loop is
// equivalent. In float64 a correct loop's two sides differ only by the order of their sums,
// about 1e-15 of the gradient; any planted bug that changes the run moves it by the bug's own
// effect, orders of magnitude more, at every learning rate. The run's own dtype figures are
// then explained by that dtype's measured rounding (its full batch against the twin's), never
// judged by a number. docs/cli.md ("How the verdict is derived") gives the argument.
#pragma once

#include "core/config.h"
#include "core/observer.h"

#include <memory>
#include <string>
#include <vector>

namespace accumlab {

struct NumberStyle;

class GradSync;

// The twin's allowance: a norm-wise relative difference of 2^-30 (about 9.3e-10) between the
// float64 twin's two sides, plus the rounding of the stored float64 parameters an update is
// read from. Why this number (docs/cli.md, "How the verdict is derived"): float64 keeps 53 bits; a
// sum of K terms reordered moves its result by at most about K u (u = 2^-53) of the sum of the
// terms' magnitudes, and the longest sum any run here computes has K < 2^21 terms (a batch of
// 512 rows times a fan-in of at most 4096), so a correct loop stays below 2^21 u = 2^-32 even
// before its errors average out (measured: under 1e-13 over the verdict grid). A planted bug
// changes the run by its own effect: a wrong divisor, a missing or doubled micro-batch, a
// schedule or an optimizer step that ran ahead move it by 1/(N+1) at least, and a clip that
// bit by the share it cut, which is below 2^-30 only for a clip within a billionth of its
// threshold. The allowance is independent of the CPU and its kernels: they reorder float64
// sums, which stays eleven orders of magnitude below it.
constexpr double kTwinTolerance = 0x1p-30;

struct LayerDiff {
    std::string name;        // parameter tensor, "fc1.weight"
    double gradDiff = 0.0;   // max |g_full - g_accum| in the run's dtype
    double paramDiff = 0.0;  // max |p_full - p_accum| after the step, in the run's dtype
    double maxAbsGrad = 0.0; // max |g_full|
    // The float64 twin's figures for this tensor, over both windows: the largest norm-wise
    // relative difference of its gradient buffer and of its update, and whether the twin's two
    // sides differ here (the verdict, per tensor: what the window colours by).
    double twinGradDiff = 0.0;
    double twinUpdateDiff = 0.0;
    bool differs = false;
};

// A second split compared against the first split (split vs split, not vs full batch).
struct SplitComparison {
    Split split;
    double maxGradDiff = 0.0;     // second split vs full batch
    double maxParamDiff = 0.0;
    double vsFirstGradDiff = 0.0; // second split vs first split
    double vsFirstParamDiff = 0.0;
};

// The verdict: the twin's two sides agree (Holds), differ (Fails), or a planted bug left the
// run as the correct loop's (NoEffect: it had no effect here, and the sentence says why).
enum class Verdict { Holds, Fails, NoEffect };
std::string toString(Verdict); // "holds", "fails", "no-effect"

// Why an equivalence check failed: the models, the planted bug that the twin shows, or, for a
// loop without one, what the twin measured.
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
    TwinGradients,   // the twin's gradient buffers differ (a window's, relative)
    TwinUpdate,      // the twin's updates differ
    TwinStateStep    // the twin's optimizer state advanced another number of times
};

// The float64 twin of both sides, window by window: what decides.
struct TwinWindow {
    double gradDiff = 0.0;   // ||g_acc - g_full|| / ||g_full||, every tensor at once
    double updateDiff = 0.0; // ||d_acc - d_full|| / ||d_full||, d = the window's parameter update
    // The difference over its allowance (kTwinTolerance times the reference's norm, plus, for
    // the update, the rounding of the float64 parameters it is read from): <= 1 agrees.
    double gradExcess = 0.0;
    double updateExcess = 0.0;
    int64_t accStateStep = 0;  // the optimizer state step after the window
    int64_t fullStateStep = 0;
    bool agrees() const { return gradExcess <= 1.0 && updateExcess <= 1.0 && accStateStep == fullStateStep; }
};

struct EquivalenceResult {
    EquivalenceConfig config;
    std::string device;
    // The run's dtype, first window: what the lesson shows.
    double maxGradDiff = 0.0;
    double maxParamDiff = 0.0;
    bool paramsInitMatch = false;
    double updateRatio = 0.0;   // ||theta_acc - theta0|| / ||theta_full - theta0||
    double gradRatio = 0.0;     // ||g_acc|| / ||g_full||
    double gradScale = 0.0;     // <g_acc, g_full> / <g_full, g_full>: the accumulated gradient's scale
    double updateScale = 0.0;   // <d_acc, d_full> / <d_full, d_full>, d = theta after the first step - theta_0
    double maxAbsGrad = 0.0;    // max |g_full| over all tensors
    double maxAbsParam = 0.0;   // max |theta_full| after the step
    double firstStepLr = 0.0;   // the rate of the first update (schedule step 0)
    int64_t fullOptimizerStateStep = 0;
    int64_t accumOptimizerStateStep = 0;
    // The window that follows, in the run's dtype: its buffers against the full-batch gradient
    // at the engine's own parameters, and the optimizer state steps after two windows.
    double secondWindowGradDiff = 0.0;
    int64_t secondWindowStateStep = 0;
    int64_t fullSecondWindowStateStep = 0;

    // The verdict's evidence: the float64 twin, each window (the twin is the run itself when
    // the run is float64).
    std::vector<TwinWindow> twin;
    // The run's dtype explained by its own rounding (first window, norm-wise relative):
    // the accumulated side against the full batch in the run's dtype, and the full batch in
    // the run's dtype against its float64 twin (what rounding alone does to the same sums).
    double dtypeGradDiff = 0.0;
    double dtypeUpdateDiff = 0.0;
    double roundingGradDiff = 0.0;
    double roundingUpdateDiff = 0.0;
    // The lesson's own yardstick: max |grad diff| and max |param diff| under 1e-4
    // (config.fixedTolerance), shown with its own label; the verdict does not read it.
    bool withinLessonBound = false;

    bool holds = false; // the twin's two sides agree (and the models started alike)
    std::vector<LayerDiff> layers;
    std::vector<SplitComparison> comparisons;

    // Holds, Fails, or NoEffect (a planted bug, and the twin agrees).
    Verdict verdict() const;
    // Why the check failed (None unless verdict() is Fails): one code, its figures above.
    EquivalenceCause causeCode() const;
    // The first window where the twin's sides differ (1-based), 0 when they agree.
    int firstDifferingWindow() const;
    // The twin's largest relative difference, gradients or updates, over its windows.
    double largestTwinDiff() const;
    // The verdict's sentence, from the content (resources/content/equivalence.json) with the
    // fields above: for Fails why (the planted bug's story with its figures, or what the twin
    // measured), for NoEffect which bug had no effect here and why, "" when it holds. In
    // English (what the CLI prints), or for a reader's language and digits (the window's panel).
    std::string cause() const;
    std::string cause(const NumberStyle &style) const;
    // The criterion and the figures that decided, one sentence: the twin's largest relative
    // difference against kTwinTolerance.
    std::string criterion(const NumberStyle &style) const;
    // The run's own dtype figures and the lesson's 1e-4 explained beside the verdict: where
    // the yardstick and the verdict disagree, why (rounding of the dtype, or a bug smaller
    // than 1e-4 at this rate); "" where they agree and the dtype is float64 or float32.
    std::string explanation(const NumberStyle &style) const;
};

// A run that plants a bug the check can show: a classic bug, no division, a step every
// micro-batch, or one of the loss scaler's pitfalls.
bool plantsABug(const AccumConfig &c);
// Its planted bugs as the flags spell them: "--scaling none, --bug never-zero"; "" for none.
std::string plantedBugNames(const AccumConfig &c);

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
// (core/distributed/thread_ranks.cpp), each rank's engine meeting the others in an in-process all-reduce;
// rank 0's result. With one rank, runEquivalence.
EquivalenceResult runEquivalenceOnThreads(const EquivalenceConfig &config, const CancelToken *cancel = nullptr);

} // namespace accumlab
