// The accumulation engine's window loop: the one accumulation window. The sweep, teaching
// mode, the equivalence check, the memory lab and the thread ranks all run it.
//
// One effective (optimizer) step, as runMicro below reads (one call per micro-batch):
//   zero the gradient buffers once at the window start;
//   for each of the N micro-batches: forward, loss / N (Scaling::Divide), backward into the
//   same buffers; non-final micro-batches skip the gradient sync when noSync is on;
//   after the last micro-batch read the norms (one host transfer) and step the optimizer once,
//   then the LR schedule once.
// With a clip norm the window's synced sum is clipped once before the step. With the loss
// scaler (float16, core/loss_scaler.h) each micro-batch's loss / N is multiplied by the scale
// before backward; after the last micro-batch (and the sync) the buffers are unscaled once and
// checked for Inf/NaN, then clipped; a window with an Inf/NaN skips its optimizer step (the
// optimizer's state and the LR schedule stay where they were), and the scaler's update() runs
// once.
// The planted bugs are hooks named after them (bugZeroInLoop, bugSkipsThisMicro, ...; the
// scaler's pitfalls in pitfallsInLoop and stepWindow), each at the line it gets wrong, with
// its one-line story: Scaling::None leaves the loss undivided (SGD's update becomes N times
// the correct one); stepEveryMicro calls the optimizer after every backward.
#include "core/engine.h"

#include "core/cpu_memory.h"
#include "core/data.h"
#include "core/device.h"
#include "core/engine_state.h"
#include "core/full_batch.h"
#include "core/grad_sync.h"
#include "core/memory_timeline.h"
#include "core/model.h"
#include "core/optimizer.h"
#include "core/sha256.h"
#include "core/window_probe.h"

#include <chrono>
#include <optional>
#include <cmath>

namespace accumlab {

namespace {

using Clock = std::chrono::steady_clock;

// A device vector on the host as float32, in one transfer (the step's only host sync).
std::vector<double> toVector(const torch::Tensor &t)
{
    auto cpu = t.to(torch::kCPU, torch::kFloat32).contiguous();
    const float *p = cpu.data_ptr<float>();
    return {p, p + cpu.numel()};
}

double l2(const std::vector<double> &norms)
{
    double s = 0.0;
    for (double n : norms)
        s += n * n;
    return std::sqrt(s);
}

} // namespace

struct AccumEngine::Impl {
    AccumConfig config;
    torch::Device device;
    torch::Dtype dtype;
    Mlp model{nullptr};
    std::unique_ptr<FusedOptimizer> optimizer;
    std::unique_ptr<DataStream> data;
    std::shared_ptr<GradSync> sync;
    std::vector<torch::Tensor> params;
    std::vector<std::string> names;
    HalfMode halfMode = HalfMode::Off;   // DType::Float16: real or emulated float16 compute
    std::unique_ptr<LossScaler> scaler;  // null when the loss scaler is off
    int64_t droppedInWindow = 0;         // skip-overflowed-micro: micro-batches of this window dropped
    double windowScale = 1.0;            // the scale the window's last micro-batch was multiplied by

    // The open window: its micro-batches, how many ran, their detached raw losses.
    bool open = false;
    std::vector<torch::Tensor> windowX; // each (micro, in): the drawn noise, composed when it runs
    std::vector<torch::Tensor> windowY; // each (micro,)
    std::vector<torch::Tensor> windowLosses;
    // The loss divisor N as a 0-d tensor of the loss's dtype (divideLoss).
    torch::Tensor divisorTensor;
    double divisorValue = 0.0;
    bool divisorExact = false;
    std::vector<torch::Tensor> windowStartParams; // kept only for referenceGradNorms with stepEveryMicro
    int64_t micro = 0;
    Clock::time_point windowStart;
    bool phaseTiming = false;
    double windowWorkSeconds = 0.0; // the windows' own work, while phaseTiming is on

    // Phase timing's clock around a part of the window's own work: started only when `timed`
    // (and phase timing is on), the device synchronized at both ends so that CUDA's queued
    // kernels are counted where they run.
    std::optional<Clock::time_point> startWindowWork(bool timed)
    {
        if (!phaseTiming || !timed)
            return std::nullopt;
        synchronizeDevice(device.str());
        return Clock::now();
    }
    void stopWindowWork(const std::optional<Clock::time_point> &start)
    {
        if (!start)
            return;
        synchronizeDevice(device.str());
        windowWorkSeconds += std::chrono::duration<double>(Clock::now() - *start).count();
    }

    int64_t syncCalls = 0;
    int64_t optimizerSteps = 0;
    int64_t microBatches = 0;
    int64_t windowsDone = 0;
    StepResult last;
    WindowProbe *probe = nullptr;
    double clipNorm = 0.0; // effectiveClipNorm: 0, the configured max_norm, or the bug's
    int64_t lrWarmup = 0;  // effectiveLrWarmup: 0 (a constant rate), the configured one, or the bug's
    int64_t schedulerSteps = 0; // scheduler.step() calls so far
    double lastLr = 0.0;        // the rate of the last optimizer step
    // The open window's full-batch gradient (referenceNorms), for the buffers' fills.
    std::vector<torch::Tensor> referenceGrads;
    int64_t referenceWindow = -1;
    // The lesson's statements the current call ran, in order (MicroBatchEvent::ran).
    std::vector<LoopStatement> ran;
    void did(LoopStatement s) { ran.push_back(s); }

    Impl(const AccumConfig &c, std::shared_ptr<GradSync> s)
        : config(c), device(resolveDevice(c.device)), dtype(toTorch(c.dtype)), sync(std::move(s))
    {
        installCpuMemoryCounter(); // before the first tensor, so that all of them are counted
        if (!sync)
            sync = std::make_shared<LocalSync>();
        if (sync->worldSize() != c.worldSize)
            throw ConfigError("engine/world-size-mismatch",
                              TextArgs{{{"world", double(c.worldSize)}, {"ranks", double(sync->worldSize())}}, {}});
        model = makeModel(c.modelShape(), c.seed, dtype, device);
        halfMode = halfModeFor(c.dtype, device);
        model->halfMode = halfMode;
        if (c.lossScaler.enabled)
            scaler = std::make_unique<LossScaler>(c.lossScaler);
        params = parameterList(*model);
        names = accumlab::parameterNames(*model);
        optimizer = std::make_unique<FusedOptimizer>(params, c.optimizer);
        clipNorm = effectiveClipNorm(c.optimizer, c.bug);
        lrWarmup = effectiveLrWarmup(c.optimizer, c.bug);
        // Every rank draws the same global window and keeps its own shard.
        data = std::make_unique<DataStream>(c.modelShape(), c.labels, c.seed, dtype, device);
        optimizer->zeroGrad();
        ran.reserve(16);
    }

    void openWindow()
    {
        markMemoryPhase(MemoryPhase::OpenWindow); // the window's samples and zero_grad()
        windowStart = Clock::now();
        const int64_t perRank = config.microBatch * config.accumSteps;
        // The last window's samples go before the next ones are drawn: a window holds its
        // samples once, as a loader that yields micro-batches would hold its batch.
        windowX.clear();
        windowY.clear();
        auto [x, y] = data->draw(perRank * config.worldSize); // x: (effective, in) noise, y: (effective,)
        if (config.worldSize > 1) {
            x = x.narrow(/*dim=*/0, sync->rank() * perRank, perRank);
            y = y.narrow(/*dim=*/0, sync->rank() * perRank, perRank);
        }
        if (config.accumSteps == 1) {
            windowX = {x};
            windowY = {y};
        } else {
            windowX = x.split(config.microBatch); // accumSteps x (micro, in)
            windowY = y.split(config.microBatch);
        }
        windowLosses.clear();
        windowLosses.reserve(config.accumSteps);
        if (config.stepEveryMicro && !windowStartParams.empty()) {
            torch::NoGradGuard noGrad;
            for (size_t i = 0; i < params.size(); ++i)
                windowStartParams[i].copy_(params[i]);
        }
        // zero_grad() once per window; the never-zero bug forgets it after the first.
        const auto zeroing = startWindowWork(true);
        if (!(config.bug == AccumBug::NeverZero && windowsDone > 0)) {
            optimizer->zeroGrad();
            did(LoopStatement::ZeroGrad);
        }
        stopWindowWork(zeroing);
        micro = 0;
        droppedInWindow = 0;
        open = true;
    }

    ScalerBug scalerBug() const { return scaler ? config.lossScaler.bug : ScalerBug::None; }

    // True when any gradient buffer holds an Inf or NaN (one host read).
    bool buffersNonFinite() { return !optimizer->flatGrad().isfinite().all().item<bool>(); }

    // scaler.unscale_(optimizer): the buffers times 1 / scale, once per update() (a second call
    // throws, as PyTorch's does); returns whether they hold an Inf/NaN.
    bool unscaleBuffers()
    {
        torch::NoGradGuard noGrad;
        scaler->noteUnscale();
        did(LoopStatement::Unscale);
        optimizer->flatGrad().mul_(1.0 / scaler->scale());
        return buffersNonFinite();
    }

    // What each micro-batch's loss is divided by before backward: N, 1 without division, N + 1
    // with that bug.
    double lossDivisor() const
    {
        const auto n = static_cast<double>(config.accumSteps);
        if (config.bug == AccumBug::DivideByNPlusOne)
            return n + 1.0;
        return config.scaling == Scaling::Divide ? n : 1.0;
    }

    // raw / N, the lesson's `loss / N`. On the CPU N is a 0-d tensor of the loss's dtype, made
    // once: a double N is wrapped in a double tensor and converted to the loss's dtype on every
    // forward, and its backward (DivBackward1) does the same again: 14 of a micro-batch's 145.5
    // operator calls on LibTorch 1.13, 10 of 141.5 on 2.11 (scripts/bench/ops_per_micro.py). The
    // quotient is the same division by the same N wherever N is exact in that dtype (always in
    // float32; not bfloat16's 257, which stays a number). On CUDA PyTorch divides by a number as
    // a multiplication by its reciprocal: there N stays a number too.
    torch::Tensor divideLoss(const torch::Tensor &raw, double divisor)
    {
        if (!raw.device().is_cpu())
            return raw / divisor;
        if (!divisorTensor.defined() || divisorValue != divisor || divisorTensor.scalar_type() != raw.scalar_type()) {
            divisorTensor = torch::scalar_tensor(divisor, raw.options());
            divisorValue = divisor;
            divisorExact = divisorTensor.item<double>() == divisor;
        }
        return divisorExact ? raw / divisorTensor : raw / divisor;
    }

    // ---- The window, as the lesson writes it ----------------------------------------------
    // One call runs micro-batch k of the open window; each statement's lesson line is on its
    // right. The planted bugs (AccumBug, stepEveryMicro, Scaling::None) and the scaler's
    // pitfalls (ScalerBug) are the bug* and pitfall* hooks, each at the line it gets wrong.
    // Each statement that runs says so (did(LoopStatement)): the report of the micro-batch lists
    // them, and the code panel lights those lines of the PyTorch loop (core/loop_code.h).
    //   optimizer.zero_grad()                            once, when the window opens
    //   for k in range(N):
    //       loss = criterion(model(x[k]), y[k]) / N      (* scaler.scale with float16)
    //       loss.backward()                              adds into the same .grad buffers
    //       (inside model.no_sync() for every k but the last)
    //   scaler.unscale_(optimizer); clip_grad_norm_(...); optimizer.step(); scheduler.step();
    //   scaler.update()                                  once per window
    bool runMicro(EngineObserver *observer, const CancelToken *cancel)
    {
        if (cancel && cancel->cancelled())
            throw Cancelled{};
        if (!open)
            openWindow();                                      // optimizer.zero_grad()
        const bool lastMicro = micro == config.accumSteps - 1; // for k in range(N):
        const bool synced = !config.noSync || lastMicro;       //     no_sync() on all but the last
        if (!synced && config.worldSize > 1)
            did(LoopStatement::NoSync);
        bugZeroInLoop();
        const torch::Tensor raw = forwardBackward(lastMicro);  //     (loss / N).backward()
        ++microBatches;
        pitfallsInLoop();
        bugClipInLoop();
        const bool stepPoint = config.stepEveryMicro || lastMicro;
        const auto work = startWindowWork(stepPoint);
        if (synced)
            allReduceBuffers();
        WindowEnd end;
        if (stepPoint)                                         // step-every-micro: every k
            end = stepWindow(lastMicro);                       // unscale_, clip, step, scheduler, update
        bugScheduleInLoop();                                   // (the bug: after every micro-batch)
        stopWindowWork(work);
        {
            const UnrecordedMemory ownReads; // the report's reads are not the lesson's loop
            reportMicro(observer, raw, lastMicro, synced, end);
        }
        ran.clear(); // the next report starts here (a window opened early, by referenceGradNorms, included)
        ++micro;
        if (!lastMicro)
            return false;
        closeWindow(observer, end);
        return true;
    }

    // What the window's step point leaves for the reports.
    struct WindowEnd {
        std::vector<double> hostNorms; // the last micro-batch's: the window's P norms
        double windowLoss = 0.0;       // the mean raw loss of the micro-batches that ran
        bool stepped = false;
        bool skipStep = false;         // the scaler found an Inf/NaN: no step this window
    };

    // loss = criterion(model(x[k]), y[k]) / N (times the scaler's scale); loss.backward().
    // Returns the raw loss (undefined when the skip-last bug left the micro-batch out).
    torch::Tensor forwardBackward(bool lastMicro)
    {
        torch::Tensor raw;
        // The loss scaler's factor (scaler.scale(loss)), and a planted spike's.
        windowScale = scaler ? scaler->scale() : 1.0;
        const bool spike = config.lossScaler.spikeWindow == windowsDone && config.lossScaler.spikeMicro == micro;
        const double factor = windowScale * (spike ? kSpikeFactor : 1.0);
        if (bugSkipsThisMicro(lastMicro))
            return raw;
        const double divisor = lossDivisor(); // N (a division by 1 is skipped)
        markMemoryPhase(MemoryPhase::Forward, micro);
        const auto x = data->inputs(windowX[micro], windowY[micro]); // x: (micro, in)
        // skip-overflowed-micro keeps the buffers as they were, to drop an overflowed micro-batch.
        torch::Tensor before;
        if (scalerBug() == ScalerBug::SkipOverflowedMicro)
            before = optimizer->flatGrad().clone();
        for (int pass = 0; pass < bugPassesOfThisMicro(); ++pass) {
            did(pass == 0 ? LoopStatement::Forward : LoopStatement::Retry);
            auto logits = model->forward(x);                         // logits: (micro, classes)
            raw = torch::cross_entropy_loss(logits, windowY[micro]); // raw: () mean over the micro-batch
            auto scaled = divisor != 1.0 ? divideLoss(raw, divisor) : raw; // scaled: ()
            if (factor != 1.0)
                scaled = scaled * factor; // scaler.scale(loss / N)
            markMemoryPhase(MemoryPhase::Backward, micro);
            scaled.backward(); // adds into the same .grad buffers as the earlier micro-batches
            if (pass == 0)
                did(LoopStatement::Backward);
        }
        windowLosses.push_back(raw.detach());
        if (probe)
            probe->afterBackward(optimizer->grads(), micro);
        if (before.defined() && buffersNonFinite()) {
            torch::NoGradGuard noGrad;
            optimizer->flatGrad().copy_(before); // the pitfall: drop this micro-batch, keep the window
            ++droppedInWindow;                   // (the scaler is not told: its unscale_() finds no Inf)
        }
        return raw;
    }

    // The gradient all-reduce, once per window when no_sync() covers the others.
    void allReduceBuffers()
    {
        markMemoryPhase(MemoryPhase::Sync, micro);
        sync->allReduceMean(optimizer->flatGrad());
        ++syncCalls;
        if (config.worldSize > 1)
            did(LoopStatement::Sync);
    }

    // The window's step point: scaler.unscale_(optimizer) and its Inf/NaN check, clip once,
    // read the norms (one host transfer, on the last micro-batch), optimizer.step() and
    // scheduler.step() (or no step for a window with an Inf/NaN), scaler.update().
    WindowEnd stepWindow(bool lastMicro)
    {
        markMemoryPhase(MemoryPhase::Step, micro);
        WindowEnd end;
        bool foundInf = false;
        if (scaler) { // unscale once (unless a pitfall already did), then look for Inf/NaN
            foundInf = scaler->state().unscaledSinceUpdate ? buffersNonFinite() : unscaleBuffers();
        }
        end.skipStep = foundInf;
        // The correct loop clips once, the window's synced (and unscaled) sum, just before the
        // step (step-every-micro: before each of its steps).
        if (clipNorm > 0.0 && config.bug != AccumBug::ClipEachMicro && !end.skipStep) {
            optimizer->clipGradNorm(clipNorm);
            did(LoopStatement::Clip);
        }
        if (lastMicro)
            readWindowNorms(end);
        if (end.skipStep) {
            scaler->noteSkippedWindow(); // no step: the state and the schedule stay
        } else {
            if (probe)
                probe->beforeStep(optimizer->grads(), optimizer->params(), lastMicro);
            lastLr = scheduledLr(config.optimizer, schedulerSteps, lrWarmup);
            optimizer->setLearningRate(lastLr);
            optimizer->step();
            did(LoopStatement::Step);
            if (probe)
                probe->afterStep(optimizer->params(), optimizer->stateStep(), lastMicro);
            ++optimizerSteps;
            end.stepped = true;
            if (config.bug != AccumBug::ScheduleEveryMicro) {
                ++schedulerSteps; // scheduler.step() once per optimizer update
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
    void readWindowNorms(WindowEnd &end)
    {
        torch::NoGradGuard noGrad;
        auto scalars = optimizer->gradNormList(); // P 0-d norms, then the raw losses that ran
        scalars.insert(scalars.end(), windowLosses.begin(), windowLosses.end());
        end.hostNorms = toVector(torch::stack(scalars)); // (P + ran,) on the host
        const auto ran = static_cast<int64_t>(windowLosses.size());
        for (int64_t i = 0; i < ran; ++i)
            end.windowLoss += end.hostNorms[end.hostNorms.size() - 1 - i];
        end.windowLoss = ran > 0 ? end.windowLoss / static_cast<double>(ran) : std::nan("");
        end.hostNorms.resize(end.hostNorms.size() - ran);
    }

    // ---- The zoo's hooks: each a planted bug at the line it gets wrong ----------------------
    // zero-every-micro: optimizer.zero_grad() inside the loop wipes the micro-batches before.
    void bugZeroInLoop()
    {
        if (config.bug == AccumBug::ZeroEveryMicro && micro > 0) {
            optimizer->zeroGrad();
            did(LoopStatement::ZeroGrad);
        }
    }
    // skip-last-micro: the loop stops one short; the last micro-batch is drawn, never run.
    bool bugSkipsThisMicro(bool lastMicro) const { return config.bug == AccumBug::SkipLastMicro && lastMicro; }
    // count-micro-twice: the first micro-batch's backward runs twice (a retried batch).
    int bugPassesOfThisMicro() const { return config.bug == AccumBug::CountMicroTwice && micro == 0 ? 2 : 1; }
    // clip-each-micro: clip_grad_norm_ inside the loop, on the partial sum.
    void bugClipInLoop()
    {
        if (config.bug == AccumBug::ClipEachMicro) {
            optimizer->clipGradNorm(clipNorm);
            did(LoopStatement::Clip);
        }
    }
    // schedule-every-micro: scheduler.step() in the micro-batch loop, N times per update, after
    // the window's step where the loop steps (the classic form: outside the `if` that steps).
    void bugScheduleInLoop()
    {
        if (config.bug == AccumBug::ScheduleEveryMicro) {
            ++schedulerSteps;
            did(LoopStatement::Scheduler);
        }
    }
    // (never-zero forgets zero_grad() after the first window: openWindow; divide-by-n-plus-one
    // and no-division change the divisor: lossDivisor.)

    // The scaler's pitfalls inside the loop: unscale_() after every backward (the second call
    // raises), update() after every backward (the first call raises: no unscale_() checked the
    // buffers for Inf/NaN since the window opened). Both refusals are PyTorch's (LossScaler).
    void pitfallsInLoop()
    {
        if (scalerBug() == ScalerBug::UnscaleEveryMicro)
            unscaleBuffers();
        if (scalerBug() == ScalerBug::UpdateEveryMicro) {
            did(LoopStatement::Update);
            scaler->update(false);
        }
    }

    // ---- Reports ------------------------------------------------------------------------------
    void reportMicro(EngineObserver *observer, const torch::Tensor &raw, bool lastMicro, bool synced, const WindowEnd &end)
    {
        if (!observer || !observer->wantsMicroBatchDetail())
            return;
        MicroBatchEvent e;
        e.step = windowsDone;
        e.microIndex = micro;
        e.accumSteps = config.accumSteps;
        e.microLoss = raw.defined() ? raw.detach().to(torch::kFloat64).item<double>() : std::nan("");
        e.gradNorms = lastMicro ? end.hostNorms : toVector(optimizer->gradNorms());
        measureFills(e);
        e.synced = synced;
        e.optimizerStepped = end.stepped;
        e.syncCalls = syncCalls;
        e.optimizerSteps = optimizerSteps;
        e.optimizerStateStep = optimizer->stateStep();
        e.microBatches = microBatches;
        e.float16Path = toString(halfMode);
        e.ran = ran;
        if (scaler) {
            e.lossScaling = true;
            e.scalerState = scaler->state();
        }
        observer->onMicroBatch(e);
    }

    void closeWindow(EngineObserver *observer, WindowEnd &end)
    {
        markMemoryPhase(MemoryPhase::Outside);
        StepResult r;
        r.step = windowsDone++;
        r.loss = end.windowLoss;
        // The lesson logs scaled.item() * accum_steps: the raw loss back with division, N times
        // it without, so the bug shows in the log.
        r.loggedLoss = end.windowLoss * static_cast<double>(config.accumSteps) / lossDivisor();
        if (scalerBug() == ScalerBug::LogScaledLoss)
            r.loggedLoss *= windowScale; // the pitfall: the scaled loss logged
        r.float16Path = toString(halfMode);
        if (scaler) {
            r.lossScaling = true;
            r.lossScale = windowScale;
            r.stepSkipped = end.skipStep;
            r.droppedMicroBatches = droppedInWindow;
            r.scalerState = scaler->state();
        }
        r.layerGradNorms = std::move(end.hostNorms);
        r.gradNorm = l2(r.layerGradNorms);
        r.lr = lastLr;
        r.schedulerSteps = schedulerSteps;
        // A window whose loop ran no micro-batch (skip-last-micro at accum_steps 1) has no loss
        // to judge; its buffers still do.
        // A window skipped for an Inf/NaN is the scaler doing its work, not a divergence.
        r.finite = (windowLosses.empty() || std::isfinite(r.loss)) && (std::isfinite(r.gradNorm) || end.skipStep);
        r.wallMs = std::chrono::duration<double, std::milli>(Clock::now() - windowStart).count();
        r.syncCalls = syncCalls;
        r.optimizerSteps = optimizerSteps;
        r.optimizerStateStep = optimizer->stateStep();
        r.microBatches = microBatches;
        last = r;
        open = false;
        if (observer)
            observer->onStep(last);
    }

    // The buffers' fills of `e` (MicroBatchEvent::fills), when the window's reference is known.
    void measureFills(MicroBatchEvent &e)
    {
        if (referenceWindow != windowsDone || referenceGrads.empty())
            return;
        torch::NoGradGuard noGrad;
        const auto &grads = optimizer->grads();
        std::vector<torch::Tensor> parts; // P dots, then P squared norms of the reference
        for (size_t i = 0; i < grads.size(); ++i)
            parts.push_back((grads[i].to(torch::kFloat64) * referenceGrads[i]).sum());
        for (const auto &g : referenceGrads)
            parts.push_back(g.pow(2).sum());
        const auto host = toVector(torch::stack(parts)); // (2P,) one transfer
        const size_t P = grads.size();
        double dot = 0.0, ref2 = 0.0;
        for (size_t i = 0; i < P; ++i) {
            e.fills.push_back(host[P + i] > 0.0 ? host[i] / host[P + i] : 0.0);
            dot += host[i];
            ref2 += host[P + i];
        }
        e.fillTotal = ref2 > 0.0 ? dot / ref2 : 0.0;
    }

    std::vector<double> referenceNorms()
    {
        if (config.stepEveryMicro && windowStartParams.empty()) {
            torch::NoGradGuard noGrad;
            for (const auto &p : params)
                windowStartParams.push_back(p.detach().clone());
        }
        if (!open)
            openWindow();
        // The window's full batch in one pass at the window-start parameters, unclipped: the
        // gradient the micro-batches add up to.
        const auto &start = (config.stepEveryMicro && micro > 0) ? windowStartParams : params;
        Mlp ref = modelAt(config.modelShape(), start, dtype, device, halfMode);
        auto y = torch::cat(windowY);                     // y: (micro * accum,)
        auto x = data->inputs(torch::cat(windowX), y); // x: (micro * accum, in)
        FusedOptimizer refBuffers(ref->parameters(), config.optimizer); // only for its flat norms
        fullBatchGradient(ref, refBuffers, x, y);
        referenceWindow = windowsDone;
        referenceGrads.clear();
        if (config.worldSize == 1) {
            for (const auto &g : refBuffers.grads())
                referenceGrads.push_back(g.detach().to(torch::kFloat64).clone()); // the fills' reference
            return toVector(refBuffers.gradNorms());
        }
        // With several ranks the window's full batch is every rank's shard. The shards are equal,
        // so the mean of the ranks' full-shard gradients is the full-batch gradient: one
        // all-reduce, which every rank enters together (core/thread_ranks.h does).
        auto mean = refBuffers.flatGrad().detach().to(torch::kFloat64).clone(); // (total,)
        sync->allReduceMean(mean);
        std::vector<torch::Tensor> norms;
        int64_t offset = 0;
        for (const auto &g : refBuffers.grads()) {
            referenceGrads.push_back(mean.narrow(/*dim=*/0, offset, g.numel()).view(g.sizes()));
            norms.push_back(referenceGrads.back().norm());
            offset += g.numel();
        }
        return toVector(torch::stack(norms)); // (P,) one transfer
    }
};

AccumEngine::AccumEngine(const AccumConfig &config, std::shared_ptr<GradSync> sync)
{
    validate(config);
    d = std::make_unique<Impl>(config, std::move(sync));
}

AccumEngine::~AccumEngine() = default;

const AccumConfig &AccumEngine::config() const { return d->config; }
int64_t AccumEngine::rank() const { return d->sync->rank(); }
std::string AccumEngine::deviceName() const { return d->device.str(); }
std::vector<std::string> AccumEngine::parameterNames() const { return d->names; }

bool AccumEngine::microStep(EngineObserver *observer, const CancelToken *cancel)
{
    return d->runMicro(observer, cancel);
}

StepResult AccumEngine::step(EngineObserver *observer, const CancelToken *cancel)
{
    while (!d->runMicro(observer, cancel)) {
    }
    return d->last;
}

std::vector<double> AccumEngine::referenceGradNorms() { return d->referenceNorms(); }

std::optional<MicroBatchEvent> AccumEngine::openWindowSnapshot()
{
    if (!d->open || d->micro == 0)
        return std::nullopt;
    if (d->referenceWindow != d->windowsDone)
        d->referenceNorms(); // the fills' reference for this window (restored windows have none)
    MicroBatchEvent e;
    e.step = d->windowsDone;
    e.microIndex = d->micro - 1;
    e.accumSteps = d->config.accumSteps;
    // The last micro-batch's loss as it ran (restored with the window); NaN when it did not run.
    e.microLoss = d->windowLosses.empty() ? std::nan("") : d->windowLosses.back().to(torch::kFloat64).item<double>();
    e.gradNorms = toVector(d->optimizer->gradNorms());
    d->measureFills(e);
    e.syncCalls = d->syncCalls;
    e.optimizerSteps = d->optimizerSteps;
    e.optimizerStateStep = d->optimizer->stateStep();
    e.microBatches = d->microBatches;
    e.float16Path = toString(d->halfMode);
    if (d->scaler) {
        e.lossScaling = true;
        e.scalerState = d->scaler->state();
    }
    return e;
}

const StepResult &AccumEngine::lastStep() const { return d->last; }
int64_t AccumEngine::microIndex() const { return d->open ? d->micro : 0; }
int64_t AccumEngine::syncCalls() const { return d->syncCalls; }
int64_t AccumEngine::optimizerSteps() const { return d->optimizerSteps; }
int64_t AccumEngine::optimizerStateStep() const { return d->optimizer->stateStep(); }
int64_t AccumEngine::microBatches() const { return d->microBatches; }
int64_t AccumEngine::windowsDone() const { return d->windowsDone; }
SyncStats AccumEngine::syncStats() const { return d->sync->stats(); }
void AccumEngine::setProbe(WindowProbe *probe) { d->probe = probe; }
void AccumEngine::setPhaseTiming(bool on) { d->phaseTiming = on; }
double AccumEngine::windowWorkSeconds() const { return d->windowWorkSeconds; }
void AccumEngine::copyParametersFrom(const AccumEngine &other)
{
    torch::NoGradGuard noGrad;
    const auto &mine = d->optimizer->params();
    const auto &theirs = other.d->optimizer->params();
    if (mine.size() != theirs.size())
        throw ConfigError("engine/models-differ-in-shape", {});
    for (size_t i = 0; i < mine.size(); ++i) {
        if (!mine[i].sizes().equals(theirs[i].sizes()))
            throw ConfigError("engine/models-differ-in-shape", {});
        mine[i].copy_(theirs[i]);
    }
}

void AccumEngine::becomeTwinOf(DType dtype)
{
    // The run stores its weights and samples in toTorch(dtype) (float32 for a float16 run).
    roundParametersThrough(d->optimizer->params(), toTorch(dtype));
    d->data->roundInputsThrough(toTorch(dtype));
}

std::string AccumEngine::float16Path() const { return toString(d->halfMode); }

LossScalerState AccumEngine::lossScalerState() const
{
    if (d->scaler)
        return d->scaler->state();
    LossScalerState s;
    s.scale = d->config.lossScaler.initScale;
    return s;
}

void AccumEngine::restoreLossScalerState(const LossScalerState &state)
{
    if (d->scaler)
        d->scaler->restore(state);
}

std::string AccumEngine::paramsSha256() const
{
    torch::NoGradGuard noGrad;
    const auto flat = d->optimizer->flatParam().to(torch::kCPU).contiguous(); // (total,)
    return sha256Hex(flat.data_ptr(), flat.nbytes());
}

void AccumEngine::captureState(EngineState &out) const
{
    torch::NoGradGuard noGrad;
    auto host = [](const torch::Tensor &t) {
        return t.defined() ? t.detach().to(torch::kCPU).contiguous().clone() : torch::Tensor();
    };
    const Impl &e = *d;
    const auto opt = e.optimizer->state();
    out.params = host(e.optimizer->flatParam());
    out.paramNames = e.names;
    out.paramShapes.clear();
    for (const auto &p : e.params)
        out.paramShapes.push_back(p.sizes().vec());
    out.optimizerStateStep = opt.step;
    out.momentum = host(opt.momentum);
    out.expAvg = host(opt.expAvg);
    out.expAvgSq = host(opt.expAvgSq);
    out.schedulerSteps = e.schedulerSteps;
    out.lastLr = e.lastLr;
    out.generator = e.data->generatorState().clone();
    out.optimizerSteps = e.optimizerSteps;
    out.microBatches = e.microBatches;
    out.windowsDone = e.windowsDone;
    out.syncCalls = e.syncCalls;
    out.lastLoss = e.last.loss;
    out.lastGradNorm = e.last.gradNorm;
    out.grads = host(d->optimizer->flatGrad());
    out.open = e.open;
    out.micro = e.open ? e.micro : 0;
    out.windowX = out.windowY = out.windowInputs = out.windowLosses = out.windowStartParams = torch::Tensor();
    if (e.open) {
        out.windowX = host(torch::cat(e.windowX));   // (per-rank window, in)
        out.windowY = host(torch::cat(e.windowY));   // (per-rank window,)
        out.windowInputs = host(e.data->inputs(torch::cat(e.windowX), torch::cat(e.windowY))); // (per-rank window, in)
        out.windowLosses = e.windowLosses.empty() ? torch::empty({0}, e.optimizer->flatParam().options().device(torch::kCPU))
                                                  : host(torch::stack(e.windowLosses)); // (ran,)
    }
    if (!e.windowStartParams.empty()) {
        std::vector<torch::Tensor> flat;
        for (const auto &p : e.windowStartParams)
            flat.push_back(p.reshape({-1}));
        out.windowStartParams = host(torch::cat(flat)); // (total,)
    }
}

void AccumEngine::stateLayout(EngineState &out) const
{
    auto meta = [](const torch::Tensor &t) { return torch::empty(t.sizes(), t.options().device(torch::kMeta)); };
    out = EngineState{};
    out.params = meta(d->optimizer->flatParam());
    out.paramNames = d->names;
    for (const auto &p : d->params)
        out.paramShapes.push_back(p.sizes().vec());
    out.grads = meta(d->optimizer->flatGrad());
    out.generator = meta(d->data->generatorState());
}

void AccumEngine::restoreState(const EngineState &in)
{
    torch::NoGradGuard noGrad;
    Impl &e = *d;
    const auto &flat = e.optimizer->flatParam();
    TORCH_CHECK(in.params.numel() == flat.numel() && in.grads.numel() == flat.numel(),
                "the checkpoint's parameters do not fit this model");
    auto dev = [&](const torch::Tensor &t) { return t.to(flat.options()); };
    flat.copy_(dev(in.params));
    e.optimizer->flatGrad().copy_(dev(in.grads));
    e.optimizer->setState({in.optimizerStateStep, in.momentum, in.expAvg, in.expAvgSq});
    e.schedulerSteps = in.schedulerSteps;
    e.lastLr = in.lastLr;
    e.data->setGeneratorState(in.generator);
    e.optimizerSteps = in.optimizerSteps;
    e.microBatches = in.microBatches;
    e.windowsDone = in.windowsDone;
    e.syncCalls = in.syncCalls;
    e.last = StepResult{};
    e.last.step = in.windowsDone - 1;
    e.last.loss = in.lastLoss;
    e.last.gradNorm = in.lastGradNorm;
    e.last.lr = in.lastLr;
    e.referenceGrads.clear();
    e.referenceWindow = -1;
    e.windowX.clear();
    e.windowY.clear();
    e.windowLosses.clear();
    e.open = in.open;
    e.micro = in.open ? in.micro : 0;
    if (in.open) {
        const auto x = in.windowX.to(e.device); // (per-rank window, in) float32 noise
        const auto y = in.windowY.to(e.device); // (per-rank window,)
        if (e.config.accumSteps == 1) {
            e.windowX = {x};
            e.windowY = {y};
        } else {
            e.windowX = x.split(e.config.microBatch);
            e.windowY = y.split(e.config.microBatch);
        }
        for (const auto &l : dev(in.windowLosses).unbind(0))
            e.windowLosses.push_back(l);
        e.windowStart = Clock::now();
    }
    e.windowStartParams.clear();
    if (in.windowStartParams.defined()) {
        const auto start = dev(in.windowStartParams);
        int64_t offset = 0;
        for (const auto &p : e.params) {
            e.windowStartParams.push_back(start.narrow(/*dim=*/0, offset, p.numel()).view(p.sizes()).clone());
            offset += p.numel();
        }
    }
}

void AccumEngine::rendezvous()
{
    if (d->config.worldSize <= 1)
        return;
    torch::NoGradGuard noGrad;
    auto one = torch::zeros({1}, d->optimizer->flatParam().options()); // (1,)
    d->sync->allReduceMean(one);
}

double AccumEngine::maxAbsParamDiff(const AccumEngine &other) const
{
    torch::NoGradGuard noGrad;
    const auto &mine = d->optimizer->params();
    const auto &theirs = other.d->optimizer->params();
    if (mine.size() != theirs.size())
        throw ConfigError("engine/models-differ-in-shape", {});
    double worst = 0.0;
    for (size_t i = 0; i < mine.size(); ++i) {
        if (!mine[i].sizes().equals(theirs[i].sizes()))
            throw ConfigError("engine/models-differ-in-shape", {});
        const double diff = (mine[i].to(torch::kFloat64) - theirs[i].to(mine[i].device(), torch::kFloat64))
                                .abs().max().item<double>();
        if (!std::isfinite(diff))
            return std::nan("");
        worst = std::max(worst, diff);
    }
    return worst;
}

HeldBytes AccumEngine::heldBytes() const
{
    HeldBytes h;
    h.weights = d->optimizer->paramBytes();
    h.gradients = d->optimizer->gradBytes();
    h.optimizerState = d->optimizer->stateBytes();
    // The micro-batches are views of one draw: count each storage once.
    for (const auto *part : {&d->windowX, &d->windowY})
        if (!part->empty())
            h.windowSamples += static_cast<int64_t>(part->front().storage().nbytes());
    return h;
}

} // namespace accumlab
