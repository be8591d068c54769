// The engine's window loop: optimizer cadence and state, sync counting, the gradient buffers
// filling per micro-batch against the full-batch marker (and against a plain LibTorch loop),
// determinism and learning.
#include "core/data.h"
#include "core/engine.h"
#include "core/engine_state.h"
#include "core/model.h"

#include "support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <ostream>
#include <string>
#include <vector>

using namespace accumlab;
namespace test = accumlab::test;

namespace {

using accumlab::test::PrintTo; // a table row prints as its label (support.h)

AccumConfig smallConfig(int64_t micro, int64_t accum, OptimizerKind kind = OptimizerKind::Sgd)
{
    AccumConfig c;
    c.preset = ModelPreset::Fixture;
    c.microBatch = micro;
    c.accumSteps = accum;
    c.optimizer.kind = kind;
    c.device = DeviceRequest::Cpu;
    c.seed = 3;
    return c;
}

// Records every micro-batch event.
struct Recorder : EngineObserver {
    bool wantsMicroBatchDetail() const override { return true; }
    void onMicroBatch(const MicroBatchEvent &e) override { micro.push_back(e); }
    void onStep(const StepResult &r) override { steps.push_back(r); }
    std::vector<MicroBatchEvent> micro;
    std::vector<StepResult> steps;
};

// ---- Optimizer cadence -----------------------------------------------------------------------

struct AdamStateRow {
    std::string name;
    int64_t accum;
    bool stepEveryMicro;
};

std::vector<AdamStateRow> adamStateRows()
{
    std::vector<AdamStateRow> rows;
    for (int64_t a : {1, 2, 4, 8}) {
        rows.push_back({"accum " + std::to_string(a), a, false});
        rows.push_back({"accum " + std::to_string(a) + " step-every-micro", a, true});
    }
    return rows;
}

class AdamStateAdvancesOncePerEffectiveStep : public testing::TestWithParam<AdamStateRow> {};

TEST_P(AdamStateAdvancesOncePerEffectiveStep, Row)
{
    const AdamStateRow &row = GetParam();
    auto c = smallConfig(4, row.accum, OptimizerKind::AdamW);
    c.stepEveryMicro = row.stepEveryMicro;
    AccumEngine engine(c);
    const int64_t k = 3;
    for (int64_t i = 0; i < k; ++i)
        engine.step();
    EXPECT_EQ(engine.microBatches(), k * row.accum);
    EXPECT_EQ(engine.optimizerStateStep(), row.stepEveryMicro ? k * row.accum : k);
    EXPECT_EQ(engine.optimizerSteps(), row.stepEveryMicro ? k * row.accum : k);
}

INSTANTIATE_TEST_SUITE_P(Rows, AdamStateAdvancesOncePerEffectiveStep, testing::ValuesIn(adamStateRows()),
                         test::ByName());

// ---- Sync counting ---------------------------------------------------------------------------

struct SyncRow {
    std::string name;
    int64_t accum;
    bool noSync;
};

std::vector<SyncRow> syncRows()
{
    std::vector<SyncRow> rows;
    for (int64_t a : {1, 3, 8}) {
        rows.push_back({"accum " + std::to_string(a) + " no-sync on", a, true});
        rows.push_back({"accum " + std::to_string(a) + " no-sync off", a, false});
    }
    return rows;
}

class SyncCalls : public testing::TestWithParam<SyncRow> {};

TEST_P(SyncCalls, Row)
{
    const SyncRow &row = GetParam();
    auto c = smallConfig(2, row.accum);
    c.noSync = row.noSync;
    AccumEngine engine(c);
    Recorder rec;
    const int64_t steps = 5;
    for (int64_t i = 0; i < steps; ++i)
        engine.step(&rec);
    EXPECT_EQ(engine.syncCalls(), row.noSync ? steps : steps * row.accum);
    // With no-sync only the window's last micro-batch syncs.
    for (const auto &e : rec.micro)
        EXPECT_EQ(e.synced, !row.noSync || e.microIndex == row.accum - 1)
            << "window " << e.step << ", micro-batch " << e.microIndex;
}

INSTANTIATE_TEST_SUITE_P(Rows, SyncCalls, testing::ValuesIn(syncRows()), test::ByName());

// ---- The bars against the marker -------------------------------------------------------------

struct DivideRow {
    std::string name;
    int64_t accum;
    bool divide;
};

std::vector<DivideRow> divideRows()
{
    std::vector<DivideRow> rows;
    for (int64_t a : {2, 4, 16}) {
        rows.push_back({"accum " + std::to_string(a) + " divide", a, true});
        rows.push_back({"accum " + std::to_string(a) + " no division", a, false});
    }
    return rows;
}

class BarsReachTheMarker : public testing::TestWithParam<DivideRow> {};

// The accumulated buffers after the last micro-batch land on the full-batch marker with
// division, and overshoot N times without it.
TEST_P(BarsReachTheMarker, Row)
{
    const DivideRow &row = GetParam();
    auto c = smallConfig(4, row.accum);
    c.scaling = row.divide ? Scaling::Divide : Scaling::None;
    AccumEngine engine(c);
    engine.step(); // a first window so the marker is not taken at initialisation only
    const auto marker = engine.referenceGradNorms();
    Recorder rec;
    const StepResult r = engine.step(&rec);
    ASSERT_EQ(int64_t(rec.micro.size()), row.accum);
    ASSERT_EQ(r.layerGradNorms.size(), marker.size());
    const double expected = row.divide ? 1.0 : double(row.accum);
    for (size_t i = 0; i < marker.size(); ++i)
        EXPECT_TRUE(test::relNear(r.layerGradNorms[i] / marker[i], expected, 1e-4)) << "tensor " << i;
    // The bars grow micro-batch by micro-batch; the last event reports the window's norms.
    EXPECT_EQ(rec.micro.back().gradNorms, r.layerGradNorms);
    EXPECT_LT(rec.micro.front().gradNorms[0], rec.micro.back().gradNorms[0]);
}

INSTANTIATE_TEST_SUITE_P(Rows, BarsReachTheMarker, testing::ValuesIn(divideRows()), test::ByName());

class BarsMatchAPlainLoop : public testing::TestWithParam<DivideRow> {};

// The bars against an independent computation: the lesson's loop written out in plain
// LibTorch (the same model and samples from the same seed; zero, N x forward/backward of
// loss / N into the parameters' own .grad, an SGD step p -= lr g), with the full batch's
// gradient from torch::autograd::grad. Per micro-batch and per parameter tensor, the bar's
// norm and fill (<buffer, g> / <g, g>) are the loop's, for two windows (the second after
// a step), and the marker is the full-batch gradient's norm.
TEST_P(BarsMatchAPlainLoop, Row)
{
    const int64_t accum = GetParam().accum;
    const bool divide = GetParam().divide;
    auto c = smallConfig(4, accum);
    c.scaling = divide ? Scaling::Divide : Scaling::None;
    AccumEngine engine(c);

    const torch::Device cpu(torch::kCPU);
    const ModelShape shape = c.modelShape();
    Mlp model = makeModel(shape, c.seed, toTorch(c.dtype), cpu);
    DataStream data(shape, c.labels, c.seed, toTorch(c.dtype), cpu);
    const auto params = model->parameters();
    const double n = double(accum);
    constexpr int64_t kWindows = 2;
    for (int64_t window = 0; window < kWindows; ++window) {
        const auto marker = engine.referenceGradNorms();
        Recorder rec;
        engine.step(&rec);
        ASSERT_EQ(int64_t(rec.micro.size()), accum);

        auto [x, y] = data.next(c.microBatch * accum); // x: (micro * accum, in), y: (micro * accum,)
        // The full batch's gradient at the window's start, beside the buffers.
        const auto full = torch::autograd::grad({torch::cross_entropy_loss(model->forward(x), y)}, params);
        ASSERT_EQ(marker.size(), full.size());
        for (size_t i = 0; i < full.size(); ++i)
            EXPECT_TRUE(test::relNear(marker[i], full[i].to(torch::kFloat64).norm().item<double>(), 1e-5))
                << "window " << window << ", tensor " << i;

        for (const auto &p : params)
            if (p.grad().defined())
                p.grad().zero_();
        const auto xs = x.split(c.microBatch), ys = y.split(c.microBatch);
        for (int64_t m = 0; m < accum; ++m) {
            auto loss = torch::cross_entropy_loss(model->forward(xs[m]), ys[m]); // () mean over the micro-batch
            (divide ? loss / n : loss).backward();
            const MicroBatchEvent &e = rec.micro[size_t(m)];
            ASSERT_EQ(e.gradNorms.size(), params.size());
            ASSERT_EQ(e.fills.size(), params.size());
            for (size_t i = 0; i < params.size(); ++i) {
                const auto g = full[i].to(torch::kFloat64);
                const auto buffer = params[i].grad().to(torch::kFloat64);
                EXPECT_TRUE(test::relNear(e.gradNorms[i], buffer.norm().item<double>(), 1e-5))
                    << "window " << window << ", micro-batch " << m << ", tensor " << i;
                // A fill is a ratio whose end is 1 (N without division); a micro-batch's
                // share can be near 0, so it is held to 1e-5 of that end.
                const double fill = (buffer * g).sum().item<double>() / g.pow(2).sum().item<double>();
                EXPECT_TRUE(std::abs(e.fills[i] - fill) <= 1e-5 * (divide ? 1.0 : n))
                    << std::setprecision(10) << "window " << window << ", micro-batch " << m << ", tensor " << i
                    << ": fill " << e.fills[i] << ", the loop's " << fill;
            }
        }
        torch::NoGradGuard noGrad;
        for (const auto &p : params)
            p.add_(p.grad(), -c.optimizer.lr); // SGD, no momentum, no weight decay
    }
}

INSTANTIATE_TEST_SUITE_P(Rows, BarsMatchAPlainLoop, testing::ValuesIn(divideRows()), test::ByName());

struct DivisionRow {
    const char *name;
    DType dtype;
    int64_t accum;
    AccumBug bug;
    double divisor; // what the plain loop divides each micro-batch's loss by
};

class DivisionMatchesAPlainLoopBitForBit : public testing::TestWithParam<DivisionRow> {};

// loss / N as the lesson writes it, with N a number: the engine's gradient buffers after a
// window equal, bit for bit, a plain LibTorch loop's .grad (same model, samples and seed;
// (loss / N).backward() per micro-batch). The engine divides by N held as a 0-d tensor where
// N is exact in the loss's dtype and by the number itself elsewhere (bfloat16's 257, which
// would round to 256 or 258 in a bfloat16 tensor; that row fails if the fallback goes).
TEST_P(DivisionMatchesAPlainLoopBitForBit, Row)
{
    const DivisionRow &row = GetParam();
    auto c = smallConfig(3, row.accum);
    c.dtype = row.dtype;
    c.bug = row.bug;
    AccumEngine engine(c);
    engine.step();
    EngineState state;
    engine.captureState(state);

    const torch::Device cpu(torch::kCPU);
    Mlp model = makeModel(c.modelShape(), c.seed, toTorch(c.dtype), cpu);
    DataStream data(c.modelShape(), c.labels, c.seed, toTorch(c.dtype), cpu);
    auto [x, y] = data.next(c.microBatch * c.accumSteps); // x: (micro * accum, in), y: (micro * accum,)
    const auto xs = x.split(c.microBatch), ys = y.split(c.microBatch);
    for (int64_t m = 0; m < c.accumSteps; ++m)
        (torch::cross_entropy_loss(model->forward(xs[m]), ys[m]) / row.divisor).backward();
    std::vector<torch::Tensor> grads;
    for (const auto &p : model->parameters())
        grads.push_back(p.grad().reshape(-1));
    const auto plain = torch::cat(grads); // (total,)
    ASSERT_EQ(state.grads.scalar_type(), plain.scalar_type());
    EXPECT_TRUE(torch::equal(state.grads, plain))
        << "max |diff| " << (state.grads.to(torch::kFloat64) - plain.to(torch::kFloat64)).abs().max().item<double>();
}

INSTANTIATE_TEST_SUITE_P(
    Rows, DivisionMatchesAPlainLoopBitForBit,
    testing::Values(DivisionRow{"float32 accum 3", DType::Float32, 3, AccumBug::None, 3.0},
                    DivisionRow{"float32 accum 4", DType::Float32, 4, AccumBug::None, 4.0},
                    DivisionRow{"float32 divide by N plus 1", DType::Float32, 4, AccumBug::DivideByNPlusOne, 5.0},
                    DivisionRow{"float64 accum 7", DType::Float64, 7, AccumBug::None, 7.0},
                    DivisionRow{"bfloat16 accum 5", DType::BFloat16, 5, AccumBug::None, 5.0},
                    DivisionRow{"bfloat16 accum 257", DType::BFloat16, 257, AccumBug::None, 257.0}),
    test::ByName());

struct FillsRow {
    const char *name;
    bool divide;
};

class FillsAddUpAndEndAtTheMarker : public testing::TestWithParam<FillsRow> {};

// The bars' fills: each buffer's projection onto the window's full-batch gradient, linear
// in the buffer, so the micro-batches' shares add up and the window ends at 1 with division
// and N without, for every tensor. The lesson model at micro 4, accum 16, second window, is
// the case where the ratio of norms read 1.13x after 12 of 16 micro-batches; the
// projection stays under the marker there (planting the norm ratio back fails this).
TEST_P(FillsAddUpAndEndAtTheMarker, Row)
{
    const bool divide = GetParam().divide;
    AccumConfig c;
    c.device = DeviceRequest::Cpu;
    c.microBatch = 4;
    c.accumSteps = 16;
    c.scaling = divide ? Scaling::Divide : Scaling::None;
    AccumEngine engine(c);
    engine.step();
    engine.referenceGradNorms();
    Recorder rec;
    engine.step(&rec);
    ASSERT_EQ(rec.micro.size(), size_t(16));
    const double n = 16.0;
    for (const MicroBatchEvent &e : rec.micro)
        EXPECT_EQ(e.fills.size(), e.gradNorms.size()) << "micro-batch " << e.microIndex;
    const MicroBatchEvent &last = rec.micro.back();
    for (double f : last.fills)
        EXPECT_TRUE(test::relNear(f, divide ? 1.0 : n, 1e-4));
    EXPECT_TRUE(test::relNear(last.fillTotal, divide ? 1.0 : n, 1e-5));
    // Mid-window the bars have not yet reached the end on average.
    double meanMid = 0.0;
    for (double f : rec.micro[11].fills)
        meanMid += f;
    meanMid /= double(rec.micro[11].fills.size());
    EXPECT_LT(meanMid, divide ? 1.0 : n);
    // Where the norm ratio overshot after 12 of 16 with division on (fc2.bias 1.13x), the
    // projection stays under the marker.
    if (divide) {
        for (double f : rec.micro[11].fills)
            EXPECT_LT(f, 1.0);
    }
}

INSTANTIATE_TEST_SUITE_P(Rows, FillsAddUpAndEndAtTheMarker,
                         testing::Values(FillsRow{"division", true}, FillsRow{"no division", false}), test::ByName());

// ---- The window, step by step ----------------------------------------------------------------

TEST(Engine, MicroStepWalksTheWindow)
{
    AccumEngine engine(smallConfig(2, 3));
    EXPECT_EQ(engine.microIndex(), 0);
    EXPECT_FALSE(engine.microStep());
    EXPECT_EQ(engine.microIndex(), 1);
    EXPECT_FALSE(engine.microStep());
    EXPECT_EQ(engine.optimizerSteps(), 0);
    EXPECT_TRUE(engine.microStep());
    EXPECT_EQ(engine.optimizerSteps(), 1);
    EXPECT_EQ(engine.microIndex(), 0);
    EXPECT_EQ(engine.lastStep().microBatches, 3);
}

TEST(Engine, DeterministicFromSeed)
{
    AccumEngine a(smallConfig(4, 2));
    AccumEngine b(smallConfig(4, 2));
    for (int i = 0; i < 4; ++i) {
        const auto ra = a.step();
        const auto rb = b.step();
        EXPECT_DOUBLE_EQ(ra.loss, rb.loss) << "window " << i;
        EXPECT_EQ(ra.layerGradNorms, rb.layerGradNorms) << "window " << i;
    }
    EXPECT_EQ(a.parameterNames(), (std::vector<std::string>{"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias",
                                                            "fc3.weight", "fc3.bias"}));
}

// Teacher labels are learnable; random labels keep the loss near ln(classes).
TEST(Engine, TeacherLabelsLearnRandomDoNot)
{
    auto c = smallConfig(16, 2, OptimizerKind::AdamW);
    c.optimizer.lr = 0.01;
    AccumEngine teacher(c);
    c.labels = LabelKind::Random;
    AccumEngine random(c);
    double firstT = 0, lastT = 0, lastR = 0;
    const int steps = 150;
    for (int i = 0; i < steps; ++i) {
        const double lt = teacher.step().loss;
        const double lr = random.step().loss;
        if (i < 10)
            firstT += lt / 10;
        if (i >= steps - 10) {
            lastT += lt / 10;
            lastR += lr / 10;
        }
    }
    const double chance = std::log(double(shapeOf(ModelPreset::Fixture).classes));
    EXPECT_TRUE(lastT < 0.6 * firstT) << "teacher loss " << firstT << " -> " << lastT;
    EXPECT_TRUE(std::abs(lastR - chance) < 0.25) << "random loss " << lastR << " vs ln C " << chance;
}

struct ClipRow {
    const char *name;
    int64_t accum;
};

class ClipNormClipsTheWindow : public testing::TestWithParam<ClipRow> {};

// A clip norm below the window's gradient norm really clips: the norms read before the
// step are the clipped ones, max_norm, while the same run unclipped reads more.
TEST_P(ClipNormClipsTheWindow, Row)
{
    auto c = smallConfig(4, GetParam().accum);
    AccumEngine plain(c);
    const double unclipped = plain.step().gradNorm;
    c.optimizer.clipNorm = 0.5 * unclipped;
    AccumEngine clipped(c);
    const double norm = clipped.step().gradNorm;
    EXPECT_TRUE(std::abs(norm - c.optimizer.clipNorm) < 1e-5 * c.optimizer.clipNorm)
        << norm << " vs max_norm " << c.optimizer.clipNorm;
    c.optimizer.clipNorm = 2.0 * unclipped; // above the norm: left as it is
    AccumEngine loose(c);
    EXPECT_DOUBLE_EQ(loose.step().gradNorm, unclipped);
}

INSTANTIATE_TEST_SUITE_P(Rows, ClipNormClipsTheWindow,
                         testing::Values(ClipRow{"1 micro-batch", 1}, ClipRow{"4 micro-batches", 4}), test::ByName());

struct WarmupRow {
    std::string name;
    int64_t accum;
    bool bug;
};

std::vector<WarmupRow> warmupRows()
{
    std::vector<WarmupRow> rows;
    for (int64_t a : {1, 4})
        for (bool bug : {false, true})
            rows.push_back({"accum " + std::to_string(a) + (bug ? " schedule-every-micro" : ""), a, bug});
    return rows;
}

class WarmupStepsOncePerUpdate : public testing::TestWithParam<WarmupRow> {};

// A warmup schedule steps once per update: window k uses lr x min(1, (k + 1) / W), whatever
// accum_steps is. scheduler.step() in the micro-batch loop (the planted bug) runs it N times
// ahead: window k uses lr x min(1, (k + 1) N / W) at N > 1, and nothing changes at N = 1.
TEST_P(WarmupStepsOncePerUpdate, Row)
{
    const WarmupRow &row = GetParam();
    auto c = smallConfig(2, row.accum);
    c.optimizer.lrWarmup = 8;
    if (row.bug)
        c.bug = AccumBug::ScheduleEveryMicro;
    AccumEngine engine(c);
    const int64_t ahead = row.bug ? row.accum : 1; // scheduler steps per update
    for (int64_t k = 0; k < 10; ++k) {
        const StepResult r = engine.step();
        const double expected = c.optimizer.lr * std::min(1.0, double(k * ahead + 1 + (ahead - 1)) / 8.0);
        EXPECT_TRUE(std::abs(r.lr - expected) < 1e-15)
            << "window " << k << ": lr " << r.lr << ", expected " << expected;
        EXPECT_EQ(r.schedulerSteps, (k + 1) * ahead) << "window " << k;
    }
}

INSTANTIATE_TEST_SUITE_P(Rows, WarmupStepsOncePerUpdate, testing::ValuesIn(warmupRows()), test::ByName());

TEST(Engine, CancelBetweenMicroBatches)
{
    AccumEngine engine(smallConfig(2, 8));
    CancelToken token;
    struct CancelAfterTwo : EngineObserver {
        CancelToken *token = nullptr;
        int seen = 0;
        bool wantsMicroBatchDetail() const override { return true; }
        void onMicroBatch(const MicroBatchEvent &) override
        {
            if (++seen == 2)
                token->cancel();
        }
    } obs;
    obs.token = &token;
    EXPECT_THROW(engine.step(&obs, &token), Cancelled);
    EXPECT_EQ(engine.microBatches(), 2);
    EXPECT_EQ(engine.optimizerSteps(), 0);
}

TEST(Engine, RejectsBadConfig)
{
    EXPECT_THROW(AccumEngine(smallConfig(0, 2)), ConfigError);
    EXPECT_THROW(AccumEngine(smallConfig(2, -1)), ConfigError);
}

} // namespace
