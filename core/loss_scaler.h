// The dynamic loss scaler of float16 training, with the contract of PyTorch's
// torch.cuda.amp.GradScaler under gradient accumulation: every micro-batch's loss / N is
// multiplied by the scale before backward; the buffers are unscaled once per window, after the
// last micro-batch (before clipping); an Inf or NaN anywhere in the window skips the window's
// optimizer step and multiplies the scale by the backoff factor once; after `growthInterval`
// clean windows in a row the scale grows by the growth factor. Here: the scale's bookkeeping
// and its counters as plain values (a checkpoint saves LossScalerState as it is). Not here:
// tensors (the engine unscales its buffers and looks for Inf/NaN, core/engine.cpp), and the
// float16 forward (core/model.h). Plain C++, no torch, no Qt.
#pragma once

#include "core/content/errors.h"

#include <cstdint>
#include <string>
#include <vector>

namespace accumlab {

// The pitfalls of loss scaling under accumulation reported on trackers, planted in the
// engine's one window (AccumBug's counterpart for the scaler):
//   UnscaleEveryMicro   scaler.unscale_() after every micro-batch's backward: PyTorch raises
//                       "unscale_() has already been called on this optimizer since the last
//                       update()" at the second one; so does the engine (engine/unscale-twice)
//   UpdateEveryMicro    scaler.update() after every micro-batch's backward: no unscale_() has
//                       checked the buffers for Inf/NaN since the last update(), and PyTorch
//                       raises "No inf checks were recorded prior to update." at the first
//                       one; so does the engine (engine/update-without-inf-checks)
//   SkipOverflowedMicro an overflowed micro-batch's gradient is dropped (the buffers put back as
//                       they were) and the window steps on the rest: the scaler never sees the
//                       overflow, so it never backs its scale off, and grows it on schedule
//   LogScaledLoss       the logged loss is the scaled one: `scale` times too large
enum class ScalerBug { None, UnscaleEveryMicro, UpdateEveryMicro, SkipOverflowedMicro, LogScaledLoss };

// What the scaler refuses at run time, as PyTorch's does (engine/unscale-twice,
// engine/update-without-inf-checks): a code of the content's errors/engine.json.
class ScalerError : public CodedError {
public:
    using CodedError::CodedError;
};

std::string toString(ScalerBug);
ScalerBug scalerBugFromString(const std::string &); // throws ConfigError (config/unknown-scaler-bug)
std::vector<std::string> scalerBugNames();

// torch.cuda.amp.GradScaler's defaults.
constexpr double kDefaultInitScale = 65536.0;     // 2^16
constexpr double kDefaultGrowthFactor = 2.0;
constexpr double kDefaultBackoffFactor = 0.5;
constexpr int64_t kDefaultGrowthInterval = 2000;  // clean windows before the scale grows
// What a planted spike multiplies its micro-batch's loss by: 2^64, enough to overflow float16
// (largest finite 65504) at any scale the scaler reaches, still finite in float32.
constexpr double kSpikeFactor = 18446744073709551616.0;

struct LossScalerConfig {
    bool enabled = false;
    double initScale = kDefaultInitScale;
    double growthFactor = kDefaultGrowthFactor;
    double backoffFactor = kDefaultBackoffFactor;
    int64_t growthInterval = kDefaultGrowthInterval;
    ScalerBug bug = ScalerBug::None;
    // A planted overflow (a loss spike): micro-batch spikeMicro of window spikeWindow has its loss
    // multiplied by kSpikeFactor before backward. -1: none. For the experiment and the tests.
    int64_t spikeWindow = -1;
    int64_t spikeMicro = 0;
};

// Everything the scaler carries from one window to the next: what a checkpoint saves.
struct LossScalerState {
    double scale = kDefaultInitScale;
    int64_t growthTracker = 0;   // clean windows since the last change
    int64_t skippedWindows = 0;  // windows whose optimizer step was skipped for an Inf/NaN
    int64_t unscaleCalls = 0;    // unscale_() calls so far
    int64_t growths = 0;         // times the scale grew
    int64_t backoffs = 0;        // times the scale was cut
    bool unscaledSinceUpdate = false; // unscale_() ran since the last update() (PyTorch's per-optimizer stage)
};

// The scale's bookkeeping. Not thread-safe: owned by one engine.
class LossScaler {
public:
    explicit LossScaler(const LossScalerConfig &config);

    const LossScalerConfig &config() const { return m_config; }
    const LossScalerState &state() const { return m_state; }
    // A saved state back (a resumed run).
    void restore(const LossScalerState &state) { m_state = state; }
    double scale() const { return m_state.scale; }

    // Records one unscale_() of the buffers (their multiplication by 1 / scale is the caller's).
    // Throws ScalerError engine/unscale-twice when one already ran since the last update(), as
    // PyTorch does.
    void noteUnscale();
    // update(): `foundInf` backs the scale off and restarts the count of clean windows, else the
    // count grows and, at the growth interval, so does the scale. Ends the unscale stage.
    // Throws ScalerError engine/update-without-inf-checks when no unscale_() ran since the last
    // update(), as PyTorch does.
    void update(bool foundInf);
    // A window whose step was skipped for an Inf/NaN.
    void noteSkippedWindow() { ++m_state.skippedWindows; }

private:
    LossScalerConfig m_config;
    LossScalerState m_state;
};

// Throws ConfigError (config/loss-scaler-invalid) for factors or an interval out of range.
void validate(const LossScalerConfig &);

} // namespace accumlab
