// Internal (includes LibTorch): the accumulation window, the one loop the lesson teaches and
// the engine, the equivalence check, the sweep, the memory lab and the thread ranks all run:
//   optimizer.zero_grad()                            once, when the window opens
//   for k in range(N):
//       loss = criterion(model(x[k]), y[k]) / N      (* scaler.scale with float16)
//       loss.backward()                              adds into the same .grad buffers
//       (inside model.no_sync() for every k but the last)
//   scaler.unscale_(optimizer); clip_grad_norm_(...); optimizer.step(); scheduler.step();
//   scaler.update()                                  once per window
// The window works on the engine's parts (model, optimizer, data, sync, scaler), borrowed, and
// keeps what it carries from one micro-batch to the next in WindowState. Every decision a
// planted bug gets wrong it asks its hooks (core/bugs.h), which answer and call nothing back.
// Not here: the engine's own duties (the reports and the fills' reference, checkpoints, phase
// timing's clock: core/engine.cpp), and the bugs themselves.
#pragma once

#include "core/bugs.h"
#include "core/model.h"
#include "core/observer.h"

#include <torch/torch.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

namespace accumlab {

class DataStream;
class FusedOptimizer;
class GradSync;
class LossScaler;
struct WindowProbe;

// A device vector on the host as float32 values, in one transfer.
std::vector<double> hostVector(const torch::Tensor &t);

// What the window carries between its calls: the open window and the running totals. The
// engine's checkpoint copies it out and puts it back (AccumEngine::captureState).
struct WindowState {
    // The open window: its micro-batches, how many ran, their detached raw losses.
    bool open = false;
    int64_t micro = 0;                     // micro-batches done in the open window
    std::vector<torch::Tensor> x;          // each (micro, in): the drawn noise, composed when it runs
    std::vector<torch::Tensor> y;          // each (micro,)
    std::vector<torch::Tensor> losses;     // each (): a raw loss of a micro-batch that ran
    std::vector<torch::Tensor> startParams; // the window-start parameters, kept only where it steps inside
    int64_t dropped = 0;                   // micro-batches of this window the hooks dropped
    double scale = 1.0;                    // the scale the window's last micro-batch was multiplied by
    std::chrono::steady_clock::time_point started;
    // Running totals.
    int64_t windowsDone = 0;    // completed windows (a skipped float16 window counts)
    int64_t microBatches = 0;
    int64_t syncCalls = 0;
    int64_t optimizerSteps = 0;
    int64_t schedulerSteps = 0; // scheduler.step() calls so far
    double lastLr = 0.0;        // the rate of the last optimizer step
    StepResult last;            // the last completed window
    // The lesson's statements the current call ran, in order (MicroBatchEvent::ran).
    std::vector<LoopStatement> ran;
};

// What the window's step point leaves for the reports.
struct WindowEnd {
    std::vector<double> hostNorms; // the last micro-batch's: the window's P norms
    double windowLoss = 0.0;       // the mean raw loss of the micro-batches that ran
    bool stepped = false;
    bool skipStep = false;         // the scaler found an Inf/NaN: no step this window
};

// One micro-batch as it ran, for the engine's report (before the window moves on).
struct MicroRun {
    torch::Tensor raw;   // () its raw loss; undefined when the hooks left it out
    bool last = false;   // it is the window's last
    bool synced = false; // the gradient sync ran after it
    WindowEnd end;       // the step point's, where one ran
};

// Phase timing (AccumEngine::setPhaseTiming): the window marks where each part of its own work
// starts and stops; whether and how that is timed is the clock's (the engine's) business.
class WindowWorkClock {
public:
    virtual ~WindowWorkClock() = default;
    virtual void start(bool timed) = 0;
    virtual void stop() = 0;
};

// The engine's parts the window works on; they outlive it.
struct WindowParts {
    Mlp model;
    const std::vector<torch::Tensor> &params; // the model's parameters, in registration order
    FusedOptimizer &optimizer;
    DataStream &data;
    GradSync &sync;
    LossScaler *scaler = nullptr; // null when the loss scaler is off
    HalfMode halfMode = HalfMode::Off;
};

// Not thread-safe: driven by its engine's thread.
class AccumWindow {
public:
    // `config` outlives the window; `hooks` are the run's (hooksFor(config)).
    AccumWindow(const AccumConfig &config, WindowParts parts, std::unique_ptr<const WindowHooks> hooks,
                WindowWorkClock &clock);

    WindowState &state() { return m_state; }
    const WindowState &state() const { return m_state; }
    // Called around every optimizer step (null: none). For the equivalence check.
    void setProbe(WindowProbe *probe) { m_probe = probe; }

    // Draws the window's samples and zeroes the buffers: optimizer.zero_grad().
    void open();
    // Runs the open window's next micro-batch (opening one if none is open) up to its report:
    // forward, backward, the sync and, where the window steps, the step point.
    MicroRun runMicro();
    // After the engine's report of `run`: moves on to the next micro-batch, or closes the window
    // (state().last) and returns true.
    bool finishMicro(MicroRun &run);

    // Where the window steps inside (step-every-micro), the parameters it started at are kept
    // from this call on (the fills' reference is taken there); else nothing.
    void keepStartParams();
    // The parameters the open window started at: the model's own, unless it stepped inside.
    const std::vector<torch::Tensor> &paramsAtStart() const;

private:
    void did(LoopStatement s) { m_state.ran.push_back(s); }
    torch::Tensor forwardBackward();
    torch::Tensor divideLoss(const torch::Tensor &raw, double divisor);
    void allReduceBuffers();
    WindowEnd stepWindow(bool lastMicro);
    void readWindowNorms(WindowEnd &end);
    void close(WindowEnd &end);
    bool unscaleBuffers();
    bool buffersNonFinite();

    const AccumConfig &m_config;
    WindowParts m_parts;
    std::unique_ptr<const WindowHooks> m_hooks;
    WindowWorkClock &m_clock;
    // The hooks' answers that hold for the whole run, asked once.
    ClipPlan m_clip;
    SchedulePlan m_schedule;
    bool m_stepsInside = false; // optimizer.step() after every micro-batch
    WindowProbe *m_probe = nullptr;
    WindowState m_state;
    // The loss divisor N as a 0-d tensor of the loss's dtype (divideLoss).
    torch::Tensor m_divisorTensor;
    double m_divisorValue = 0.0;
    bool m_divisorExact = false;
};

} // namespace accumlab
