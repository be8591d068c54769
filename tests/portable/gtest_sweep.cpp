// The throughput sweep: one point per grid entry with the lesson's fields filled from
// measurement, sync counts, warm-up excluded, observer callbacks and cancellation.
#include "core/device.h"
#include "core/io/curve_io.h"
#include "core/io/export.h"
#include "core/sweep.h"

#include "support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

using namespace accumlab;
namespace test = accumlab::test;

namespace {

using accumlab::test::PrintTo; // a table row prints as its label (support.h)

SweepConfig smallSweep()
{
    SweepConfig s;
    s.base.preset = ModelPreset::Fixture;
    s.base.device = DeviceRequest::Cpu;
    s.base.microBatch = 4;
    s.accumGrid = {1, 2, 4};
    s.numSteps = 6;
    s.warmupSteps = 2;
    return s;
}

struct PointRecorder : EngineObserver {
    void onSweepPointStarted(int64_t index, int64_t accum) override { started.push_back({index, accum}); }
    void onSweepBlock(int64_t index, int64_t block) override { blocks.push_back({index, block}); }
    void onSweepBlockDone(int64_t index, const SweepPoint &p) override { soFar.push_back({index, p}); }
    void onSweepPoint(const SweepPoint &p) override { points.push_back(p); }
    void onStep(const StepResult &) override { ++steps; }
    std::vector<std::pair<int64_t, int64_t>> started;
    std::vector<std::pair<int64_t, SweepPoint>> soFar; // (point, as its blocks so far measured it)
    std::vector<std::pair<int64_t, int64_t>> blocks; // (point, block) in the order they ran
    std::vector<SweepPoint> points;
    int steps = 0;
};

double meanOf(const std::vector<double> &v, size_t from, size_t count)
{
    double s = 0.0;
    for (size_t i = from; i < from + count; ++i)
        s += v[i];
    return s / static_cast<double>(count);
}

using test::contains;

// ---- pointsAndFields -------------------------------------------------------------------------

struct NoSyncRow {
    const char *name;
    bool noSync;
};

class PointsAndFields : public testing::TestWithParam<NoSyncRow> {};

TEST_P(PointsAndFields, FilledAtEveryGridPoint)
{
    const bool noSync = GetParam().noSync;
    auto s = smallSweep();
    s.base.noSync = noSync;
    PointRecorder rec;
    const auto result = runSweep(s, &rec);
    ASSERT_EQ(result.points.size(), s.accumGrid.size());
    EXPECT_EQ(rec.points.size(), s.accumGrid.size());
    EXPECT_EQ(rec.started.size(), s.accumGrid.size());
    EXPECT_EQ(rec.steps, int(s.accumGrid.size() * s.numSteps)); // warm-up steps are not reported
    for (size_t i = 0; i < result.points.size(); ++i) {
        SCOPED_TRACE("point " + std::to_string(i));
        const auto &p = result.points[i];
        const int64_t accum = s.accumGrid[i];
        EXPECT_EQ(p.accumSteps, accum);
        EXPECT_EQ(p.microBatch, s.base.microBatch);
        EXPECT_EQ(p.effectiveBatch, s.base.microBatch * accum);
        EXPECT_EQ(p.steps, s.numSteps);
        EXPECT_EQ(p.microBatches, s.numSteps * accum);
        EXPECT_EQ(p.syncCalls, noSync ? s.numSteps : s.numSteps * accum);
        EXPECT_EQ(p.optimizerStateStep, s.numSteps + s.warmupSteps);
        EXPECT_EQ(p.losses.size(), size_t(s.numSteps));
        EXPECT_GT(p.samplesPerSec, 0.0);
        EXPECT_GT(p.medianStepMs, 0.0);
        EXPECT_GT(p.wallS, 0.0);
        // samples/sec is samples over the wall time of the whole timed region.
        EXPECT_LT(std::abs(p.samplesPerSec - double(p.steps * p.effectiveBatch) / p.wallS), 1e-6 * p.samplesPerSec);
        // Each step is part of the wall time, so the median step cannot exceed wall / steps by much.
        EXPECT_LE(p.medianStepMs * 1e-3 * 0.5, p.wallS);
        double mean = 0;
        for (double l : p.losses)
            mean += l / double(p.losses.size());
        EXPECT_DOUBLE_EQ(p.avgLoss, mean);
        EXPECT_FALSE(p.diverged);
        EXPECT_EQ(p.device, "cpu");
    }
    EXPECT_GE(result.plateauSamplesPerSec(), result.points.front().samplesPerSec);
}

INSTANTIATE_TEST_SUITE_P(Rows, PointsAndFields,
                         testing::ValuesIn(std::vector<NoSyncRow>{{"no-sync on", true}, {"no-sync off", false}}),
                         test::ByName());

// ---- loggedLossShowsTheScaling ---------------------------------------------------------------

// The logged loss is what the lesson's loop prints (scaled.item() * accum_steps): the raw
// mean with division, N times it without, N/(N+1) of it with that divisor, so a student who
// debugs by the log sees the bug. Same samples, same steps: only the scaling differs.
struct VariantRow {
    const char *name;
    std::string variant;
};

class LoggedLossShowsTheScaling : public testing::TestWithParam<VariantRow> {};

TEST_P(LoggedLossShowsTheScaling, AtEveryPoint)
{
    const std::string &variant = GetParam().variant;
    SweepConfig s = smallSweep();
    s.accumGrid = {1, 4, 16};
    s.base.optimizer.lr = 1e-4; // keep every variant finite
    if (variant == "none")
        s.base.scaling = Scaling::None;
    if (variant == "n-plus-1")
        s.base.bug = AccumBug::DivideByNPlusOne;
    const SweepResult r = runSweep(s);
    for (const SweepPoint &p : r.points) {
        const double n = double(p.accumSteps);
        const double expected = variant == "divide" ? 1.0 : variant == "none" ? n : n / (n + 1.0);
        EXPECT_TRUE(std::abs(p.avgLoggedLoss / p.avgLoss - expected) < 1e-9 * expected)
            << "accum " << n << ": logged " << p.avgLoggedLoss << ", raw " << p.avgLoss;
    }
    // Written and read back with the point.
    const CurveFile back = parseCurveJson(curveJson(r).dump());
    EXPECT_DOUBLE_EQ(back.points.back().avgLoggedLoss, r.points.back().avgLoggedLoss);
}

INSTANTIATE_TEST_SUITE_P(Rows, LoggedLossShowsTheScaling,
                         testing::ValuesIn(std::vector<VariantRow>{
                             {"division", "divide"}, {"no division", "none"}, {"divide by N+1", "n-plus-1"}}),
                         test::ByName());

// ---- defaultSweepVisiblyLearns ---------------------------------------------------------------

// The default sweep visibly learns: at every point the mean of the last five timed losses
// is at least 10% of ln(classes) below the mean of the first five. Random labels, the
// lesson's flat line, are the planted case: nothing falls there.
struct LabelsRow {
    const char *name;
    std::string labels;
};

class DefaultSweepVisiblyLearns : public testing::TestWithParam<LabelsRow> {};

TEST_P(DefaultSweepVisiblyLearns, AtEveryPoint)
{
    const std::string &labels = GetParam().labels;
    SweepConfig s; // the CLI's and the window's defaults: lesson MLP, micro 4, grid 1..16, 25 steps
    s.base.device = DeviceRequest::Cpu;
    s.base.labels = labelsFromString(labels);
    const SweepResult r = runSweep(s);
    const double lnC = std::log(double(s.base.modelShape().classes));
    for (const SweepPoint &p : r.points) {
        ASSERT_EQ(p.losses.size(), size_t(25));
        const double first = meanOf(p.losses, 0, 5), last = meanOf(p.losses, p.losses.size() - 5, 5);
        const std::string what =
            "accum " + std::to_string(p.accumSteps) + ": " + std::to_string(first) + " -> " + std::to_string(last);
        if (labels == "teacher")
            EXPECT_TRUE(first - last >= 0.1 * lnC) << what;
        else
            EXPECT_TRUE(first - last < 0.1 * lnC && std::abs(last - lnC) < 0.1 * lnC) << what;
    }
}

INSTANTIATE_TEST_SUITE_P(Rows, DefaultSweepVisiblyLearns,
                         testing::ValuesIn(std::vector<LabelsRow>{{"teacher (default)", "teacher"},
                                                                  {"random", "random"}}),
                         test::ByName());

// ---- blocksInterleaveAcrossTheGrid -----------------------------------------------------------

// The timed steps run in blocks interleaved across the grid (block 0 of every point, then
// block 1, ...), split as evenly as the blocks allow; each block gives one figure and the
// point reports their spread. A sweep that ran the points one after the other, or that
// kept one figure a point, fails here. With equal work (grid 1, 2, 4), numSteps is the
// largest point's and a point with N runs numSteps * 4 / N, rounded up.
struct BlocksRow {
    const char *name;
    int numSteps;
    int repeats;
    int blocks;
    bool equalWork;
    std::vector<int> steps; // per point of the grid 1, 2, 4
};

class BlocksInterleaveAcrossTheGrid : public testing::TestWithParam<BlocksRow> {};

TEST_P(BlocksInterleaveAcrossTheGrid, AndEachPointReportsItsBlocks)
{
    const BlocksRow &row = GetParam();
    const int blocks = row.blocks;
    const std::vector<int> &steps = row.steps;
    auto s = smallSweep();
    s.numSteps = row.numSteps;
    s.repeats = row.repeats;
    s.equalWork = row.equalWork;
    EXPECT_EQ(s.blocks(), int64_t(blocks));
    PointRecorder rec;
    const SweepResult r = runSweep(s, &rec);
    std::vector<std::pair<int64_t, int64_t>> expected;
    for (int b = 0; b < blocks; ++b)
        for (size_t i = 0; i < s.accumGrid.size(); ++i)
            expected.push_back({int64_t(i), b});
    EXPECT_EQ(rec.blocks, expected);
    EXPECT_EQ(rec.steps, std::accumulate(steps.begin(), steps.end(), 0));
    for (size_t i = 0; i < r.points.size(); ++i) {
        SCOPED_TRACE("point " + std::to_string(i));
        const SweepPoint &p = r.points[i];
        EXPECT_EQ(p.steps, int64_t(steps[i]));
        EXPECT_EQ(s.stepsAt(p.accumSteps), p.steps);
        EXPECT_EQ(p.microBatches, p.steps * p.accumSteps);
        EXPECT_EQ(p.blockSamplesPerSec.size(), size_t(blocks));
        EXPECT_TRUE(p.blockMin() <= p.blockQuantile(0.25) && p.blockQuantile(0.25) <= p.blockMedian());
        EXPECT_TRUE(p.blockMedian() <= p.blockQuantile(0.75) && p.blockQuantile(0.75) <= p.blockMax());
        EXPECT_GT(p.blockMin(), 0.0);
    }
    // Each block but a point's last shows the point as measured so far: its blocks up to
    // there (the final point's first ones), its steps, samples/sec over them, no losses.
    EXPECT_EQ(rec.soFar.size(), size_t(blocks - 1) * s.accumGrid.size());
    for (size_t k = 0; k < rec.soFar.size(); ++k) {
        SCOPED_TRACE("block report " + std::to_string(k));
        const auto &[index, p] = rec.soFar[k];
        const size_t block = k / s.accumGrid.size();
        ASSERT_EQ(index, int64_t(k % s.accumGrid.size())); // indexes the points below
        const SweepPoint &final = r.points[size_t(index)];
        EXPECT_EQ(p.effectiveBatch, final.effectiveBatch);
        ASSERT_EQ(p.blockSamplesPerSec.size(), block + 1); // std::equal reads that many of the final's
        EXPECT_TRUE(
            std::equal(p.blockSamplesPerSec.begin(), p.blockSamplesPerSec.end(), final.blockSamplesPerSec.begin()));
        int64_t timed = 0;
        for (size_t b = 0; b <= block; ++b)
            timed += final.steps / blocks + (int64_t(b) < final.steps % blocks ? 1 : 0);
        EXPECT_EQ(p.steps, timed);
        EXPECT_TRUE(p.samplesPerSec > 0.0 && p.medianStepMs > 0.0);
        EXPECT_TRUE(p.losses.empty());
    }
    // Written and read back with the point.
    const CurveFile back = parseCurveJson(curveJson(r).dump());
    EXPECT_EQ(back.points.front().blockSamplesPerSec, r.points.front().blockSamplesPerSec);
}

INSTANTIATE_TEST_SUITE_P(Rows, BlocksInterleaveAcrossTheGrid,
                         testing::ValuesIn(std::vector<BlocksRow>{
                             {"7 steps in 3 blocks", 7, 3, 3, false, {7, 7, 7}},
                             {"one block", 6, 1, 1, false, {6, 6, 6}},
                             {"more repeats than steps", 2, 5, 2, false, {2, 2, 2}},
                             {"equal work, 3 steps at N = 4 in 3 blocks", 3, 3, 3, true, {12, 6, 3}},
                             {"equal work, more repeats than steps", 2, 5, 2, true, {8, 4, 2}},
                         }),
                         test::ByName());

// ---- Single cases ----------------------------------------------------------------------------

// Quantiles interpolate between order statistics: planted figures with known answers.
TEST(Sweep, BlockQuantiles)
{
    SweepPoint p;
    p.samplesPerSec = 7.0;
    EXPECT_DOUBLE_EQ(p.blockMedian(), 7.0); // a lesson file has no blocks: the one figure
    p.blockSamplesPerSec = {40, 10, 30, 20, 50};
    EXPECT_DOUBLE_EQ(p.blockMin(), 10.0);
    EXPECT_DOUBLE_EQ(p.blockMax(), 50.0);
    EXPECT_DOUBLE_EQ(p.blockMedian(), 30.0);
    EXPECT_DOUBLE_EQ(p.blockQuantile(0.25), 20.0);
    EXPECT_DOUBLE_EQ(p.blockQuantile(0.75), 40.0);
    p.blockSamplesPerSec = {10, 20};
    EXPECT_DOUBLE_EQ(p.blockMedian(), 15.0);
    EXPECT_DOUBLE_EQ(p.blockQuantile(0.25), 12.5);
}

// The cost model from planted block costs: each block's costs are the points' means in it,
// samples per micro-batch come from the points (micro x ranks), and a point without phase
// timing leaves no model.
TEST(Sweep, CostModelPredictsFromTheBlocks)
{
    std::vector<SweepPoint> points(2);
    points[0].accumSteps = 1;
    points[0].effectiveBatch = 8; // micro 4 on 2 ranks
    points[0].blockMicroMs = {1.0, 2.0};
    points[0].blockWindowMs = {3.0, 6.0};
    points[1].accumSteps = 4;
    points[1].effectiveBatch = 32;
    points[1].blockMicroMs = {3.0, 4.0};
    points[1].blockWindowMs = {5.0, 6.0};
    const SweepCostModel m = costModelOf(points);
    ASSERT_EQ(m.blocks(), size_t(2)); // predicted() reads blocks 0 and 1
    EXPECT_DOUBLE_EQ(m.samplesPerMicroBatch, 8.0);
    EXPECT_EQ(m.tMicroMs, (std::vector<double>{2.0, 3.0}));
    EXPECT_EQ(m.tWindowMs, (std::vector<double>{4.0, 6.0}));
    EXPECT_DOUBLE_EQ(m.predicted(4, 0), 1000.0 * 4 * 8 / (4 * 2.0 + 4.0));
    EXPECT_DOUBLE_EQ(m.predicted(2.5, 1), 1000.0 * 2.5 * 8 / (2.5 * 3.0 + 6.0));
    EXPECT_DOUBLE_EQ(m.predictedMedian(4), (m.predicted(4, 0) + m.predicted(4, 1)) / 2);
    points[1].blockMicroMs.clear();
    EXPECT_EQ(costModelOf(points).blocks(), size_t(0));
    EXPECT_EQ(costModelOf({}).blocks(), size_t(0));
}

// skip-last-micro at accum_steps 1 runs no micro-batch: refused in words, not shown as a
// divergence; from accum_steps 2 it runs and trains on N - 1 micro-batches.
TEST(Sweep, SkipLastMicroNeedsTwoMicroBatches)
{
    auto s = smallSweep();
    s.base.bug = AccumBug::SkipLastMicro;
    try {
        runSweep(s);
        FAIL() << "a grid starting at 1 was accepted";
    } catch (const ConfigError &e) {
        EXPECT_TRUE(contains(e.what(), "runs no micro-batch")) << e.what();
    }
    s.accumGrid = {2, 4};
    const SweepResult r = runSweep(s);
    for (const SweepPoint &p : r.points) {
        EXPECT_FALSE(p.diverged);
        EXPECT_EQ(p.microBatches, p.steps * p.accumSteps); // drawn and counted; the last one never runs
    }
}

TEST(Sweep, CancelStopsTheSweep)
{
    auto s = smallSweep();
    s.numSteps = 1000;
    CancelToken token;
    struct CancelOnThirdStep : EngineObserver {
        CancelToken *token;
        int n = 0;
        void onStep(const StepResult &) override
        {
            if (++n == 3)
                token->cancel();
        }
    } obs;
    obs.token = &token;
    EXPECT_THROW(runSweep(s, &obs, &token), Cancelled);
    EXPECT_EQ(obs.n, 3);
}

TEST(Sweep, DivergenceIsMarked)
{
    auto s = smallSweep();
    s.base.scaling = Scaling::None;
    s.base.optimizer.lr = 1e3; // no division and a huge step: the loss overflows
    s.accumGrid = {16};
    s.numSteps = 30;
    const auto result = runSweep(s);
    const auto &p = result.points.front();
    EXPECT_TRUE(p.diverged);
    // 1-based over the point's steps, warm-up first; the point stops at that step.
    EXPECT_TRUE(p.divergedAtStep >= 1 && p.divergedAtStep <= s.warmupSteps + s.numSteps) << p.divergedAtStep;
    EXPECT_EQ(p.steps, std::max<int64_t>(0, p.divergedAtStep - s.warmupSteps));
    EXPECT_EQ(divergenceSentence(p).rfind("diverged at step " + std::to_string(p.divergedAtStep) +
                                              " of effective batch 64",
                                          0),
              size_t(0));
}

// Divergence in the warm-up is caught there: no timed step runs on NaN weights.
TEST(Sweep, DivergenceInWarmUp)
{
    auto s = smallSweep();
    s.base.scaling = Scaling::None;
    s.base.optimizer.lr = 1e3; // the largest the config allows
    s.accumGrid = {16};
    s.warmupSteps = 50;
    const auto p = runSweep(s).points.front();
    EXPECT_TRUE(p.diverged);
    EXPECT_TRUE(p.divergedAtStep >= 1 && p.divergedAtStep <= s.warmupSteps) << p.divergedAtStep;
    EXPECT_EQ(p.steps, 0);
    EXPECT_TRUE(std::isnan(p.avgLoss));
    EXPECT_DOUBLE_EQ(p.samplesPerSec, 0.0);
}

// N19 of issue 62: a point whose loss blew up but stayed finite (lr 0.5 on the lesson's model:
// an average loss in the hundreds where the run began near ln(10)) was written "diverged":
// false. The sweep asks core/divergence.h's one rule, and the JSON says what the rule says;
// the lesson's settings hold at every accumulation.
struct BlowUpRow {
    const char *name;
    Scaling scaling;
    double lr;
    int64_t accum;
    bool diverges;
};
class SweepAsksTheDivergenceRule : public testing::TestWithParam<BlowUpRow> {};

TEST_P(SweepAsksTheDivergenceRule, PointAndJsonAgree)
{
    const BlowUpRow &row = GetParam();
    SweepConfig s;
    s.base.device = DeviceRequest::Cpu;
    s.base.microBatch = 4;
    s.base.scaling = row.scaling;
    s.base.optimizer.lr = row.lr;
    s.accumGrid = {row.accum};
    s.numSteps = 25;
    const SweepPoint p = runSweep(s).points.front();
    EXPECT_EQ(p.diverged, row.diverges) << "avg loss " << p.avgLoss;
    const auto j = toJson(p);
    EXPECT_EQ(j.at("diverged").get<bool>(), row.diverges);
    if (!row.diverges) {
        EXPECT_FALSE(j.contains("diverged_reason"));
        return;
    }
    EXPECT_FALSE(p.divergedReason.empty());
    EXPECT_EQ(j.at("diverged_reason").get<std::string>(), p.divergedReason);
    EXPECT_EQ(divergenceSentence(p).find("(" + p.divergedReason + ")") != std::string::npos, true) << divergenceSentence(p);
}

INSTANTIATE_TEST_SUITE_P(Rows, SweepAsksTheDivergenceRule,
                         testing::ValuesIn(std::vector<BlowUpRow>{
                             {"lr 0.5, finite but blown up", Scaling::Divide, 0.5, 1, true},
                             {"no division at 16x, lr 0.5", Scaling::None, 0.5, 16, true},
                             {"the lesson's lr at 1", Scaling::Divide, 0.05, 1, false},
                             {"the lesson's lr at 16", Scaling::Divide, 0.05, 16, false},
                         }),
                         test::ByName());

TEST(Sweep, RejectsBadGrid)
{
    auto s = smallSweep();
    s.accumGrid = {};
    EXPECT_THROW(runSweep(s), ConfigError);
    s.accumGrid = {1, 0};
    EXPECT_THROW(runSweep(s), ConfigError);
}

// --threads 0 picks the count per sweep (threadsFor): one thread for the lesson's micro-batch of
// 4, and for a wider micro-batch LibTorch's own default again after an earlier sweep set another
// count (the window runs many sweeps in one process); a count the environment names keeps
// LibTorch's default, which followed it. It needs a default above one thread: the CTest entry
// portable.sweep_threads starts it with OMP_NUM_THREADS=2, which LibTorch reads at its first use.
TEST(Sweep, AutomaticThreadsPerSweep)
{
    const int byDefault = applyThreads(0); // LibTorch's default, read while the environment names it
    if (byDefault < 2)
        GTEST_SKIP() << "LibTorch's default is one thread here; portable.sweep_threads runs this with OMP_NUM_THREADS=2";
    const char *omp = std::getenv("OMP_NUM_THREADS");
    const std::string ompBefore = omp ? omp : "";
    ::unsetenv("OMP_NUM_THREADS"); // the choice is AccumLab's
    auto threadsOfSweep = [](int64_t micro, int threads) {
        SweepConfig s;
        s.base.device = DeviceRequest::Cpu;
        s.base.microBatch = micro; // the lesson's model
        s.accumGrid = {1};
        s.numSteps = 1;
        s.warmupSteps = 1;
        s.threads = threads;
        return runSweep(s).points.at(0).threads;
    };
    EXPECT_EQ(threadsOfSweep(4, 0), 1);
    EXPECT_EQ(threadsOfSweep(64, 0), byDefault);
    EXPECT_EQ(threadsOfSweep(4, 3), 3);
    EXPECT_EQ(threadsOfSweep(64, 1), 1);
    EXPECT_EQ(threadsOfSweep(64, 0), byDefault);
    ::setenv("OMP_NUM_THREADS", "1", 1);
    EXPECT_EQ(threadsOfSweep(4, 0), byDefault);
    if (omp)
        ::setenv("OMP_NUM_THREADS", ompBefore.c_str(), 1);
    else
        ::unsetenv("OMP_NUM_THREADS");
}

} // namespace
