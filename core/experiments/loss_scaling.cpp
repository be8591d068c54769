// Experiment 12, loss-scaling: float16 under gradient accumulation, on the engine's own window
// (core/engine.cpp) with its dynamic loss scaler (core/loss_scaler.h). Late in training the
// gradients are small; loss / N makes every micro-batch's share N times smaller, and float16
// rounds what falls below 2^-25 to zero. The experiment counts the gradient elements that a
// float16 window zeroes where a float32 window of the same samples does not, at N = 1 and
// N = 16, then with the scaler; checks the scaled window against the float32 one within a
// float16 bound; and measures the scaler's contract and its pitfalls (an overflow skips the
// whole window; unscale_() twice and update() before any unscale_() raise, as PyTorch's do;
// dropping only the overflowed micro-batch hides the overflow from the scaler, whose scale then
// grows until most micro-batches overflow; the scaled loss logged).
// Not here: the catalog and JSON (experiments.cpp), any prose (content/experiments/loss-scaling.json).
#include "core/experiments/internal.h"

#include "core/engine.h"
#include "core/tensor_diff.h"
#include "core/window_probe.h"

#include <torch/torch.h>

#include <cmath>

namespace accumlab::experiments {

namespace {

constexpr int64_t kMicroBatch = 4;  // the micro-batch that fits: kept, and N of them accumulated
constexpr int64_t kManyMicro = 16;  // the N of the lesson's underflow
// Windows of float32 training before the measured window ("late in training": the loss and
// the gradients are small), at the fixture's rate.
constexpr int64_t kPretrainWindows = 300;
constexpr int64_t kPretrainWindowsFast = 150;
// The bound of the scaled float16 window against the float32 one: k eps(float16) max|g|, with the
// equivalence check's k.
constexpr double kBoundFactor = 8.0;
// The planted overflow's micro-batch (of the first measured window).
constexpr int64_t kSpikeMicro = 5;
// The skip-overflowed-micro harm: windows of the lesson's model from its start with a growth
// interval of four (the scale doubles after four clean windows), the correct loop's and the pitfall's.
constexpr int64_t kShownGrowthInterval = 4;
constexpr int64_t kHarmWindows = 40;

// The buffers the window's optimizer step reads (unscaled), as float64 host copies.
struct GradProbe final : WindowProbe {
    std::vector<torch::Tensor> grads;
    std::vector<torch::Tensor> firstMicro; // the first micro-batch's gradient alone (scaled, with a scaler)
    void afterBackward(const std::vector<torch::Tensor> &gs, int64_t micro) override
    {
        if (micro != 0)
            return;
        firstMicro.clear();
        for (const auto &g : gs)
            firstMicro.push_back(g.detach().to(torch::kCPU, torch::kFloat64).clone());
    }
    void beforeStep(const std::vector<torch::Tensor> &gs, const std::vector<torch::Tensor> &, bool closes) override
    {
        if (!closes)
            return;
        grads.clear();
        for (const auto &g : gs)
            grads.push_back(g.detach().to(torch::kCPU, torch::kFloat64).clone());
    }
    void afterStep(const std::vector<torch::Tensor> &, int64_t, bool) override {}
};

// Elements that are not zero in `reference` and exactly zero in `got`.
int64_t zeroedElements(const std::vector<torch::Tensor> &reference, const std::vector<torch::Tensor> &got)
{
    int64_t n = 0;
    for (size_t i = 0; i < reference.size(); ++i)
        n += ((reference[i] != 0) & (got[i] == 0)).sum().item<int64_t>();
    return n;
}

double maxAbs(const std::vector<torch::Tensor> &ts)
{
    double m = 0.0;
    for (const auto &t : ts)
        m = std::max(m, t.abs().max().item<double>());
    return m;
}

int64_t elements(const std::vector<torch::Tensor> &ts)
{
    int64_t n = 0;
    for (const auto &t : ts)
        n += t.numel();
    return n;
}

} // namespace

ExperimentLabSettings lossScalingSettings(const ExperimentOptions &o)
{
    ExperimentLabSettings s;
    s.config = fixtureConfig(o.seed);
    s.config.microBatch = kMicroBatch;
    s.config.accumSteps = kManyMicro;
    s.config.dtype = DType::Float16;
    s.config.lossScaler.enabled = true;
    return s;
}

ExperimentResult lossScalingWith(const ExperimentOptions &o, const CancelToken *cancel, const LossScalingRuns &runs)
{
    ExperimentResult r;
    const AccumConfig settings = lossScalingSettings(o).config;
    const int64_t pretrain = o.fast ? kPretrainWindowsFast : kPretrainWindows;

    // Late in training: the float32 model after `pretrain` windows of 64 samples.
    AccumConfig pre = settings;
    pre.dtype = DType::Float32;
    pre.lossScaler = {};
    pre.microBatch = kMicroBatch * kManyMicro;
    pre.accumSteps = 1;
    // The same seed: the same task (the teacher's prototypes come from it) and the same stream.
    AccumEngine trained(pre);
    double pretrainLoss = 0.0;
    for (int64_t w = 0; w < pretrain; ++w)
        pretrainLoss = trained.step(nullptr, cancel).loss;

    // One window from the trained parameters (N micro-batches of 4 from the same stream): its
    // buffers, the engine.
    struct Run {
        std::vector<torch::Tensor> grads;
        std::vector<torch::Tensor> firstMicro;
        std::unique_ptr<AccumEngine> engine;
    };
    const auto window = [&](AccumConfig c) {
        checkCancel(cancel);
        Run run;
        run.engine = std::make_unique<AccumEngine>(c);
        run.engine->copyParametersFrom(trained);
        GradProbe probe;
        run.engine->setProbe(&probe);
        run.engine->step(nullptr, cancel);
        run.engine->setProbe(nullptr);
        run.grads = probe.grads;
        run.firstMicro = probe.firstMicro;
        return run;
    };
    const auto split = [&](int64_t accum, DType dtype, bool scaler) {
        AccumConfig c = settings;
        c.accumSteps = accum;
        c.dtype = dtype;
        c.lossScaler.enabled = scaler;
        return c;
    };

    const Run f32n1 = window(split(1, DType::Float32, false));
    const Run f32n16 = window(split(kManyMicro, DType::Float32, false));
    const Run f16n1 = window(split(1, runs.unscaledDtype, false));
    const Run f16n16 = window(split(kManyMicro, runs.unscaledDtype, false));
    AccumConfig scaledConfig = split(kManyMicro, DType::Float16, runs.scaledRunScaler);
    scaledConfig.scaling = runs.scaledRunScaling;
    const Run scaled = window(scaledConfig);
    r.ran = ExperimentLabSettings{scaled.engine->config()};

    // Where float16 underflows: each micro-batch's gradient, before it is added into the float32
    // buffers; the first one's, against float32's of the same samples.
    const int64_t zeroedN1 = zeroedElements(f32n1.firstMicro, f16n1.firstMicro);
    const int64_t zeroedN16 = zeroedElements(f32n16.firstMicro, f16n16.firstMicro);
    const int64_t zeroedScaled = zeroedElements(f32n16.firstMicro, scaled.firstMicro);
    const double bound = kBoundFactor * dtypeEpsilon(DType::Float16) * maxAbs(f32n16.grads);
    const double scaledDiff = maxAbsDiff(scaled.grads, f32n16.grads);
    const double unscaledDiff = maxAbsDiff(f16n16.grads, f32n16.grads);

    // The contract: a planted overflow in micro-batch 5 skips the whole first window.
    const auto withSpike = [&](ScalerBug bug) {
        AccumConfig c = split(kManyMicro, DType::Float16, true);
        c.lossScaler.bug = bug;
        c.lossScaler.spikeWindow = 0;
        c.lossScaler.spikeMicro = kSpikeMicro;
        return c;
    };
    const Run skip = window(withSpike(runs.skipRunBug));
    const double skipMoved = skip.engine->maxAbsParamDiff(trained);
    const StepResult skipFirst = skip.engine->lastStep();
    const StepResult skipSecond = skip.engine->step(nullptr, cancel);
    const Run dropped = window(withSpike(runs.droppedRunBug));
    const double droppedMoved = dropped.engine->maxAbsParamDiff(trained);

    // A pitfall PyTorch refuses, run for one window from the trained parameters: the micro-batch
    // where the engine raised `code` as PyTorch does (-1: none did).
    const auto raisedAt = [&](ScalerBug bug, const char *code) {
        AccumConfig c = split(kManyMicro, DType::Float16, true);
        c.lossScaler.bug = bug;
        AccumEngine e(c);
        e.copyParametersFrom(trained);
        try {
            for (int64_t m = 0; m < kManyMicro; ++m) {
                checkCancel(cancel);
                e.microStep(nullptr, cancel);
            }
        } catch (const ScalerError &err) {
            if (err.code() == code)
                return static_cast<double>(e.microBatches() - 1);
        }
        return -1.0;
    };
    // unscale_() after every micro-batch raises at the second; update() after every backward at the first.
    const double unscaleRaisedAt = raisedAt(runs.doubleUnscaleRunBug, "engine/unscale-twice");
    const double updateRaisedAt = raisedAt(runs.updateRunBug, "engine/update-without-inf-checks");

    // The harm of dropping only the overflowed micro-batch: the scaler never sees an overflow,
    // so its scale grows every kShownGrowthInterval windows until most micro-batches overflow
    // and are dropped; the correct loop backs off once per overflowed window and keeps learning.
    struct Harm {
        double loss = 0.0, scale = 0.0;
        int64_t skipped = 0, dropped = 0, droppedLast = 0;
    };
    const auto harmRun = [&](ScalerBug bug) {
        // The lesson's model from its start, where the loss still has far to fall (the fixture
        // learns its task within a few windows, and its tiny gradients rarely overflow).
        AccumConfig c;
        c.seed = settings.seed;
        c.device = settings.device;
        c.microBatch = kMicroBatch;
        c.accumSteps = kManyMicro;
        c.dtype = DType::Float16;
        c.lossScaler.enabled = true;
        c.lossScaler.growthInterval = kShownGrowthInterval;
        c.lossScaler.bug = bug;
        AccumEngine e(c);
        Harm h;
        for (int64_t w = 0; w < kHarmWindows; ++w) {
            const StepResult s = e.step(nullptr, cancel);
            h.dropped += s.droppedMicroBatches;
            h.droppedLast = s.droppedMicroBatches;
            h.loss = s.loss;
        }
        h.scale = e.lossScalerState().scale;
        h.skipped = e.lossScalerState().skippedWindows;
        return h;
    };
    const Harm harmCorrect = harmRun(ScalerBug::None);
    const Harm harmDropped = harmRun(runs.harmRunBug);
    const double droppedScale = dropped.engine->lossScalerState().scale;

    // The scaled loss logged: the logged loss over the loss, with the pitfall and without.
    AccumConfig log = split(kManyMicro, DType::Float16, true);
    const Run logCorrect = window(log);
    log.lossScaler.bug = runs.logRunBug;
    const Run logBug = window(log);
    const StepResult &lc = logCorrect.engine->lastStep();
    const StepResult &lb = logBug.engine->lastStep();
    const double loggedRatioCorrect = lc.loggedLoss / lc.loss;
    const double loggedRatioBug = lb.loggedLoss / lb.loss;

    const double initScale = settings.lossScaler.initScale;
    r.textStrings["float16_path"] = scaled.engine->float16Path();
    addValue(r, "accum_steps", static_cast<double>(kManyMicro));
    addValue(r, "micro_batch", static_cast<double>(kMicroBatch));
    addValue(r, "pretrain_windows", static_cast<double>(pretrain));
    addValue(r, "pretrain_loss", pretrainLoss);
    addValue(r, "gradient_elements", static_cast<double>(elements(f32n1.grads)));
    addValue(r, "zeroed_unscaled_n1", static_cast<double>(zeroedN1));
    addValue(r, "zeroed_unscaled_n16", static_cast<double>(zeroedN16));
    addValue(r, "zeroed_scaled_n16", static_cast<double>(zeroedScaled));
    addValue(r, "float16_smallest", std::ldexp(1.0, -25)); // half of 2^-24: rounds to zero below it
    addValue(r, "init_scale", initScale);
    addValue(r, "float16_bound", bound);
    addValue(r, "grad_diff_scaled_n16", scaledDiff);
    addValue(r, "grad_diff_unscaled_n16", unscaledDiff);
    addValue(r, "spike_micro", static_cast<double>(kSpikeMicro));
    addValue(r, "skip_params_moved", skipMoved);
    addValue(r, "skip_state_step", static_cast<double>(skipFirst.optimizerStateStep));
    addValue(r, "skip_scheduler_steps", static_cast<double>(skipFirst.schedulerSteps));
    addValue(r, "skip_scale_after", skipFirst.scalerState.scale);
    addValue(r, "skip_skipped_windows", static_cast<double>(skipFirst.scalerState.skippedWindows));
    addValue(r, "skip_unscale_calls", static_cast<double>(skipFirst.scalerState.unscaleCalls));
    addValue(r, "skip_next_state_step", static_cast<double>(skipSecond.optimizerStateStep));
    addValue(r, "dropped_params_moved", droppedMoved);
    addValue(r, "dropped_scale_after", droppedScale);
    addValue(r, "double_unscale_micro", unscaleRaisedAt);
    addValue(r, "update_every_micro_raised", updateRaisedAt);
    addValue(r, "growth_interval_shown", static_cast<double>(kShownGrowthInterval));
    addValue(r, "harm_windows", static_cast<double>(kHarmWindows));
    addValue(r, "harm_micro_batches", static_cast<double>(kHarmWindows * kManyMicro));
    addValue(r, "harm_skipped_correct", static_cast<double>(harmCorrect.skipped));
    addValue(r, "harm_scale_correct", harmCorrect.scale);
    addValue(r, "harm_loss_correct", harmCorrect.loss);
    addValue(r, "harm_dropped", static_cast<double>(harmDropped.dropped));
    addValue(r, "harm_dropped_last", static_cast<double>(harmDropped.droppedLast));
    addValue(r, "harm_scale_dropped", harmDropped.scale);
    addValue(r, "harm_loss_dropped", harmDropped.loss);
    addValue(r, "logged_ratio_correct", loggedRatioCorrect);
    addValue(r, "logged_ratio_scaled_loss", loggedRatioBug);

    addClaim(r, "loss-over-n-underflows", "zeroed_unscaled_n16 > zeroed_unscaled_n1 and zeroed_unscaled_n16 > 0",
             zeroedN16 > zeroedN1 && zeroedN16 > 0);
    addClaim(r, "scaler-keeps-gradients", "10 * zeroed_scaled_n16 < zeroed_unscaled_n16",
             10 * zeroedScaled < zeroedN16);
    // Both halves: the bound alone holds without the scaler too (the elements float16 zeroes are
    // small, so the unscaled window's difference stays under it); the scaler's work is that
    // none of them is zero.
    addClaim(r, "scaled-within-float16-bound",
             format("zeroed_scaled_n16 == 0 and grad_diff_scaled_n16 <= %g eps(float16) max|g float32| "
                    "(float16_bound)",
                    kBoundFactor),
             zeroedScaled == 0 && scaledDiff <= bound);
    addClaim(r, "overflow-skips-window",
             "skip_params_moved == 0, skip_state_step == 0, skip_scheduler_steps == 0, skip_skipped_windows == 1, "
             "skip_scale_after == init_scale / 2, skip_unscale_calls == 1, skip_next_state_step == 1",
             skipMoved == 0.0 && skipFirst.optimizerStateStep == 0 && skipFirst.schedulerSteps == 0 &&
                 skipFirst.scalerState.skippedWindows == 1 && skipFirst.scalerState.scale == initScale / 2.0 &&
                 skipFirst.scalerState.unscaleCalls == 1 && skipSecond.optimizerStateStep == 1);
    addClaim(r, "skip-overflowed-micro-steps", "dropped_params_moved > 0 and dropped_scale_after == init_scale",
             droppedMoved > 0.0 && droppedScale == initScale);
    addClaim(r, "skip-overflowed-micro-harms",
             "harm_dropped > 0, harm_scale_dropped > harm_scale_correct and harm_loss_dropped > harm_loss_correct",
             harmDropped.dropped > 0 && harmDropped.scale > harmCorrect.scale && harmDropped.loss > harmCorrect.loss);
    addClaim(r, "unscale-every-micro-raises", "double_unscale_micro == 1 (engine/unscale-twice)", unscaleRaisedAt == 1.0);
    addClaim(r, "update-every-micro-raises", "update_every_micro_raised == 0 (engine/update-without-inf-checks)",
             updateRaisedAt == 0.0);
    addClaim(r, "logged-scaled-loss-scale-times",
             "|logged_ratio_scaled_loss / init_scale - 1| < 1e-6 and |logged_ratio_correct - 1| < 1e-6",
             std::abs(loggedRatioBug / initScale - 1.0) < 1e-6 && std::abs(loggedRatioCorrect - 1.0) < 1e-6);
    return r;
}

ExperimentResult lossScaling(const ExperimentOptions &o, const CancelToken *cancel)
{
    return lossScalingWith(o, cancel, LossScalingRuns{});
}

} // namespace accumlab::experiments
