// Full batch vs accumulated micro-batches, from two identical models. The accumulated side
// is the engine's own window (core/engine.cpp, the loop the sweep and teaching mode run, its
// sync and planted bugs included), looked into through a WindowProbe; the full-batch side is
// the plain reference: one forward and backward over the whole batch, one step. Two windows
// are compared in a row: the first is the lesson's claim, the second catches what only shows
// once a window follows another (buffers never zeroed, optimizer state advanced too often).
#include "core/equivalence.h"

#include "core/content.h"
#include "core/data.h"
#include "core/device.h"
#include "core/engine.h"
#include "core/full_batch.h"
#include "core/grad_sync.h"
#include "core/model.h"
#include "core/optimizer.h"
#include "core/tensor_diff.h"
#include "core/window_probe.h"

#include <cmath>
#include <cstdio>

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

// Windows compared in a row.
constexpr int kWindows = 2;

double norm(const std::vector<torch::Tensor> &ts)
{
    double s = 0.0;
    for (const auto &t : ts)
        s += t.pow(2).sum().item<double>();
    return std::sqrt(s);
}

double normOfDifference(const std::vector<torch::Tensor> &a, const std::vector<torch::Tensor> &b)
{
    double s = 0.0;
    for (size_t i = 0; i < a.size(); ++i)
        s += (a[i] - b[i]).pow(2).sum().item<double>();
    return std::sqrt(s);
}

// The first step's parameter bound, element by element: |p_full - p_acc| <= base + lr0 * r,
// where r says how far the optimizer's first update moves, per unit of rate, when its
// gradient moves from g_full to g_acc (g, p: one element of a tensor).
// - SGD and momentum (buf = g on the first step) apply lr * g: r = |g_full - g_acc|.
// - AdamW's first update is lr * g / (|g| + eps) (m_hat = g, v_hat = g^2), so
//   r = |g_full - g_acc| / (min(|g_full|, |g_acc|) + eps), which bounds |u(a) - u(b)| for
//   u(g) = g / (|g| + eps) and any a, b. Where |g| is near eps, the few ulps by which two
//   summation orders differ move the update by up to lr: a correct loop, not a bug.
// Decay (coupled or decoupled) acts on the same p on both sides and cancels.
struct ParamCheck {
    double excess = 0.0;  // max over elements of |p_full - p_acc| / bound (<= 1 holds)
    double diff = 0.0;    // |p_full - p_acc| at that element
    double bound = 0.0;   // its bound, base + lr0 * r
    double gradFull = 0.0, gradAcc = 0.0; // the gradients the two sides stepped with there
    std::string where;    // "fc1.weight[37]" (flat index into the tensor)
};

// r of tensor i (above), flat: (numel,) float64.
torch::Tensor sensitivity(const RunState &full, const RunState &acc, const OptimizerConfig &opt, size_t i)
{
    const auto gf = full.grads[i].flatten(); // (numel,) float64
    const auto ga = acc.grads[i].flatten();
    auto r = (gf - ga).abs();
    if (opt.kind == OptimizerKind::AdamW) // |g / (|g| + eps)| < 1: two updates differ by under 2
        r = torch::clamp_max(r / (torch::minimum(gf.abs(), ga.abs()) + opt.eps), 2.0);
    return r;
}

// What the per-element sensitivity lets gradient noise move the first update's scale along the
// full batch's, (sum u . dp) / (sum u . u), u = the full batch's update: element i may move by
// up to lr0 r_i, which moves the scale by lr0 r_i |u_i| / sum u^2. Summed in quadrature: the
// elements' rounding errors are independent (a worst-case sum over all of them would be 0.6 in
// bfloat16 under AdamW and blind the check), while one gradient near eps under AdamW, which
// moves its element by up to lr, dominates the sum alone (3e-6 at seed 38, 8x4, lr 0.01, one
// thread, against a floor of 4.8e-7). Under SGD r is a few ulps of g and this is negligible.
double updateScaleSensitivity(const RunState &full, const RunState &acc, const std::vector<torch::Tensor> &init,
                              const OptimizerConfig &opt, double lr0)
{
    double allowed2 = 0.0, u2 = 0.0;
    for (size_t i = 0; i < full.params.size(); ++i) {
        const auto u = (full.params[i] - init[i]).flatten();
        allowed2 += (lr0 * sensitivity(full, acc, opt, i) * u).pow(2).sum().item<double>();
        u2 += u.pow(2).sum().item<double>();
    }
    return u2 > 0.0 ? std::sqrt(allowed2) / u2 : 0.0;
}

ParamCheck checkParams(const std::vector<std::string> &names, const RunState &full, const RunState &acc,
                       const OptimizerConfig &opt, double lr0, double base)
{
    ParamCheck worst;
    for (size_t i = 0; i < full.params.size(); ++i) {
        const auto gf = full.grads[i].flatten(); // (numel,) float64
        const auto ga = acc.grads[i].flatten();
        const auto r = sensitivity(full, acc, opt, i);
        const auto bound = base + lr0 * r;
        const auto diff = (full.params[i] - acc.params[i]).abs().flatten();
        const auto ratio = diff / bound;
        const int64_t k = ratio.argmax().item<int64_t>();
        const double e = ratio[k].item<double>();
        if (i == 0 || e > worst.excess) {
            worst.excess = e;
            worst.diff = diff[k].item<double>();
            worst.bound = bound[k].item<double>();
            worst.gradFull = gf[k].item<double>();
            worst.gradAcc = ga[k].item<double>();
            worst.where = names[i] + "[" + std::to_string(k) + "]";
        }
    }
    return worst;
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

struct Fixture {
    const EquivalenceConfig &config;
    torch::Device device;
    torch::Dtype dtype;
    std::vector<torch::Tensor> xs; // per window (bigBatch, in)
    std::vector<torch::Tensor> ys; // per window (bigBatch,)
    const CancelToken *cancel;
    std::shared_ptr<GradSync> sync; // null for one process

    Mlp freshModel() const
    {
        Mlp m = makeModel(config.run.modelShape(), config.run.seed, dtype, device);
        m->halfMode = halfModeFor(config.run.dtype, device); // the full batch in float16 too, as the window
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
            fullBatchGradient(model, opt, xs[w], ys[w], clipNorm());
            RunState s;
            s.grads = float64Copies(opt.grads());
            scheduledStep(opt, static_cast<int64_t>(w));
            s.params = float64Copies(opt.params());
            s.stateStep = opt.stateStep();
            out.push_back(std::move(s));
        }
        return out;
    }

    // The first window's full batch with its samples in reverse order, stepped once: the same
    // mean, summed in another order. Its parameters show how far merely reordering the sum
    // moves the update in this dtype.
    std::vector<torch::Tensor> reorderedFirstStep() const
    {
        auto model = freshModel();
        FusedOptimizer opt(model->parameters(), config.run.optimizer);
        fullBatchGradient(model, opt, xs[0].flip(0), ys[0].flip(0), clipNorm());
        scheduledStep(opt, 0);
        return float64Copies(opt.params());
    }

    // The full-batch gradient of window w's batch at `params` (float64 host copies): what the
    // engine's buffers of that window must hold when it starts from those parameters.
    std::vector<torch::Tensor> referenceGradAt(const std::vector<torch::Tensor> &params, size_t w) const
    {
        auto model = modelAt(config.run.modelShape(), params, dtype, device, halfModeFor(config.run.dtype, device));
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
        c.microBatch = split.microBatch;
        c.accumSteps = split.accumSteps;
        c.noSync = true;
        c.lossScaler = LossScalerConfig{};
        AccumEngine engine(c, sync);
        Recorder recorder;
        engine.setProbe(&recorder);
        for (size_t w = 0; w < (windows ? windows : xs.size()); ++w)
            engine.step(nullptr, cancel);
        if (initialParams)
            *initialParams = recorder.initialParams;
        return recorder.windows;
    }
};

} // namespace

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

    // The batches the engine's windows draw: the same stream, seed and order.
    DataStream data(config.run.modelShape(), config.run.labels, config.run.seed, toTorch(config.run.dtype), device);
    Fixture f{config, device, toTorch(config.run.dtype), {}, {}, cancel, sync};
    for (int w = 0; w < kWindows; ++w) {
        auto [x, y] = data.next(config.bigBatch());
        f.xs.push_back(x);
        f.ys.push_back(y);
    }

    f.checkCancel();
    std::vector<torch::Tensor> initA, initB; // the reference's model and the engine's, as built
    const std::vector<RunState> fullRuns = f.fullBatch(initA);
    const Split first{config.run.accumSteps, config.bigBatch() / (config.run.accumSteps * config.run.worldSize)};
    const std::vector<RunState> accRuns = f.accumulated(first, &initB);
    if (accRuns.size() != fullRuns.size())
        throw std::logic_error("the engine closed " + std::to_string(accRuns.size()) + " windows, not " +
                               std::to_string(fullRuns.size()));
    // Both come from one seed and must start bit-identical, or nothing can be compared.
    r.paramsInitMatch = initA.size() == initB.size();
    for (size_t i = 0; r.paramsInitMatch && i < initA.size(); ++i)
        r.paramsInitMatch = torch::equal(initA[i], initB[i]);
    const RunState &full = fullRuns.front();
    const RunState &acc = accRuns.front();

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
    const double fullGrad = norm(full.grads);
    r.gradRatio = fullGrad > 0.0 ? norm(acc.grads) / fullGrad : 0.0;
    // The accumulated gradient's scale along the full-batch one (least squares, all tensors).
    double dot = 0.0;
    for (size_t i = 0; i < full.grads.size(); ++i)
        dot += (acc.grads[i] * full.grads[i]).sum().item<double>();
    r.gradScale = fullGrad > 0.0 ? dot / (fullGrad * fullGrad) : 0.0;
    // The same for the first update, theta_after - theta_0: what a wrong step size shifts.
    // Its noise floor: the same scale for the full batch summed in reverse order.
    const std::vector<torch::Tensor> reordered = f.reorderedFirstStep();
    double updDot = 0.0, upd2 = 0.0, reorderDot = 0.0;
    std::vector<torch::Tensor> dFulls, dAccs; // per tensor, its shape: the first update
    for (size_t i = 0; i < full.params.size(); ++i) {
        const auto &dFull = dFulls.emplace_back(full.params[i] - initA[i]);
        const auto &dAcc = dAccs.emplace_back(acc.params[i] - initA[i]);
        updDot += (dAcc * dFull).sum().item<double>();
        reorderDot += ((reordered[i] - initA[i]) * dFull).sum().item<double>();
        upd2 += dFull.pow(2).sum().item<double>();
    }
    r.updateScale = upd2 > 0.0 ? updDot / upd2 : 0.0;
    // The scale's noise: what of the accumulated update the fitted scale leaves unexplained
    // (d_acc - s d_full, per element: rounding, summation order), taken as independent, the
    // standard deviation it gives the scale. A wrong step size moves the scale itself and leaves
    // the residual to rounding.
    double noise2 = 0.0;
    for (size_t i = 0; i < dFulls.size(); ++i)
        noise2 += ((dAccs[i] - r.updateScale * dFulls[i]) * dFulls[i]).pow(2).sum().item<double>();
    r.updateScaleNoise = upd2 > 0.0 ? std::sqrt(noise2) / upd2 : 0.0;
    r.reorderedUpdateScale = upd2 > 0.0 ? reorderDot / upd2 : 0.0;
    r.fullOptimizerStateStep = full.stateStep;
    r.accumOptimizerStateStep = acc.stateStep;

    // The dtype-aware bound: a sum of N rounded terms against one rounded sum differs by a
    // few units in the last place of the largest gradient entry.
    const double eps = dtypeEpsilon(config.run.dtype);
    const auto gradBound = [&](double maxAbsGrad) { return config.dtypeBoundFactor * eps * maxAbsGrad; };
    r.gradBoundDtype = gradBound(r.maxAbsGrad);
    r.firstStepLr = scheduledLr(config.run.optimizer, 0, effectiveLrWarmup(config.run.optimizer, config.run.bug));
    const auto fixedCheck = checkParams(names, full, acc, config.run.optimizer, r.firstStepLr, config.fixedTolerance);
    // In the dtype-aware base, the rounding of the stored parameter (eps |theta|) and of the
    // update itself (eps lr0 |u|, |u| <= 1 for AdamW and of the order of the rate's share for SGD).
    const auto dtypeCheck = checkParams(names, full, acc, config.run.optimizer, r.firstStepLr,
                                        config.dtypeBoundFactor * eps * (r.maxAbsParam + r.firstStepLr));
    r.paramExcessFixed = fixedCheck.excess;
    r.paramExcessDtype = dtypeCheck.excess;
    r.paramBoundFixed = fixedCheck.bound;
    r.paramBoundDtype = dtypeCheck.bound;
    const ParamCheck &applied = lowPrecision(config.run.dtype) ? dtypeCheck : fixedCheck;
    r.worstParam = applied.where;
    r.worstParamDiff = applied.diff;
    r.worstParamGradFull = applied.gradFull;
    r.worstParamGradAcc = applied.gradAcc;

    // The next window, checked where the engine stands: its buffers against the full-batch
    // gradient of the second batch at the engine's own parameters (so the trajectories' own
    // drift, large under AdamW in bfloat16, is not mistaken for a bug), and its optimizer
    // state step against the reference's after two windows.
    const RunState &acc2 = accRuns.back();
    const auto ref2 = f.referenceGradAt(acc2.paramsBefore, fullRuns.size() - 1);
    r.secondWindowGradDiff = maxAbsDiff(ref2, acc2.grads);
    double maxAbsGrad2 = 0.0;
    for (const auto &g : ref2)
        maxAbsGrad2 = std::max(maxAbsGrad2, g.abs().max().item<double>());
    r.secondWindowGradBoundDtype = gradBound(maxAbsGrad2);
    r.secondWindowStateStep = acc2.stateStep;
    r.fullSecondWindowStateStep = fullRuns.back().stateStep;
    const bool sameSteps = r.secondWindowStateStep == r.fullSecondWindowStateStep;
    r.holdsFixed = r.paramsInitMatch && r.maxGradDiff < config.fixedTolerance &&
                   r.paramExcessFixed < 1.0 && r.secondWindowGradDiff < config.fixedTolerance && sameSteps;
    // Rounding errors scatter around zero and average out over the thousands of elements, so
    // the scale stays within one ulp of 1 for a correct loop in any dtype, while a wrong divisor
    // or a doubled micro-batch shifts every element alike (1/17 at 16x1 in bfloat16 hides under
    // the per-element bound, not here).
    // The scale itself is a float64 ratio of sums over thousands of products: a few float64
    // ulps of its own, which matter only when the dtype is float64.
    r.gradScaleBound = eps + config.dtypeBoundFactor * dtypeEpsilon(DType::Float64);
    // k times what reordering the full batch's sum did to the update (k = dtypeBoundFactor), and
    // never below 4 eps(dtype): a stored update is the difference of two rounded parameters, so
    // its scale carries rounding of order eps even where reordering changes nothing (bfloat16's
    // matmuls accumulate in float32, and the reversed batch rounds to the same values).
    // Accumulation is a reordering too, so a correct loop stays inside, while a wrong step size
    // (a rate or a schedule that ran ahead) moves the update's scale as a wrong divisor moves
    // the gradient's.
    // Plus what the optimizer's own sensitivity lets a correct loop's gradient noise do to it
    // (updateScaleSensitivity: AdamW near eps), the same sensitivity the parameter bound uses.
    // Plus 4 standard deviations of the scale's own noise (updateScaleNoise): where the update is
    // small beside the parameters (SGD at lr 0.01), the rounding of the stored parameters moves
    // the scale by several eps, more on a CPU whose kernels round otherwise (a correct float32
    // loop at 4x4, lr 0.01, seed 1 read 5.2 eps on AVX2 against a bound of 4 eps, its noise 5.1
    // eps). Independent differences stay within 4 deviations (a correct loop's largest was 3.1
    // over the grid); a wrong step size moves every element alike, the scale and not its noise.
    constexpr double kUpdateScaleFloor = 4.0;
    constexpr double kUpdateScaleNoiseDeviations = 4.0;
    r.updateScaleSensitivity = updateScaleSensitivity(full, acc, initA, config.run.optimizer, r.firstStepLr);
    r.updateScaleBound = std::max(config.dtypeBoundFactor * std::abs(r.reorderedUpdateScale - 1.0),
                                  kUpdateScaleFloor * eps) +
                         r.updateScaleSensitivity + kUpdateScaleNoiseDeviations * r.updateScaleNoise;
    r.holdsDtypeAware = r.paramsInitMatch && r.maxGradDiff <= r.gradBoundDtype && r.paramExcessDtype <= 1.0 &&
                        std::abs(r.gradScale - 1.0) <= r.gradScaleBound &&
                        std::abs(r.updateScale - 1.0) <= r.updateScaleBound &&
                        r.secondWindowGradDiff <= r.secondWindowGradBoundDtype && sameSteps;
    r.holds = lowPrecision(config.run.dtype) ? r.holdsDtypeAware : r.holdsFixed;

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

EquivalenceCause EquivalenceResult::causeCode() const
{
    if (holds)
        return EquivalenceCause::None;
    const auto n = config.run.accumSteps;
    if (!paramsInitMatch)
        return EquivalenceCause::InitMismatch;
    if (config.run.scaling == Scaling::None && std::abs(gradRatio - static_cast<double>(n)) < 0.05 * n && n > 1)
        return EquivalenceCause::NoDivision;
    if (config.run.stepEveryMicro && n > 1)
        return EquivalenceCause::StepEveryMicro;
    // The classic bugs: what each did, measured.
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
    const bool bf16 = lowPrecision(config.run.dtype);
    if (maxGradDiff >= appliedGradTolerance())
        return EquivalenceCause::GradDiffAboveTolerance;
    if (bf16 ? appliedParamExcess() > 1.0 : appliedParamExcess() >= 1.0)
        return EquivalenceCause::ParamDiffAboveTolerance;
    if (bf16 && std::abs(gradScale - 1.0) > gradScaleBound)
        return EquivalenceCause::GradScaleOff;
    if (bf16 && std::abs(updateScale - 1.0) > updateScaleBound)
        return EquivalenceCause::UpdateScaleOff;
    return EquivalenceCause::SecondWindow;
}

double EquivalenceResult::appliedGradTolerance() const
{
    return lowPrecision(config.run.dtype) ? gradBoundDtype : config.fixedTolerance;
}

double EquivalenceResult::appliedParamTolerance() const
{
    return lowPrecision(config.run.dtype) ? paramBoundDtype : paramBoundFixed;
}

double EquivalenceResult::appliedParamExcess() const
{
    return lowPrecision(config.run.dtype) ? paramExcessDtype : paramExcessFixed;
}

std::string EquivalenceResult::cause() const { return cause(NumberStyle{}); }

std::string EquivalenceResult::cause(const NumberStyle &style) const
{
    // The sentence is content (resources/content/equivalence.json, /causes/<key>); here only
    // which one, and the figures it names.
    const int64_t n = config.run.accumSteps;
    const bool bf16 = lowPrecision(config.run.dtype);
    std::string key;
    TextArgs args;
    auto &v = args.numbers;
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
        v = {{"ratio", gradRatio}};
        break;
    case EquivalenceCause::NeverZero:
        key = "never-zero";
        v = {{"second_diff", secondWindowGradDiff}, {"first_diff", maxGradDiff}};
        break;
    case EquivalenceCause::DivideByNPlusOne:
        key = "divide-by-n-plus-1";
        v = {{"ratio", gradRatio}};
        putInteger(args, "divisor", n + 1);
        putInteger(args, "n", n);
        break;
    case EquivalenceCause::SkipLastMicro:
        key = "skip-last-micro";
        v = {{"ratio", gradRatio}};
        putInteger(args, "ran", n - 1);
        putInteger(args, "n", n);
        break;
    case EquivalenceCause::CountMicroTwice:
        key = "count-micro-twice";
        v = {{"ratio", gradRatio}};
        break;
    case EquivalenceCause::ScheduleEveryMicro:
        key = "schedule-every-micro";
        v = {{"update_ratio", updateRatio}, {"param_diff", maxParamDiff}};
        putInteger(args, "warmup", effectiveLrWarmup(config.run.optimizer, config.run.bug));
        putInteger(args, "n", n);
        break;
    case EquivalenceCause::ClipEachMicro:
        key = "clip-each-micro";
        v = {{"max_norm", effectiveClipNorm(config.run.optimizer, config.run.bug)}, {"grad_diff", maxGradDiff}};
        break;
    case EquivalenceCause::GradDiffAboveTolerance:
        key = bf16 ? "grad-diff-dtype" : "grad-diff-fixed";
        v = {{"grad_diff", maxGradDiff}, {"tolerance", appliedGradTolerance()}};
        break;
    case EquivalenceCause::ParamDiffAboveTolerance:
        key = bf16 ? "param-diff-dtype" : "param-diff-fixed";
        v = {{"param_diff", worstParamDiff},
             {"grad_full", worstParamGradFull},
             {"grad_acc", worstParamGradAcc},
             {"bound", appliedParamTolerance()}};
        args.strings["param"] = worstParam;
        break;
    case EquivalenceCause::GradScaleOff:
        key = "grad-scale-off";
        v = {{"scale", gradScale}, {"bound", gradScaleBound}};
        break;
    case EquivalenceCause::UpdateScaleOff:
        key = "update-scale-off";
        v = {{"scale", updateScale}, {"bound", updateScaleBound}};
        break;
    case EquivalenceCause::SecondWindow:
        key = "second-window";
        v = {{"grad_diff", secondWindowGradDiff}};
        putInteger(args, "state_step", secondWindowStateStep);
        putInteger(args, "full_state_step", fullSecondWindowStateStep);
        break;
    }
    return renderText("equivalence.json", "/causes/" + key, args, style);
}

} // namespace accumlab
