// The CUDA paths where the LibTorch in use has CUDA and a device is visible: the equivalence
// check on the GPU (holds, and the undivided loss still fails it) and a two-point sweep there.
// Elsewhere each GPU test skips with the reason, and the CPU-side test checks that asking for
// CUDA is refused in words. Only core's plain headers are used, so this compiles against a
// LibTorch without CUDA.
#include "core/device.h"
#include "core/equivalence.h"
#include "core/memory/gpu.h"
#include "core/sweep.h"

#include "support.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

using namespace accumlab;

namespace {

std::string whyNoCuda()
{
    return "no CUDA device: LibTorch " + torchVersion() +
           (builtWithCuda() ? " has CUDA but sees no device" : " in this build has no CUDA");
}

#define ACCUMLAB_REQUIRE_CUDA()                                                                                        \
    do {                                                                                                               \
        if (!cudaAvailable())                                                                                          \
            GTEST_SKIP() << whyNoCuda();                                                                               \
    } while (0)

// Without a device, --device cuda is bad input (exit 2 in the CLI), never a crash.
TEST(CudaAbsent, RequestingCudaIsRefusedInWords)
{
    if (cudaAvailable())
        GTEST_SKIP() << "a CUDA device is present; the GPU tests cover it";
    EXPECT_THROW(resolveDevice(DeviceRequest::Cuda), ConfigError);
    EXPECT_EQ(resolveDevice(DeviceRequest::Auto), "cpu");
    EXPECT_EQ(resolveDevice(DeviceRequest::Cpu), "cpu");
}

class CudaEquivalence : public testing::TestWithParam<OptimizerKind> {};

TEST_P(CudaEquivalence, HoldsOnTheGpuAndCatchesNoDivision)
{
    ACCUMLAB_REQUIRE_CUDA();
    EquivalenceConfig c;
    c.run.device = DeviceRequest::Cuda;
    c.run.optimizer.kind = GetParam();
    const EquivalenceResult r = runEquivalence(c);
    EXPECT_EQ(r.device, "cuda:0");
    EXPECT_TRUE(r.paramsInitMatch);
    EXPECT_TRUE(r.holds) << r.cause();
    EXPECT_LT(r.maxGradDiff, 1e-4);
    EXPECT_LT(r.maxParamDiff, 1e-4);

    c.run.scaling = Scaling::None;
    const EquivalenceResult bug = runEquivalence(c);
    EXPECT_FALSE(bug.holds);
    EXPECT_NEAR(bug.gradRatio, double(c.run.accumSteps), 1e-4 * double(c.run.accumSteps));
}

INSTANTIATE_TEST_SUITE_P(Optimizers, CudaEquivalence,
                         testing::Values(OptimizerKind::Sgd, OptimizerKind::Momentum, OptimizerKind::AdamW),
                         [](const testing::TestParamInfo<OptimizerKind> &info) { return toString(info.param); });

TEST(CudaSweep, TwoPointsRunOnTheGpu)
{
    ACCUMLAB_REQUIRE_CUDA();
    const SweepConfig s = test::tinySweep(DeviceRequest::Cuda);
    const SweepResult result = runSweep(s);
    ASSERT_EQ(result.points.size(), 2u);
    for (size_t i = 0; i < result.points.size(); ++i) {
        SCOPED_TRACE("point " + std::to_string(i));
        const SweepPoint &p = result.points[i];
        EXPECT_EQ(p.device, "cuda:0");
        EXPECT_EQ(p.effectiveBatch, s.base.microBatch * s.accumGrid[i]);
        EXPECT_EQ(p.steps, s.numSteps);
        EXPECT_EQ(p.optimizerStateStep, s.numSteps + s.warmupSteps);
        EXPECT_FALSE(p.diverged);
        ASSERT_TRUE(std::isfinite(p.samplesPerSec));
        EXPECT_GT(p.samplesPerSec, 0.0);
        // The caching allocator's peak over the timed steps: at least the model's parameters.
        ASSERT_TRUE(p.peakMemBytes.has_value());
        EXPECT_GT(*p.peakMemBytes, 0);
    }
}

} // namespace
