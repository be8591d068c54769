// The lesson's proof, each verdict both ways: the full batch and its accumulated split agree
// for every dtype, optimizer and split; each teaching bug, planted, makes the check fail by the
// factor that arithmetic predicts; and the tolerance itself can refuse a correct run.
#include "core/equivalence.h"

#include "support.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>

using namespace accumlab;

namespace {

constexpr double kLessonTolerance = 1e-4; // the lesson's fixed bound on max |diff|
constexpr int64_t kBigBatch = 16;         // the fixture's batch (EquivalenceConfig default)

EquivalenceConfig fixture(DType dtype, OptimizerKind optimizer, int64_t accum)
{
    EquivalenceConfig c;
    c.run.dtype = dtype;
    c.run.optimizer.kind = optimizer;
    c.run.accumSteps = accum;
    setBigBatch(c, kBigBatch);
    return c;
}

bool contains(const std::string &text, const std::string &words) { return text.find(words) != std::string::npos; }

// ---- The correct loop holds ------------------------------------------------------------------

using HoldsParam = std::tuple<DType, OptimizerKind, int64_t>;
class EquivalenceHolds : public testing::TestWithParam<HoldsParam> {};

// "float32_sgd_4x4": dtype, optimizer, then the split as ACCUMxMICRO.
std::string holdsName(const testing::TestParamInfo<HoldsParam> &info)
{
    const auto [dtype, optimizer, accum] = info.param;
    return toString(dtype) + "_" + toString(optimizer) + "_" + std::to_string(accum) + "x" +
           std::to_string(kBigBatch / accum);
}

TEST_P(EquivalenceHolds, GradientsAndParametersAgree)
{
    const auto [dtype, optimizer, accum] = GetParam();
    const EquivalenceResult r = runEquivalence(fixture(dtype, optimizer, accum));
    EXPECT_TRUE(r.paramsInitMatch);
    EXPECT_TRUE(r.holds) << r.cause();
    EXPECT_LT(r.maxGradDiff, kLessonTolerance);
    EXPECT_LT(r.maxParamDiff, kLessonTolerance);
    // Identical buffers give identical norms and the same step.
    EXPECT_NEAR(r.gradRatio, 1.0, 1e-5);
    EXPECT_NEAR(r.updateRatio, 1.0, 1e-4);
    EXPECT_EQ(r.fullOptimizerStateStep, 1);
    EXPECT_EQ(r.accumOptimizerStateStep, 1);
    EXPECT_EQ(r.layers.size(), 6u); // three Linear layers: weight and bias each
    EXPECT_EQ(r.cause(), "");
}

INSTANTIATE_TEST_SUITE_P(Splits, EquivalenceHolds,
                         testing::Combine(testing::Values(DType::Float32, DType::Float64),
                                          testing::Values(OptimizerKind::Sgd, OptimizerKind::Momentum,
                                                          OptimizerKind::AdamW),
                                          testing::Values(int64_t{1}, int64_t{4}, int64_t{16})),
                         holdsName);

// ---- Planted bug: the loss is not divided by N -----------------------------------------------

using BugParam = std::tuple<OptimizerKind, int64_t>;
std::string bugName(const testing::TestParamInfo<BugParam> &info)
{
    return toString(std::get<0>(info.param)) + "_N" + std::to_string(std::get<1>(info.param));
}

class NoDivision : public testing::TestWithParam<BugParam> {};

// N undivided micro-batch means sum to N times the batch mean: the buffers are N times the
// full batch's whatever the optimizer, and the check must say so.
TEST_P(NoDivision, FailsWithGradientNTimesTooLarge)
{
    const auto [optimizer, accum] = GetParam();
    EquivalenceConfig c = fixture(DType::Float32, optimizer, accum);
    c.run.scaling = Scaling::None;
    const EquivalenceResult r = runEquivalence(c);
    EXPECT_TRUE(r.paramsInitMatch);
    EXPECT_FALSE(r.holds);
    EXPECT_FALSE(r.holdsFixed);
    EXPECT_NEAR(r.gradRatio, double(accum), 1e-5 * double(accum));
    EXPECT_GT(r.maxGradDiff, kLessonTolerance);
    EXPECT_TRUE(contains(r.cause(), "not divided")) << r.cause();
    char factor[32];
    std::snprintf(factor, sizeof factor, "%.2f×", double(accum));
    EXPECT_TRUE(contains(r.cause(), factor)) << r.cause();
    // SGD and momentum's first step (its buffer starts as g) move lr * g: N times as far.
    // Adam's first step is g / (|g| + eps), about the same whatever the scale: the update
    // hides the bug, which is why the gradient is what the check compares.
    if (optimizer == OptimizerKind::AdamW)
        EXPECT_NEAR(r.updateRatio, 1.0, 1e-3);
    else
        EXPECT_NEAR(r.updateRatio, double(accum), 1e-5 * double(accum));
}

INSTANTIATE_TEST_SUITE_P(Planted, NoDivision,
                         testing::Combine(testing::Values(OptimizerKind::Sgd, OptimizerKind::Momentum,
                                                          OptimizerKind::AdamW),
                                          testing::Values(int64_t{2}, int64_t{4}, int64_t{16})),
                         bugName);

// The verdict comes from the numbers, not from the flag: with one micro-batch there is nothing
// to divide by, and the undivided loop is the correct one.
TEST(NoDivisionOneMicroBatch, HoldsBecauseDividingByOneChangesNothing)
{
    EquivalenceConfig c = fixture(DType::Float32, OptimizerKind::Sgd, 1);
    c.run.scaling = Scaling::None;
    const EquivalenceResult r = runEquivalence(c);
    EXPECT_TRUE(r.holds) << r.cause();
    EXPECT_NEAR(r.gradRatio, 1.0, 1e-6);
}

// ---- Planted bug: optimizer.step() inside the window ----------------------------------------

class StepEveryMicro : public testing::TestWithParam<BugParam> {};

TEST_P(StepEveryMicro, FailsWithNStepsInsteadOfOne)
{
    const auto [optimizer, accum] = GetParam();
    EquivalenceConfig c = fixture(DType::Float32, optimizer, accum);
    c.run.stepEveryMicro = true;
    const EquivalenceResult r = runEquivalence(c);
    EXPECT_FALSE(r.holds);
    EXPECT_EQ(r.fullOptimizerStateStep, 1);
    EXPECT_EQ(r.accumOptimizerStateStep, accum);
    EXPECT_GT(r.maxParamDiff, kLessonTolerance);
    EXPECT_TRUE(contains(r.cause(), "every micro-batch")) << r.cause();
    if (optimizer == OptimizerKind::Sgd) {
        // The buffers are not zeroed between the steps, so step k applies the first k
        // micro-batches' gradients g_1..g_k (each / N): in all, sum_i (N - i + 1) g_i / N
        // against the correct sum_i g_i / N. Parallel g_i make that (N + 1) / 2 times as far;
        // independent ones (the fixture's random labels) sqrt((N + 1)(2N + 1) / 6) times.
        const double n = double(accum);
        const double parallel = (n + 1.0) / 2.0;
        const double independent = std::sqrt((n + 1.0) * (2.0 * n + 1.0) / 6.0);
        EXPECT_GT(r.updateRatio, 0.95 * parallel);
        EXPECT_LT(r.updateRatio, 1.1 * independent);
    }
}

INSTANTIATE_TEST_SUITE_P(Planted, StepEveryMicro,
                         testing::Combine(testing::Values(OptimizerKind::Sgd, OptimizerKind::AdamW),
                                          testing::Values(int64_t{2}, int64_t{8})),
                         bugName);

// ---- The bounds themselves -------------------------------------------------------------------

// A correct float32 run differs from the full batch by summation order only; a bound below that
// noise must refuse it, or the bound is not being applied.
TEST(EquivalenceTolerance, ABoundBelowRoundingNoiseRefusesACorrectRun)
{
    EquivalenceConfig c = fixture(DType::Float32, OptimizerKind::Sgd, 4);
    const EquivalenceResult loose = runEquivalence(c);
    ASSERT_TRUE(loose.holds) << loose.cause();
    ASSERT_GT(loose.maxGradDiff, 0.0) << "float32 accumulation in another order should not be bit-exact here";
    c.fixedTolerance = loose.maxGradDiff / 2;
    const EquivalenceResult tight = runEquivalence(c);
    EXPECT_FALSE(tight.holds);
    EXPECT_TRUE(contains(tight.cause(), "exceeds the fixed tolerance")) << tight.cause();
    EXPECT_EQ(tight.maxGradDiff, loose.maxGradDiff); // same seed, same numbers, another bound
}

// In bfloat16 the fixed 1e-4 is tighter than summation noise; the dtype-aware bound (a few ulps
// of the largest gradient) is the one that applies, and it still catches the undivided loss.
TEST(EquivalenceBFloat16, DtypeAwareBoundHoldsAndCatchesNoDivision)
{
    EquivalenceConfig c = fixture(DType::BFloat16, OptimizerKind::Sgd, 4);
    const EquivalenceResult r = runEquivalence(c);
    EXPECT_FALSE(r.holdsFixed) << "max grad diff " << r.maxGradDiff;
    EXPECT_TRUE(r.holdsDtypeAware) << "grad " << r.maxGradDiff << " bound " << r.gradBoundDtype << ", param "
                                   << r.maxParamDiff << " bound " << r.paramBoundDtype;
    EXPECT_TRUE(r.holds);

    c.run.scaling = Scaling::None;
    const EquivalenceResult bug = runEquivalence(c);
    EXPECT_FALSE(bug.holdsDtypeAware);
    EXPECT_FALSE(bug.holds);
    EXPECT_NEAR(bug.gradRatio, 4.0, 0.05 * 4.0);
}

} // namespace
