// The divergence verdict of a training run (core/divergence.h): plain bookkeeping over the
// windows' losses, steps and loss scales. Not here: measuring them (the engine) or printing
// the verdict's exit code (the CLI).
#include "core/divergence.h"
#include "core/config.h"
#include "core/observer.h"

#include <cmath>

namespace accumlab {

std::string toString(DivergenceReason r)
{
    switch (r) {
    case DivergenceReason::None: return "none";
    case DivergenceReason::LossNotFinite: return "loss-not-finite";
    case DivergenceReason::GradNotFinite: return "grad-not-finite";
    case DivergenceReason::LossExploded: return "loss-exploded";
    case DivergenceReason::LossScaleCollapsed: return "loss-scale-collapsed";
    case DivergenceReason::NeverStepped: return "never-stepped";
    }
    return "none";
}

void DivergenceWatch::carryOver(int64_t windows, int64_t stepped)
{
    m_windows += windows;
    m_stepped += stepped;
}

void DivergenceWatch::diverge(DivergenceReason reason, int64_t step)
{
    if (diverged())
        return; // the first reason stands
    m_reason = reason;
    m_atStep = step;
}

void DivergenceWatch::observe(const WindowOutcome &w)
{
    if (m_firstStep < 0)
        m_firstStep = w.step;
    ++m_windows;
    if (w.stepped)
        ++m_stepped;
    const bool lossFinite = std::isfinite(w.loss);
    if (w.lossMeasured && !lossFinite)
        diverge(DivergenceReason::LossNotFinite, w.step);
    if (!w.gradFinite)
        diverge(DivergenceReason::GradNotFinite, w.step);
    if (w.lossMeasured && lossFinite) {
        if (m_firstLoss < 0.0)
            m_firstLoss = w.loss;
        else if (m_firstLoss > 0.0 && w.loss > kLossBlowUpFactor * m_firstLoss)
            diverge(DivergenceReason::LossExploded, w.step);
    }
    // NaN compares false: a scale that is not a number has collapsed too.
    if (!(w.lossScale >= kLossScaleFloor))
        diverge(DivergenceReason::LossScaleCollapsed, w.step);
}

void DivergenceWatch::finish()
{
    if (m_stepped == 0 && m_firstStep >= 0)
        diverge(DivergenceReason::NeverStepped, m_firstStep);
}

WindowOutcome windowOutcome(const StepResult &w, const AccumConfig &c)
{
    WindowOutcome o;
    o.step = w.step + 1;
    o.loss = w.loss;
    o.lossMeasured = !(c.bug == AccumBug::SkipLastMicro && c.accumSteps == 1);
    o.stepped = !w.stepSkipped;
    o.lossScale = w.lossScaling ? w.scalerState.scale : 1.0;
    o.gradFinite = std::isfinite(w.gradNorm) || w.stepSkipped;
    return o;
}

std::string divergenceSentence(const DivergenceWatch &watch, int64_t plannedWindows)
{
    return "diverged at step " + std::to_string(watch.atStep()) + " of " + std::to_string(plannedWindows) + " (" +
           toString(watch.reason()) + "); " + std::to_string(watch.steppedWindows()) + " of " +
           std::to_string(watch.windows()) + " windows stepped";
}

} // namespace accumlab
