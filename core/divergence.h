// Whether a training run diverged, and why: fed once per closed window (its loss, whether the
// optimizer stepped or the loss scaler skipped the step, the scale), it keeps the first reason
// it saw and the window where it saw it, and counts the windows that stepped. `accumlab-cli
// train` reports its verdict (JSON, one line on stderr, exit kExitDiverged). Not here: the
// sweep's own per-point divergence (core/sweep.h stops a point at its first non-finite window),
// and tensors (the engine measures; this judges plain numbers). Plain C++, no torch, no Qt.
#pragma once

#include <cstdint>
#include <string>

namespace accumlab {

// Why a run diverged. The codes (toString) are stable: scripts read them from the JSON.
//   LossNotFinite       a window's loss was NaN or Inf             "loss-not-finite"
//   LossScaleCollapsed  the loss scale fell to 0 or below kLossScaleFloor  "loss-scale-collapsed"
//   NeverStepped        the run ended without one stepped window   "never-stepped"
enum class DivergenceReason { None, LossNotFinite, LossScaleCollapsed, NeverStepped };

std::string toString(DivergenceReason); // "none" for None

// float16's smallest positive value (a subnormal): a loss scale below it multiplies any
// float16 gradient to zero, so the scaler can no longer tell an overflow from a clean window.
constexpr double kLossScaleFloor = 5.9604644775390625e-8; // 2^-24

// One closed window, as the watch judges it.
struct WindowOutcome {
    int64_t step = 1;          // 1-based index of the window in the run (a resumed run's count goes on)
    double loss = 0.0;         // the window's unscaled mean loss
    bool lossMeasured = true;  // false: the window ran no micro-batch, so it has no loss to judge
    bool stepped = true;       // the optimizer stepped (false: the loss scaler skipped the window)
    double lossScale = 1.0;    // the scale after the window's update(); 1 without a scaler
};

// Not thread-safe: fed by the one thread that drives the engine.
class DivergenceWatch {
public:
    // A resumed run: the windows done before its checkpoint, and how many of them stepped.
    void carryOver(int64_t windows, int64_t stepped);
    // One closed window; the first reason seen (in window order; within one window, a loss
    // that is not finite before a collapsed scale) is kept.
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
    int64_t m_windows = 0;
    int64_t m_stepped = 0;
};

// "diverged at step 2 of 50 (loss-not-finite); 1 of 50 windows stepped": the report of a
// diverged run of `plannedWindows` windows.
std::string divergenceSentence(const DivergenceWatch &watch, int64_t plannedWindows);

} // namespace accumlab
