// How a viewer watches the engine without touching tensors: plain C++ callbacks with small
// value payloads, and a cancellation token the engine checks between micro-batches.
// Callbacks run on the engine's thread; an observer that forwards to another thread copies.
#pragma once

#include "core/loss_scaler.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace accumlab {

// Set from any thread; read by the engine between micro-batches. Lock-free.
class CancelToken {
public:
    void cancel() { m_cancelled.store(true, std::memory_order_relaxed); }
    void reset() { m_cancelled.store(false, std::memory_order_relaxed); }
    bool cancelled() const { return m_cancelled.load(std::memory_order_relaxed); }

private:
    std::atomic<bool> m_cancelled{false};
};

// Thrown by the engine when it sees a cancelled token.
struct Cancelled {};

// The lesson's statements as the engine runs them, in the words of the PyTorch loop
// (core/content/loop_code.h lights these lines in the code a student reads).
enum class LoopStatement : uint8_t {
    ZeroGrad,  // optimizer.zero_grad()
    Forward,   // loss = criterion(model(x), y) / accum_steps
    Backward,  // loss.backward()
    Retry,     // the count-micro-twice bug's second backward of the first micro-batch
    NoSync,    // inside model.no_sync(): this backward's gradients are not all-reduced
    Sync,      // the window's all-reduce (data-parallel only)
    Clip,      // torch.nn.utils.clip_grad_norm_(...)
    Step,      // optimizer.step() (scaler.step(optimizer) with a loss scaler)
    Scheduler, // scheduler.step()
    Unscale,   // the loss scaler's unscale_: explicit before clipping, else inside scaler.step
    Update     // scaler.update()
};
// "zero_grad", "forward", "backward", "retry", "no_sync", "sync", "clip", "step", "scheduler",
// "unscale", "update": the line ids of resources/content/code/loop.json.
const char *toString(LoopStatement);

// After one micro-batch's backward.
struct MicroBatchEvent {
    int64_t step = 0;              // effective (optimizer-window) index, 0-based
    int64_t microIndex = 0;        // 0 .. accumSteps-1 within the window
    int64_t accumSteps = 1;
    double microLoss = 0.0;        // unscaled mean loss of this micro-batch
    std::vector<double> gradNorms; // per parameter tensor, of the accumulated buffers
    // Per parameter tensor, the buffer's projection onto the window's full-batch gradient g:
    // <buffer, g> / <g, g>. Linear in the buffer, so each micro-batch adds its own share and a
    // correct window ends at exactly 1 (N without division); empty until referenceGradNorms()
    // was asked for this window. With several ranks g is the full batch of every rank's
    // samples: before the window's sync a rank's buffers hold only its own share; after it, the
    // mean, so a correct window still ends at 1. fillTotal: the same over all tensors at once.
    std::vector<double> fills;
    double fillTotal = 0.0;
    bool synced = false;           // a gradient sync ran after this micro-batch
    bool optimizerStepped = false; // the optimizer stepped after this micro-batch
    int64_t syncCalls = 0;         // running totals
    int64_t optimizerSteps = 0;
    int64_t optimizerStateStep = 0;
    int64_t microBatches = 0;
    std::string float16Path;       // as StepResult::float16Path
    bool lossScaling = false;      // the loss scaler's state after this micro-batch, when it runs
    LossScalerState scalerState;
    // The statements this call ran, in order (the window's zero_grad() with its first
    // micro-batch, the step point's with its last; a planted bug's where it runs them).
    std::vector<LoopStatement> ran;
};

// After a whole effective step (one optimizer window).
struct StepResult {
    int64_t step = 0;                 // 0-based index of this window
    double loss = 0.0;                // unscaled mean loss over the window's samples
    double loggedLoss = 0.0;          // as the lesson's loop logs it: mean of scaled.item() * accum_steps
                                      // (equal to loss with division; N x loss without it)
    double gradNorm = 0.0;            // global L2 norm of the accumulated buffers, before the step
    double lr = 0.0;                  // the learning rate of the window's (last) optimizer step
    int64_t schedulerSteps = 0;       // running total of the LR schedule's steps
    std::vector<double> layerGradNorms; // per parameter tensor
    double wallMs = 0.0;
    bool finite = true;               // loss and gradient norm are finite
    int64_t syncCalls = 0;            // running totals
    int64_t optimizerSteps = 0;
    int64_t optimizerStateStep = 0;
    int64_t microBatches = 0;
    // float16 (DType::Float16): which path ran, "float16" (real kernels) or "float16-emulated"
    // (float32 kernels on values rounded through float16); empty in other dtypes.
    std::string float16Path;
    // The loss scaler (AccumConfig::lossScaler), when enabled: the scale this window's
    // micro-batches were multiplied by (the last one's), whether its step was skipped for an
    // Inf/NaN, how many of its micro-batches the skip-overflowed-micro pitfall dropped, and the
    // scaler's state after the window's update().
    bool lossScaling = false;
    double lossScale = 1.0;
    bool stepSkipped = false;
    int64_t droppedMicroBatches = 0;
    LossScalerState scalerState;
};

struct SweepPoint;

// The phases of the lesson's main job (runLesson), in the order they run.
enum class LessonPhase { Equivalence, Sweep, Export };

class EngineObserver {
public:
    virtual ~EngineObserver() = default;
    // When false the engine skips the per-micro-batch host reads (full-speed sweeps).
    virtual bool wantsMicroBatchDetail() const { return false; }
    virtual void onMicroBatch(const MicroBatchEvent &) {}
    virtual void onStep(const StepResult &) {}
    virtual void onSweepPointStarted(int64_t /*index*/, int64_t /*accumSteps*/) {}
    // Before each timed block of a point (block 0 follows onSweepPointStarted); the onStep
    // calls that follow belong to that point.
    virtual void onSweepBlock(int64_t /*index*/, int64_t /*block*/) {}
    // After each timed block of a point but its last: the point as its blocks so far measured
    // it (its steps, samples/sec and blocks; no losses), so that a chart can draw it from its
    // first block on and let it settle round by round. onSweepPoint follows its last block.
    virtual void onSweepBlockDone(int64_t /*index*/, const SweepPoint & /*soFar*/) {}
    virtual void onSweepPoint(const SweepPoint &) {}
    // runLesson: before each phase starts.
    virtual void onPhase(LessonPhase) {}
};

} // namespace accumlab
