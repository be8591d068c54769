// The accumulation engine: one model, one optimizer, one synthetic data stream, and the
// window loop the lesson teaches (zero once, N x forward/backward with loss/N, step once; the
// loop is core/window.h's, its planted bugs core/bugs.h's hooks, picked once from the config).
// Not thread-safe: one engine is driven by one thread. The public surface holds no torch
// types, so the Qt side includes this header without LibTorch's.
#pragma once

#include "core/config.h"
#include "core/distributed/distributed.h"
#include "core/memory/memory.h"
#include "core/observer.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace accumlab {

class GradSync;
struct WindowProbe; // core/window_probe.h (LibTorch types)
struct EngineState; // core/engine_state.h (LibTorch types)

class AccumEngine {
public:
    // Throws ConfigError (invalid config or unavailable device).
    explicit AccumEngine(const AccumConfig &config, std::shared_ptr<GradSync> sync = nullptr);
    ~AccumEngine();
    AccumEngine(const AccumEngine &) = delete;
    AccumEngine &operator=(const AccumEngine &) = delete;

    const AccumConfig &config() const;
    int64_t rank() const;                         // this process's rank (0 on one rank)
    std::string deviceName() const;               // "cpu" or "cuda:0"
    std::vector<std::string> parameterNames() const; // "fc1.weight", ...

    // Runs the next micro-batch (starting a window if none is open) and, if it closes the
    // window, the optimizer step. Returns true when a window was completed.
    bool microStep(EngineObserver *observer = nullptr, const CancelToken *cancel = nullptr);

    // Runs micro-batches until the current window completes (a whole window if none is open).
    StepResult step(EngineObserver *observer = nullptr, const CancelToken *cancel = nullptr);

    // Per parameter tensor, the L2 norm of the full-batch gradient of the current window's
    // samples at the window-start parameters (the marker the accumulated bars should reach).
    // Computed on a copy of the model; opens a window if none is open. With several ranks the
    // window's samples are every rank's: the ranks' references are averaged in one all-reduce,
    // so every rank calls it together (core/distributed/thread_ranks.h; the process ranks never do).
    std::vector<double> referenceGradNorms();
    // The open window as its last micro-batch left it (gradient norms, fills against the
    // window's full-batch gradient, its loss, counters; nothing is run again), for a view of a
    // resumed run; nothing when no micro-batch of a window is in the buffers.
    std::optional<MicroBatchEvent> openWindowSnapshot();

    // Result of the last completed window (meaningful after the first step()).
    const StepResult &lastStep() const;
    int64_t microIndex() const;        // micro-batches done in the open window
    int64_t syncCalls() const;
    int64_t optimizerSteps() const;
    int64_t optimizerStateStep() const; // AdamW's state step; SGD's count of step() calls
    int64_t microBatches() const;
    int64_t windowsDone() const;       // completed windows (a skipped float16 window counts)
    // The collectives the gradient sync has issued (all-reduces, bytes, ms); zero for one rank.
    SyncStats syncStats() const;

    // What it holds between windows (core/memory/memory.h), from its tensors' sizes.
    HeldBytes heldBytes() const;
    // The largest absolute difference between this engine's parameters and `other`'s (same
    // model shape), in float64; NaN when a parameter is not finite.
    double maxAbsParamDiff(const AccumEngine &other) const;

    // "float16" or "float16-emulated" when the dtype is Float16 (which path ran), else empty.
    std::string float16Path() const;
    // The loss scaler's state (AccumConfig::lossScaler; the initial state when it is off), and
    // a saved one put back, for a resumed run.
    LossScalerState lossScalerState() const;
    void restoreLossScalerState(const LossScalerState &state);

    // Copies `other`'s parameters (same model shape) into this engine's, before its next
    // window: a run that starts where another one stands.
    void copyParametersFrom(const AccumEngine &other);

    // Makes this engine (float64, before its first window) the float64 twin of a run in
    // `dtype`: its parameters and every sample it draws are rounded to `dtype`'s values, so it
    // starts where that run starts and sees its very samples (core/equivalence.h).
    void becomeTwinOf(DType dtype);

    // Called around every optimizer step (null: none). For the equivalence check.
    void setProbe(WindowProbe *probe);

    // The throughput model's measurement (sweep-flattening): while on, the engine adds up the
    // wall time of each window's own work, done once per window whatever accum_steps is:
    // zero_grad() and, after the last micro-batch, the sync, unscale, clip, the norms' and
    // losses' read, the step and the scaler's update. Everything else a window takes is its
    // micro-batches'. On CUDA each timed part is synchronized at both ends, so it is on only
    // where it is measured.
    void setPhaseTiming(bool on);
    double windowWorkSeconds() const; // since the engine was built

    // SHA-256 of the flat parameter buffer's bytes (every parameter in registration order, in
    // the model's dtype, native byte order): 64 hex digits that two runs compare.
    std::string paramsSha256() const;

    // Everything the next micro-batch depends on, for core/checkpoint.*: captureState copies
    // it out (tensors on the CPU); restoreState puts it back into an engine of the same run
    // (same config and world size; the checkpoint checks this before, in words).
    void captureState(EngineState &out) const;
    void restoreState(const EngineState &in);
    // What captureState would copy, as shapes and dtypes alone (params, grads and the data
    // generator as tensors on the meta device, no memory): for a reader that checks a state
    // before restoreState sees it.
    void stateLayout(EngineState &out) const;
    // Returns when every rank has called it (one all-reduce of one element); at once on one rank.
    void rendezvous();
    // The lowest rank that passed `flag` true, or -1 when none did: every rank calls it (one
    // all-reduce of world-size elements), so all ranks learn the same answer. On one rank, 0 or -1.
    int64_t firstRankWith(bool flag);

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace accumlab
