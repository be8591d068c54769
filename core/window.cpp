// The accumulation window as the lesson writes it (core/window.h). runMicro reads like the
// PyTorch loop, one call per micro-batch; each statement's lesson line is on its right, and
// each decision a planted bug gets wrong is a question to the hooks (core/bugs.h), whose
// answers by default are the correct loop's. Each statement that runs says so
// (did(LoopStatement)): the report of the micro-batch lists them, and the code panel lights
// those lines of the PyTorch loop (core/content/loop_code.h).
// With a clip norm the window's synced sum is clipped once before the step. With the loss
// scaler (float16, core/loss_scaler.h) each micro-batch's loss / N is multiplied by the scale
// before backward; after the last micro-batch (and the sync) the buffers are unscaled once and
// checked for Inf/NaN, then clipped; a window with an Inf/NaN skips its optimizer step (the
// optimizer's state and the LR schedule stay where they were), and the scaler's update() runs
// once.
#include "core/window.h"

#include "core/data.h"
#include "core/distributed/grad_sync.h"
#include "core/loss_scaler.h"
#include "core/memory/memory_timeline.h"
#include "core/optimizer.h"
#include "core/window_probe.h"

#include <cmath>

namespace accumlab {

namespace {

double euclideanNorm(const std::vector<double> &norms)
{
    double s = 0.0;
    for (double n : norms)
        s += n * n;
    return std::sqrt(s);
}

} // namespace

std::vector<double> hostVector(const torch::Tensor &t)
{
    auto cpu = t.to(torch::kCPU, torch::kFloat32).contiguous();
    const float *p = cpu.data_ptr<float>();
    return {p, p + cpu.numel()};
}

AccumWindow::AccumWindow(const AccumConfig &config, WindowParts parts, std::unique_ptr<const WindowHooks> hooks,
                         WindowWorkClock &clock)
    : m_config(config), m_parts(std::move(parts)), m_hooks(std::move(hooks)), m_clock(clock)
{
    m_clip = m_hooks->clip(config.optimizer);
    m_schedule = m_hooks->schedule(config.optimizer);
    m_stepsInside = m_hooks->stepAt() == LoopPlace::EveryMicro;
    m_state.ran.reserve(16);
}

// ---- The window, as the lesson writes it ----------------------------------------------------
MicroRun AccumWindow::runMicro()
{
    WindowState &s = m_state;
    if (!s.open)
        open();                                               // optimizer.zero_grad()
    MicroRun run;
    run.last = s.micro == m_config.accumSteps - 1;            // for k in range(N):
    run.synced = !m_config.noSync || run.last;                //     no_sync() on all but the last
    if (!run.synced && m_config.worldSize > 1)
        did(LoopStatement::NoSync);
    if (s.micro > 0 && m_hooks->zeroGradBefore(s.windowsDone, s.micro)) {
        m_parts.optimizer.zeroGrad();                         //     (zero-every-micro)
        did(LoopStatement::ZeroGrad);
    }
    run.raw = forwardBackward();                              //     (loss / N).backward()
    ++s.microBatches;
    if (m_parts.scaler && m_hooks->unscaleAt() == LoopPlace::EveryMicro)
        unscaleBuffers();                                     //     (unscale-every-micro: raises at the 2nd)
    if (m_parts.scaler && m_hooks->updateAt() == LoopPlace::EveryMicro) {
        did(LoopStatement::Update);                           //     (update-every-micro: raises at the 1st)
        m_parts.scaler->update(false);
    }
    if (m_clip.at == LoopPlace::EveryMicro) {
        m_parts.optimizer.clipGradNorm(m_clip.maxNorm);       //     (clip-each-micro)
        did(LoopStatement::Clip);
    }
    const bool stepPoint = m_stepsInside || run.last;
    m_clock.start(stepPoint);
    if (run.synced)
        allReduceBuffers();
    if (stepPoint)                                            // (step-every-micro: every k)
        run.end = stepWindow(run.last);                       // unscale_, clip, step, scheduler, update
    if (m_schedule.at == LoopPlace::EveryMicro) {
        ++s.schedulerSteps;                                   //     (schedule-every-micro: after every
        did(LoopStatement::Scheduler);                        //      micro-batch, outside the `if` that steps)
    }
    m_clock.stop();
    return run;
}

bool AccumWindow::finishMicro(MicroRun &run)
{
    m_state.ran.clear(); // the next report starts here (a window opened early, by the fills' reference, included)
    ++m_state.micro;
    if (!run.last)
        return false;
    close(run.end);
    return true;
}

void AccumWindow::open()
{
    WindowState &s = m_state;
    markMemoryPhase(MemoryPhase::OpenWindow); // the window's samples and zero_grad()
    s.started = std::chrono::steady_clock::now();
    const int64_t perRank = m_config.microBatch * m_config.accumSteps;
    // The last window's samples go before the next ones are drawn: a window holds its samples
    // once, as a loader that yields micro-batches would hold its batch.
    s.x.clear();
    s.y.clear();
    auto [x, y] = m_parts.data.draw(perRank * m_config.worldSize); // x: (effective, in) noise, y: (effective,)
    if (m_config.worldSize > 1) {
        x = x.narrow(/*dim=*/0, m_parts.sync.rank() * perRank, perRank);
        y = y.narrow(/*dim=*/0, m_parts.sync.rank() * perRank, perRank);
    }
    if (m_config.accumSteps == 1) {
        s.x = {x};
        s.y = {y};
    } else {
        s.x = x.split(m_config.microBatch); // accumSteps x (micro, in)
        s.y = y.split(m_config.microBatch);
    }
    s.losses.clear();
    s.losses.reserve(m_config.accumSteps);
    if (m_stepsInside && !s.startParams.empty()) {
        torch::NoGradGuard noGrad;
        for (size_t i = 0; i < m_parts.params.size(); ++i)
            s.startParams[i].copy_(m_parts.params[i]);
    }
    m_clock.start(true);
    if (m_hooks->zeroGradBefore(s.windowsDone, /*micro=*/0)) { // (never-zero: only the first window)
        m_parts.optimizer.zeroGrad();
        did(LoopStatement::ZeroGrad);
    }
    m_clock.stop();
    s.micro = 0;
    s.dropped = 0;
    s.open = true;
}

// loss = criterion(model(x[k]), y[k]) / N (times the scaler's scale); loss.backward().
// Returns the raw loss (undefined when the hooks leave the micro-batch out).
torch::Tensor AccumWindow::forwardBackward()
{
    WindowState &s = m_state;
    torch::Tensor raw;
    // The loss scaler's factor (scaler.scale(loss)), and a planted spike's.
    s.scale = m_parts.scaler ? m_parts.scaler->scale() : 1.0;
    const double factor = s.scale * m_hooks->lossFactor(s.windowsDone, s.micro);
    if (!m_hooks->runsMicro(s.micro, m_config.accumSteps)) // (skip-last-micro)
        return raw;
    const double divisor = m_hooks->lossDivisor(m_config.accumSteps); // N (a division by 1 is skipped)
    markMemoryPhase(MemoryPhase::Forward, s.micro);
    const auto x = m_parts.data.inputs(s.x[s.micro], s.y[s.micro]); // x: (micro, in)
    // A hook that drops an overflowed micro-batch keeps the buffers as they were.
    const bool mayDrop = m_hooks->dropsOverflowedMicro();
    torch::Tensor before;
    if (mayDrop)
        before = m_parts.optimizer.flatGrad().clone();
    const int passes = m_hooks->passes(s.micro); // (count-micro-twice: 2 for the first)
    for (int pass = 0; pass < passes; ++pass) {
        did(pass == 0 ? LoopStatement::Forward : LoopStatement::Retry);
        auto logits = m_parts.model->forward(x);                 // logits: (micro, classes)
        raw = torch::cross_entropy_loss(logits, s.y[s.micro]);   // raw: () mean over the micro-batch
        auto scaled = divisor != 1.0 ? divideLoss(raw, divisor) : raw; // scaled: ()
        if (factor != 1.0)
            scaled = scaled * factor; // scaler.scale(loss / N)
        markMemoryPhase(MemoryPhase::Backward, s.micro);
        scaled.backward(); // adds into the same .grad buffers as the earlier micro-batches
        if (pass == 0)
            did(LoopStatement::Backward);
    }
    s.losses.push_back(raw.detach());
    if (m_probe)
        m_probe->afterBackward(m_parts.optimizer.grads(), s.micro);
    if (mayDrop && buffersNonFinite()) {
        torch::NoGradGuard noGrad;
        m_parts.optimizer.flatGrad().copy_(before); // skip-overflowed-micro: drop it, keep the window
        ++s.dropped;                                 // (the scaler is not told: its unscale_() finds no Inf)
    }
    return raw;
}

// raw / N, the lesson's `loss / N`. On the CPU N is a 0-d tensor of the loss's dtype, made
// once: a double N is wrapped in a double tensor and converted to the loss's dtype on every
// forward, and its backward (DivBackward1) does the same again: 14 of a micro-batch's 145.5
// operator calls on LibTorch 1.13, 10 of 141.5 on 2.11 (scripts/bench/ops_per_micro.py). The
// quotient is the same division by the same N wherever N is exact in that dtype (always in
// float32; not bfloat16's 257, which stays a number). On CUDA PyTorch divides by a number as
// a multiplication by its reciprocal: there N stays a number too.
torch::Tensor AccumWindow::divideLoss(const torch::Tensor &raw, double divisor)
{
    if (!raw.device().is_cpu())
        return raw / divisor;
    if (!m_divisorTensor.defined() || m_divisorValue != divisor || m_divisorTensor.scalar_type() != raw.scalar_type()) {
        m_divisorTensor = torch::scalar_tensor(divisor, raw.options());
        m_divisorValue = divisor;
        m_divisorExact = m_divisorTensor.item<double>() == divisor;
    }
    return m_divisorExact ? raw / m_divisorTensor : raw / divisor;
}

// The gradient all-reduce, once per window when no_sync() covers the others.
void AccumWindow::allReduceBuffers()
{
    markMemoryPhase(MemoryPhase::Sync, m_state.micro);
    m_parts.sync.allReduceMean(m_parts.optimizer.flatGrad());
    ++m_state.syncCalls;
    if (m_config.worldSize > 1)
        did(LoopStatement::Sync);
}

// True when any gradient buffer holds an Inf or NaN (one host read).
bool AccumWindow::buffersNonFinite() { return !m_parts.optimizer.flatGrad().isfinite().all().item<bool>(); }

// scaler.unscale_(optimizer): the buffers times 1 / scale, once per update() (a second call
// throws, as PyTorch's does); returns whether they hold an Inf/NaN.
bool AccumWindow::unscaleBuffers()
{
    torch::NoGradGuard noGrad;
    m_parts.scaler->noteUnscale();
    did(LoopStatement::Unscale);
    m_parts.optimizer.flatGrad().mul_(1.0 / m_parts.scaler->scale());
    return buffersNonFinite();
}

// The window's step point: scaler.unscale_(optimizer) and its Inf/NaN check, clip once, read
// the norms (one host transfer, on the last micro-batch), optimizer.step() and
// scheduler.step() (or no step for a window with an Inf/NaN), scaler.update().
WindowEnd AccumWindow::stepWindow(bool lastMicro)
{
    WindowState &s = m_state;
    FusedOptimizer &optimizer = m_parts.optimizer;
    LossScaler *scaler = m_parts.scaler;
    markMemoryPhase(MemoryPhase::Step, s.micro);
    WindowEnd end;
    bool foundInf = false;
    if (scaler) { // unscale once (unless the loop already did), then look for Inf/NaN
        foundInf = scaler->state().unscaledSinceUpdate ? buffersNonFinite() : unscaleBuffers();
    }
    end.skipStep = foundInf;
    // The correct loop clips once, the window's synced (and unscaled) sum, just before the step
    // (step-every-micro: before each of its steps).
    if (m_clip.maxNorm > 0.0 && m_clip.at == LoopPlace::Step && !end.skipStep) {
        optimizer.clipGradNorm(m_clip.maxNorm);
        did(LoopStatement::Clip);
    }
    if (lastMicro)
        readWindowNorms(end);
    if (end.skipStep) {
        scaler->noteSkippedWindow(); // no step: the state and the schedule stay
    } else {
        if (m_probe)
            m_probe->beforeStep(optimizer.grads(), optimizer.params(), lastMicro);
        s.lastLr = scheduledLr(m_config.optimizer, s.schedulerSteps, m_schedule.warmup);
        optimizer.setLearningRate(s.lastLr);
        optimizer.step();
        did(LoopStatement::Step);
        if (m_probe)
            m_probe->afterStep(optimizer.params(), optimizer.stateStep(), lastMicro);
        ++s.optimizerSteps;
        end.stepped = true;
        if (m_schedule.at == LoopPlace::Step) {
            ++s.schedulerSteps; // scheduler.step() once per optimizer update
            did(LoopStatement::Scheduler);
        }
    }
    if (scaler) {
        scaler->update(foundInf); // scaler.update(): once per optimizer window
        did(LoopStatement::Update);
    }
    return end;
}

// Before the last step the window's norms and losses are read in one host transfer.
void AccumWindow::readWindowNorms(WindowEnd &end)
{
    torch::NoGradGuard noGrad;
    const auto &losses = m_state.losses;
    auto scalars = m_parts.optimizer.gradNormList(); // P 0-d norms, then the raw losses that ran
    scalars.insert(scalars.end(), losses.begin(), losses.end());
    end.hostNorms = hostVector(torch::stack(scalars)); // (P + ran,) on the host
    const auto ran = static_cast<int64_t>(losses.size());
    for (int64_t i = 0; i < ran; ++i)
        end.windowLoss += end.hostNorms[end.hostNorms.size() - 1 - i];
    end.windowLoss = ran > 0 ? end.windowLoss / static_cast<double>(ran) : std::nan("");
    end.hostNorms.resize(end.hostNorms.size() - ran);
}

void AccumWindow::close(WindowEnd &end)
{
    WindowState &s = m_state;
    markMemoryPhase(MemoryPhase::Outside);
    StepResult r;
    r.step = s.windowsDone++;
    r.loss = end.windowLoss;
    // The lesson logs scaled.item() * accum_steps: the raw loss back with division, N times it
    // without, so the bug shows in the log.
    r.loggedLoss = end.windowLoss * static_cast<double>(m_config.accumSteps) / m_hooks->lossDivisor(m_config.accumSteps);
    r.loggedLoss *= m_hooks->loggedLossFactor(s.scale); // (log-scaled-loss: the scaled loss logged)
    r.float16Path = toString(m_parts.halfMode);
    if (m_parts.scaler) {
        r.lossScaling = true;
        r.lossScale = s.scale;
        r.stepSkipped = end.skipStep;
        r.droppedMicroBatches = s.dropped;
        r.scalerState = m_parts.scaler->state();
    }
    r.layerGradNorms = std::move(end.hostNorms);
    r.gradNorm = euclideanNorm(r.layerGradNorms);
    r.lr = s.lastLr;
    r.schedulerSteps = s.schedulerSteps;
    // A window whose loop ran no micro-batch (skip-last-micro at accum_steps 1) has no loss to
    // judge; its buffers still do.
    // A window skipped for an Inf/NaN is the scaler doing its work, not a divergence.
    r.finite = (s.losses.empty() || std::isfinite(r.loss)) && (std::isfinite(r.gradNorm) || end.skipStep);
    r.wallMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s.started).count();
    r.syncCalls = s.syncCalls;
    r.optimizerSteps = s.optimizerSteps;
    r.optimizerStateStep = m_parts.optimizer.stateStep();
    r.microBatches = s.microBatches;
    s.last = r;
    s.open = false;
}

void AccumWindow::keepStartParams()
{
    if (!m_stepsInside || !m_state.startParams.empty())
        return;
    torch::NoGradGuard noGrad;
    for (const auto &p : m_parts.params)
        m_state.startParams.push_back(p.detach().clone());
}

const std::vector<torch::Tensor> &AccumWindow::paramsAtStart() const
{
    return (m_stepsInside && m_state.micro > 0) ? m_state.startParams : m_parts.params;
}

} // namespace accumlab
