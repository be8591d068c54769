// Full batch vs accumulated micro-batches, from two identical models, and the one verdict.
// The accumulated side is the engine's own window (core/engine.cpp, the loop the sweep and
// teaching mode run, its sync and planted bugs included), looked into through a WindowProbe;
// the full-batch side is the plain reference: one forward and backward over the whole batch,
// one step. Two windows are compared in a row: the first is the lesson's claim, the second
// catches what only shows once a window follows another (buffers never zeroed, optimizer state
// advanced too often). Both sides run twice: in the run's dtype (what the lesson shows) and as
// a float64 twin from the same parameters and samples (what decides: core/equivalence.h).
#include "core/equivalence.h"

#include "core/content/content.h"
#include "core/data.h"
#include "core/device.h"
#include "core/engine.h"
#include "core/full_batch.h"
#include "core/distributed/grad_sync.h"
#include "core/model.h"
#include "core/optimizer.h"
#include "core/tensor_diff.h"
#include "core/window_probe.h"

#include <cmath>
#include <algorithm>
#include <cstdio>
#include <limits>
#include <optional>

namespace accumlab {

namespace {

// One window's figures: the buffers before its (last) optimizer step and the parameters
// after it, as float64 copies on the host.
struct RunState {
    std::vector<torch::Tensor> grads;
    std::vector<torch::Tensor> paramsBefore; // the parameters those buffers were computed at
    std::vector<torch::Tensor> params;
    int64_t stateStep = 0;
};

// Both sides of the check in one dtype: each window's state, the models as built, and each
// window's update (theta_after - theta_before, per tensor).
struct Sides {
    std::vector<RunState> full, acc;
    std::vector<torch::Tensor> initFull, initAcc;
    std::vector<std::vector<torch::Tensor>> dFull, dAcc;
};

// Windows compared in a row.
constexpr int kWindows = 2;
// float64's unit roundoff, 2^-53: a stored float64 value is within u |x| of the exact one.
constexpr double kFloat64Roundoff = 0x1p-53;

double normOfDifference(const std::vector<torch::Tensor> &a, const std::vector<torch::Tensor> &b)
{
    double s = 0.0;
    for (size_t i = 0; i < a.size(); ++i)
        s += sumSquares(a[i] - b[i]);
    return std::sqrt(s);
}

// ||a - b|| / ||b||: 0 when both are zero, infinite when only b is.
double relative(double diff, double ref)
{
    if (ref > 0.0)
        return diff / ref;
    return diff > 0.0 ? std::numeric_limits<double>::infinity() : 0.0;
}

// The difference over its allowance, kTwinTolerance ||ref|| + floor: <= 1 agrees.
double excess(double diff, double ref, double floor)
{
    const double allowed = kTwinTolerance * ref + floor;
    if (allowed > 0.0)
        return diff / allowed;
    return diff > 0.0 ? std::numeric_limits<double>::infinity() : 0.0;
}

// Each window's update, theta_after - theta_before, per tensor (the first from `init`).
std::vector<std::vector<torch::Tensor>> updates(const std::vector<RunState> &windows,
                                                const std::vector<torch::Tensor> &init)
{
    std::vector<std::vector<torch::Tensor>> out;
    const std::vector<torch::Tensor> *before = &init;
    for (const RunState &w : windows) {
        auto &d = out.emplace_back();
        for (size_t i = 0; i < w.params.size(); ++i)
            d.push_back(w.params[i] - (*before)[i]);
        before = &w.params;
    }
    return out;
}

// Records each window's state from inside the engine.
struct Recorder final : WindowProbe {
    std::vector<RunState> windows;
    RunState open;
    std::vector<torch::Tensor> initialParams; // the engine's model before its first step
    void beforeStep(const std::vector<torch::Tensor> &grads, const std::vector<torch::Tensor> &params,
                    bool closesWindow) override
    {
        if (initialParams.empty())
            initialParams = float64Copies(params); // no step has run yet: the model as built
        if (closesWindow) {
            open.grads = float64Copies(grads);
            open.paramsBefore = float64Copies(params);
        }
    }
    void afterStep(const std::vector<torch::Tensor> &params, int64_t stateStep, bool closesWindow) override
    {
        if (!closesWindow)
            return;
        open.params = float64Copies(params);
        open.stateStep = stateStep;
        windows.push_back(std::move(open));
        open = {};
    }
};

// The check's two sides in one dtype: the run's own, or float64 for its twin, which starts
// from the run's initial parameters and draws the run's samples (each rounded to the run's
// dtype, then held in float64).
struct Fixture {
    const EquivalenceConfig &config;
    DType dtype;            // the sides' dtype
    bool twin = false;      // a float64 twin of a run in config.run.dtype
    torch::Device device;
    std::vector<torch::Tensor> xs; // per window (bigBatch, in)
    std::vector<torch::Tensor> ys; // per window (bigBatch,)
    const CancelToken *cancel;
    std::shared_ptr<GradSync> sync; // null for one process

    Fixture(const EquivalenceConfig &c, DType d, bool isTwin, torch::Device dev, const CancelToken *cancelToken,
            std::shared_ptr<GradSync> s)
        : config(c), dtype(d), twin(isTwin), device(dev), cancel(cancelToken), sync(std::move(s))
    {
        // The batches the engine's windows draw: the same stream, seed and order.
        DataStream data(config.run.modelShape(), config.run.labels, config.run.seed, toTorch(dtype), device);
        if (twin)
            data.roundInputsThrough(toTorch(config.run.dtype));
        for (int w = 0; w < kWindows; ++w) {
            auto [x, y] = data.next(config.bigBatch());
            xs.push_back(x);
            ys.push_back(y);
        }
    }

    Mlp freshModel() const
    {
        Mlp m = makeModel(config.run.modelShape(), config.run.seed, toTorch(dtype), device);
        if (twin) // as the twin's engine starts (AccumEngine::becomeTwinOf)
            roundParametersThrough(m->parameters(), toTorch(config.run.dtype));
        m->halfMode = halfModeFor(dtype, device); // the full batch in float16 too, as the window
        return m;
    }
    double clipNorm() const { return effectiveClipNorm(config.run.optimizer, config.run.bug); }

    // Update k of the correct loop: the schedule steps once per update, so it uses the rate
    // of scheduler step k.
    void scheduledStep(FusedOptimizer &opt, int64_t k) const
    {
        opt.setLearningRate(scheduledLr(config.run.optimizer, k, effectiveLrWarmup(config.run.optimizer, config.run.bug)));
        opt.step();
    }

    void checkCancel() const
    {
        if (cancel && cancel->cancelled())
            throw Cancelled{};
    }

    // The reference: each window's whole batch in one pass, one step.
    std::vector<RunState> fullBatch(std::vector<torch::Tensor> &initialParams) const
    {
        auto model = freshModel();
        FusedOptimizer opt(model->parameters(), config.run.optimizer);
        initialParams = float64Copies(opt.params());
        std::vector<RunState> out;
        for (size_t w = 0; w < xs.size(); ++w) {
            checkCancel();
            RunState s;
            fullBatchGradient(model, opt, xs[w], ys[w], clipNorm());
            s.grads = float64Copies(opt.grads());
            scheduledStep(opt, static_cast<int64_t>(w));
            s.params = float64Copies(opt.params());
            s.stateStep = opt.stateStep();
            out.push_back(std::move(s));
        }
        return out;
    }

    // The full-batch gradient of window w's batch at `params` (float64 host copies): what the
    // engine's buffers of that window must hold when it starts from those parameters.
    std::vector<torch::Tensor> referenceGradAt(const std::vector<torch::Tensor> &params, size_t w) const
    {
        auto model = modelAt(config.run.modelShape(), params, toTorch(dtype), device, halfModeFor(dtype, device));
        FusedOptimizer buffers(model->parameters(), config.run.optimizer); // for its zeroed .grad views
        fullBatchGradient(model, buffers, xs[w], ys[w], clipNorm());
        return float64Copies(buffers.grads());
    }

    // The engine's window over `split.accumSteps` micro-batches of `split.microBatch`: the same
    // model (one seed), the same data stream (each window draws the next big batch), this
    // rank's shard all-reduced after the last micro-batch.
    // `windows` of them in a row (all the fixture's batches by default).
    std::vector<RunState> accumulated(const Split &split, std::vector<torch::Tensor> *initialParams = nullptr,
                                      size_t windows = 0) const
    {
        // The run as configured, on this split; the check compares the window's arithmetic
        // without the loss scaler (the reference has none) and with no_sync as the lesson has it.
        AccumConfig c = config.run;
        c.dtype = dtype;
        c.microBatch = split.microBatch;
        c.accumSteps = split.accumSteps;
        c.noSync = true;
        c.lossScaler = LossScalerConfig{};
        AccumEngine engine(c, sync);
        if (twin)
            engine.becomeTwinOf(config.run.dtype);
        Recorder recorder;
        engine.setProbe(&recorder);
        for (size_t w = 0; w < (windows ? windows : xs.size()); ++w)
            engine.step(nullptr, cancel);
        if (initialParams)
            *initialParams = recorder.initialParams;
        return recorder.windows;
    }

    Sides run() const
    {
        checkCancel();
        Sides s;
        s.full = fullBatch(s.initFull);
        s.acc = accumulated(firstSplit(), &s.initAcc);
        if (s.acc.size() != s.full.size())
            throw std::logic_error("the engine closed " + std::to_string(s.acc.size()) + " windows, not " +
                                   std::to_string(s.full.size()));
        s.dFull = updates(s.full, s.initFull);
        s.dAcc = updates(s.acc, s.initAcc);
        return s;
    }

    Split firstSplit() const
    {
        return Split{config.run.accumSteps, config.bigBatch() / (config.run.accumSteps * config.run.worldSize)};
    }
};

// The twin's verdict, window by window, and per tensor: the accumulated side against the full
// batch, both float64. The gradient buffers are compared as they are; an update, read as the
// difference of two stored parameters, also carries their rounding, at most u |theta| per
// element each (two parameters a side, two sides).
std::vector<TwinWindow> judgeTwin(const Sides &t, std::vector<LayerDiff> &layers)
{
    const auto &dFull = t.dFull;
    const auto &dAcc = t.dAcc;
    std::vector<TwinWindow> out;
    for (size_t w = 0; w < t.full.size(); ++w) {
        const RunState &full = t.full[w];
        const RunState &acc = t.acc[w];
        const std::vector<torch::Tensor> &before = w == 0 ? t.initFull : t.full[w - 1].params;
        TwinWindow tw;
        double gDiff2 = 0.0, gRef2 = 0.0, uDiff2 = 0.0, uRef2 = 0.0, theta2 = 0.0;
        for (size_t i = 0; i < full.grads.size(); ++i) {
            const double gd = sumSquares(acc.grads[i] - full.grads[i]);
            const double gr = sumSquares(full.grads[i]);
            const double ud = sumSquares(dAcc[w][i] - dFull[w][i]);
            const double ur = sumSquares(dFull[w][i]);
            const double th = std::sqrt(sumSquares(full.params[i])) + std::sqrt(sumSquares(before[i]));
            gDiff2 += gd;
            gRef2 += gr;
            uDiff2 += ud;
            uRef2 += ur;
            theta2 += th * th;
            LayerDiff &l = layers[i];
            l.twinGradDiff = std::max(l.twinGradDiff, relative(std::sqrt(gd), std::sqrt(gr)));
            l.twinUpdateDiff = std::max(l.twinUpdateDiff, relative(std::sqrt(ud), std::sqrt(ur)));
            const bool differs = excess(std::sqrt(gd), std::sqrt(gr), 0.0) > 1.0 ||
                                 excess(std::sqrt(ud), std::sqrt(ur), 2.0 * kFloat64Roundoff * th) > 1.0;
            l.differs = l.differs || differs;
        }
        tw.gradDiff = relative(std::sqrt(gDiff2), std::sqrt(gRef2));
        tw.updateDiff = relative(std::sqrt(uDiff2), std::sqrt(uRef2));
        tw.gradExcess = excess(std::sqrt(gDiff2), std::sqrt(gRef2), 0.0);
        tw.updateExcess = excess(std::sqrt(uDiff2), std::sqrt(uRef2), 2.0 * kFloat64Roundoff * std::sqrt(theta2));
        tw.accStateStep = acc.stateStep;
        tw.fullStateStep = full.stateStep;
        out.push_back(tw);
    }
    return out;
}

bool scalerPitfallPlanted(const AccumConfig &c) { return c.lossScaler.bug != ScalerBug::None; }

} // namespace

std::string toString(Verdict v)
{
    switch (v) {
    case Verdict::Holds: return "holds";
    case Verdict::Fails: return "fails";
    case Verdict::NoEffect: return "no-effect";
    }
    return "fails";
}

bool plantsABug(const AccumConfig &c)
{
    return c.bug != AccumBug::None || c.scaling != Scaling::Divide || c.stepEveryMicro || scalerPitfallPlanted(c);
}

EquivalenceConfig equivalenceConfigOf(const AccumConfig &c)
{
    EquivalenceConfig e;
    e.run = c; // its window, every rank's micro-batches, is the big batch: micro x accum x ranks
    return e;
}

EquivalenceResult runEquivalence(const EquivalenceConfig &config, const CancelToken *cancel,
                                 std::shared_ptr<GradSync> sync)
{
    validate(config);
    if (config.run.worldSize != 1 && (!sync || sync->worldSize() != config.run.worldSize))
        throw ConfigError("equivalence/needs-process-group", TextArgs{{{"world", double(config.run.worldSize)}}, {}});
    if (sync && sync->worldSize() == 1)
        sync.reset();

    EquivalenceResult r;
    r.config = config;
    const torch::Device device(resolveDevice(config.run.device));
    r.device = device.str();

    // The run in its own dtype, and its float64 twin (the run itself when it is float64).
    const Fixture f(config, config.run.dtype, /*twin=*/false, device, cancel, sync);
    const Sides run = f.run();
    const bool float64 = config.run.dtype == DType::Float64;
    std::optional<Sides> twinSides;
    if (!float64)
        twinSides = Fixture(config, DType::Float64, /*twin=*/true, device, cancel, sync).run();
    const Sides &twin = float64 ? run : *twinSides;

    // Both come from one seed and must start bit-identical, or nothing can be compared.
    r.paramsInitMatch = run.initFull.size() == run.initAcc.size();
    for (size_t i = 0; r.paramsInitMatch && i < run.initFull.size(); ++i)
        r.paramsInitMatch = torch::equal(run.initFull[i], run.initAcc[i]) && torch::equal(twin.initFull[i], twin.initAcc[i]);
    const RunState &full = run.full.front();
    const RunState &acc = run.acc.front();
    const std::vector<torch::Tensor> &initA = run.initFull;

    const auto names = parameterNames(*f.freshModel());
    for (size_t i = 0; i < full.grads.size(); ++i) {
        LayerDiff l;
        l.name = names[i];
        l.gradDiff = maxAbsDiff(full.grads[i], acc.grads[i]);
        l.paramDiff = maxAbsDiff(full.params[i], acc.params[i]);
        l.maxAbsGrad = full.grads[i].abs().max().item<double>();
        r.maxGradDiff = std::max(r.maxGradDiff, l.gradDiff);
        r.maxParamDiff = std::max(r.maxParamDiff, l.paramDiff);
        r.maxAbsGrad = std::max(r.maxAbsGrad, l.maxAbsGrad);
        r.maxAbsParam = std::max(r.maxAbsParam, full.params[i].abs().max().item<double>());
        r.layers.push_back(l);
    }
    const double fullUpdate = normOfDifference(full.params, initA);
    r.updateRatio = fullUpdate > 0.0 ? normOfDifference(acc.params, initA) / fullUpdate : 0.0;
    const double fullGrad = l2Norm(full.grads);
    r.gradRatio = fullGrad > 0.0 ? l2Norm(acc.grads) / fullGrad : 0.0;
    // The accumulated gradient's and update's scales along the full batch's (least squares,
    // all tensors): what a wrong divisor or step size shifts.
    double dot = 0.0, updDot = 0.0, upd2 = 0.0;
    for (size_t i = 0; i < full.grads.size(); ++i) {
        dot += (acc.grads[i] * full.grads[i]).sum().item<double>();
        const auto dFull = full.params[i] - initA[i];
        updDot += ((acc.params[i] - initA[i]) * dFull).sum().item<double>();
        upd2 += sumSquares(dFull);
    }
    r.gradScale = fullGrad > 0.0 ? dot / (fullGrad * fullGrad) : 0.0;
    r.updateScale = upd2 > 0.0 ? updDot / upd2 : 0.0;
    r.fullOptimizerStateStep = full.stateStep;
    r.accumOptimizerStateStep = acc.stateStep;
    r.firstStepLr = scheduledLr(config.run.optimizer, 0, effectiveLrWarmup(config.run.optimizer, config.run.bug));

    // The next window, in the run's dtype where the engine stands: its buffers against the
    // full-batch gradient of the second batch at the engine's own parameters (so the
    // trajectories' own drift is not mistaken for a bug).
    const RunState &acc2 = run.acc.back();
    r.secondWindowGradDiff = maxAbsDiff(f.referenceGradAt(acc2.paramsBefore, run.full.size() - 1), acc2.grads);
    r.secondWindowStateStep = acc2.stateStep;
    r.fullSecondWindowStateStep = run.full.back().stateStep;

    // The verdict: the float64 twin's two sides.
    r.twin = judgeTwin(twin, r.layers);
    r.holds = r.paramsInitMatch &&
              std::all_of(r.twin.begin(), r.twin.end(), [](const TwinWindow &w) { return w.agrees(); });

    // The run's dtype explained: its two sides against each other, and its full batch against
    // the twin's (rounding alone, the same sums).
    r.dtypeGradDiff = relative(normOfDifference(acc.grads, full.grads), l2Norm(full.grads));
    r.dtypeUpdateDiff = relative(normOfDifference(run.dAcc.front(), run.dFull.front()), l2Norm(run.dFull.front()));
    r.roundingGradDiff = relative(normOfDifference(full.grads, twin.full.front().grads), l2Norm(twin.full.front().grads));
    r.roundingUpdateDiff =
        relative(normOfDifference(run.dFull.front(), twin.dFull.front()), l2Norm(twin.dFull.front()));
    r.withinLessonBound = r.maxGradDiff < config.fixedTolerance && r.maxParamDiff < config.fixedTolerance;

    if (config.compareSplit) {
        // Compared on the first window only: one window is all it needs.
        const RunState other = f.accumulated(*config.compareSplit, nullptr, 1).front();
        SplitComparison c;
        c.split = *config.compareSplit;
        c.maxGradDiff = maxAbsDiff(full.grads, other.grads);
        c.maxParamDiff = maxAbsDiff(full.params, other.params);
        c.vsFirstGradDiff = maxAbsDiff(acc.grads, other.grads);
        c.vsFirstParamDiff = maxAbsDiff(acc.params, other.params);
        r.comparisons.push_back(c);
    }
    return r;
}

Verdict EquivalenceResult::verdict() const
{
    if (!holds)
        return Verdict::Fails;
    return plantsABug(config.run) ? Verdict::NoEffect : Verdict::Holds;
}

int EquivalenceResult::firstDifferingWindow() const
{
    for (size_t w = 0; w < twin.size(); ++w)
        if (!twin[w].agrees())
            return static_cast<int>(w) + 1;
    return 0;
}

EquivalenceCause EquivalenceResult::causeCode() const
{
    if (holds)
        return EquivalenceCause::None;
    const auto n = config.run.accumSteps;
    if (!paramsInitMatch)
        return EquivalenceCause::InitMismatch;
    // The twin differs: the planted bug's story where one is planted (the teaching bugs first).
    if (config.run.scaling == Scaling::None && n > 1)
        return EquivalenceCause::NoDivision;
    if (config.run.stepEveryMicro && n > 1)
        return EquivalenceCause::StepEveryMicro;
    switch (config.run.bug) {
    case AccumBug::None: break;
    case AccumBug::ZeroEveryMicro: return EquivalenceCause::ZeroEveryMicro;
    case AccumBug::NeverZero: return EquivalenceCause::NeverZero;
    case AccumBug::DivideByNPlusOne: return EquivalenceCause::DivideByNPlusOne;
    case AccumBug::SkipLastMicro: return EquivalenceCause::SkipLastMicro;
    case AccumBug::CountMicroTwice: return EquivalenceCause::CountMicroTwice;
    case AccumBug::ScheduleEveryMicro: return EquivalenceCause::ScheduleEveryMicro;
    case AccumBug::ClipEachMicro: return EquivalenceCause::ClipEachMicro;
    }
    // No planted bug explains it: what the twin measured, in its first differing window.
    const int w = firstDifferingWindow();
    const TwinWindow &tw = twin.at(static_cast<size_t>(w - 1));
    if (tw.accStateStep != tw.fullStateStep)
        return EquivalenceCause::TwinStateStep;
    if (tw.gradExcess > 1.0)
        return EquivalenceCause::TwinGradients;
    return EquivalenceCause::TwinUpdate;
}

std::string EquivalenceResult::cause() const { return cause(NumberStyle{}); }

namespace {

// Why a planted bug had no effect in this run: the key of its sentence under /no-effect/.
std::string noEffectKey(const AccumConfig &c)
{
    if (c.lossScaler.bug != ScalerBug::None && c.bug == AccumBug::None && c.scaling == Scaling::Divide &&
        !c.stepEveryMicro)
        return "scaler-left-out";
    if (c.accumSteps == 1 && c.bug != AccumBug::NeverZero && c.bug != AccumBug::DivideByNPlusOne &&
        c.bug != AccumBug::SkipLastMicro && c.bug != AccumBug::CountMicroTwice)
        return "one-micro-batch";
    if (c.bug == AccumBug::ClipEachMicro)
        return "clip-not-reached";
    if (c.optimizer.clipNorm > 0.0 && (c.scaling == Scaling::None || c.bug == AccumBug::DivideByNPlusOne))
        return "clipped-scale"; // clip_grad_norm_ rescaled the wrong sum to max_norm
    return "unchanged";
}

} // namespace

std::string plantedBugNames(const AccumConfig &c)
{
    std::string names;
    const auto add = [&](const std::string &n) { names += (names.empty() ? "" : ", ") + n; };
    if (c.scaling == Scaling::None)
        add("--scaling none");
    if (c.stepEveryMicro)
        add("--step-every-micro");
    if (c.bug != AccumBug::None)
        add("--bug " + toString(c.bug));
    if (c.lossScaler.bug != ScalerBug::None)
        add("--scaler-bug " + toString(c.lossScaler.bug));
    return names;
}

double EquivalenceResult::largestTwinDiff() const
{
    double m = 0.0;
    for (const TwinWindow &w : twin)
        m = std::max({m, w.gradDiff, w.updateDiff});
    return m;
}

std::string EquivalenceResult::cause(const NumberStyle &style) const
{
    // The sentence is content (resources/content/equivalence.json, /causes/<key> and
    // /no-effect/<key>); here only which one, and the figures it names.
    const int64_t n = config.run.accumSteps;
    std::string key;
    TextArgs args;
    auto &v = args.numbers;
    if (verdict() == Verdict::NoEffect) {
        args.strings["bug"] = plantedBugNames(config.run);
        v = {{"twin_diff", largestTwinDiff()}, {"tolerance", kTwinTolerance}};
        putInteger(args, "n", n);
        if (config.run.bug == AccumBug::ClipEachMicro)
            v["max_norm"] = effectiveClipNorm(config.run.optimizer, config.run.bug);
        return renderText("equivalence.json", "/no-effect/" + noEffectKey(config.run), args, style);
    }
    const int w = firstDifferingWindow();
    const TwinWindow tw = w > 0 ? twin[static_cast<size_t>(w - 1)] : TwinWindow{};
    switch (causeCode()) {
    case EquivalenceCause::None:
        return {};
    case EquivalenceCause::InitMismatch:
        key = "init-mismatch";
        break;
    case EquivalenceCause::NoDivision:
        key = "no-division";
        v = {{"ratio", gradRatio}};
        putInteger(args, "n", n);
        break;
    case EquivalenceCause::StepEveryMicro:
        key = "step-every-micro";
        v = {{"update_ratio", updateRatio}};
        putInteger(args, "steps", accumOptimizerStateStep);
        break;
    case EquivalenceCause::ZeroEveryMicro:
        key = "zero-every-micro";
        // Both: the projection the buffers' bars show, and the norm (one micro-batch's gradient
        // is longer than its share of the full batch's, so the two differ).
        v = {{"ratio", gradRatio}, {"scale", gradScale}};
        break;
    case EquivalenceCause::NeverZero:
        key = "never-zero";
        v = {{"second_diff", twin.size() > 1 ? twin[1].gradDiff : 0.0}, {"first_diff", twin.front().gradDiff}};
        break;
    case EquivalenceCause::DivideByNPlusOne:
        key = "divide-by-n-plus-1";
        v = {{"ratio", gradRatio}};
        putInteger(args, "divisor", n + 1);
        putInteger(args, "n", n);
        break;
    case EquivalenceCause::SkipLastMicro:
        key = "skip-last-micro";
        v = {{"ratio", gradRatio}, {"scale", gradScale}};
        putInteger(args, "ran", n - 1);
        putInteger(args, "n", n);
        break;
    case EquivalenceCause::CountMicroTwice:
        key = "count-micro-twice";
        v = {{"ratio", gradRatio}};
        break;
    case EquivalenceCause::ScheduleEveryMicro:
        key = "schedule-every-micro";
        v = {{"update_diff", twin.front().updateDiff}, {"param_diff", maxParamDiff}};
        putInteger(args, "warmup", effectiveLrWarmup(config.run.optimizer, config.run.bug));
        putInteger(args, "n", n);
        break;
    case EquivalenceCause::ClipEachMicro:
        key = "clip-each-micro";
        v = {{"max_norm", effectiveClipNorm(config.run.optimizer, config.run.bug)}, {"twin_diff", tw.gradDiff}};
        break;
    case EquivalenceCause::TwinGradients:
        key = "twin-gradients";
        v = {{"twin_diff", tw.gradDiff}, {"tolerance", kTwinTolerance}};
        putInteger(args, "window", w);
        break;
    case EquivalenceCause::TwinUpdate:
        key = "twin-update";
        v = {{"twin_diff", tw.updateDiff}, {"tolerance", kTwinTolerance}};
        putInteger(args, "window", w);
        break;
    case EquivalenceCause::TwinStateStep:
        key = "twin-state-step";
        putInteger(args, "window", w);
        putInteger(args, "state_step", tw.accStateStep);
        putInteger(args, "full_state_step", tw.fullStateStep);
        break;
    }
    return renderText("equivalence.json", "/causes/" + key, args, style);
}

std::string EquivalenceResult::criterion(const NumberStyle &style) const
{
    TextArgs args;
    args.numbers = {{"twin_diff", largestTwinDiff()}, {"tolerance", kTwinTolerance}};
    args.strings["dtype"] = toString(config.run.dtype);
    const bool float64 = config.run.dtype == DType::Float64;
    return renderText("equivalence.json", std::string("/criterion/") + (float64 ? "float64" : "twin"), args, style);
}

std::string EquivalenceResult::explanation(const NumberStyle &style) const
{
    TextArgs args;
    args.numbers = {{"dtype_grad", dtypeGradDiff},       {"dtype_update", dtypeUpdateDiff},
                    {"rounding_grad", roundingGradDiff}, {"rounding_update", roundingUpdateDiff},
                    {"grad_diff", maxGradDiff},          {"param_diff", maxParamDiff},
                    {"lesson_bound", config.fixedTolerance}, {"twin_diff", largestTwinDiff()}};
    args.strings["dtype"] = toString(config.run.dtype);
    std::string key;
    if (verdict() == Verdict::Fails && withinLessonBound)
        key = "under-lesson-bound-yet-fails"; // a bug smaller than 1e-4 at this rate
    else if (verdict() != Verdict::Fails && !withinLessonBound) // the dtype's rounding, or AdamW's eps, over 1e-4
        key = config.run.optimizer.kind == OptimizerKind::AdamW ? "rounding-over-lesson-bound-adamw"
                                                                : "rounding-over-lesson-bound";
    else if (verdict() != Verdict::Fails && config.run.dtype != DType::Float32 && config.run.dtype != DType::Float64)
        key = "rounding";
    else
        return {};
    return renderText("equivalence.json", "/explanation/" + key, args, style);
}

} // namespace accumlab
