// The experiment catalog, the JSON and text forms of a result, and the lesson's five
// exercises (1-5), built on the engine, the equivalence check and the sweep. The pitfalls
// beyond the lesson (6-11) live in pitfalls.cpp, loss scaling in loss_scaling.cpp, the resume
// inside a window in resume.cpp.
#include "core/experiments/experiments.h"

#include "core/data.h"
#include "core/engine.h"
#include "core/equivalence.h"
#include "core/experiments/internal.h"
#include "core/full_batch.h"
#include "core/distributed/grad_sync.h"
#include "core/model.h"
#include "core/sweep.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace accumlab {

namespace experiments {

void addValue(ExperimentResult &r, const std::string &name, double value) { r.values.push_back({name, value}); }

bool addClaim(ExperimentResult &r, const std::string &id, const std::string &criterion, bool holds, bool timing)
{
    ExperimentClaim c;
    c.id = id;
    c.criterion = criterion;
    c.holds = holds;
    c.timing = timing;
    r.claims.push_back(std::move(c));
    return holds;
}

void addObservation(ExperimentResult &r, const std::string &id, const std::string &criterion)
{
    addClaim(r, id, criterion, /*holds=*/true);
    r.claims.back().observation = true;
}

void addTimingClaim(ExperimentResult &r, const std::string &id, const std::string &criterion, TimingOutcome outcome)
{
    addClaim(r, id, criterion, outcome == TimingOutcome::Holds, /*timing=*/true);
    r.claims.back().inconclusive = outcome == TimingOutcome::Inconclusive;
}

void checkCancel(const CancelToken *cancel)
{
    if (cancel && cancel->cancelled())
        throw Cancelled{};
}

std::string format(const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    va_list copy;
    va_copy(copy, args);
    const int n = std::vsnprintf(nullptr, 0, fmt, copy);
    va_end(copy);
    std::string out(n > 0 ? static_cast<size_t>(n) : 0, '\0');
    if (n > 0)
        std::vsnprintf(out.data(), out.size() + 1, fmt, args);
    va_end(args);
    return out;
}

AccumConfig fixtureConfig(uint64_t seed)
{
    AccumConfig c = equivalenceFixture();
    c.labels = AccumConfig{}.labels; // the window trains on the teacher's labels
    c.seed = seed;
    return c;
}

EquivalenceConfig equivalenceOf(const AccumConfig &c)
{
    EquivalenceConfig e = equivalenceConfigOf(c);
    e.run.labels = equivalenceFixture().labels; // the experiments check on the fixture's labels
    return e;
}

} // namespace experiments

using namespace experiments;

namespace {

// Micro-batch splits used throughout: one window of the lesson's fixture (16 samples).
constexpr int64_t kFixtureBatch = 16;

std::string str(int64_t n) { return std::to_string(n); }

// Counts the all-reduces the engine hands to the gradient sync, then forwards them. With
// one rank the inner LocalSync issues nothing on the wire; with a process group each
// forwarded call is one collective on the flat gradient buffer.
class CountingSync final : public GradSync {
public:
    explicit CountingSync(std::shared_ptr<GradSync> inner) : m_inner(std::move(inner)) {}
    int64_t worldSize() const override { return m_inner->worldSize(); }
    int64_t rank() const override { return m_inner->rank(); }
    void allReduceMean(torch::Tensor &flatGrad) override
    {
        ++m_issued;
        m_inner->allReduceMean(flatGrad);
    }
    int64_t issued() const { return m_issued; }

private:
    std::shared_ptr<GradSync> m_inner;
    int64_t m_issued = 0;
};

// The spacing of floating-point numbers of `dtype` at magnitude m (one unit in the last place).
double ulpAt(double m, DType dtype)
{
    if (m <= 0.0)
        return dtypeEpsilon(dtype);
    return std::ldexp(dtypeEpsilon(dtype), std::ilogb(m));
}

// ---- 1 sweep-flattening ------------------------------------------------------------------

} // namespace

namespace experiments {

ExperimentResult judgeSweepFlattening(const SweepResult &sweep)
{
    ExperimentResult r;
    // Shares of the plateau, the best point's median block; each point's median and the middle
    // half of its blocks (25th to 75th percentile).
    double plateau = 0.0;
    for (const auto &p : sweep.points)
        plateau = std::max(plateau, p.blockMedian());
    const auto micro = static_cast<double>(sweep.config.base.microBatch);
    addValue(r, "plateau_samples_per_sec", plateau);
    // Equal work at every point (SweepConfig::equalWork): the largest accum_steps runs numSteps,
    // a point with fewer runs proportionally more steps.
    addValue(r, "steps_at_largest_accum", static_cast<double>(sweep.config.numSteps));
    addValue(r, "timing_blocks_per_point", static_cast<double>(sweep.config.blocks()));
    addValue(r, "micro_batch", micro);

    // The model's two costs, measured in every block of every point (SweepCostModel, the one the
    // window draws): samples/sec(N) = N micro / (N t_micro + t_window), per block.
    const SweepCostModel costs = costModelOf(sweep.points);
    const size_t blocks = costs.blocks();
    const std::vector<double> &tMicro = costs.tMicroMs, &tWindow = costs.tWindowMs; // ms, per block
    const auto predicted = [&](int64_t n, size_t b) { return costs.predicted(static_cast<double>(n), b); };
    const double tMicroMs = quantile(tMicro, 0.5), tWindowMs = quantile(tWindow, 0.5);
    addValue(r, "t_micro_ms", tMicroMs);
    addValue(r, "t_window_ms", tWindowMs);
    addValue(r, "t_micro_q25_ms", quantile(tMicro, 0.25));
    addValue(r, "t_micro_q75_ms", quantile(tMicro, 0.75));
    addValue(r, "t_window_q25_ms", quantile(tWindow, 0.25));
    addValue(r, "t_window_q75_ms", quantile(tWindow, 0.75));
    // The plateau the model reaches as N grows (micro / t_micro), and the window's share of a
    // step at N = 1: how much accumulation can speed a step up is that share alone.
    addValue(r, "plateau_model_samples_per_sec", tMicroMs > 0.0 ? 1000.0 * micro / tMicroMs : 0.0);
    addValue(r, "window_share_at_1", tMicroMs + tWindowMs > 0.0 ? tWindowMs / (tMicroMs + tWindowMs) : 0.0);

    ExperimentSeries sps{"samples_per_sec", "effective_batch", "samples/sec", {}, {}};
    ExperimentSeries model{"predicted_samples_per_sec", "effective_batch", "samples/sec", {}, {}};
    ExperimentSeries shareSeries{"share_of_plateau", "effective_batch", "share of plateau", {}, {}};
    bool complete = true;
    int64_t syncs = 0, steps = 0;
    // Each block against the prediction from the costs measured in its own round (the blocks
    // of a round run back to back): a slow spell of the machine that slows a round's costs and
    // its samples/sec alike cancels, where comparing each point's median with the prediction's
    // median left it in both spreads (the verdict then concluded in 4 to 9 of 10 runs on a
    // 2-core VM whose blocks' spread swung from 1% to 25% between runs). A point's error is
    // the median of its blocks' errors, with that median's uncertainty: the standard error of a
    // median of n blocks is about 1.2533 sigma / sqrt(n), and sigma is the errors' interquartile
    // range / 1.349 (normal blocks), so two of them span about 1.86 / sqrt(n) interquartile
    // ranges. worst: |error| plus that, best: |error| less it, over the points.
    const double errorsPerIqr = blocks > 0 ? 2.0 * 1.2533 / (1.349 * std::sqrt(static_cast<double>(blocks))) : 0.0;
    double worst = 0.0, best = 0.0, maxError = 0.0;
    for (const auto &p : sweep.points) {
        const std::string a = str(p.accumSteps);
        const auto of = [&](double v) { return plateau > 0.0 ? v / plateau : 0.0; };
        addValue(r, "samples_per_sec_accum_" + a, p.blockMedian());
        addValue(r, "share_of_plateau_accum_" + a, of(p.blockMedian()));
        addValue(r, "share_of_plateau_q25_accum_" + a, of(p.blockQuantile(0.25)));
        addValue(r, "share_of_plateau_q75_accum_" + a, of(p.blockQuantile(0.75)));
        addValue(r, "timed_steps_accum_" + a, static_cast<double>(p.steps));
        addValue(r, "median_step_ms_accum_" + a, p.medianStepMs);
        addValue(r, "sync_calls_accum_" + a, static_cast<double>(p.syncCalls));
        if (!p.blockMicroMs.empty()) {
            addValue(r, "t_micro_ms_accum_" + a, quantile(p.blockMicroMs, 0.5));
            addValue(r, "t_window_ms_accum_" + a, quantile(p.blockWindowMs, 0.5));
        }
        sps.x.push_back(static_cast<double>(p.effectiveBatch));
        sps.y.push_back(p.blockMedian());
        shareSeries.x.push_back(static_cast<double>(p.effectiveBatch));
        shareSeries.y.push_back(of(p.blockMedian()));
        if (blocks > 0) {
            std::vector<double> pred, errors; // per block of this point
            for (size_t b = 0; b < blocks; ++b) {
                pred.push_back(predicted(p.accumSteps, b));
                if (b < p.blockSamplesPerSec.size() && pred.back() > 0.0)
                    errors.push_back(p.blockSamplesPerSec[b] / pred.back() - 1.0);
            }
            const double pMid = quantile(pred, 0.5);
            addValue(r, "predicted_samples_per_sec_accum_" + a, pMid);
            const double error = errors.empty() ? 0.0 : quantile(errors, 0.5);
            addValue(r, "model_error_accum_" + a, error);
            maxError = std::max(maxError, std::abs(error));
            if (!errors.empty()) {
                const double u = errorsPerIqr * (quantile(errors, 0.75) - quantile(errors, 0.25));
                worst = std::max(worst, std::abs(error) + u);
                best = std::max(best, std::abs(error) - u);
            }
            model.x.push_back(static_cast<double>(p.effectiveBatch));
            model.y.push_back(pMid);
        }
        syncs += p.syncCalls;
        steps += p.steps;
        complete = complete && p.steps == sweep.config.stepsAt(p.accumSteps) && !p.diverged;
    }
    r.series = {sps, model, shareSeries};
    addValue(r, "share_of_plateau_first", sweep.points.empty() || plateau <= 0.0
                                              ? 0.0 : sweep.points.front().blockMedian() / plateau);
    addValue(r, "max_model_error", maxError);

    // The verdict: it holds when every point's error, widened by its uncertainty, is within
    // the tolerance, fails when some point's error, narrowed by it, is still beyond, and is
    // inconclusive otherwise (a loaded machine widens the spreads; it cannot make a confident
    // wrong verdict).
    constexpr double kModelTolerance = 0.2;
    addValue(r, "model_tolerance", kModelTolerance);
    const TimingOutcome follows = blocks == 0 ? TimingOutcome::Inconclusive
                                  : worst <= kModelTolerance ? TimingOutcome::Holds
                                  : best > kModelTolerance   ? TimingOutcome::Fails
                                                             : TimingOutcome::Inconclusive;
    addTimingClaim(r, "follows-the-model",
                   "predicted = N micro / (N t_micro + t_window) from the costs measured in the same round of "
                   "blocks; error = median over a point's blocks of measured / predicted - 1, u = 2 standard "
                   "errors of that median (from the errors' interquartile range); holds: |error| + u <= 20% at "
                   "every point; fails: |error| - u > 20% at some point",
                   follows);
    addValue(r, "sync_calls", static_cast<double>(syncs));
    addValue(r, "timed_steps", static_cast<double>(steps));
    addObservation(r, "one-sync-per-step",
                   "sync_calls == timed_steps, read from the engine's own counter (the sync-count experiment "
                   "counts them at the sync layer)");
    addClaim(r, "points-complete", "every point timed its steps (steps_at_largest_accum x 16 / N) and none diverged",
             complete);
    return r;
}

} // namespace experiments

namespace {

// The lesson's model at its default micro-batch over the grid 1..16.
ExperimentLabSettings sweepFlatteningSettings(const ExperimentOptions &o)
{
    ExperimentLabSettings s;
    s.config.seed = o.seed;
    s.accumGrid = {1, 2, 4, 8, 16};
    // Fast runs keep the grid but time a few steps only (the timing claims get noisier).
    constexpr int64_t kFastSweepSteps = 6;
    s.sweepSteps = o.fast ? std::min(o.sweepSteps, kFastSweepSteps) : o.sweepSteps;
    return s;
}

ExperimentResult sweepFlattening(const ExperimentOptions &o, const CancelToken *cancel)
{
    const ExperimentLabSettings s = sweepFlatteningSettings(o);
    SweepConfig sc;
    sc.base = s.config;
    sc.accumGrid = s.accumGrid;
    sc.numSteps = s.sweepSteps;
    sc.warmupSteps = o.fast ? 1 : 2;
    sc.threads = o.threads;

    // Twenty interleaved blocks a point (about 50 ms each): every verdict below is judged
    // against their spread, and each block measures the model's two costs.
    sc.repeats = 20;
    sc.phaseTiming = true;
    sc.equalWork = true;

    const SweepResult sweep = runSweep(sc, nullptr, cancel);
    ExperimentResult r = judgeSweepFlattening(sweep);
    r.ran = ExperimentLabSettings{sweep.config.base, sweep.config.accumGrid, sweep.config.numSteps};
    return r;
}

// ---- 2 no-division -----------------------------------------------------------------------

// The fixture without the division by N, under SGD (the window shows SGD; AdamW runs beside it).
ExperimentLabSettings noDivisionSettings(const ExperimentOptions &o)
{
    ExperimentLabSettings s;
    s.config = fixtureConfig(o.seed);
    s.config.scaling = Scaling::None;
    return s;
}

ExperimentResult noDivision(const ExperimentOptions &o, const CancelToken *cancel)
{
    ExperimentResult r;
    const EquivalenceConfig base = equivalenceOf(noDivisionSettings(o).config);
    const auto n = static_cast<double>(base.run.accumSteps);

    auto sgdCfg = base;
    sgdCfg.run.optimizer.kind = OptimizerKind::Sgd;
    auto adamCfg = base;
    adamCfg.run.optimizer.kind = OptimizerKind::AdamW;
    const EquivalenceResult sgd = runEquivalence(sgdCfg, cancel);
    const EquivalenceResult adam = runEquivalence(adamCfg, cancel);
    auto divideCfg = sgdCfg;
    divideCfg.run.scaling = Scaling::Divide;
    const EquivalenceResult divided = runEquivalence(divideCfg, cancel);
    r.ran = ExperimentLabSettings{sgd.config.run};

    // The logged loss: a loop that logs what it calls backward() on sums the window's
    // micro-batch losses. Measured on the fixture's window, before any optimizer step.
    double trueLoss = 0.0, loggedUndivided = 0.0, loggedDivided = 0.0;
    {
        torch::NoGradGuard noGrad;
        const torch::Device cpu(torch::kCPU);
        DataStream data(base.run.modelShape(), base.run.labels, base.run.seed, torch::kFloat32, cpu);
        auto [x, y] = data.next(base.bigBatch()); // x: (16, 32), y: (16,)
        auto model = makeModel(base.run.modelShape(), base.run.seed, torch::kFloat32, cpu);
        trueLoss = meanLoss(model, x, y);
        const auto xs = x.split(base.run.microBatch);
        const auto ys = y.split(base.run.microBatch);
        for (size_t i = 0; i < xs.size(); ++i) {
            const double micro = meanLoss(model, xs[i], ys[i]);
            loggedUndivided += micro;
            loggedDivided += micro / n;
        }
    }

    addValue(r, "accum_steps", n);
    addValue(r, "sgd_update_ratio", sgd.updateRatio);
    addValue(r, "adamw_update_ratio", adam.updateRatio);
    // The gradient is read before any optimizer touches it: one figure, whatever the optimizer.
    addValue(r, "grad_norm_ratio", sgd.gradRatio);
    addValue(r, "true_mean_loss", trueLoss);
    addValue(r, "logged_loss_undivided", loggedUndivided);
    addValue(r, "logged_loss_ratio", loggedUndivided / trueLoss);
    addValue(r, "logged_loss_divided", loggedDivided);
    addValue(r, "divided_update_ratio", divided.updateRatio);
    addValue(r, "divided_max_param_diff", divided.maxParamDiff);

    constexpr double kRel = 1e-3; // relative agreement for "N times" / "1x"
    const auto near = [](double a, double b) { return std::abs(a - b) <= kRel * std::abs(b); };
    addClaim(r, "sgd-update-n-times", "|sgd_update_ratio - N| <= 1e-3 N", near(sgd.updateRatio, n));
    addClaim(r, "adamw-update-about-one", "|adamw_update_ratio - 1| <= 1e-3", near(adam.updateRatio, 1.0));
    addClaim(r, "grad-norm-n-times", "|grad_norm_ratio - N| <= 1e-3 N", near(sgd.gradRatio, n));
    addClaim(r, "logged-loss-n-times", "|logged_loss_ratio - N| <= 1e-3 N", near(loggedUndivided / trueLoss, n));
    // The one equivalence verdict (core/equivalence.h), as every surface asks it.
    addClaim(r, "division-restores", "the equivalence verdict holds for the divided loop (its float64 twin agrees)",
             divided.verdict() == Verdict::Holds);
    return r;
}

// ---- 3 adamw-state -----------------------------------------------------------------------

// AdamW at its rate on the fixture's window, with the bug the experiment counts: step() on
// every micro-batch.
ExperimentLabSettings adamwStateSettings(const ExperimentOptions &o)
{
    ExperimentLabSettings s;
    s.config = fixtureConfig(o.seed);
    s.config.optimizer.kind = OptimizerKind::AdamW;
    s.config.optimizer.lr = 1e-3;
    s.config.stepEveryMicro = true;
    return s;
}

ExperimentResult adamwState(const ExperimentOptions &o, const CancelToken *cancel)
{
    ExperimentResult r;
    const ExperimentLabSettings settings = adamwStateSettings(o);
    constexpr int64_t kSteps = 3; // effective steps k
    const std::vector<int64_t> grid{1, 2, 4, 8};
    bool stateIsK = true, microIsKN = true, bugIsKN = true;
    for (int64_t n : grid) {
        AccumConfig c = settings.config;
        c.accumSteps = n;
        c.stepEveryMicro = o.plantPitfall; // planted: the right arm steps every micro-batch too
        AccumEngine right(c);
        c.stepEveryMicro = true;
        AccumEngine buggy(c);
        if (n == settings.config.accumSteps)
            r.ran = ExperimentLabSettings{buggy.config()}; // the window shows the bug
        for (int64_t k = 0; k < kSteps; ++k) {
            right.step(nullptr, cancel);
            buggy.step(nullptr, cancel);
        }
        addValue(r, "state_step_accum_" + str(n), static_cast<double>(right.optimizerStateStep()));
        addValue(r, "micro_batches_accum_" + str(n), static_cast<double>(right.microBatches()));
        addValue(r, "state_step_every_micro_accum_" + str(n), static_cast<double>(buggy.optimizerStateStep()));
        stateIsK = stateIsK && right.optimizerStateStep() == kSteps;
        microIsKN = microIsKN && right.microBatches() == kSteps * n;
        bugIsKN = bugIsKN && buggy.optimizerStateStep() == kSteps * n;
    }
    addValue(r, "effective_steps", static_cast<double>(kSteps));

    // One window of the fixture, AdamW: full batch against accumulation, right and buggy.
    EquivalenceConfig e;
    e.run.seed = o.seed;
    e.run.optimizer.kind = OptimizerKind::AdamW;
    e.run.stepEveryMicro = o.plantPitfall;
    const EquivalenceResult right = runEquivalence(e, cancel);
    e.run.stepEveryMicro = true;
    const EquivalenceResult buggy = runEquivalence(e, cancel);
    addValue(r, "window_accum_steps", static_cast<double>(e.run.accumSteps));
    addValue(r, "max_param_diff", right.maxParamDiff);
    addValue(r, "max_param_diff_every_micro", buggy.maxParamDiff);
    addValue(r, "update_ratio_every_micro", buggy.updateRatio);
    addValue(r, "state_step_every_micro_one_window", static_cast<double>(buggy.accumOptimizerStateStep));

    // "Measurably away": a hundred times the lesson's bound.
    constexpr double kAway = 100.0 * kLessonTolerance;
    addClaim(r, "state-step-is-k", "state_step_accum_N == k for N in 1,2,4,8", stateIsK);
    addObservation(r, "micro-batches-k-times-n",
                   microIsKN ? "micro_batches_accum_N == k x N for N in 1,2,4,8 (the engine's own count)"
                             : "micro_batches_accum_N differs from k x N (the engine's own count)");
    addClaim(r, "every-micro-counts-k-times-n", "state_step_every_micro_accum_N == k x N for N in 1,2,4,8", bugIsKN);
    addValue(r, "twin_diff", right.largestTwinDiff());
    // The one verdict (core/equivalence.h): the float64 twin of both sides agrees.
    addClaim(r, "right-matches-full-batch", "the equivalence verdict holds: the float64 twin's sides agree (twin_diff <= 2^-30)",
             right.verdict() == Verdict::Holds);
    addClaim(r, "every-micro-lands-away", "max_param_diff_every_micro > 1e-2", buggy.maxParamDiff > kAway);
    return r;
}

// ---- 4 sync-count ------------------------------------------------------------------------

// The accumulation steps the sync-count experiment runs.
const std::vector<int64_t> kSyncCountGrid{1, 2, 4, 8};

// The largest window of the grid with the sync on every micro-batch: turning no-sync on in the
// window shows the count drop to one per step.
ExperimentLabSettings syncCountSettings(const ExperimentOptions &o)
{
    ExperimentLabSettings s;
    s.config = fixtureConfig(o.seed);
    s.config.accumSteps = kSyncCountGrid.back();
    s.config.noSync = false;
    return s;
}

ExperimentResult syncCount(const ExperimentOptions &o, const CancelToken *cancel)
{
    ExperimentResult r;
    const ExperimentLabSettings settings = syncCountSettings(o);
    constexpr int64_t kSteps = 4;
    const std::vector<int64_t> &grid = kSyncCountGrid;
    bool onIsK = true, offIsKN = true, countersAgree = true;
    int64_t world = 1;
    for (int64_t n : grid) {
        for (bool noSync : {true, false}) {
            auto inner = o.makeSync ? o.makeSync() : std::shared_ptr<GradSync>(std::make_shared<LocalSync>());
            auto counting = std::make_shared<CountingSync>(inner);
            world = counting->worldSize();
            AccumConfig c = settings.config;
            c.accumSteps = n;
            c.worldSize = world;
            c.noSync = noSync;
            AccumEngine engine(c, counting);
            if (n == settings.config.accumSteps && !noSync)
                r.ran = ExperimentLabSettings{engine.config()};
            for (int64_t k = 0; k < kSteps; ++k)
                engine.step(nullptr, cancel);
            const std::string tag = (noSync ? "on_accum_" : "off_accum_") + str(n);
            addValue(r, "sync_calls_no_sync_" + tag, static_cast<double>(engine.syncCalls()));
            addValue(r, "allreduces_issued_no_sync_" + tag, static_cast<double>(counting->issued()));
            countersAgree = countersAgree && engine.syncCalls() == counting->issued();
            if (noSync)
                onIsK = onIsK && counting->issued() == kSteps;
            else
                offIsKN = offIsKN && counting->issued() == kSteps * n;
        }
    }
    addValue(r, "effective_steps", static_cast<double>(kSteps));
    addValue(r, "world_size", static_cast<double>(world));
    // One rank sends nothing on the wire; several ranks count real collectives.
    r.explanationVariant = world > 1 ? "multi_rank" : "one_rank";
    // The explanation's "k syncs instead of k x N at the largest accum_steps".
    addValue(r, "largest_accum_steps", static_cast<double>(grid.back()));
    addValue(r, "syncs_without_no_sync_largest_accum", static_cast<double>(kSteps * grid.back()));

    addClaim(r, "no-sync-on-one-per-step", "allreduces_issued_no_sync_on_accum_N == k for N in 1,2,4,8", onIsK);
    addClaim(r, "no-sync-off-one-per-micro", "allreduces_issued_no_sync_off_accum_N == k x N for N in 1,2,4,8",
             offIsKN);
    addObservation(r, "counter-matches-issued",
                   countersAgree ? "sync_calls == allreduces_issued in every run (both count the same call)"
                                 : "sync_calls differs from allreduces_issued in some run");
    return r;
}

// ---- 5 split-tolerance -------------------------------------------------------------------

// The first split, 2x8, in the dtype where the fixed bound fails.
ExperimentLabSettings splitToleranceSettings(const ExperimentOptions &o)
{
    ExperimentLabSettings s;
    s.config = fixtureConfig(o.seed);
    s.config.accumSteps = 2;
    s.config.microBatch = 8;
    s.config.dtype = DType::BFloat16;
    return s;
}

ExperimentResult splitTolerance(const ExperimentOptions &o, const CancelToken *cancel)
{
    ExperimentResult r;
    const ExperimentLabSettings settings = splitToleranceSettings(o);
    const std::vector<Split> splits{{2, 8}, {4, 4}, {8, 2}};
    struct PerDtype {
        double maxVsFull = 0.0, maxSplitVsSplit = 0.0, maxAbsGrad = 0.0, rounding = 0.0;
        int withinLesson = 0, holds = 0;
    };
    const auto measure = [&](DType dtype) {
        PerDtype m;
        for (size_t i = 0; i < splits.size(); ++i) {
            EquivalenceConfig c = equivalenceOf(settings.config);
            c.run.dtype = dtype;
            c.run.accumSteps = splits[i].accumSteps;
            setBigBatch(c, kFixtureBatch);
            c.compareSplit = splits[(i + 1) % splits.size()];
            const EquivalenceResult e = runEquivalence(c, cancel);
            if (dtype == DType::BFloat16 && i == 0)
                r.ran = ExperimentLabSettings{e.config.run}; // the window shows 2x8 in bfloat16
            const std::string tag = toString(dtype) + "_" + toString(splits[i]);
            addValue(r, tag + "_grad_diff_vs_full", e.maxGradDiff);
            addValue(r, tag + "_vs_" + toString(*c.compareSplit) + "_grad_diff", e.comparisons.front().vsFirstGradDiff);
            m.maxVsFull = std::max(m.maxVsFull, e.maxGradDiff);
            m.maxSplitVsSplit = std::max(m.maxSplitVsSplit, e.comparisons.front().vsFirstGradDiff);
            m.maxAbsGrad = std::max(m.maxAbsGrad, e.maxAbsGrad);
            m.rounding = std::max(m.rounding, e.roundingGradDiff);
            m.withinLesson += e.withinLessonBound ? 1 : 0;
            m.holds += e.verdict() == Verdict::Holds ? 1 : 0;
        }
        const std::string d = toString(dtype);
        const double ulp = ulpAt(m.maxAbsGrad, dtype);
        addValue(r, d + "_max_abs_grad", m.maxAbsGrad);
        addValue(r, d + "_ulp_of_max_abs_grad", ulp);
        addValue(r, d + "_max_grad_diff_vs_full", m.maxVsFull);
        addValue(r, d + "_max_split_vs_split_grad_diff", m.maxSplitVsSplit);
        addValue(r, d + "_max_split_vs_split_ulps", m.maxSplitVsSplit / ulp);
        // The same difference in units of eps(dtype) x max|g|, the dtype-aware bound's unit.
        addValue(r, d + "_max_split_vs_split_eps_units", m.maxSplitVsSplit / (dtypeEpsilon(dtype) * m.maxAbsGrad));
        addValue(r, d + "_rounding_grad_diff", m.rounding);
        addValue(r, d + "_splits_within_fixed_1e-4", m.withinLesson);
        addValue(r, d + "_splits_verdict_holds", m.holds);
        return m;
    };
    const PerDtype f32 = measure(DType::Float32);
    const PerDtype bf16 = measure(DType::BFloat16);
    addValue(r, "fixed_tolerance", kLessonTolerance);

    const double f32Ulp = ulpAt(f32.maxAbsGrad, DType::Float32);
    // "A few ulps": summation-order noise, at most four units in the last place of max|g|.
    constexpr double kFewUlps = 4.0;
    const int nSplits = static_cast<int>(splits.size());
    addValue(r, "few_ulps_threshold", kFewUlps);
    addClaim(r, "float32-few-ulps", "float32_max_split_vs_split_grad_diff <= 4 ulp(float32_max_abs_grad)",
             f32.maxSplitVsSplit <= kFewUlps * f32Ulp);
    addClaim(r, "float32-fixed-holds", "float32_splits_within_fixed_1e-4 == 3", f32.withinLesson == nSplits);
    addClaim(r, "bfloat16-fixed-fails", "bfloat16_max_grad_diff_vs_full >= 1e-4 (some split outside the fixed bound)",
             bf16.maxVsFull >= kLessonTolerance && bf16.withinLesson < nSplits);
    // The verdict, the same function every surface asks: the float64 twin decides.
    addClaim(r, "float32-verdict-holds", "float32_splits_verdict_holds == 3", f32.holds == nSplits);
    addClaim(r, "bfloat16-verdict-holds", "bfloat16_splits_verdict_holds == 3", bf16.holds == nSplits);
    return r;
}

// ---- the catalog ---------------------------------------------------------------------------

using Runner = ExperimentResult (*)(const ExperimentOptions &, const CancelToken *);
using LabSettings = ExperimentLabSettings (*)(const ExperimentOptions &);

// The catalog in the lesson's order: each experiment's id, its runner, the lab settings the
// runner builds from (nullptr: a model of its own, nothing the controls show) and the settings
// its summary quotes. Titles and summaries are the content's (experiments/<id>.json).
struct Entry {
    const char *id;
    Runner run;
    LabSettings labSettings;
    TextArgs settings;
};

const std::vector<Entry> &entries()
{
    static const std::vector<Entry> table{
        {"sweep-flattening", sweepFlattening, sweepFlatteningSettings, {}},
        {"no-division", noDivision, noDivisionSettings, {}},
        {"adamw-state", adamwState, adamwStateSettings, {}},
        {"sync-count", syncCount, syncCountSettings, {}},
        {"split-tolerance", splitTolerance, splitToleranceSettings, {}},
        {"variable-length", variableLength, nullptr, {}},
        {"partial-window", partialWindow, partialWindowSettings, {}},
        {"batchnorm", batchNorm, batchNormSettings, {}},
        {"clipping", clipping, clippingSettings, {}},
        {"lr-schedule", lrSchedule, lrScheduleSettings, {}},
        {"linear-scaling", linearScaling, linearScalingSettings, {}},
        {"loss-scaling", lossScaling, lossScalingSettings, {}},
        {"resume-mid-window", resumeMidWindow, resumeMidWindowSettings, {}},
    };
    return table;
}

const Entry &entryFor(const std::string &id)
{
    for (const auto &e : entries())
        if (e.id == id)
            return e;
    std::string known;
    for (const auto &e : entries())
        known += (known.empty() ? "" : ", ") + std::string(e.id);
    throw ConfigError("experiments/unknown-experiment", TextArgs{{}, {{"id", id}, {"known", known}}});
}

} // namespace

std::string ExperimentClaim::outcome() const
{
    if (observation)
        return "observation";
    if (inconclusive)
        return "inconclusive";
    return holds ? "holds" : "does not hold";
}

bool ExperimentResult::holds() const
{
    return std::all_of(claims.begin(), claims.end(),
                       [](const ExperimentClaim &c) { return c.holds || c.inconclusive || c.observation; });
}

ClaimTally ExperimentResult::tally() const
{
    ClaimTally t;
    for (const auto &c : claims) {
        if (c.observation) {
            ++t.observations;
            continue;
        }
        ++t.verdicts;
        t.holding += c.holds ? 1 : 0;
        t.inconclusive += c.inconclusive ? 1 : 0;
    }
    return t;
}

double ExperimentResult::value(const std::string &name) const
{
    for (const auto &v : values)
        if (v.name == name)
            return v.value;
    throw std::out_of_range("experiment " + id + " has no value '" + name + "'");
}

const ExperimentClaim &ExperimentResult::claim(const std::string &claimId) const
{
    for (const auto &c : claims)
        if (c.id == claimId)
            return c;
    throw std::out_of_range("experiment " + id + " has no claim '" + claimId + "'");
}

TextArgs ExperimentResult::textArgs() const
{
    TextArgs args;
    for (const auto &v : values)
        args.numbers[v.name] = v.value;
    args.strings = textStrings;
    return args;
}

std::string experimentContentPath(const std::string &id) { return "experiments/" + id + ".json"; }

const std::vector<ExperimentInfo> &experimentCatalog()
{
    static const std::vector<ExperimentInfo> infos = [] {
        std::vector<ExperimentInfo> v;
        int number = 0;
        for (const auto &e : entries()) {
            const std::string path = experimentContentPath(e.id);
            ExperimentInfo info;
            info.id = e.id;
            info.number = ++number;
            info.lessonExercise = contentJson(path).value("lesson_exercise", false);
            info.title = contentText(path, "/title");
            info.summary = contentText(path, "/summary");
            info.settings = e.settings;
            v.push_back(std::move(info));
        }
        return v;
    }();
    return infos;
}

const ExperimentInfo *findExperiment(const std::string &id)
{
    for (const auto &info : experimentCatalog())
        if (info.id == id)
            return &info;
    return nullptr;
}

std::string experimentTitle(const std::string &id, const NumberStyle &style)
{
    return renderText(experimentContentPath(id), "/title", {}, style);
}

std::string experimentSummary(const ExperimentInfo &info, const NumberStyle &style)
{
    return renderText(experimentContentPath(info.id), "/summary", info.settings, style);
}

std::string claimStatement(const ExperimentResult &r, const ExperimentClaim &c, const NumberStyle &style)
{
    return renderText(experimentContentPath(r.id), "/claims/" + c.id, r.textArgs(), style);
}

std::string explanation(const ExperimentResult &r, const NumberStyle &style)
{
    const std::string pointer = r.explanationVariant.empty() ? "/explanation" : "/explanation/" + r.explanationVariant;
    return renderText(experimentContentPath(r.id), pointer, r.textArgs(), style);
}

std::vector<std::string> explanationVariants(const std::string &experimentId)
{
    const auto &doc = contentJson(experimentContentPath(experimentId));
    std::vector<std::string> names;
    if (!doc.contains("explanation") || doc.at("explanation").contains("en"))
        return names;
    for (const auto &variant : doc.at("explanation").items())
        names.push_back(variant.key());
    return names;
}

std::string valueLabel(const std::string &experimentId, const std::string &valueName, const NumberStyle &style)
{
    const auto &doc = contentJson(experimentContentPath(experimentId));
    if (!doc.contains("values"))
        return {};
    const auto &labels = doc.at("values");
    if (labels.contains(valueName))
        return renderLocalized(localizedText(labels.at(valueName)), {}, style);
    // A trailing number: "samples_per_sec_accum_4" -> "samples_per_sec_accum_{n}" with n = 4.
    const auto digits = valueName.find_last_not_of("0123456789");
    if (digits == std::string::npos || digits + 1 == valueName.size())
        return {};
    const std::string pattern = valueName.substr(0, digits + 1) + "{n}";
    if (!labels.contains(pattern))
        return {};
    TextArgs args;
    args.numbers["n"] = std::stod(valueName.substr(digits + 1));
    return renderLocalized(localizedText(labels.at(pattern)), args, style);
}

ExperimentResult runExperiment(const std::string &id, const ExperimentOptions &options, const CancelToken *cancel)
{
    const Entry &e = entryFor(id);
    if (options.sweepSteps <= 0)
        throw ConfigError("experiments/sweep-steps-not-positive", {});
    // sweep-flattening gives every point equal work: accum_steps 1 runs 16 times the steps.
    if (options.sweepSteps > kMaxSweepSteps)
        throw ConfigError("experiments/sweep-steps-too-many",
                          TextArgs{{{"value", double(options.sweepSteps)}, {"hi", double(kMaxSweepSteps)}}, {}});
    checkCancel(cancel);
    ExperimentResult r = e.run(options, cancel);
    r.id = e.id;
    return r;
}

std::optional<ExperimentLabSettings> experimentLabSettings(const std::string &id, const ExperimentOptions &options)
{
    const Entry &e = entryFor(id);
    if (!e.labSettings)
        return std::nullopt;
    return e.labSettings(options);
}

nlohmann::ordered_json toJson(const ExperimentResult &r)
{
    using nlohmann::ordered_json;
    const NumberStyle en{"en", false};
    const NumberStyle fa{"fa", false};
    ordered_json values = ordered_json::object();
    for (const auto &v : r.values)
        values[v.name] = v.value;
    ordered_json claims = ordered_json::array();
    for (const auto &c : r.claims)
        claims.push_back({{"id", c.id},
                          {"statement", claimStatement(r, c, en)},
                          {"statement_fa", claimStatement(r, c, fa)},
                          {"criterion", c.criterion},
                          {"holds", c.holds},
                          {"timing", c.timing},
                          {"outcome", c.outcome()}});
    ordered_json series = ordered_json::array();
    for (const auto &s : r.series)
        series.push_back({{"name", s.name}, {"x_label", s.xLabel}, {"y_label", s.yLabel}, {"x", s.x}, {"y", s.y}});
    return {{"id", r.id},
            {"title", experimentTitle(r.id, en)},
            {"values", values},
            {"claims", claims},
            {"holds", r.holds()},
            {"explanation", explanation(r, en)},
            {"explanation_fa", explanation(r, fa)},
            {"series", series}};
}

std::string toText(const ExperimentResult &r)
{
    std::ostringstream out;
    out << r.id << ": " << experimentTitle(r.id) << "\n\n";
    size_t width = 0;
    for (const auto &v : r.values)
        width = std::max(width, v.name.size());
    for (const auto &v : r.values)
        out << "  " << v.name << std::string(width - v.name.size() + 2, ' ') << format("%.6g", v.value) << "\n";
    out << "\n";
    for (const auto &c : r.claims) {
        const std::string mark = std::string("[").append(c.outcome()).append("]");
        out << "  " << mark << std::string(mark.size() < 15 ? 15 - mark.size() : 1, ' ') << claimStatement(r, c) << "\n"
            << "                 (" << c.criterion << (c.timing ? "; timing-based" : "") << ")\n";
    }
    out << "\n" << explanation(r) << "\n";
    out << "\n"
        << (!r.holds()                 ? "some claims do not hold"
            : r.tally().inconclusive > 0 ? "no claim fails; some timing claims are inconclusive (within the measured spread)"
                                       : "all claims hold")
        << "\n";
    return out.str();
}

} // namespace accumlab
