// The planted bugs as hooks of the accumulation window (core/window.h). Each decision of the
// loop that a planted bug gets wrong is a question the window asks here, at the line where it
// takes it: where zero_grad() goes, whether a micro-batch runs, the divisor, the loss's factor,
// the passes of a micro-batch, keep or drop an overflowed micro-batch, where clip, schedule,
// step, unscale_ and update run, and what the log multiplies the loss by.
// WindowHooks's own answers are the correct loop. Each planted bug is a small named piece that
// changes exactly one answer and passes every other question to the hooks below it, so the
// config's switches combine as they do (a scaler pitfall on top of an accumulation bug). Each
// piece names its one-line story in resources/content (the words are there, not here).
// The hooks only answer: they hold no tensors and call nothing back, neither the window nor the
// engine. Plain C++, no torch, no Qt. Not here: what the equivalence check expects of each bug
// (core/equivalence.cpp), and the PyTorch code each one gets wrong (core/loop_code.*).
#pragma once

#include "core/config.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace accumlab {

// Where a statement of the loop runs: at the window's step point (the correct loop's place
// for clip, schedule, step, unscale_ and update), or after every micro-batch's backward.
enum class LoopPlace { Step, EveryMicro };

// How the window clips its gradient: where, and to which max_norm (0: it does not clip).
struct ClipPlan {
    LoopPlace at = LoopPlace::Step;
    double maxNorm = 0.0;
};

// How the LR schedule advances: where scheduler.step() runs, and its warmup (0: a constant rate).
struct SchedulePlan {
    LoopPlace at = LoopPlace::Step;
    int64_t warmup = 0;
};

// Where a piece's one-line story lives: a content file (core/content/content.h) and a JSON pointer.
struct StoryRef {
    std::string file;
    std::string pointer;
};

class WindowHooks {
public:
    virtual ~WindowHooks() = default;

    // optimizer.zero_grad() before micro-batch `micro` of window `window` (micro 0: when the
    // window opens). Correct: once per window, when it opens.
    virtual bool zeroGradBefore(int64_t /*window*/, int64_t micro) const { return micro == 0; }
    // Micro-batch `micro` of `accumSteps` runs (false: drawn, never run). Correct: every one.
    virtual bool runsMicro(int64_t /*micro*/, int64_t /*accumSteps*/) const { return true; }
    // What each micro-batch's loss is divided by before backward. Correct: N.
    virtual double lossDivisor(int64_t accumSteps) const { return static_cast<double>(accumSteps); }
    // What the divided loss is multiplied by besides the loss scaler's scale. Correct: 1.
    virtual double lossFactor(int64_t /*window*/, int64_t /*micro*/) const { return 1.0; }
    // How many forward/backward passes micro-batch `micro` runs. Correct: 1.
    virtual int passes(int64_t /*micro*/) const { return 1; }
    // The window drops a micro-batch whose gradient overflowed (putting its buffers back) rather
    // than keeping it for the scaler's check. Correct: it keeps it.
    virtual bool dropsOverflowedMicro() const { return false; }
    // Where and how far the window's gradient is clipped. Correct: once at the step, to `o`'s
    // clip norm.
    virtual ClipPlan clip(const OptimizerConfig &o) const
    {
        return {LoopPlace::Step, effectiveClipNorm(o, AccumBug::None)};
    }
    // Where scheduler.step() runs and the warmup it follows. Correct: once per optimizer
    // update, with `o`'s warmup.
    virtual SchedulePlan schedule(const OptimizerConfig &o) const
    {
        return {LoopPlace::Step, effectiveLrWarmup(o, AccumBug::None)};
    }
    // Where optimizer.step() runs. Correct: once, after the window's last micro-batch.
    virtual LoopPlace stepAt() const { return LoopPlace::Step; }
    // Where scaler.unscale_() and scaler.update() run besides the step point's. Correct: only there.
    virtual LoopPlace unscaleAt() const { return LoopPlace::Step; }
    virtual LoopPlace updateAt() const { return LoopPlace::Step; }
    // What the logged loss is multiplied by, given the scale the window's loss was multiplied
    // by. Correct: 1 (the raw loss is logged).
    virtual double loggedLossFactor(double /*scale*/) const { return 1.0; }
};

// A planted piece: its name (the config's spelling: "zero-every-micro", "no-division", ...),
// its story, and how to plant it on the hooks below it.
struct PlantedPiece {
    std::string name;
    StoryRef story;
    std::unique_ptr<const WindowHooks> (*plant)(std::unique_ptr<const WindowHooks> below);
};

// Every planted piece: the seven AccumBug pieces, no-division (Scaling::None), step-every-micro,
// the loss scaler's four pitfalls (ScalerBug) and the planted overflow
// (LossScalerConfig::spikeWindow, planted at spikeWindow 0, micro-batch 0).
const std::vector<PlantedPiece> &plantedPieces();
// The piece named `name` (the names above); throws std::out_of_range for another.
const PlantedPiece &plantedPiece(const std::string &name);

// The correct loop, with nothing planted.
std::unique_ptr<const WindowHooks> correctLoop();
// A run's hooks, picked once from its config: the correct loop with the config's planted
// pieces on top (no-division, step-every-micro, its AccumBug, with the loss scaler on its
// ScalerBug, and a planted overflow).
std::unique_ptr<const WindowHooks> hooksFor(const AccumConfig &config);

} // namespace accumlab
