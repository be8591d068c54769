// float16 and the dynamic loss scaler in the engine's window: GradScaler's update rule, one
// unscale per window, skip-and-halve on an Inf/NaN with the optimizer's state and the LR
// schedule held, growth after the interval, which float16 path ran (against a float16 matmul
// tried here), each pitfall's measured consequence, and the counters in accum-curve.json.
// Also the divergence watch `accumlab-cli train` judges a run by (a non-finite loss, a collapsed
// scale, no step at all), on planted windows and on the engine driven to divergence.
#include "core/io/curve_io.h"
#include "core/divergence.h"
#include "core/engine.h"
#include "core/content/loop_code.h"
#include "core/loss_scaler.h"

#include <torch/torch.h>

#include "support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

using namespace accumlab;
namespace test = accumlab::test;

namespace {

using accumlab::test::PrintTo; // a table row prints as its label (support.h)

AccumConfig float16Config(int64_t accum, OptimizerKind kind = OptimizerKind::Sgd)
{
    AccumConfig c;
    c.preset = ModelPreset::Fixture;
    c.microBatch = 4;
    c.accumSteps = accum;
    c.optimizer.kind = kind;
    c.device = DeviceRequest::Cpu;
    c.dtype = DType::Float16;
    c.lossScaler.enabled = true;
    c.seed = 3;
    return c;
}

// Whether a float16 matmul runs on the CPU, tried here independently of the engine's probe.
bool halfMatmulWorks()
{
    try {
        auto a = torch::ones({2, 2}, torch::kHalf);
        (void)torch::mm(a, a);
        return true;
    } catch (const std::exception &) {
        return false;
    }
}

// torch.cuda.amp.GradScaler.update(): x0.5 on an Inf, x2 after `interval` clean steps.
struct UpdateRuleRow {
    const char *name;
    int interval;
    std::string steps; // "c" clean, "i" Inf/NaN
    double scale;
    int tracker;
    int growths;
    int backoffs;
};
class UpdateRule : public testing::TestWithParam<UpdateRuleRow> {};

TEST_P(UpdateRule, FollowsGradScaler)
{
    const UpdateRuleRow &row = GetParam();
    LossScalerConfig c;
    c.enabled = true;
    c.growthInterval = row.interval;
    LossScaler s(c);
    for (char step : row.steps) {
        s.noteUnscale(); // the window's unscale_() records its Inf/NaN check
        s.update(step == 'i');
    }
    EXPECT_DOUBLE_EQ(s.scale(), row.scale);
    EXPECT_EQ(s.state().growthTracker, int64_t(row.tracker));
    EXPECT_EQ(s.state().growths, int64_t(row.growths));
    EXPECT_EQ(s.state().backoffs, int64_t(row.backoffs));
}

INSTANTIATE_TEST_SUITE_P(Rows, UpdateRule,
                         testing::ValuesIn(std::vector<UpdateRuleRow>{
                             {"one clean", 2000, "c", 65536.0, 1, 0, 0},
                             {"inf halves", 2000, "i", 32768.0, 0, 0, 1},
                             {"grows at the interval", 2, "cc", 131072.0, 0, 1, 0},
                             {"inf restarts the count", 2, "cicc", 65536.0, 0, 1, 1},
                             {"two infs", 2, "ii", 16384.0, 0, 0, 2},
                             {"grows twice", 1, "cc", 262144.0, 0, 2, 0},
                         }),
                         test::ByName());

// PyTorch: "unscale_() has already been called on this optimizer since the last update()".
TEST(LossScaler, SecondUnscaleRaises)
{
    LossScaler s(LossScalerConfig{});
    s.noteUnscale();
    try {
        s.noteUnscale();
        FAIL() << "a second unscale_() before update() did not raise";
    } catch (const ScalerError &e) {
        EXPECT_EQ(e.code(), "engine/unscale-twice");
        EXPECT_NE(std::string(e.what()).find("unscale_() has already been called"), std::string::npos) << e.what();
    }
    s.update(false);
    s.noteUnscale(); // a new window
    EXPECT_EQ(s.state().unscaleCalls, int64_t(2));
}

// PyTorch: update() with no Inf/NaN check since the last one raises "No inf checks were
// recorded prior to update.", in a fresh scaler and after an update() alike.
TEST(LossScaler, UpdateWithoutUnscaleRaises)
{
    LossScaler s(LossScalerConfig{});
    const auto raises = [&] {
        try {
            s.update(false);
        } catch (const ScalerError &e) {
            EXPECT_EQ(e.code(), "engine/update-without-inf-checks");
            EXPECT_NE(std::string(e.what()).find("No inf checks were recorded prior to update."), std::string::npos)
                << e.what();
            return true;
        }
        return false;
    };
    EXPECT_TRUE(raises());
    s.noteUnscale();
    s.update(false);
    EXPECT_TRUE(raises());
    EXPECT_EQ(s.state().growthTracker, int64_t(1)); // the refused update() changed nothing
}

struct InvalidConfigRow {
    const char *name;
    double init;
    double growth;
    double backoff;
    int interval;
};
class InvalidConfigRefused : public testing::TestWithParam<InvalidConfigRow> {};

TEST_P(InvalidConfigRefused, Throws)
{
    const InvalidConfigRow &row = GetParam();
    AccumConfig c = float16Config(2);
    c.lossScaler.initScale = row.init;
    c.lossScaler.growthFactor = row.growth;
    c.lossScaler.backoffFactor = row.backoff;
    c.lossScaler.growthInterval = row.interval;
    EXPECT_THROW(validate(c), ConfigError);
}

INSTANTIATE_TEST_SUITE_P(Rows, InvalidConfigRefused,
                         testing::ValuesIn(std::vector<InvalidConfigRow>{
                             {"zero scale", 0.0, 2.0, 0.5, 10},
                             {"nan scale", std::nan(""), 2.0, 0.5, 10},
                             {"growth 1", 1.0, 1.0, 0.5, 10},
                             {"backoff 1", 1.0, 2.0, 1.0, 10},
                             {"interval 0", 1.0, 2.0, 0.5, 0},
                         }),
                         test::ByName());

// Clean windows: one unscale per window whatever N, no skip, the scale kept, and the path
// that ran named.
struct OneUnscaleRow {
    const char *name;
    int accum;
    OptimizerKind optimizer;
};
class OneUnscalePerWindow : public testing::TestWithParam<OneUnscaleRow> {};

TEST_P(OneUnscalePerWindow, CleanWindows)
{
    const OneUnscaleRow &row = GetParam();
    AccumEngine e(float16Config(row.accum, row.optimizer));
    const std::string path = halfMatmulWorks() ? "float16" : "float16-emulated";
    for (int w = 1; w <= 3; ++w) {
        const StepResult r = e.step();
        EXPECT_TRUE(r.lossScaling);
        EXPECT_FALSE(r.stepSkipped);
        EXPECT_TRUE(r.finite);
        EXPECT_EQ(r.scalerState.unscaleCalls, int64_t(w));
        EXPECT_EQ(r.scalerState.skippedWindows, int64_t(0));
        EXPECT_DOUBLE_EQ(r.lossScale, kDefaultInitScale);
        EXPECT_EQ(r.optimizerStateStep, int64_t(w));
        EXPECT_EQ(r.float16Path, path);
    }
    EXPECT_EQ(e.float16Path(), path);
    EXPECT_EQ(e.microBatches(), int64_t(3 * row.accum));
}

INSTANTIATE_TEST_SUITE_P(Rows, OneUnscalePerWindow,
                         testing::ValuesIn(std::vector<OneUnscaleRow>{
                             {"N=1 sgd", 1, OptimizerKind::Sgd},
                             {"N=4 sgd", 4, OptimizerKind::Sgd},
                             {"N=8 adamw", 8, OptimizerKind::AdamW},
                         }),
                         test::ByName());

TEST(LossScaler, Float32HasNoFloat16Path)
{
    AccumConfig c = float16Config(2);
    c.dtype = DType::Float32;
    c.lossScaler.enabled = false;
    AccumEngine e(c);
    const StepResult r = e.step();
    EXPECT_TRUE(r.float16Path.empty());
    EXPECT_FALSE(r.lossScaling);
    EXPECT_TRUE(e.float16Path().empty());
}

// The scaled window's gradient, unscaled once, is the float16 window's without a scaler (the
// scale is a power of two: scaling and unscaling are exact where nothing underflows).
TEST(LossScaler, UnscaledOnceMatchesUnscaledRun)
{
    AccumConfig c = float16Config(4);
    AccumEngine scaled(c);
    c.lossScaler.enabled = false;
    AccumEngine plain(c);
    const StepResult a = scaled.step(), b = plain.step();
    EXPECT_TRUE(test::relNear(a.gradNorm, b.gradNorm, 1e-3));
    EXPECT_LT(scaled.maxAbsParamDiff(plain), 1e-6);
}

// An Inf anywhere in the window: the step is skipped (parameters, optimizer state and LR
// schedule stay), the scale halves once, and the next window steps at the schedule's first rate.
struct OverflowRow {
    const char *name;
    int spikeMicro;
    OptimizerKind optimizer;
};
class OverflowSkipsTheWindow : public testing::TestWithParam<OverflowRow> {};

TEST_P(OverflowSkipsTheWindow, SkipsAndHalves)
{
    const OverflowRow &row = GetParam();
    AccumConfig c = float16Config(4, row.optimizer);
    c.optimizer.lrWarmup = 4;
    AccumEngine untouched(c);
    c.lossScaler.spikeWindow = 0;
    c.lossScaler.spikeMicro = row.spikeMicro;
    AccumEngine e(c);
    const StepResult r = e.step();
    EXPECT_TRUE(r.stepSkipped);
    EXPECT_TRUE(r.finite); // a skipped window is not a divergence
    EXPECT_EQ(e.maxAbsParamDiff(untouched), 0.0);
    EXPECT_EQ(r.optimizerStateStep, int64_t(0));
    EXPECT_EQ(r.optimizerSteps, int64_t(0));
    EXPECT_EQ(r.schedulerSteps, int64_t(0));
    EXPECT_DOUBLE_EQ(r.scalerState.scale, kDefaultInitScale / 2.0);
    EXPECT_EQ(r.scalerState.backoffs, int64_t(1));
    EXPECT_EQ(r.scalerState.skippedWindows, int64_t(1));
    EXPECT_EQ(r.scalerState.unscaleCalls, int64_t(1));
    const StepResult next = e.step();
    EXPECT_FALSE(next.stepSkipped);
    EXPECT_EQ(next.optimizerStateStep, int64_t(1));
    EXPECT_EQ(next.schedulerSteps, int64_t(1));
    EXPECT_DOUBLE_EQ(next.lr, scheduledLr(c.optimizer, 0, 4)); // the schedule's first rate, not its second
    EXPECT_DOUBLE_EQ(next.lossScale, kDefaultInitScale / 2.0);
}

INSTANTIATE_TEST_SUITE_P(Rows, OverflowSkipsTheWindow,
                         testing::ValuesIn(std::vector<OverflowRow>{
                             {"first micro, sgd", 0, OptimizerKind::Sgd},
                             {"middle micro, momentum", 2, OptimizerKind::Momentum},
                             {"last micro, adamw", 3, OptimizerKind::AdamW},
                         }),
                         test::ByName());

struct GrowsRow {
    const char *name;
    int interval;
    int windows;
    double scale;
};
class GrowsAfterTheInterval : public testing::TestWithParam<GrowsRow> {};

TEST_P(GrowsAfterTheInterval, Scale)
{
    const GrowsRow &row = GetParam();
    AccumConfig c = float16Config(4);
    c.lossScaler.growthInterval = row.interval;
    AccumEngine e(c);
    for (int w = 0; w < row.windows; ++w)
        e.step();
    EXPECT_DOUBLE_EQ(e.lossScalerState().scale, row.scale);
    EXPECT_DOUBLE_EQ(e.lastStep().scalerState.scale, row.scale);
}

INSTANTIATE_TEST_SUITE_P(Rows, GrowsAfterTheInterval,
                         testing::ValuesIn(std::vector<GrowsRow>{
                             {"2 windows of 2", 2, 2, kDefaultInitScale * 2},
                             {"3 windows of 2", 2, 3, kDefaultInitScale * 2},
                             {"4 windows of 2", 2, 4, kDefaultInitScale * 4},
                             {"3 windows of 5", 5, 3, kDefaultInitScale},
                         }),
                         test::ByName());

// Each pitfall with its measured consequence.
struct UnscaleEveryMicroRow {
    const char *name;
    int accum;
    int raisesAtMicroBatches; // 0: never
};
class UnscaleEveryMicroRaises : public testing::TestWithParam<UnscaleEveryMicroRow> {};

TEST_P(UnscaleEveryMicroRaises, RaisesAt)
{
    const UnscaleEveryMicroRow &row = GetParam();
    AccumConfig c = float16Config(row.accum);
    c.lossScaler.bug = ScalerBug::UnscaleEveryMicro;
    AccumEngine e(c);
    int raisedAt = 0;
    try {
        e.step();
        e.step();
    } catch (const ScalerError &err) {
        EXPECT_EQ(err.code(), "engine/unscale-twice");
        raisedAt = int(e.microBatches());
    }
    EXPECT_EQ(raisedAt, row.raisesAtMicroBatches);
}

INSTANTIATE_TEST_SUITE_P(Rows, UnscaleEveryMicroRaises,
                         testing::ValuesIn(std::vector<UnscaleEveryMicroRow>{
                             {"N=1: one unscale per window", 1, 0},
                             {"N=4: the second micro-batch raises", 4, 2},
                         }),
                         test::ByName());

// update() after every micro-batch's backward: PyTorch raises at the first one, before any
// unscale_() has checked the buffers, whatever N (with N = 1 the update still comes before the
// window's step); nothing has stepped.
class UpdateEveryMicroRaises : public testing::TestWithParam<int> {};

TEST_P(UpdateEveryMicroRaises, AtTheFirstMicroBatch)
{
    AccumConfig c = float16Config(GetParam());
    c.lossScaler.bug = ScalerBug::UpdateEveryMicro;
    AccumEngine e(c);
    try {
        e.step();
        FAIL() << "update() after a micro-batch's backward did not raise";
    } catch (const ScalerError &err) {
        EXPECT_EQ(err.code(), "engine/update-without-inf-checks");
    }
    EXPECT_EQ(e.microBatches(), int64_t(1));
    EXPECT_EQ(e.optimizerSteps(), int64_t(0));
}

INSTANTIATE_TEST_SUITE_P(Accum, UpdateEveryMicroRaises, testing::Values(1, 4));

TEST(LossScaler, SkipOverflowedMicroStepsAPartialWindow)
{
    AccumConfig c = float16Config(4);
    AccumEngine untouched(c);
    c.lossScaler.spikeWindow = 0;
    c.lossScaler.spikeMicro = 1;
    c.lossScaler.bug = ScalerBug::SkipOverflowedMicro;
    AccumEngine e(c);
    const StepResult r = e.step();
    EXPECT_FALSE(r.stepSkipped);
    EXPECT_EQ(r.optimizerStateStep, int64_t(1)); // it stepped on 3 of 4 micro-batches
    EXPECT_EQ(r.scalerState.skippedWindows, int64_t(0));
    EXPECT_EQ(r.droppedMicroBatches, int64_t(1));
    // The scaler never saw the overflow: no back-off, a clean window counted toward growth.
    EXPECT_DOUBLE_EQ(r.scalerState.scale, kDefaultInitScale);
    EXPECT_EQ(r.scalerState.growthTracker, int64_t(1));
    EXPECT_GT(e.maxAbsParamDiff(untouched), 0.0);
}

TEST(LossScaler, LogScaledLossIsScaleTimesTooLarge)
{
    AccumConfig c = float16Config(4);
    AccumEngine right(c);
    c.lossScaler.bug = ScalerBug::LogScaledLoss;
    AccumEngine wrong(c);
    const StepResult a = right.step(), b = wrong.step();
    EXPECT_TRUE(test::relNear(a.loggedLoss, a.loss, 1e-6));
    EXPECT_TRUE(test::relNear(b.loggedLoss, b.loss * kDefaultInitScale, 1e-6));
}

TEST(LossScaler, NamesRoundTrip)
{
    for (const std::string &name : scalerBugNames())
        EXPECT_EQ(toString(scalerBugFromString(name)), name);
    EXPECT_THROW(scalerBugFromString("no-such-bug"), ConfigError);
    EXPECT_EQ(toString(dtypeFromString("float16")), std::string("float16"));
    EXPECT_DOUBLE_EQ(dtypeEpsilon(DType::Float16), std::ldexp(1.0, -10));
}

// accum-curve.v1 carries the counters where they ran and reads files without them.
struct CurveFieldsRow {
    const char *name;
    bool scaling;
};
class CurveFieldsRoundTrip : public testing::TestWithParam<CurveFieldsRow> {};

TEST_P(CurveFieldsRoundTrip, Counters)
{
    const bool scaling = GetParam().scaling;
    SweepPoint p;
    p.effectiveBatch = 16;
    p.accumSteps = 4;
    p.microBatch = 4;
    p.samplesPerSec = 100.0;
    p.medianStepMs = 1.0;
    p.steps = 2;
    p.dtype = "float16";
    p.float16Path = scaling ? "float16-emulated" : "";
    p.lossScaling = scaling;
    p.lossScale = 32768.0;
    p.skippedWindows = 3;
    p.unscaleCalls = 7;
    nlohmann::json file = nlohmann::json::object();
    file["schema"] = kCurveSchema;
    file["points"] = nlohmann::json::array();
    file["points"].push_back(toJson(p));
    const CurveFile read = parseCurveJson(file.dump());
    const SweepPoint &q = read.points.at(0);
    EXPECT_EQ(q.lossScaling, scaling);
    EXPECT_EQ(q.float16Path, p.float16Path);
    EXPECT_DOUBLE_EQ(q.lossScale, scaling ? 32768.0 : 0.0);
    EXPECT_EQ(q.skippedWindows, int64_t(scaling ? 3 : 0));
    EXPECT_EQ(q.unscaleCalls, int64_t(scaling ? 7 : 0));
    EXPECT_EQ(file["points"][0].contains("loss_scale"), scaling);
}

INSTANTIATE_TEST_SUITE_P(Rows, CurveFieldsRoundTrip,
                         testing::ValuesIn(std::vector<CurveFieldsRow>{
                             {"with the scaler", true},
                             {"without", false},
                         }),
                         test::ByName());

// DivergenceWatch on planted windows, one letter each:
//   c clean (loss 1, stepped, scale 65536)    s skipped by the scaler (loss 1, scale 32768)
//   n NaN loss, skipped                       m NaN loss, stepped (no scaler)
//   i +Inf loss, skipped                      u no micro-batch ran (NaN loss, not measured)
//   z skipped, scale 0                        t skipped, scale 2^-25 (under the floor)
//   f skipped, scale 2^-24 (at the floor)     q skipped, scale NaN
//   x NaN loss and scale 0 in one window
//   b blown up: loss 4.5, stepped, finite   e loss 4 (at 4x the first), stepped
//   g loss 1, stepped, gradient norm Inf    o a first loss of 0 (nothing to blow up from)
struct DivergenceWatchRow {
    const char *name;
    std::string windows;
    int carriedWindows; // a resumed run's windows before its checkpoint
    int carriedStepped;
    std::string reason;
    int atStep;
    int stepped;
};
class DivergenceWatchOnPlantedWindows : public testing::TestWithParam<DivergenceWatchRow> {};

TEST_P(DivergenceWatchOnPlantedWindows, Verdict)
{
    const DivergenceWatchRow &row = GetParam();
    const double nan = std::nan("");
    const auto in = [](std::string_view letters, char k) { return letters.find(k) != std::string_view::npos; };
    DivergenceWatch watch;
    watch.carryOver(row.carriedWindows, row.carriedStepped);
    int64_t step = row.carriedWindows;
    for (const char k : row.windows) {
        WindowOutcome w;
        w.step = ++step;
        w.loss = in("nmux", k) ? nan : k == 'i' ? INFINITY : k == 'b' ? 4.5 : k == 'e' ? 4.0 : k == 'o' ? 0.0 : 1.0;
        w.lossMeasured = k != 'u';
        w.stepped = in("cmubego", k);
        w.gradFinite = k != 'g';
        w.lossScale = k == 'c'                ? kDefaultInitScale
                      : in("zx", k)           ? 0.0
                      : k == 't'              ? std::ldexp(1.0, -25)
                      : k == 'f'              ? std::ldexp(1.0, -24)
                      : k == 'q'              ? nan
                      : in("mubego", k)       ? 1.0 // no scaler
                                              : kDefaultInitScale / 2.0;
        watch.observe(w);
    }
    watch.finish();
    EXPECT_EQ(toString(watch.reason()), row.reason);
    EXPECT_EQ(watch.diverged(), row.reason != "none");
    EXPECT_EQ(watch.atStep(), int64_t(row.atStep));
    EXPECT_EQ(watch.steppedWindows(), int64_t(row.stepped));
    EXPECT_EQ(watch.windows(), int64_t(row.carriedWindows + int64_t(row.windows.size())));
}

INSTANTIATE_TEST_SUITE_P(
    Rows, DivergenceWatchOnPlantedWindows,
    testing::ValuesIn(std::vector<DivergenceWatchRow>{
        {"healthy", "cccc", 0, 0, "none", -1, 4},
        {"skips, then steps: the scaler at work", "sscc", 0, 0, "none", -1, 2},
        {"NaN loss at window 2", "cnnn", 0, 0, "loss-not-finite", 2, 1},
        {"NaN loss, stepped", "ccm", 0, 0, "loss-not-finite", 3, 3},
        {"Inf loss", "ci", 0, 0, "loss-not-finite", 2, 1},
        {"never stepped", "sss", 0, 0, "never-stepped", 1, 0},
        {"scale reached 0", "cz", 0, 0, "loss-scale-collapsed", 2, 1},
        {"scale under the floor", "cst", 0, 0, "loss-scale-collapsed", 3, 1},
        {"scale at the floor holds", "cf", 0, 0, "none", -1, 1},
        {"NaN scale", "cq", 0, 0, "loss-scale-collapsed", 2, 1},
        {"loss before scale in one window", "cx", 0, 0, "loss-not-finite", 2, 1},
        {"the first reason stands", "czn", 0, 0, "loss-scale-collapsed", 2, 1},
        {"a window without a loss is not judged", "uu", 0, 0, "none", -1, 2},
        {"resumed after stepped windows", "ss", 3, 3, "none", -1, 3},
        {"resumed, none ever stepped", "ss", 2, 0, "never-stepped", 3, 0},
        {"resumed, NaN after the checkpoint", "cn", 4, 4, "loss-not-finite", 6, 5},
        // A finite loss that blew up (issue 62, N19: "diverged": false for an average loss of 237).
        {"loss past 4x the first: exploded", "ccb", 0, 0, "loss-exploded", 3, 3},
        {"loss at 4x the first holds", "cce", 0, 0, "none", -1, 3},
        {"the bound starts at the first measured window", "ucb", 0, 0, "loss-exploded", 3, 3},
        {"a first loss of 0 bounds nothing", "ob", 0, 0, "none", -1, 2},
        {"resumed: the bound starts after the checkpoint", "eb", 4, 4, "none", -1, 6},
        {"NaN before exploded in one run", "cbn", 0, 0, "loss-exploded", 2, 2},
        {"gradient norm Inf, stepped", "cg", 0, 0, "grad-not-finite", 2, 2},
    }),
    test::ByName());

// The engine driven to divergence, as `accumlab-cli train --lr 1000 --dtype float16
// --loss-scaling --accum-steps 1 --micro-batch 1` drives it: the first window steps, its
// update leaves the parameters non-finite, every later window's loss is NaN and skipped. At
// the lesson's rate the same run holds.
struct EngineDivergenceRow {
    const char *name;
    double lr;
    bool diverges;
};
class DivergenceWatchOnTheEngine : public testing::TestWithParam<EngineDivergenceRow> {};

TEST_P(DivergenceWatchOnTheEngine, Verdict)
{
    const EngineDivergenceRow &row = GetParam();
    AccumConfig c = float16Config(1);
    c.preset = AccumConfig{}.preset;
    c.microBatch = 1;
    c.optimizer.lr = row.lr;
    const int64_t windows = 12;
    AccumEngine e(c);
    DivergenceWatch watch;
    for (int64_t i = 0; i < windows; ++i) {
        const StepResult r = e.step();
        watch.observe(windowOutcome(r, c));
    }
    watch.finish();
    EXPECT_EQ(watch.windows(), windows);
    EXPECT_EQ(watch.diverged(), row.diverges);
    if (!row.diverges) {
        // Every window stepped but those the scaler skipped for an overflow (a scale that
        // starts too high halves once or twice): skipping is the scaler working, not divergence.
        EXPECT_EQ(watch.steppedWindows(), windows - e.lossScalerState().skippedWindows);
        EXPECT_GT(watch.steppedWindows(), windows / 2);
        EXPECT_EQ(watch.atStep(), int64_t(-1));
        return;
    }
    EXPECT_EQ(toString(watch.reason()), std::string("loss-not-finite"));
    EXPECT_TRUE(std::isnan(e.lastStep().loss));
    EXPECT_EQ(watch.steppedWindows(), windows - e.lossScalerState().skippedWindows);
    EXPECT_EQ(divergenceSentence(watch, windows),
              "diverged at step " + std::to_string(watch.atStep()) + " of 12 (loss-not-finite); " +
                  std::to_string(watch.steppedWindows()) + " of 12 windows stepped");
}

INSTANTIATE_TEST_SUITE_P(Rows, DivergenceWatchOnTheEngine,
                         testing::ValuesIn(std::vector<EngineDivergenceRow>{
                             {"lr 1000 diverges", 1000.0, true},
                             {"the default rate holds", AccumConfig{}.optimizer.lr, false},
                         }),
                         test::ByName());

} // namespace

// The code panel and `loop-code` write each pitfall's own line where the engine runs it, marked
// as planted, with PyTorch's refusal as its note where PyTorch refuses it; float16's caveat (its
// per-layer casts) does not hide it, and without the scaler there is no pitfall to write.
struct PitfallCodeRow {
    const char *name;
    const char *pitfall;
    const char *planted; // the planted line's code, trimmed
    const char *note;    // in its note ("" for any)
};
class PitfallCode : public testing::TestWithParam<PitfallCodeRow> {};

TEST_P(PitfallCode, WritesThePlantedLine)
{
    const PitfallCodeRow &row = GetParam();
    for (const DType dtype : {DType::Float32, DType::Float16}) {
        AccumConfig c = float16Config(4);
        c.dtype = dtype;
        c.lossScaler.bug = scalerBugFromString(row.pitfall);
        const LoopListing listing = loopListing(c);
        EXPECT_EQ(listing.variant, row.pitfall);
        EXPECT_EQ(listing.shownAsRun(), dtype == DType::Float32) << listing.caveat;
        std::vector<const CodeLine *> planted;
        for (const CodeLine &l : listing.lines)
            if (l.planted)
                planted.push_back(&l);
        ASSERT_EQ(planted.size(), size_t(1)) << loopSource(listing);
        const std::string code = planted[0]->code.substr(planted[0]->code.find_first_not_of(' '));
        EXPECT_EQ(code, row.planted);
        EXPECT_NE(planted[0]->note.find(row.note), std::string::npos) << planted[0]->note;

        c.lossScaler.enabled = false; // the pitfall needs the scaler it misuses
        const LoopListing plain = loopListing(c);
        EXPECT_EQ(plain.variant, "correct");
        EXPECT_TRUE(std::none_of(plain.lines.begin(), plain.lines.end(), [](const CodeLine &l) { return l.planted; }));
    }
}

INSTANTIATE_TEST_SUITE_P(
    Rows, PitfallCode,
    testing::ValuesIn(std::vector<PitfallCodeRow>{
        {"unscale every micro-batch", "unscale-every-micro", "scaler.unscale_(optimizer)",
         "unscale_() has already been called on this optimizer since the last update()"},
        {"update every micro-batch", "update-every-micro", "scaler.update()",
         "No inf checks were recorded prior to update."},
        {"skip the overflowed micro-batch", "skip-overflowed-micro",
         "if not all(p.grad.isfinite().all() for p in model.parameters()):", "the scale is never cut"},
        {"log the scaled loss", "log-scaled-loss", "logged_loss += scaler.scale(loss).item()", "scale times too large"},
    }),
    test::ByName());
