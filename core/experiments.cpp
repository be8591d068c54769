// The experiment catalog, the JSON and text forms of a result, and the lesson's five
// exercises (1-5), built on the engine, the equivalence check and the sweep. The pitfalls
// beyond the lesson (6-11) live in experiments_pitfalls.cpp.
#include "core/experiments.h"

#include "core/data.h"
#include "core/engine.h"
#include "core/equivalence.h"
#include "core/experiments_internal.h"
#include "core/grad_sync.h"
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

bool addClaim(ExperimentResult &r, const std::string &id, const LocalizedText &statement, const std::string &criterion,
              bool holds, bool timing)
{
    ExperimentClaim c;
    c.id = id;
    c.statement = statement.en;
    c.statementFa = statement.fa;
    c.criterion = criterion;
    c.holds = holds;
    c.timing = timing;
    r.claims.push_back(std::move(c));
    return holds;
}

void addObservation(ExperimentResult &r, const std::string &id, const LocalizedText &statement,
                    const std::string &criterion)
{
    addClaim(r, id, statement, criterion, /*holds=*/true);
    r.claims.back().observation = true;
}

void addTimingClaim(ExperimentResult &r, const std::string &id, const LocalizedText &statement,
                    const std::string &criterion, TimingOutcome outcome)
{
    addClaim(r, id, statement, criterion, outcome == TimingOutcome::Holds, /*timing=*/true);
    r.claims.back().inconclusive = outcome == TimingOutcome::Inconclusive;
}

std::string ltr(const std::string &text) { return "\u200e" + text + "\u200e"; }

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

} // namespace experiments

using namespace experiments;

namespace {

// Micro-batch splits used throughout: one window of the lesson's fixture (16 samples).
constexpr int64_t kFixtureBatch = 16;
// The lesson's fixed absolute bound.
constexpr double kFixedTolerance = 1e-4;

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
    addValue(r, "plateau_samples_per_sec", plateau);
    addValue(r, "steps_per_point", static_cast<double>(sweep.config.numSteps));
    addValue(r, "timing_blocks_per_point", static_cast<double>(sweep.config.blocks()));
    addValue(r, "micro_batch", static_cast<double>(sweep.config.base.microBatch));

    std::vector<double> share, lo, hi;
    ExperimentSeries sps{"samples_per_sec", "effective_batch", "samples/sec", {}, {}};
    ExperimentSeries shareSeries{"share_of_plateau", "effective_batch", "share of plateau", {}, {}};
    bool complete = true;
    int64_t syncs = 0, steps = 0;
    for (const auto &p : sweep.points) {
        const std::string a = str(p.accumSteps);
        const auto of = [&](double v) { return plateau > 0.0 ? v / plateau : 0.0; };
        share.push_back(of(p.blockMedian()));
        lo.push_back(of(p.blockQuantile(0.25)));
        hi.push_back(of(p.blockQuantile(0.75)));
        addValue(r, "samples_per_sec_accum_" + a, p.blockMedian());
        addValue(r, "share_of_plateau_accum_" + a, share.back());
        addValue(r, "share_of_plateau_q25_accum_" + a, lo.back());
        addValue(r, "share_of_plateau_q75_accum_" + a, hi.back());
        addValue(r, "median_step_ms_accum_" + a, p.medianStepMs);
        addValue(r, "sync_calls_accum_" + a, static_cast<double>(p.syncCalls));
        sps.x.push_back(static_cast<double>(p.effectiveBatch));
        sps.y.push_back(p.blockMedian());
        shareSeries.x.push_back(static_cast<double>(p.effectiveBatch));
        shareSeries.y.push_back(share.back());
        syncs += p.syncCalls;
        steps += p.steps;
        complete = complete && p.steps == sweep.config.numSteps && !p.diverged;
    }
    r.series = {sps, shareSeries};

    const size_t n = share.size();
    const auto laterMeanOf = [&](const std::vector<double> &v) {
        double m = 0.0;
        for (size_t i = n / 2; i < n; ++i)
            m += v[i];
        return m / static_cast<double>(n - n / 2);
    };
    const double laterMean = laterMeanOf(share);
    double laterMin = 1.0, laterMinLo = 1.0, laterMinHi = 1.0;
    for (size_t i = n / 2; i < n; ++i) {
        laterMin = std::min(laterMin, share[i]);
        laterMinLo = std::min(laterMinLo, lo[i]);
        laterMinHi = std::min(laterMinHi, hi[i]);
    }
    const double firstGain = share[1] - share[0];
    const double lastGain = share[n - 1] - share[n - 2];
    addValue(r, "share_of_plateau_first", share.front());
    addValue(r, "share_of_plateau_later_mean", laterMean);
    addValue(r, "share_of_plateau_later_min", laterMin);
    addValue(r, "first_doubling_gain", firstGain);
    addValue(r, "last_doubling_gain", lastGain);

    // Each verdict compares the ends of the spreads: it holds when the least favourable ends
    // agree, fails when even the most favourable ends disagree, and is inconclusive otherwise.
    const auto outcome = [](bool surelyHolds, bool surelyFails) {
        return surelyHolds ? TimingOutcome::Holds : surelyFails ? TimingOutcome::Fails : TimingOutcome::Inconclusive;
    };
    constexpr double kFlatShare = 0.8;  // "flat" = within 20% of the plateau
    constexpr double kGainSlack = 0.05; // allowance between two doublings
    addTimingClaim(r, "rises",
                   {"samples/sec rises with accum_steps: the first point reaches a smaller share of the plateau "
                    "than the later points do on average",
                    "نمونه در ثانیه با accum_steps بالا می‌رود: نقطه‌ی اول به سهم کوچک‌تری از فلات می‌رسد تا میانگین نقطه‌های بعدی"},
                   "holds: share_of_plateau_q75_accum_1 < mean of the later points' share_of_plateau_q25; fails: "
                   "share_of_plateau_q25_accum_1 >= mean of their share_of_plateau_q75",
                   outcome(hi.front() < laterMeanOf(lo), lo.front() >= laterMeanOf(hi)));
    addTimingClaim(r, "flattens",
                   {"throughput flattens: every point in the later half of the grid is within 20% of the plateau",
                    "توان عملیاتی هموار می‌شود: هر نقطه در نیمه‌ی دوم شبکه‌ی مقادیر حداکثر 20% با فلات فاصله دارد"},
                   "holds: every later point's share_of_plateau_q25 >= 0.8; fails: some later point's "
                   "share_of_plateau_q75 < 0.8",
                   outcome(laterMinLo >= kFlatShare, laterMinHi < kFlatShare));
    const double firstGainLo = lo[1] - hi[0], firstGainHi = hi[1] - lo[0];
    const double lastGainLo = lo[n - 1] - hi[n - 2], lastGainHi = hi[n - 1] - lo[n - 2];
    addTimingClaim(r, "last-doubling-gains-less",
                   {"the last doubling of accum_steps gains no more than the first one",
                    "آخرین دو برابر شدن accum_steps بیش از نخستین دو برابر شدن آن توان عملیاتی را بالا نمی‌برد"},
                   "gains between the ends of the middle halves (q25..q75); holds: the last gain's largest <= "
                   "max(the first gain's smallest, 0) + 0.05; fails: the last gain's smallest > max(the first "
                   "gain's largest, 0) + 0.05",
                   outcome(lastGainHi <= std::max(firstGainLo, 0.0) + kGainSlack,
                           lastGainLo > std::max(firstGainHi, 0.0) + kGainSlack));
    addValue(r, "sync_calls", static_cast<double>(syncs));
    addValue(r, "timed_steps", static_cast<double>(steps));
    addObservation(r, "one-sync-per-step",
                   {"with no-sync on, the engine counted one sync per effective step",
                    "با no-sync روشن، موتور در هر گام مؤثر یک همگام‌سازی شمرد"},
                   "sync_calls == timed_steps, read from the engine's own counter (the sync-count experiment "
                   "counts them at the sync layer)");
    addClaim(r, "points-complete", {"every point trained its timed steps without diverging",
                                    "هر نقطه همه‌ی گام‌های زمان‌گیری‌شده‌اش را بدون واگرایی آموزش داد"},
             "steps == steps_per_point and no point diverged", complete);

    r.explanation = format(
        "Each effective step pays a fixed cost once (zeroing the buffers, the grad-norm read, the optimizer "
        "step) and a per-sample cost accum_steps times (forward and backward of a micro-batch of %lld). "
        "As accum_steps grows the fixed cost is spread over more samples, so samples/sec climbs towards a "
        "plateau set by forward+backward alone: here the first point reached %.0f%% of the plateau "
        "(%.0f samples/sec) and the later points %.0f%% on average. The memory cost stays that of one "
        "micro-batch; accumulation buys batch size, not speed. Timings depend on the machine and its load.",
        static_cast<long long>(sweep.config.base.microBatch), 100.0 * share.front(), plateau, 100.0 * laterMean);
    r.explanationFa = format(
        "هر گام مؤثر یک هزینه‌ی ثابت را یک بار می‌پردازد (صفر کردن بافرها، خواندن نُرم گرادیان، گام بهینه‌ساز) و "
        "یک هزینه‌ی وابسته به نمونه را accum_steps بار (گذر رو به جلو و رو به عقب یک میکروبچ با %lld نمونه). با "
        "بزرگ شدن accum_steps هزینه‌ی ثابت میان نمونه‌های بیشتری پخش می‌شود، پس نمونه در ثانیه به سوی فلاتی بالا "
        "می‌رود که فقط گذر رو به جلو و رو به عقب تعیینش می‌کنند: اینجا نقطه‌ی اول به %.0f%% فلات (%.0f نمونه در "
        "ثانیه) رسید و نقطه‌های بعدی به‌طور میانگین به %.0f%%. هزینه‌ی حافظه همان هزینه‌ی یک میکروبچ می‌ماند؛ "
        "انباشت اندازه‌ی دسته می‌خرد، نه سرعت. زمان‌ها به ماشین و بار آن بستگی دارند.",
        static_cast<long long>(sweep.config.base.microBatch), 100.0 * share.front(), plateau, 100.0 * laterMean);
    return r;
}

} // namespace experiments

namespace {

ExperimentResult sweepFlattening(const ExperimentOptions &o, const CancelToken *cancel)
{
    SweepConfig sc;
    sc.base.seed = o.seed;
    sc.accumGrid = {1, 2, 4, 8, 16};
    // Fast runs keep the grid but time a few steps only (the timing claims get noisier).
    constexpr int64_t kFastSweepSteps = 6;
    sc.numSteps = o.fast ? std::min(o.sweepSteps, kFastSweepSteps) : o.sweepSteps;
    sc.warmupSteps = o.fast ? 1 : 2;
    sc.threads = o.threads;

    // Ten interleaved blocks a point: every verdict below is judged against their spread.
    sc.repeats = 10;

    return judgeSweepFlattening(runSweep(sc, nullptr, cancel));
}

// ---- 2 no-division -----------------------------------------------------------------------

ExperimentResult noDivision(const ExperimentOptions &o, const CancelToken *cancel)
{
    ExperimentResult r;
    EquivalenceConfig base;
    base.seed = o.seed;
    base.scaling = Scaling::None;
    const auto n = static_cast<double>(base.accumSteps);

    auto sgdCfg = base;
    sgdCfg.optimizer.kind = OptimizerKind::Sgd;
    auto adamCfg = base;
    adamCfg.optimizer.kind = OptimizerKind::AdamW;
    const EquivalenceResult sgd = runEquivalence(sgdCfg, cancel);
    const EquivalenceResult adam = runEquivalence(adamCfg, cancel);
    auto divideCfg = sgdCfg;
    divideCfg.scaling = Scaling::Divide;
    const EquivalenceResult divided = runEquivalence(divideCfg, cancel);

    // The logged loss: a loop that logs what it calls backward() on sums the window's
    // micro-batch losses. Measured on the fixture's window, before any optimizer step.
    double trueLoss = 0.0, loggedUndivided = 0.0, loggedDivided = 0.0;
    {
        torch::NoGradGuard noGrad;
        const torch::Device cpu(torch::kCPU);
        DataStream data(base.shape, base.labels, base.seed, torch::kFloat32, cpu);
        auto [x, y] = data.next(base.bigBatch); // x: (16, 32), y: (16,)
        auto model = makeModel(base.shape, base.seed, torch::kFloat32, cpu);
        trueLoss = torch::cross_entropy_loss(model->forward(x), y).item<double>();
        const auto xs = x.split(base.bigBatch / base.accumSteps);
        const auto ys = y.split(base.bigBatch / base.accumSteps);
        for (size_t i = 0; i < xs.size(); ++i) {
            const double micro = torch::cross_entropy_loss(model->forward(xs[i]), ys[i]).item<double>();
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
    addClaim(r, "sgd-update-n-times", {"without the division SGD's update is N times the full-batch update",
                                       "بدون تقسیم، به‌روزرسانی SGD دقیقاً N برابر به‌روزرسانی دسته‌ی کامل است"},
             "|sgd_update_ratio - N| <= 1e-3 N", near(sgd.updateRatio, n));
    addClaim(r, "adamw-update-about-one",
             {"AdamW's first update barely changes (about 1.0000x): Adam divides the gradient by its own scale",
              "نخستین به‌روزرسانی AdamW تقریباً تغییری نمی‌کند (حدود 1.0000 برابر): Adam گرادیان را بر مقیاس خود آن تقسیم می‌کند"},
             "|adamw_update_ratio - 1| <= 1e-3", near(adam.updateRatio, 1.0));
    addClaim(r, "grad-norm-n-times", {"the gradient norm is N times too large, before any optimizer sees it",
                                      "نُرم گرادیان N برابر بزرگ‌تر از مقدار درست است، پیش از آنکه بهینه‌سازی آن را ببیند"},
             "|grad_norm_ratio - N| <= 1e-3 N", near(sgd.gradRatio, n));
    addClaim(r, "logged-loss-n-times", {"the logged loss (sum of the undivided micro-batch losses) is N times the true mean",
                                        "زیان ثبت‌شده (مجموع زیان‌های تقسیم‌نشده‌ی میکروبچ‌ها) N برابر میانگین واقعی است"},
             "|logged_loss_ratio - N| <= 1e-3 N", near(loggedUndivided / trueLoss, n));
    addClaim(r, "division-restores", {"with the division the update matches the full batch",
                                      "با تقسیم، به‌روزرسانی با دسته‌ی کامل یکی می‌شود"},
             "divided_max_param_diff < 1e-4", divided.maxParamDiff < kFixedTolerance);

    r.explanation = format(
        "Without loss/N the %g micro-batch gradients add up to N times the mean gradient. SGD moves by "
        "lr x gradient, so its update is %.4fx the full-batch one. AdamW divides the first moment by the root of "
        "the second, and both scale by N, so its update is %.4fx: the optimizer hides the bug, but the logged "
        "loss (%.4f against a true mean of %.4f, %.4fx) and the gradient norm (%.4fx) still show it, and so do "
        "gradient clipping thresholds and any weight decay balance tuned on them.",
        n, sgd.updateRatio, adam.updateRatio, loggedUndivided, trueLoss, loggedUndivided / trueLoss, sgd.gradRatio);
    r.explanationFa = format(
        "بدون تقسیم زیان بر N، گرادیان‌های %g میکروبچ روی هم N برابر گرادیان میانگین می‌شوند. SGD به اندازه‌ی "
        "نرخ یادگیری ضرب در گرادیان جابه‌جا می‌شود، پس به‌روزرسانی آن %.4f برابر به‌روزرسانی دسته‌ی کامل است. "
        "AdamW گشتاور اول را بر ریشه‌ی گشتاور دوم تقسیم می‌کند و هر دو با N مقیاس می‌خورند، پس به‌روزرسانی آن "
        "%.4f برابر است: بهینه‌ساز باگ را پنهان می‌کند، اما زیان ثبت‌شده (%.4f در برابر میانگین واقعی %.4f، یعنی "
        "%.4f برابر) و نُرم گرادیان (%.4f برابر) هنوز آن را نشان می‌دهند، و همین‌طور آستانه‌های برش گرادیان و هر "
        "تنظیمی از وزن‌کاهی (weight decay) که بر پایه‌ی آن‌ها انجام شده باشد.",
        n, sgd.updateRatio, adam.updateRatio, loggedUndivided, trueLoss, loggedUndivided / trueLoss, sgd.gradRatio);
    return r;
}

// ---- 3 adamw-state -----------------------------------------------------------------------

ExperimentResult adamwState(const ExperimentOptions &o, const CancelToken *cancel)
{
    ExperimentResult r;
    constexpr int64_t kSteps = 3; // effective steps k
    const std::vector<int64_t> grid{1, 2, 4, 8};
    bool stateIsK = true, microIsKN = true, bugIsKN = true;
    for (int64_t n : grid) {
        AccumConfig c;
        c.preset = ModelPreset::Fixture;
        c.device = DeviceRequest::Cpu;
        c.optimizer.kind = OptimizerKind::AdamW;
        c.optimizer.lr = 1e-3;
        c.accumSteps = n;
        c.seed = o.seed;
        AccumEngine right(c);
        c.stepEveryMicro = true;
        AccumEngine buggy(c);
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
    e.seed = o.seed;
    e.optimizer.kind = OptimizerKind::AdamW;
    const EquivalenceResult right = runEquivalence(e, cancel);
    e.stepEveryMicro = true;
    const EquivalenceResult buggy = runEquivalence(e, cancel);
    addValue(r, "window_accum_steps", static_cast<double>(e.accumSteps));
    addValue(r, "max_param_diff", right.maxParamDiff);
    addValue(r, "max_param_diff_every_micro", buggy.maxParamDiff);
    addValue(r, "update_ratio_every_micro", buggy.updateRatio);
    addValue(r, "state_step_every_micro_one_window", static_cast<double>(buggy.accumOptimizerStateStep));

    // "Measurably away": a hundred times the lesson's bound.
    constexpr double kAway = 100.0 * kFixedTolerance;
    addClaim(r, "state-step-is-k", {"AdamW's step count reads k after k effective steps, whatever accum_steps is",
                                    "شمارنده‌ی گام AdamW پس از k گام مؤثر، با هر مقدار accum_steps، عدد k را نشان می‌دهد"},
             "state_step_accum_N == k for N in 1,2,4,8", stateIsK);
    addObservation(r, "micro-batches-k-times-n", {"meanwhile the model saw k x N micro-batches",
                                                  "در همین مدت مدل k × N میکروبچ دیده است"},
                   microIsKN ? "micro_batches_accum_N == k x N for N in 1,2,4,8 (the engine's own count)"
                             : "micro_batches_accum_N differs from k x N (the engine's own count)");
    addClaim(r, "every-micro-counts-k-times-n", {"stepping every micro-batch pushes the count to k x N",
                                                 "گام برداشتن پس از هر میکروبچ شمارنده را به k × N می‌رساند"},
             "state_step_every_micro_accum_N == k x N for N in 1,2,4,8", bugIsKN);
    addClaim(r, "right-matches-full-batch", {"one step per window lands on the full-batch parameters",
                                             "یک گام در هر پنجره دقیقاً به پارامترهای دسته‌ی کامل می‌رسد"},
             "max_param_diff < 1e-4", right.maxParamDiff < kFixedTolerance);
    addClaim(r, "every-micro-lands-away", {"stepping every micro-batch lands measurably away from the full-batch run",
                                           "گام برداشتن پس از هر میکروبچ به‌طور محسوسی از اجرای دسته‌ی کامل دور می‌افتد"},
             "max_param_diff_every_micro > 1e-2", buggy.maxParamDiff > kAway);

    r.explanation = format(
        "Adam's bias correction divides by 1 - beta^t, where t is its step count; t must count optimizer "
        "updates, i.e. effective steps. With one step per window the count is %lld after %lld windows at every "
        "accum_steps. Stepping inside the window makes %lld updates in one window of %lld micro-batches: the "
        "parameters move %.2fx as far as the full-batch step (max |diff| %.3g against %.3g for the right loop), "
        "and the bias correction and moment averages advance N times too fast.",
        static_cast<long long>(kSteps), static_cast<long long>(kSteps),
        static_cast<long long>(buggy.accumOptimizerStateStep), static_cast<long long>(e.accumSteps), buggy.updateRatio,
        buggy.maxParamDiff, right.maxParamDiff);
    r.explanationFa = format(
        "تصحیح سوگیری Adam بر %s تقسیم می‌کند که در آن t شمارنده‌ی گام آن است؛ t باید به‌روزرسانی‌های بهینه‌ساز، "
        "یعنی گام‌های مؤثر، را بشمارد. با یک گام در هر پنجره، شمارنده پس از %lld پنجره با هر مقدار accum_steps "
        "برابر %lld است. گام برداشتن درون پنجره، در یک پنجره‌ی %lld میکروبچی %lld به‌روزرسانی انجام می‌دهد: "
        "پارامترها %.2f برابر گام دسته‌ی کامل جابه‌جا می‌شوند (بیشینه‌ی قدرمطلق اختلاف %.3g در برابر %.3g برای "
        "حلقه‌ی درست)، و تصحیح سوگیری و میانگین‌های گشتاورها N برابر تندتر پیش می‌روند.",
        ltr("1 - beta^t").c_str(), static_cast<long long>(kSteps), static_cast<long long>(kSteps),
        static_cast<long long>(e.accumSteps), static_cast<long long>(buggy.accumOptimizerStateStep), buggy.updateRatio,
        buggy.maxParamDiff, right.maxParamDiff);
    return r;
}

// ---- 4 sync-count ------------------------------------------------------------------------

ExperimentResult syncCount(const ExperimentOptions &o, const CancelToken *cancel)
{
    ExperimentResult r;
    constexpr int64_t kSteps = 4;
    const std::vector<int64_t> grid{1, 2, 4, 8};
    bool onIsK = true, offIsKN = true, countersAgree = true;
    int64_t world = 1;
    for (int64_t n : grid) {
        for (bool noSync : {true, false}) {
            auto inner = o.makeSync ? o.makeSync() : std::shared_ptr<GradSync>(std::make_shared<LocalSync>());
            auto counting = std::make_shared<CountingSync>(inner);
            world = counting->worldSize();
            AccumConfig c;
            c.preset = ModelPreset::Fixture;
            c.device = DeviceRequest::Cpu;
            c.accumSteps = n;
            c.worldSize = world;
            c.noSync = noSync;
            c.seed = o.seed;
            AccumEngine engine(c, counting);
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

    addClaim(r, "no-sync-on-one-per-step", {"with no-sync on non-final micro-batches there is one sync per effective step",
                                            "با no-sync روی میکروبچ‌های غیرپایانی، در هر گام مؤثر یک همگام‌سازی انجام می‌شود"},
             "allreduces_issued_no_sync_on_accum_N == k for N in 1,2,4,8", onIsK);
    addClaim(r, "no-sync-off-one-per-micro", {"without it every micro-batch syncs: k x N syncs",
                                              "بدون آن هر میکروبچ همگام‌سازی می‌کند: k × N همگام‌سازی"},
             "allreduces_issued_no_sync_off_accum_N == k x N for N in 1,2,4,8", offIsKN);
    addObservation(r, "counter-matches-issued",
                   {"the engine's sync_calls counter equals the all-reduces handed to the sync layer",
                    "شمارنده‌ی sync_calls موتور با تعداد all-reduceهایی که به لایه‌ی همگام‌سازی سپرده شده‌اند برابر است"},
                   countersAgree ? "sync_calls == allreduces_issued in every run (both count the same call)"
                                 : "sync_calls differs from allreduces_issued in some run");

    r.explanation = format(
        "Data-parallel training averages gradients across ranks with an all-reduce. Inside a window only the "
        "final sum matters, so non-final micro-batches can skip it (DDP's no_sync): %lld syncs for %lld effective "
        "steps instead of %lld at accum_steps 8. The counts here are taken at the boundary between the engine and "
        "the gradient sync (world size %lld). %s",
        static_cast<long long>(kSteps), static_cast<long long>(kSteps), static_cast<long long>(kSteps * 8),
        static_cast<long long>(world),
        world == 1 ? "With one rank the sync layer is the identity and sends nothing on the wire; run with a "
                     "multi-rank process group to count real collectives."
                   : "Each counted call is one collective on the flat gradient buffer.");
    r.explanationFa = format(
        "آموزش با موازی‌سازی داده گرادیان‌ها را با یک all-reduce میان رنک‌ها میانگین می‌گیرد. درون یک پنجره فقط "
        "مجموع نهایی اهمیت دارد، پس میکروبچ‌های غیرپایانی می‌توانند از آن صرف‌نظر کنند (no_sync در DDP): %lld "
        "همگام‌سازی برای %lld گام مؤثر به جای %lld همگام‌سازی با accum_steps برابر 8. این شمارش‌ها در مرز میان "
        "موتور و لایه‌ی همگام‌سازی گرادیان گرفته شده‌اند (تعداد رنک‌ها: %lld). %s",
        static_cast<long long>(kSteps), static_cast<long long>(kSteps), static_cast<long long>(kSteps * 8),
        static_cast<long long>(world),
        world == 1 ? "با یک رنک، لایه‌ی همگام‌سازی کاری جز بازگرداندن همان گرادیان نمی‌کند و چیزی روی شبکه "
                     "نمی‌فرستد؛ برای شمردن ارتباط‌های جمعی واقعی، آزمایش را با یک گروه پردازشی چندرنکی اجرا کنید."
                   : "هر فراخوانی شمرده‌شده یک عملیات جمعی روی بافر تخت گرادیان است.");
    return r;
}

// ---- 5 split-tolerance -------------------------------------------------------------------

ExperimentResult splitTolerance(const ExperimentOptions &o, const CancelToken *cancel)
{
    ExperimentResult r;
    const std::vector<Split> splits{{2, 8}, {4, 4}, {8, 2}};
    struct PerDtype {
        double maxVsFull = 0.0, maxSplitVsSplit = 0.0, maxAbsGrad = 0.0, dtypeBound = 0.0;
        int holdsFixed = 0, holdsDtype = 0;
    };
    const auto measure = [&](DType dtype) {
        PerDtype m;
        for (size_t i = 0; i < splits.size(); ++i) {
            EquivalenceConfig c;
            c.seed = o.seed;
            c.dtype = dtype;
            c.bigBatch = kFixtureBatch;
            c.accumSteps = splits[i].accumSteps;
            c.compareSplit = splits[(i + 1) % splits.size()];
            const EquivalenceResult e = runEquivalence(c, cancel);
            const std::string tag = toString(dtype) + "_" + toString(splits[i]);
            addValue(r, tag + "_grad_diff_vs_full", e.maxGradDiff);
            addValue(r, tag + "_vs_" + toString(*c.compareSplit) + "_grad_diff", e.comparisons.front().vsFirstGradDiff);
            m.maxVsFull = std::max(m.maxVsFull, e.maxGradDiff);
            m.maxSplitVsSplit = std::max(m.maxSplitVsSplit, e.comparisons.front().vsFirstGradDiff);
            m.maxAbsGrad = std::max(m.maxAbsGrad, e.maxAbsGrad);
            m.dtypeBound = std::max(m.dtypeBound, e.gradBoundDtype);
            m.holdsFixed += e.holdsFixed ? 1 : 0;
            m.holdsDtype += e.holdsDtypeAware ? 1 : 0;
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
        addValue(r, d + "_dtype_aware_grad_bound", m.dtypeBound);
        addValue(r, d + "_splits_within_fixed_1e-4", m.holdsFixed);
        addValue(r, d + "_splits_within_dtype_aware", m.holdsDtype);
        return m;
    };
    const PerDtype f32 = measure(DType::Float32);
    const PerDtype bf16 = measure(DType::BFloat16);
    addValue(r, "fixed_tolerance", kFixedTolerance);

    const double f32Ulp = ulpAt(f32.maxAbsGrad, DType::Float32);
    // "A few ulps": summation-order noise, at most four units in the last place of max|g|.
    constexpr double kFewUlps = 4.0;
    const int nSplits = static_cast<int>(splits.size());
    addClaim(r, "float32-few-ulps",
             {"in float32 the splits 2x8, 4x4 and 8x2 agree with each other to within 4 ulps of max|g|",
              "در float32 تقسیم‌های 2x8، 4x4 و 8x2 تا 4 ulp از بیشینه‌ی |g| با یکدیگر یکسان‌اند"},
             "float32_max_split_vs_split_grad_diff <= 4 ulp(float32_max_abs_grad)",
             f32.maxSplitVsSplit <= kFewUlps * f32Ulp);
    addClaim(r, "float32-fixed-holds", {"in float32 every split is within the lesson's fixed 1e-4 of the full batch",
                                        "در float32 هر تقسیم در مرز ثابت 1e-4 درس با دسته‌ی کامل یکسان است"},
             "float32_splits_within_fixed_1e-4 == 3", f32.holdsFixed == nSplits);
    addClaim(r, "bfloat16-fixed-fails", {"in bfloat16 the fixed 1e-4 bound fails",
                                         "در bfloat16 مرز ثابت 1e-4 شکست می‌خورد"},
             "bfloat16_max_grad_diff_vs_full >= 1e-4 (some split outside the fixed bound)",
             bf16.maxVsFull >= kFixedTolerance && bf16.holdsFixed < nSplits);
    addClaim(r, "bfloat16-dtype-aware-holds", {"in bfloat16 the dtype-aware bound k x eps(dtype) x max|g| holds for every split",
                                               "در bfloat16 مرز وابسته به نوع داده (k برابرِ اپسیلون نوع داده ضرب در بیشینه‌ی |g|) برای همه‌ی تقسیم‌ها برقرار است"},
             "bfloat16_splits_within_dtype_aware == 3", bf16.holdsDtype == nSplits);

    r.explanation = format(
        "Floating-point addition is not associative: 2x8, 4x4 and 8x2 add the same per-sample gradients in "
        "different groupings, and each partial sum is rounded to the dtype. The rounding error is a few units in "
        "the last place of the largest entry. In float32 (eps 2^-23) with max|g| %.3g one ulp is %.3g; the splits "
        "differ from each other by at most %.3g (%.1f ulps, %.1f x eps x max|g|): a few rounding steps of the "
        "largest entry, far below 1e-4. In bfloat16 (eps 2^-7, 8 significant bits) one ulp of "
        "max|g| %.3g is %.3g, so the splits differ from the full batch by up to %.3g: a fixed 1e-4 bound calls "
        "correct code wrong, while a bound proportional to eps(dtype) x max|g| (here %.3g) separates rounding "
        "from bugs in every dtype.",
        f32.maxAbsGrad, f32Ulp, f32.maxSplitVsSplit, f32.maxSplitVsSplit / f32Ulp,
        f32.maxSplitVsSplit / (dtypeEpsilon(DType::Float32) * f32.maxAbsGrad), bf16.maxAbsGrad,
        ulpAt(bf16.maxAbsGrad, DType::BFloat16), bf16.maxVsFull, bf16.dtypeBound);
    r.explanationFa = format(
        "جمع ممیز شناور شرکت‌پذیر نیست: 2x8، 4x4 و 8x2 همان گرادیان‌های تک‌نمونه‌ای را با گروه‌بندی‌های متفاوت "
        "جمع می‌زنند و هر جمع جزئی به دقت نوع داده گرد می‌شود. خطای گرد کردن چند واحد در رقم آخر (ulp) بزرگ‌ترین "
        "درایه است. در float32 (اپسیلون %s) با بیشینه‌ی |g| برابر %.3g، یک ulp برابر %.3g است؛ تقسیم‌ها حداکثر "
        "%.3g با هم فرق دارند (%.1f ulp، یا %.1f برابر اپسیلون ضرب در بیشینه‌ی |g|): چند گام گرد کردنِ بزرگ‌ترین "
        "درایه، بسیار کمتر از 1e-4. در bfloat16 (اپسیلون %s، 8 بیت معنادار) یک ulp از بیشینه‌ی |g| که %.3g است "
        "برابر %.3g است، پس تقسیم‌ها تا %.3g با دسته‌ی کامل فرق دارند: مرز ثابت 1e-4 کد درست را نادرست می‌خواند، "
        "در حالی که مرزی متناسب با اپسیلون نوع داده ضرب در بیشینه‌ی |g| (اینجا %.3g) در هر نوع داده گرد کردن را از "
        "باگ جدا می‌کند.",
        ltr("2^-23").c_str(), f32.maxAbsGrad, f32Ulp, f32.maxSplitVsSplit, f32.maxSplitVsSplit / f32Ulp,
        f32.maxSplitVsSplit / (dtypeEpsilon(DType::Float32) * f32.maxAbsGrad), ltr("2^-7").c_str(), bf16.maxAbsGrad,
        ulpAt(bf16.maxAbsGrad, DType::BFloat16), bf16.maxVsFull, bf16.dtypeBound);
    return r;
}

// ---- the catalog ---------------------------------------------------------------------------

using Runner = ExperimentResult (*)(const ExperimentOptions &, const CancelToken *);

struct Entry {
    ExperimentInfo info;
    Runner run;
};

const std::vector<Entry> &entries()
{
    static const std::vector<Entry> table{
        {{"sweep-flattening", 1, true,
          {"Where throughput flattens", "توان عملیاتی کجا به فلات می‌رسد"},
          {"Sweeps accum_steps at a fixed micro-batch and reports each point's samples/sec as a share of the best "
           "point. The fixed cost of an optimizer step is paid once per window, so throughput rises with "
           "accum_steps and then flattens once forward and backward dominate.",
           "با میکروبچ ثابت، گام‌های انباشت را پیمایش می‌کند و نمونه در ثانیه‌ی هر نقطه را به صورت سهمی از بهترین "
           "نقطه گزارش می‌کند. هزینه‌ی ثابت گام بهینه‌ساز در هر پنجره فقط یک بار پرداخت می‌شود؛ پس توان عملیاتی با "
           "افزایش گام‌های انباشت بالا می‌رود و وقتی گذر رو به جلو و رو به عقب غالب شوند به فلات می‌رسد."}},
         sweepFlattening},
        {{"no-division", 2, true,
          {"Forgetting to divide the loss by N", "فراموش کردن تقسیم زیان بر N"},
          {"Accumulates without loss/N and compares one step against the full batch. SGD's update is N times too "
           "large; AdamW's is about 1.0000x because Adam normalises scale, yet the logged loss and the gradient "
           "norm are N times too large under both.",
           "بدون تقسیم زیان بر N انباشت می‌کند و یک گام را با دسته‌ی کامل مقایسه می‌کند. به‌روزرسانی SGD دقیقاً N "
           "برابر می‌شود؛ به‌روزرسانی AdamW تقریباً ۱٫۰۰۰۰ برابر می‌ماند چون Adam مقیاس گرادیان را خنثی می‌کند، "
           "اما زیان ثبت‌شده و نُرم گرادیان در هر دو N برابر بزرگ‌ترند."}},
         noDivision},
        {{"adamw-state", 3, true,
          {"AdamW's step count", "شمارنده‌ی گام AdamW"},
          {"AdamW's state step reads k after k effective steps at any accum_steps while the model saw k x N "
           "micro-batches. Stepping every micro-batch pushes the count to k x N and the parameters land away from "
           "the full-batch run.",
           "پس از k گام مؤثر، شمارنده‌ی گام AdamW با هر تعداد گام انباشت k است، در حالی که مدل k × N میکروبچ دیده "
           "است. اگر بهینه‌ساز بعد از هر میکروبچ گام بردارد، شمارنده به k × N می‌رسد و پارامترها از نتیجه‌ی دسته‌ی "
           "کامل دور می‌افتند."}},
         adamwState},
        {{"sync-count", 4, true,
          {"Counting gradient syncs", "شمردن همگام‌سازی‌های گرادیان"},
          {"Counts the gradient all-reduces with and without no-sync on non-final micro-batches: one per effective "
           "step with it, one per micro-batch without it.",
           "تعداد all-reduceهای گرادیان را با و بدون no-sync روی میکروبچ‌های غیرپایانی می‌شمارد: با آن یکی در هر "
           "گام مؤثر، بدون آن یکی در هر میکروبچ."}},
         syncCount},
        {{"split-tolerance", 5, true,
          {"Splits and tolerances: float32 vs bfloat16", "تقسیم‌ها و رواداری: float32 در برابر bfloat16"},
          {"Compares the splits 2x8, 4x4 and 8x2 of one batch. In float32 they agree to a few ulps of the largest "
           "gradient; in "
           "bfloat16 the fixed 1e-4 bound fails while a bound scaled by the dtype's epsilon holds.",
           "تقسیم‌های ۲×۸، ۴×۴ و ۸×۲ یک دسته را مقایسه می‌کند. در float32 تا چند واحد رقم آخر (ulp) از بزرگ‌ترین گرادیان یکسان‌اند؛ "
           "در bfloat16 مرز ثابت 1e-4 شکست می‌خورد ولی مرزی که با اپسیلون نوع داده مقیاس می‌شود برقرار است."}},
         splitTolerance},
        {{"variable-length", 6, false,
          {"Variable-length sequences and per-token loss", "دنباله‌های با طول متغیر و زیان هر توکن"},
          {"Sequences of different lengths with a per-token loss: dividing each micro-batch's mean loss by N "
           "gives short sequences more weight per token; normalising by the window's total token count matches "
           "the full batch.",
           "دنباله‌هایی با طول‌های مختلف و زیان به ازای هر توکن: تقسیم میانگین زیان هر میکروبچ بر N به توکن‌های "
           "دنباله‌های کوتاه وزن بیشتری می‌دهد؛ نرمال‌سازی با کل توکن‌های پنجره با دسته‌ی کامل برابر است."}},
         variableLength},
        {{"partial-window", 7, false,
          {"Data ends mid-window", "پایان داده در میانه‌ی پنجره"},
          {"The data runs out after 3 of 4 micro-batches. Dividing by the full N under-weights the last step; "
           "weighting by the samples actually seen is exact.",
           "داده پس از ۳ میکروبچ از ۴ تمام می‌شود. تقسیم بر N کامل، گام آخر را کم‌وزن می‌کند؛ وزن‌دهی بر اساس "
           "نمونه‌هایی که واقعاً دیده شده‌اند دقیق است."}},
         partialWindow},
        {{"batchnorm", 8, false,
          {"BatchNorm breaks equivalence", "BatchNorm هم‌ارزی را می‌شکند"},
          {"A BatchNorm layer normalises with each micro-batch's own statistics, so accumulation no longer "
           "equals the full batch; LayerNorm normalises each sample alone and keeps the equivalence.",
           "لایه‌ی BatchNorm با آمار هر میکروبچ نرمال‌سازی می‌کند، پس انباشت دیگر با دسته‌ی کامل برابر نیست؛ "
           "LayerNorm هر نمونه را جداگانه نرمال می‌کند و هم‌ارزی را حفظ می‌کند."}},
         batchNorm},
        {{"clipping", 9, false,
          {"Where to clip the gradient", "برش گرادیان را کجا انجام دهیم"},
          {"Clipping each micro-batch's gradient differs from clipping once after accumulation; only clipping "
           "the accumulated gradient matches the full batch clipped once.",
           "برش گرادیان هر میکروبچ با یک بار برش پس از انباشت فرق دارد؛ فقط برش گرادیان انباشته با دسته‌ی کامل "
           "که یک بار برش خورده برابر است."}},
         clipping},
        {{"lr-schedule", 10, false,
          {"Stepping the LR schedule", "گام‌برداری زمان‌بندی نرخ یادگیری"},
          {"A warmup schedule stepped per micro-batch finishes N times too early; stepped per effective step it "
           "matches the full-batch run.",
           "اگر زمان‌بندی نرخ یادگیری با گرمایش (warmup) به ازای هر میکروبچ جلو برود، گرمایش N برابر زودتر تمام "
           "می‌شود؛ اگر به ازای هر گام مؤثر جلو برود، با اجرای دسته‌ی کامل برابر است."}},
         lrSchedule},
        {{"linear-scaling", 11, false,
          {"Linear LR scaling with a 4x larger batch", "مقیاس‌دهی خطی نرخ یادگیری با دسته‌ی ۴ برابر"},
          {"Raises the effective batch 4x by accumulation and trains with the learning rate scaled 4x (with "
           "warmup) and unscaled, for the same number of samples: loss curves side by side.",
           "دسته‌ی مؤثر را با انباشت ۴ برابر می‌کند و با نرخ یادگیری ۴ برابر (همراه با گرمایش) و بدون مقیاس، "
           "به تعداد نمونه‌ی یکسان آموزش می‌دهد: منحنی‌های زیان کنار هم."}},
         linearScaling},
    };
    return table;
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

const std::vector<ExperimentInfo> &experimentCatalog()
{
    static const std::vector<ExperimentInfo> infos = [] {
        std::vector<ExperimentInfo> v;
        for (const auto &e : entries())
            v.push_back(e.info);
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

ExperimentResult runExperiment(const std::string &id, const ExperimentOptions &options, const CancelToken *cancel)
{
    for (const auto &e : entries()) {
        if (e.info.id != id)
            continue;
        if (options.sweepSteps <= 0)
            throw ConfigError("sweep steps must be positive");
        checkCancel(cancel);
        ExperimentResult r = e.run(options, cancel);
        r.id = e.info.id;
        r.title = e.info.title.en;
        return r;
    }
    std::string known;
    for (const auto &e : entries())
        known += (known.empty() ? "" : ", ") + e.info.id;
    throw ConfigError("unknown experiment '" + id + "' (expected one of: " + known + ")");
}

nlohmann::ordered_json toJson(const ExperimentResult &r)
{
    using nlohmann::ordered_json;
    ordered_json values = ordered_json::object();
    for (const auto &v : r.values)
        values[v.name] = v.value;
    ordered_json claims = ordered_json::array();
    for (const auto &c : r.claims)
        claims.push_back({{"id", c.id},
                          {"statement", c.statement},
                          {"statement_fa", c.statementFa},
                          {"criterion", c.criterion},
                          {"holds", c.holds},
                          {"timing", c.timing},
                          {"outcome", c.outcome()}});
    ordered_json series = ordered_json::array();
    for (const auto &s : r.series)
        series.push_back({{"name", s.name}, {"x_label", s.xLabel}, {"y_label", s.yLabel}, {"x", s.x}, {"y", s.y}});
    return {{"id", r.id},
            {"title", r.title},
            {"values", values},
            {"claims", claims},
            {"holds", r.holds()},
            {"explanation", r.explanation},
            {"explanation_fa", r.explanationFa},
            {"series", series}};
}

std::string toText(const ExperimentResult &r)
{
    std::ostringstream out;
    out << r.id << ": " << r.title << "\n\n";
    size_t width = 0;
    for (const auto &v : r.values)
        width = std::max(width, v.name.size());
    for (const auto &v : r.values)
        out << "  " << v.name << std::string(width - v.name.size() + 2, ' ') << format("%.6g", v.value) << "\n";
    out << "\n";
    for (const auto &c : r.claims) {
        const std::string mark = "[" + c.outcome() + "]";
        out << "  " << mark << std::string(mark.size() < 15 ? 15 - mark.size() : 1, ' ') << c.statement << "\n"
            << "                 (" << c.criterion << (c.timing ? "; timing-based" : "") << ")\n";
    }
    out << "\n" << r.explanation << "\n";
    out << "\n"
        << (!r.holds()                 ? "some claims do not hold"
            : r.tally().inconclusive > 0 ? "no claim fails; some timing claims are inconclusive (within the measured spread)"
                                       : "all claims hold")
        << "\n";
    return out.str();
}

} // namespace accumlab
