// Whether a training run diverged, and why: fed once per closed window (its loss, whether the
// optimizer stepped or the loss scaler skipped the step, the scale), it keeps the first reason
// it saw and the window where it saw it, and counts the windows that stepped. The one rule of
// divergence: `accumlab-cli train` reports its verdict (JSON, one line on stderr, exit
// kExitDiverged), and the sweep asks it per point (core/sweep.h stops a point at its first
// diverged window; accum-curve.json's "diverged" and the window's table say so). Not here:
// tensors (the engine measures; this judges plain numbers). Plain C++, no torch, no Qt.
#pragma once

#include <cstdint>
#include <string>

namespace accumlab {

// Why a run diverged. The codes (toString) are stable: scripts read them from the JSON.
//   LossNotFinite       a window's loss was NaN or Inf             "loss-not-finite"
//   GradNotFinite       a stepped window's gradient norm was NaN or Inf  "grad-not-finite"
//   LossExploded        a window's loss rose above kLossBlowUpFactor x the run's first
//                       measured window loss (finite, but blown up)  "loss-exploded"
//   LossScaleCollapsed  the loss scale fell to 0 or below kLossScaleFloor  "loss-scale-collapsed"
//   NeverStepped        the run ended without one stepped window   "never-stepped"
enum class DivergenceReason { None, LossNotFinite, GradNotFinite, LossExploded, LossScaleCollapsed, NeverStepped };

std::string toString(DivergenceReason); // "none" for None

// float16's smallest positive value (a subnormal): a loss scale below it multiplies any
// float16 gradient to zero, so the scaler can no longer tell an overflow from a clean window.
constexpr double kLossScaleFloor = 5.9604644775390625e-8; // 2^-24

// A loss that stays finite can still have blown up (no division at a large accum_steps, a high
// learning rate: an average loss of 237 where the run began at 2.3). The bound is the run's
// own: its first measured window is the untrained model's loss (cross-entropy near ln(classes),
// a guess at chance), and a run that climbs past 4x that is far worse than guessing. 4x is
// fastai's lr_find divergence test (`stop_div`: smoothed loss > 4 x best loss), taken against
// the start rather than the best, so a well-trained run's noisy window is not called diverged.
constexpr double kLossBlowUpFactor = 4.0;

// One closed window, as the watch judges it.
struct WindowOutcome {
    int64_t step = 1;          // 1-based index of the window in the run (a resumed run's count goes on)
    double loss = 0.0;         // the window's unscaled mean loss
    bool lossMeasured = true;  // false: the window ran no micro-batch, so it has no loss to judge
    bool stepped = true;       // the optimizer stepped (false: the loss scaler skipped the window)
    double lossScale = 1.0;    // the scale after the window's update(); 1 without a scaler
    bool gradFinite = true;    // the gradient norm was finite (or the scaler skipped the window)
};

struct StepResult;
struct AccumConfig;
// A closed window of an engine run with `config`, as the watch judges it (its step 1-based).
// skip-last-micro at accum_steps 1 runs no micro-batch: that window's loss is NaN because
// nothing ran, not because the run diverged.
WindowOutcome windowOutcome(const StepResult &window, const AccumConfig &config);

// Not thread-safe: fed by the one thread that drives the engine.
class DivergenceWatch {
public:
    // A resumed run: the windows done before its checkpoint, and how many of them stepped.
    void carryOver(int64_t windows, int64_t stepped);
    // One closed window; the first reason seen (in window order; within one window, in the
    // order of DivergenceReason) is kept. A resumed run's first observed window is its bound's
    // start.
    void observe(const WindowOutcome &w);
    // The run ended: without one stepped window it diverged (NeverStepped, at the first window
    // it observed) unless an earlier reason was already kept.
    void finish();

    bool diverged() const { return m_reason != DivergenceReason::None; }
    DivergenceReason reason() const { return m_reason; }
    int64_t atStep() const { return m_atStep; }         // 1-based window; -1 when it did not diverge
    int64_t windows() const { return m_windows; }       // windows seen (carried over ones included)
    int64_t steppedWindows() const { return m_stepped; } // of those, the ones whose optimizer stepped

private:
    void diverge(DivergenceReason reason, int64_t step);

    DivergenceReason m_reason = DivergenceReason::None;
    int64_t m_atStep = -1;
    int64_t m_firstStep = -1; // the first window observed
    double m_firstLoss = -1.0; // the first measured, finite window loss (the blow-up bound's start); -1 before it
    int64_t m_windows = 0;
    int64_t m_stepped = 0;
};

// "diverged at step 2 of 50 (loss-not-finite); 1 of 50 windows stepped": the report of a
// diverged run of `plannedWindows` windows.
std::string divergenceSentence(const DivergenceWatch &watch, int64_t plannedWindows);

} // namespace accumlab
