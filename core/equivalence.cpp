// Full batch vs accumulated micro-batches, from two identical models.
#include "core/equivalence.h"

#include "core/data.h"
#include "core/device.h"
#include "core/grad_sync.h"
#include "core/model.h"
#include "core/optimizer.h"

#include <cmath>
#include <cstdio>

namespace accumlab {

namespace {

struct RunState {
    std::vector<torch::Tensor> grads;  // buffers before the (last) optimizer step, float64 copies
    std::vector<torch::Tensor> params; // after the step, float64 copies
    int64_t stateStep = 0;
};

std::vector<torch::Tensor> snapshot(const std::vector<torch::Tensor> &ts)
{
    std::vector<torch::Tensor> out;
    for (const auto &t : ts)
        out.push_back(t.detach().to(torch::kCPU, torch::kFloat64).clone());
    return out;
}

double maxAbsDiff(const torch::Tensor &a, const torch::Tensor &b) { return (a - b).abs().max().item<double>(); }

double maxAbsDiff(const std::vector<torch::Tensor> &a, const std::vector<torch::Tensor> &b)
{
    double m = 0.0;
    for (size_t i = 0; i < a.size(); ++i)
        m = std::max(m, maxAbsDiff(a[i], b[i]));
    return m;
}

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

// How far one optimizer step from a fresh state can move a parameter when its gradient moves
// by at most `b`, per unit of learning rate. SGD and momentum (buf = g on the first step): b.
// AdamW's first step applies g / (|g| + eps) (m_hat = g, v_hat = g^2), which is monotone in g,
// so the worst case is at g +- b, element by element.
double updatePerturbation(const OptimizerConfig &opt, const std::vector<torch::Tensor> &grads, double b)
{
    if (opt.kind != OptimizerKind::AdamW)
        return b;
    double worst = 0.0;
    const auto u = [&](const torch::Tensor &g) { return g / (g.abs() + opt.eps); };
    for (const auto &g : grads) {
        const auto base = u(g);
        worst = std::max(worst, (u(g + b) - base).abs().max().item<double>());
        worst = std::max(worst, (u(g - b) - base).abs().max().item<double>());
    }
    return worst;
}

struct Fixture {
    const EquivalenceConfig &config;
    torch::Device device;
    torch::Dtype dtype;
    torch::Tensor x; // (bigBatch, in)
    torch::Tensor y; // (bigBatch,)
    const CancelToken *cancel;
    GradSync *sync; // null for one process

    Mlp freshModel() const { return makeModel(config.shape, config.seed, dtype, device); }

    void checkCancel() const
    {
        if (cancel && cancel->cancelled())
            throw Cancelled{};
    }

    RunState fullBatch() const
    {
        auto model = freshModel();
        FusedOptimizer opt(model->parameters(), config.optimizer);
        opt.zeroGrad();
        torch::cross_entropy_loss(model->forward(x), y).backward();
        RunState s;
        s.grads = snapshot(opt.grads());
        opt.step();
        s.params = snapshot(opt.params());
        s.stateStep = opt.stateStep();
        return s;
    }

    // The lesson's accumulation loop over `split.accumSteps` chunks of `split.microBatch`.
    // With ranks, over this rank's shard of the batch, all-reduced after the last chunk.
    RunState accumulated(const Split &split) const
    {
        auto model = freshModel();
        FusedOptimizer opt(model->parameters(), config.optimizer);
        opt.zeroGrad();
        const int64_t perRank = split.accumSteps * split.microBatch;
        const int64_t rank = sync ? sync->rank() : 0;
        const auto xs = x.narrow(/*dim=*/0, rank * perRank, perRank).split(split.microBatch); // accumSteps x (micro, in)
        const auto ys = y.narrow(/*dim=*/0, rank * perRank, perRank).split(split.microBatch);
        const double n = static_cast<double>(split.accumSteps);
        RunState s;
        for (int64_t i = 0; i < split.accumSteps; ++i) {
            checkCancel();
            auto raw = torch::cross_entropy_loss(model->forward(xs[i]), ys[i]); // raw: ()
            (config.scaling == Scaling::Divide ? raw / n : raw).backward();
            const bool last = i == split.accumSteps - 1;
            if (last && sync)
                sync->allReduceMean(opt.flatGrad());
            if (last)
                s.grads = snapshot(opt.grads());
            if (config.stepEveryMicro || last)
                opt.step();
        }
        s.params = snapshot(opt.params());
        s.stateStep = opt.stateStep();
        return s;
    }
};

} // namespace

EquivalenceResult runEquivalence(const EquivalenceConfig &config, const CancelToken *cancel,
                                 std::shared_ptr<GradSync> sync)
{
    validate(config);
    if (config.worldSize != 1 && (!sync || sync->worldSize() != config.worldSize))
        throw ConfigError("an equivalence check over " + std::to_string(config.worldSize) +
                          " ranks needs a process group of that size (start it with --world-size)");
    if (sync && sync->worldSize() == 1)
        sync.reset();

    EquivalenceResult r;
    r.config = config;
    const torch::Device device(resolveDevice(config.device));
    r.device = device.str();

    DataStream data(config.shape, config.labels, config.seed, toTorch(config.dtype), device);
    auto [x, y] = data.next(config.bigBatch);
    Fixture f{config, device, toTorch(config.dtype), x, y, cancel, sync.get()};

    // Both models come from one seed; they must start bit-identical.
    const auto initA = snapshot(f.freshModel()->parameters());
    const auto initB = snapshot(f.freshModel()->parameters());
    r.paramsInitMatch = true;
    for (size_t i = 0; i < initA.size(); ++i)
        r.paramsInitMatch = r.paramsInitMatch && torch::equal(initA[i], initB[i]);

    f.checkCancel();
    const RunState full = f.fullBatch();
    const Split first{config.accumSteps, config.bigBatch / (config.accumSteps * config.worldSize)};
    const RunState acc = f.accumulated(first);

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
    r.fullOptimizerStateStep = full.stateStep;
    r.accumOptimizerStateStep = acc.stateStep;

    // The dtype-aware bound: a sum of N rounded terms against one rounded sum differs by a
    // few units in the last place of the largest gradient entry.
    const double eps = dtypeEpsilon(config.dtype);
    r.gradBoundDtype = config.dtypeBoundFactor * eps * r.maxAbsGrad;
    r.paramBoundDtype = config.dtypeBoundFactor * eps * r.maxAbsParam +
                        config.optimizer.lr * updatePerturbation(config.optimizer, full.grads, r.gradBoundDtype);
    r.holdsFixed = r.paramsInitMatch && r.maxGradDiff < config.fixedTolerance && r.maxParamDiff < config.fixedTolerance;
    r.holdsDtypeAware =
        r.paramsInitMatch && r.maxGradDiff <= r.gradBoundDtype && r.maxParamDiff <= r.paramBoundDtype;
    r.holds = config.dtype == DType::BFloat16 ? r.holdsDtypeAware : r.holdsFixed;

    if (config.compareSplit) {
        const RunState other = f.accumulated(*config.compareSplit);
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

std::string EquivalenceResult::cause() const
{
    if (holds)
        return {};
    char buf[512];
    const auto n = config.accumSteps;
    if (!paramsInitMatch)
        return "the two models did not start from identical parameters, so nothing can be compared";
    if (config.scaling == Scaling::None && std::abs(gradRatio - static_cast<double>(n)) < 0.05 * n && n > 1) {
        std::snprintf(buf, sizeof buf,
                      "the accumulated gradient is %.2fx the full-batch one because the loss was not divided "
                      "by accum_steps (%lld) before backward()",
                      gradRatio, static_cast<long long>(n));
        return buf;
    }
    if (config.stepEveryMicro && n > 1) {
        std::snprintf(buf, sizeof buf,
                      "the optimizer stepped after every micro-batch (%lld steps instead of 1), so the parameters "
                      "moved %.2fx as far as the full-batch step",
                      static_cast<long long>(accumOptimizerStateStep), updateRatio);
        return buf;
    }
    const bool bf16 = config.dtype == DType::BFloat16;
    const double gradTol = bf16 ? gradBoundDtype : config.fixedTolerance;
    const double paramTol = bf16 ? paramBoundDtype : config.fixedTolerance;
    if (maxGradDiff >= gradTol)
        std::snprintf(buf, sizeof buf, "max |grad diff| %.3g exceeds the %s tolerance %.3g", maxGradDiff,
                      bf16 ? "dtype-aware" : "fixed", gradTol);
    else
        std::snprintf(buf, sizeof buf, "max |param diff| %.3g exceeds the %s tolerance %.3g", maxParamDiff,
                      bf16 ? "dtype-aware" : "fixed", paramTol);
    return buf;
}

} // namespace accumlab
